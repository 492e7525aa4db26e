"""The envs with the ecosystem: returned tensors are the caller's, async vector envs, Gymnasium
wrappers, infos."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import array_api_compat.numpy as xnp
import array_api_compat.torch as xtorch
import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.wrappers.vector import ArrayConversion, NormalizeObservation, RecordEpisodeStatistics

import wordle_gym
from tests.helpers.processes import ROOT
from wordle_gym import WordleVectorEnv

WORDS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade"]


def test_mask_all__writing_to_it_changes_nothing_in_the_env() -> None:
    env = WordleVectorEnv(4, device="cpu", answers=WORDS, allowed=None)
    _, infos = env.reset(seed=0)
    infos["action_mask"][0, 3] = 0  # the caller's tensor (its rows share one row: "all" mode)
    env.action_masks()[1, 2] = False
    _, _, _, _, infos = env.step(torch.zeros(4, dtype=torch.long))
    assert bool(infos["action_mask"].all()) and bool(env.action_masks().all())
    _, infos = env.reset(seed=1)
    assert bool(infos["action_mask"].all())


def test_next_step__zeroing_returned_terminations_keeps_autoreset() -> None:
    env = WordleVectorEnv(3, device="cpu", answers=WORDS, allowed=None, max_guesses=1)
    env.reset(seed=0)
    _, _, terminated, _, _ = env.step(torch.zeros(3, dtype=torch.long))
    assert bool(terminated.all())  # one guess allowed: every game ends
    terminated.zero_()
    obs, rewards, terminated, _, infos = env.step(torch.zeros(3, dtype=torch.long))
    assert (obs == env.observation.initial).all() and (infos["turn"] == 0).all()  # new games began
    assert (rewards == 0).all() and not bool(terminated.any())


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_infos__same_keys_after_reset_and_every_step(mode: str) -> None:
    env = WordleVectorEnv(
        4, device="cpu", answers=WORDS, allowed=None, max_guesses=2, autoreset_mode=mode
    )
    _, infos = env.reset(seed=0)
    keys = set(infos)
    assert infos["action_mask"].dtype == torch.int8 and env.action_masks().dtype == torch.bool
    for _ in range(5):
        _, _, _, _, infos = env.step(torch.arange(4) % len(WORDS))
        assert set(infos) == keys
    if mode == "same_step":
        assert {"final_obs", "_final_obs", "final_info", "_final_info"} <= keys


def test_same_step__final_info_describes_the_game_that_ended() -> None:
    env = WordleVectorEnv(2, device="cpu", answers=WORDS, allowed=None, autoreset_mode="same_step")
    env.reset(options={"answers": ["cigar", "rebut"]})
    guess = torch.tensor([WORDS.index("rebut"), WORDS.index("rebut")])
    obs, _, terminated, _, infos = env.step(guess)  # game 1 is won at once, game 0 goes on
    assert terminated.tolist() == [False, True] and infos["_final_obs"].tolist() == [False, True]
    assert infos["final_info"]["turn"].tolist() == [1, 1] and infos["final_info"][
        "won"
    ].tolist() == [False, True]
    assert infos["turn"].tolist() == [1, 0]  # the turn of the game each observation shows
    assert torch.equal(obs[1], env.observation.initial) and not torch.equal(
        infos["final_obs"][1], obs[1]
    )
    assert torch.equal(infos["final_obs"][0], obs[0])
    obs.zero_()  # the returned tensors are distinct: changing one leaves the other
    assert not torch.equal(infos["final_obs"][0], obs[0])


@pytest.mark.slow
def test_async_vector_env__default_lists_and_start_method() -> None:
    code = textwrap.dedent("""
        import gymnasium as gym, torch, wordle_gym
        # the parent's thread pool is up before the fork
        torch.ones(1000, 1000) @ torch.ones(1000, 1000)
        env = gym.make_vec("Wordle-v0", num_envs=4, vectorization_mode="async")
        obs, info = env.reset(seed=0)
        obs, r, te, tr, info = env.step(env.action_space.sample())
        print(obs.shape, sorted(k for k in info if not k.startswith("_")))
        env.close()
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        "(4, 319) ['action_mask', 'invalid', 'is_success', 'tiles', 'turn', 'won']"
    )


def test_gymnasium_vector_wrappers__through_array_conversion() -> None:
    base = gym.make_vec(
        "Wordle-v0", num_envs=4, device="cpu", answers=WORDS, allowed=None, max_guesses=2
    )
    env = RecordEpisodeStatistics(
        NormalizeObservation(ArrayConversion(base, env_xp=xtorch, target_xp=xnp))
    )
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, np.ndarray) and obs.dtype == np.float32
    episodes = []
    for _ in range(6):
        obs, rewards, _, _, infos = env.step(np.zeros(4, dtype=np.int64))
        assert isinstance(rewards, np.ndarray) and isinstance(infos["action_mask"], np.ndarray)
        if "episode" in infos:
            episodes += infos["episode"]["r"][infos["_episode"]].tolist()
    # a win on guess 1 (-1) or a loss (-2 - 5)
    assert episodes and all(r in (-1.0, -7.0) for r in episodes)


def test_single_env__info_for_sb3_and_sampling() -> None:
    env = gym.make("Wordle-v0", answers=WORDS, allowed=None)
    _, info = env.reset(seed=0)
    # Gymnasium's int8 convention works as it is
    action = env.action_space.sample(mask=info["action_mask"])
    _, _, _, _, info = env.step(action)
    assert info["is_success"] == info["won"] and info["action_mask"].dtype == np.int8


def test_answer_weights__must_be_finite() -> None:
    env = WordleVectorEnv(2, device="cpu", answers=WORDS, allowed=None)
    for bad in (
        torch.full((8,), float("inf")),
        torch.full((8,), float("nan")),
        -torch.ones(8),
        torch.zeros(8),
    ):
        with pytest.raises(
            ValueError, match="answer_weights must be 8 finite non-negative numbers"
        ):
            env.answer_weights = bad


def test_evaluate__refuses_float_actions() -> None:
    from wordle_gym.harness.evaluation import evaluate

    class Floaty:
        def act(self, observations, action_masks, env):
            return action_masks.float().argmax(1).float() + 0.7  # would truncate to a valid index

    with pytest.raises(
        TypeError,
        match=r"Floaty.act returned torch.float32 actions; expected "
        r"integer word indices",
    ):
        evaluate(Floaty(), answers=WORDS, allowed=None, device="cpu", progress=False)


def test_trained_agent__refuses_a_game_of_another_shape() -> None:
    from wordle_agents import A2CAgent, A2CConfig, DQNAgent, DQNConfig

    for agent in (A2CAgent(A2CConfig(hidden=16)), DQNAgent(DQNConfig(hidden=16))):
        cases = [
            ({"max_guesses": 5}, "5-letter words and 5 guesses"),
            ({"answers": ["cat", "act"], "allowed": None}, "3-letter words and 6 guesses"),
        ]
        for options, shown in cases:
            env = WordleVectorEnv(2, device="cpu", **{"answers": WORDS, "allowed": None, **options})
            obs, infos = env.reset(seed=0)
            with pytest.raises(
                ValueError,
                match=f"was built for 5-letter words and 6 guesses; the game has {shown}",
            ):
                agent.act(obs, infos["action_mask"], env)


@pytest.mark.slow
def test_bench__ctrl_c_exits_130_without_a_traceback(tmp_path) -> None:
    import os
    import signal
    import time

    root = ROOT
    env = {**os.environ, "PYTHONPATH": str(root)}
    # Ctrl-C as in a terminal: a shell's background job (CI run with nohup ... &) starts with SIGINT
    # ignored, which the child would inherit (and Python then never raises KeyboardInterrupt).
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordle_gym", "bench", "--out", str(tmp_path), "--device", "cpu"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 60
    while not (tmp_path / "benchmarks" / "results" / "agents").exists() and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # evaluating by now
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err and "interrupted" in err
    assert not list(tmp_path.rglob("*.tmp"))


def test_sync_vector_env_of_single_envs__infos_batch_into_numeric_arrays() -> None:
    """What TorchRL's GymEnv(num_envs=N) and Gymnasium's SyncVectorEnv see: the same keys every
    step, and no object arrays (strings or vanishing keys turn into those)."""
    env = gym.make_vec(
        "Wordle-v0", num_envs=3, vectorization_mode="sync", answers=WORDS, allowed=None
    )
    _, infos = env.reset(seed=0)
    keys = set(infos)
    for _ in range(8):
        _, _, _, _, infos = env.step(env.action_space.sample())
        assert set(infos) == keys and all(np.asarray(v).dtype != object for v in infos.values())


def test_unknown_keyword__worded_as_python_so_wrappers_retry_without_it() -> None:
    """TorchRL's GymEnv passes ``frameskip`` and drops it only when the error says "unexpected
    keyword argument 'frameskip'" (Python's own wording): both makers must say exactly that."""
    for make in (
        lambda: gym.make("Wordle-v0", frameskip=4),
        lambda: gym.make_vec("Wordle-v0", 2, frameskip=4),
    ):
        with pytest.raises(TypeError) as info:
            make()
        assert "unexpected keyword argument 'frameskip'" in str(info.value)
    with pytest.raises(TypeError, match="unexpected keyword arguments 'a', 'b'"):
        gym.make("Wordle-v0", a=1, b=2)


def test_env_spec__round_trips_through_json_with_custom_rewards_and_configs() -> None:
    """What Minari's recover_environment() does: gym.make(EnvSpec.from_json(spec.to_json()))
    rebuilds the env, a custom RewardScheme and a WordleConfig included (JSON gives their fields
    back as dicts)."""
    from gymnasium.envs.registration import EnvSpec

    from wordle_gym import RewardScheme, WordleConfig

    scheme = RewardScheme(step=-2.0, win=(3.0, 1.0), loss=-4.0, green=0.5)
    config = WordleConfig(
        answers=["cigar", "rebut", "sissy"],
        allowed=None,
        max_guesses=4,
        reward=scheme,
        hard_mode=True,
        obs_dtype="float32",
    )
    for kwargs in ({"reward": scheme, "answers": ["cigar", "rebut"]}, {"config": config}, {}):
        env = gym.make("Wordle-v0", **kwargs)
        again = gym.make(EnvSpec.from_json(env.spec.to_json()))
        assert again.unwrapped.config == env.unwrapped.config, kwargs
        first = [e.reset(seed=1)[0] for e in (env, again)]
        steps = [e.step(0)[:2] for e in (env, again)]
        assert (
            np.array_equal(*first)
            and np.array_equal(steps[0][0], steps[1][0])
            and steps[0][1] == steps[1][1]
        )
    with pytest.raises(ValueError, match=r"unknown RewardScheme field\(s\) \['bonus'\]"):
        gym.make("Wordle-v0", reward={"bonus": 1.0})


@pytest.mark.slow
def test_torchrl__gym_env_as_written_with_infos_and_specs() -> None:
    """TorchRL users write ``GymEnv("Wordle-v0")``: it builds (TorchRL's frameskip retry), its specs
    pass ``check_env_specs``, and ``auto_register_info_dict`` reads every info key (arrays, not
    Python ints)."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    env = GymEnv("Wordle-v0", answers=WORDS, allowed=None)
    check_env_specs(env)
    env = GymEnv("Wordle-v0", answers=WORDS, allowed=None).auto_register_info_dict()
    check_env_specs(env)
    rollout = env.rollout(6)
    keys = {key[1] for key in rollout.keys(True) if isinstance(key, tuple) and key[0] == "next"}
    assert {"action_mask", "turn", "tiles", "invalid", "won", "is_success"} <= keys
    assert (
        rollout["next", "tiles"].dtype == torch.uint8 and rollout["next", "won"].dtype == torch.bool
    )


@pytest.mark.slow
def test_torchrl__gym_env_with_num_envs() -> None:
    """``GymEnv(..., num_envs=N)`` runs Gymnasium's AsyncVectorEnv, whose workers import nothing:
    the id names the module that registers it (``"wordle_gym:Wordle-v0"``, Gymnasium's syntax)."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv

    envs = GymEnv("wordle_gym:Wordle-v0", num_envs=2, answers=WORDS, allowed=None)
    rollout = envs.rollout(3)
    assert rollout.batch_size[0] == 2 and rollout["next", "reward"].shape[-1] == 1
    envs.close()


@pytest.mark.parametrize("name", ["Wordle-v1", "WordleHard-v1", "WordleNYT-v1"])
def test_v1__float_observations_and_each_api_s_mask_dtype(name: str) -> None:
    """``-v1``: float32 observations in both envs; ``info["action_mask"]`` int8 in the numpy env
    (what ``action_space.sample(mask)`` takes), bool in the torch vector env (what ``masked_fill``
    takes)."""
    from gymnasium.utils.env_checker import check_env

    env = gym.make(name)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert (
        obs.dtype == np.float32
        and env.observation_space.dtype == np.float32
        and obs in env.observation_space
    )
    assert info["action_mask"].dtype == np.int8
    env.action_space.sample(mask=info["action_mask"])
    v0 = gym.make(name.replace("-v1", "-v0"))
    obs0, _ = v0.reset(seed=0)
    assert obs0.dtype == np.int8 and np.array_equal(obs0.astype(np.float32), obs)  # the same game
    envs = gym.make_vec(name, num_envs=3, device="cpu")
    obs, infos = envs.reset(seed=0)
    assert obs.dtype == torch.float32 and infos["action_mask"].dtype == torch.bool
    obs, _, _, _, infos = envs.step(torch.tensor([0, 1, 2]))
    assert infos["action_mask"].dtype == torch.bool and torch.equal(
        infos["action_mask"], envs.action_masks()
    )
    with pytest.raises(ValueError, match="unknown mask_dtype 'float'"):
        gym.make("Wordle-v0", mask_dtype="float")


def test_v1__default_networks_take_the_observations_unchanged() -> None:
    """A plain torch MLP (CleanRL), SB3's default MlpPolicy and TorchRL's MLP on Wordle-v1, with no
    cast."""
    envs = gym.make_vec("Wordle-v1", num_envs=4, device="cpu", answers=WORDS, allowed=None)
    obs, infos = envs.reset(seed=0)
    net = torch.nn.Sequential(
        torch.nn.Linear(obs.shape[1], 16), torch.nn.Tanh(), torch.nn.Linear(16, len(WORDS))
    )
    actions = net(obs).masked_fill(~infos["action_mask"], float("-inf")).argmax(-1)
    envs.step(actions)
    from stable_baselines3 import PPO

    env = gym.make("Wordle-v1", answers=WORDS, allowed=None)
    model = PPO(
        "MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, device="cpu", seed=0
    ).learn(32)
    obs, _ = env.reset(seed=0)
    assert env.action_space.contains(int(model.predict(obs, deterministic=True)[0]))
    if importlib.util.find_spec("torchrl") is not None:
        from torchrl.envs import GymEnv
        from torchrl.modules import MLP

        rl_env = GymEnv("Wordle-v1", answers=WORDS, allowed=None)
        td = rl_env.reset()
        assert MLP(out_features=len(WORDS), num_cells=[16])(td["observation"]).shape == (
            len(WORDS),
        )


def _torchrl_env(num_envs: int, **options):
    pytest.importorskip("torchrl")
    from torchrl.envs import ActionMask, TransformedEnv

    from wordle_gym.integrations.torchrl import WordleTorchRLEnv

    return TransformedEnv(WordleTorchRLEnv(num_envs, device="cpu", **options), ActionMask())


@pytest.mark.parametrize("categorical", [True, False])
def test_torchrl_native__specs_partial_resets_and_masks(categorical: bool) -> None:
    """The TorchRL-native env: specs pass ``check_env_specs``; ``rollout`` past the end of games
    resets only those (TorchRL's ``_reset``); ``ActionMask`` keeps every sampled action allowed
    (hard mode); the same seed gives the same rollout."""
    from torchrl.envs.utils import check_env_specs

    env = _torchrl_env(
        5, answers=WORDS, allowed=None, hard_mode=True, categorical_action_encoding=categorical
    )
    check_env_specs(env)
    rollouts = []
    for _ in range(2):
        env.set_seed(3)  # the answers
        torch.manual_seed(3)  # TorchRL's random actions
        rollouts.append(env.rollout(14, break_when_any_done=False))
    r = rollouts[0]
    assert r.batch_size == (5, 14) and r["observation"].dtype == torch.float32
    assert torch.equal(r["action"], rollouts[1]["action"]) and torch.equal(
        r["observation"], rollouts[1]["observation"]
    )
    turn, done = r["turn"].squeeze(-1), r["next", "done"].squeeze(-1)
    # a game that ended starts again
    assert bool(done.any()) and bool((turn[:, 1:][done[:, :-1]] == 0).all())
    # the others go on
    assert bool((turn[:, 1:][~done[:, :-1]] == turn[:, :-1][~done[:, :-1]] + 1).all())
    assert torch.equal(
        r["next", "observation"][:, :-1][~done[:, :-1]], r["observation"][:, 1:][~done[:, :-1]]
    )
    action = r["action"] if categorical else r["action"].long().argmax(-1)
    assert bool(r["action_mask"].gather(-1, action.unsqueeze(-1)).all())  # hard mode: never refused
    # Rewards are the game's: -1 per guess, -5 more for a loss, and a win ends the game.
    reward, won = r["next", "reward"].squeeze(-1), r["next", "won"].squeeze(-1)
    assert bool((reward[~done] == -1).all()) and bool((reward[done & ~won] == -6).all())
    assert bool((done[won]).all())


def test_torchrl_native__a_tiny_quordle() -> None:
    """Multi-board games as a TorchRL env (boards=4): specs pass ``check_env_specs``; a game ends
    when every board is solved or after K + 5 guesses, and only the games that ended start again."""
    from torchrl.envs.utils import check_env_specs

    env = _torchrl_env(6, answers=WORDS, allowed=None, boards=4)
    assert env.base_env.wordle.multi_board
    check_env_specs(env)
    env.set_seed(5)
    torch.manual_seed(5)
    r = env.rollout(30, break_when_any_done=False)
    turn, done, won = (
        r["turn"].squeeze(-1),
        r["next", "done"].squeeze(-1),
        r["next", "won"].squeeze(-1),
    )
    assert bool(done.any()) and bool((turn[:, 1:][done[:, :-1]] == 0).all())
    assert int(r["next", "turn"].max()) <= 9 and bool(
        (r["next", "turn"].squeeze(-1)[done & ~won] == 9).all()
    )
    assert bool(r["action_mask"].gather(-1, r["action"].unsqueeze(-1)).all())


def test_torchrl_native__refuses_settings_it_owns() -> None:
    pytest.importorskip("torchrl")
    from wordle_gym.integrations.torchrl import WordleTorchRLEnv

    with pytest.raises(TypeError, match="sets autoreset_mode and mask_dtype itself"):
        WordleTorchRLEnv(2, device="cpu", autoreset_mode="same_step")


def test_minari__dataset_round_trip_recovers_a_custom_env(tmp_path, monkeypatch) -> None:
    """Minari's DataCollector -> create_dataset -> load_dataset -> recover_environment() gives back
    the env, custom RewardScheme included (its spec's JSON rebuilds it)."""
    minari = pytest.importorskip("minari")
    pytest.importorskip("h5py")
    pytest.importorskip("jax")  # minari's DataCollector needs it ("minari[create]")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    scheme = wordle_gym.RewardScheme(step=-2.0, loss=-3.0)
    env = minari.DataCollector(
        gym.make("Wordle-v1", answers=WORDS, allowed=None, reward=scheme, max_guesses=4)
    )
    env.reset(seed=0)
    for _ in range(3):
        env.reset()
        while not env.step(env.action_space.sample())[2]:
            pass
    with pytest.warns(UserWarning, match="eval_env"):
        env.create_dataset(
            dataset_id="wordle/test-v0",
            algorithm_name="random",
            author="wordle-gym tests",
            author_email="tests@localhost",
            code_permalink="tests/integrations/test_interop.py",
            description="three random games",
        )
    dataset = minari.load_dataset("wordle/test-v0")
    assert dataset.total_episodes == 3
    episode = next(dataset.iterate_episodes())
    assert episode.observations.dtype == np.float32 and set(episode.rewards) <= {-2.0, -5.0}
    recovered = dataset.recover_environment()
    assert (
        recovered.unwrapped.config.reward_fn == scheme
        and recovered.unwrapped.config.max_guesses == 4
    )
    recovered.reset(seed=0, options={"answer": "cigar"})
    assert recovered.step(WORDS.index("rebut"))[1] == -2.0


def test_torchrl__gym_wrapper_of_the_vector_env_with_autoreset_disabled() -> None:
    """``GymWrapper(gym.make_vec(..., autoreset_mode="disabled"))``, the mode TorchRL asks for,
    passes ``check_env_specs`` and rolls out past the ends of games (TorchRL resets them with
    ``reset_mask``)."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymWrapper
    from torchrl.envs.utils import check_env_specs

    def make(mode: str) -> gym.vector.VectorEnv:
        return gym.make_vec(
            "Wordle-v1", num_envs=3, device="cpu", answers=WORDS, allowed=None, autoreset_mode=mode
        )

    env = GymWrapper(make("disabled"))
    check_env_specs(env)
    rollout = env.rollout(9, break_when_any_done=False)
    assert rollout.batch_size == (3, 9) and rollout["observation"].dtype == torch.float32
    assert bool(rollout["next", "done"].any())
    with pytest.raises(RuntimeError, match="SAME_STEP or DISABLED"):  # TorchRL's own rule
        GymWrapper(make("next_step"))


def test_torchrl_native__board_observations_and_bad_one_hot_actions() -> None:
    """Regression (issue 42): observation="board" failed to build (its spec bounds were expanded as
    if flat), and a one-hot action that was all zeros or several ones silently guessed word 0."""
    pytest.importorskip("torchrl")
    from torchrl.envs.utils import check_env_specs

    from wordle_gym.integrations.torchrl import WordleTorchRLEnv

    env = WordleTorchRLEnv(
        num_envs=3, observation="board", answers=WORDS, allowed=None, device="cpu"
    )
    check_env_specs(env)
    assert env.reset()["observation"].shape == (3, 2, 6, 5)
    env = WordleTorchRLEnv(
        3, categorical_action_encoding=False, answers=WORDS, allowed=None, device="cpu"
    )
    for action in (torch.zeros(3, len(WORDS)), torch.ones(3, len(WORDS))):
        state = env.reset()
        state["action"] = action.long()
        with pytest.raises(
            ValueError,
            match="one-hot action of game 0 has .* nonzero entries; expected exactly one",
        ):
            env.step(state)
    state = env.reset()
    state["action"] = torch.nn.functional.one_hot(torch.tensor([1, 2, 3]), len(WORDS))
    assert env.step(state)["next", "turn"].flatten().tolist() == [1, 1, 1]
