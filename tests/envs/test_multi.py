"""Multi-board Wordle (Dordle..Duotrigordle): the rules per board against the reference, the single
and vector envs held to each other and to one-board Wordle step by step, the registrations, errors
and rendering."""

from __future__ import annotations

import math
import random
import warnings

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env

from tests.helpers.lists import small_lists
from tests.helpers.reference import consistent, feedback_ref
from wordle_gym import MultiWordleEnv, MultiWordleVectorEnv, WordleEnv, WordleVectorEnv
from wordle_gym.core.boards import distinct_answers
from wordle_gym.core.config import BOARD_NAMES
from wordle_gym.core.game import NO_TILE


def random_actions(rng: random.Random, vec: MultiWordleVectorEnv) -> torch.Tensor:
    """Random guesses, a third of them the answer of a random unsolved board (so boards get
    solved)."""
    actions = []
    answers, solved = vec.state.answers.tolist(), vec.state.solved.tolist()
    for n in range(vec.num_envs):
        open_boards = [a for a, s in zip(answers[n], solved[n], strict=True) if not s]
        if open_boards and rng.random() < 0.35:
            actions.append(int(vec.game.game.answer_actions[rng.choice(open_boards)]))
        else:
            actions.append(rng.randrange(vec.vocabulary.num_allowed))
    return torch.tensor(actions)


@pytest.mark.parametrize("boards", [2, 4, 7])
def test_multi__every_board_follows_the_reference_rules(boards: int) -> None:
    answers, allowed = small_lists(seed=boards, answers=40, guesses=120)
    vec = MultiWordleVectorEnv(
        16,
        answers=answers,
        allowed=allowed,
        boards=boards,
        action_mask="candidates",
        device="cpu",
        autoreset_mode="disabled",
    )
    vec.reset(seed=3)
    rng = random.Random(boards)
    histories = [[[] for _ in range(boards)] for _ in range(vec.num_envs)]
    games = turns = 0
    for step in range(100):
        words = [[answers[i] for i in row] for row in vec.state.answers.tolist()]
        was_solved = vec.state.solved.clone()
        turn_before = vec.state.turn.clone()
        actions = random_actions(rng, vec)
        _, reward, terminated, _, info = vec.step(actions)
        for n in range(vec.num_envs):
            guess = allowed[int(actions[n])]
            for k in range(boards):
                tiles = tuple(info["tiles"][n, k].tolist())
                if was_solved[n, k]:
                    assert tiles == (NO_TILE,) * len(guess)  # a solved board gets no feedback
                else:
                    assert tiles == feedback_ref(guess, words[n][k])
                    histories[n][k].append((guess, tiles))
                    assert bool(info["solved"][n, k]) == (guess == words[n][k])
            assert bool(info["won"][n]) == (bool(terminated[n]) and bool(info["solved"][n].all()))
            assert int(info["turn"][n]) == int(turn_before[n]) + 1
            if terminated[n]:
                games += 1
                assert bool(info["solved"][n].all()) or int(info["turn"][n]) == boards + 5
                expected = -int(info["turn"][n]) - (0 if info["won"][n] else 5)
                assert float(reward[n]) == -1.0 - (0 if info["won"][n] else 5)
                assert expected <= -1
            else:
                assert float(reward[n]) == -1.0
        # The "candidates" mask: the answers still possible on an unsolved board, as the reference
        # says.
        mask = info["action_mask"].bool()
        for n in range(step % 4, vec.num_envs, 4):
            if terminated[n]:
                continue
            solved = vec.state.solved[n].tolist()
            possible = {
                w
                for k in range(boards)
                if not solved[k]
                for w in answers
                if consistent(w, histories[n][k])
            }
            assert {allowed[i] for i in mask[n].nonzero().flatten().tolist()} == possible
        turns += 1
        if bool(terminated.any()):  # new games where they ended, with histories that start over
            vec.reset(options={"reset_mask": terminated})
            for n in terminated.nonzero().flatten().tolist():
                histories[n] = [[] for _ in range(boards)]
    assert games > 10 and turns == 100


@pytest.mark.parametrize("mask", ["all", "candidates"])
def test_multi__compiled_step_equals_torch_step_by_step(mask: str) -> None:
    """On the CPU, big batches run the step's compiled copies (wordle_gym.core._kernels: feedback,
    knowledge, resets, the observation with its solved block); here every step of a small Quordle
    batch runs them, held to the torch engine step by step, with autoreset."""
    rng = random.Random(4)
    answers, allowed = small_lists(seed=4, answers=40, guesses=120)

    def make():
        return MultiWordleVectorEnv(
            32, answers=answers, allowed=allowed, boards=4, action_mask=mask
        )

    compiled, torch_ = make(), make()
    compiled.game.game.compiled_from, torch_.game.game.compiled_from = 0, 10**9
    outs = [env.reset(seed=9) for env in (compiled, torch_)]
    finished = 0
    for t in range(40):
        assert torch.equal(outs[0][0], outs[1][0]), t
        actions = random_actions(rng, compiled)
        outs = [env.step(actions) for env in (compiled, torch_)]
        for a, b in zip(outs[0][1:4], outs[1][1:4], strict=True):
            assert torch.equal(a, b), t
        for key in ("tiles", "solved", "won", "turn", "action_mask"):
            assert torch.equal(outs[0][4][key], outs[1][4][key]), (t, key)
        finished += int(outs[0][2].sum())
    assert finished > 32


def test_multi__one_board_plays_exactly_as_wordle() -> None:
    """boards=1 through the multi-board engine equals the Wordle vector env, step by step."""
    answers, allowed = small_lists(seed=5, answers=30, guesses=80)
    kwargs = {
        "answers": answers,
        "allowed": allowed,
        "action_mask": "candidates",
        "reward": "tile-shaped",
    }
    multi = MultiWordleVectorEnv(16, boards=1, device="cpu", **kwargs)
    single = WordleVectorEnv(16, device="cpu", **kwargs)
    start = torch.randint(len(answers), (16,), generator=torch.Generator().manual_seed(0))
    multi.reset(options={"answers": start[:, None]})
    single.reset(options={"answers": start})
    rng = random.Random(0)
    for _ in range(200):
        actions = random_actions(rng, multi)
        a = multi.step(actions)
        b = single.step(actions)
        ended = b[2]
        assert torch.equal(a[1], b[1]) and torch.equal(a[2], b[2])
        assert torch.equal(a[4]["tiles"][:, 0], b[4]["tiles"]) and torch.equal(
            a[4]["won"], b[4]["won"]
        )
        assert torch.equal(a[4]["action_mask"], b[4]["action_mask"]) and torch.equal(
            a[4]["turn"], b[4]["turn"]
        )
        if bool(ended.any()):  # the same answers for the games that start next
            fresh = torch.randint(
                len(answers), (16,), generator=torch.Generator().manual_seed(int(ended.sum()))
            )
            multi.reset(options={"answers": fresh[:, None], "reset_mask": ended})
            single.reset(options={"answers": fresh, "reset_mask": ended})


def test_multi__single_env_equals_vector_env_and_seeds_repeat() -> None:
    answers, allowed = small_lists(seed=4, answers=60, guesses=300)
    kwargs = {"answers": answers, "allowed": allowed, "action_mask": "candidates"}
    env = gym.make("Quordle-v1", **kwargs)
    vec = gym.make_vec("Quordle-v1", num_envs=1, device="cpu", autoreset_mode="disabled", **kwargs)
    rng = random.Random(1)
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        again = gym.make("Quordle-v1", **kwargs)
        assert (
            again.reset(seed=seed)[0].tolist() == obs.tolist()
            and again.unwrapped.answers == env.unwrapped.answers
        )
        vobs, vinfo = vec.reset(options={"answers": [env.unwrapped.answers]})
        assert np.array_equal(vobs[0].numpy(), obs)
        done = False
        while not done:
            mask = info["action_mask"]
            action = (
                int(rng.choice(np.flatnonzero(mask)))
                if rng.random() < 0.7
                else rng.randrange(len(mask))
            )
            obs, reward, done, truncated, info = env.step(action)
            vobs, vreward, vdone, _, vinfo = vec.step(torch.tensor([action]))
            assert (
                np.array_equal(vobs[0].numpy(), obs)
                and float(vreward[0]) == reward
                and bool(vdone[0]) == done
            )
            for key, value in info.items():
                assert value.dtype == vinfo[key].numpy().dtype or key == "action_mask", key
                assert np.array_equal(
                    np.asarray(vinfo[key][0].numpy(), dtype=value.dtype), value
                ), key
            assert not truncated
        assert int(info["turn"]) <= 9
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize(
    "env_id", [f"{name}-v{v}" for name in BOARD_NAMES.values() for v in (0, 1)]
)
def test_registrations__every_board_count_passes_check_env_without_a_warning(env_id: str) -> None:
    boards = {name: k for k, name in BOARD_NAMES.items()}[env_id[:-3]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if env_id.endswith("-v0"):  # Gymnasium says that v1 exists, as for Wordle-v0
            warnings.filterwarnings("ignore", "(?s).*out of date", DeprecationWarning)
        env = gym.make(env_id, answers=small_lists(seed=2, answers=40, guesses=60)[0], allowed=None)
        check_env(env.unwrapped, skip_render_check=True)
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, MultiWordleEnv)
    assert unwrapped.config.boards == boards and unwrapped.config.max_guesses == boards + 5
    layout = unwrapped.observation.layout
    assert env.observation_space.shape == (layout.size,) == (boards * (52 * 5 + 53) + boards + 6,)
    assert env.observation_space.dtype == (np.float32 if env_id.endswith("v1") else np.int8)


def test_boards_option__of_the_wordle_ids_and_its_errors() -> None:
    env = gym.make("Wordle-v1", boards=4)
    assert isinstance(env.unwrapped, MultiWordleEnv) and env.unwrapped.config.max_guesses == 9
    assert isinstance(gym.make("Wordle-v1", boards=1).unwrapped, WordleEnv)
    vec = gym.make_vec("Wordle-v1", num_envs=3, boards=8, device="cpu")
    assert isinstance(vec, MultiWordleVectorEnv) and vec.observation_space.shape[0] == 3
    assert isinstance(gym.make_vec("Wordle-v1", num_envs=2, device="cpu"), WordleVectorEnv)
    with pytest.raises(ValueError, match="boards must be an integer from 1 to 32; got 33"):
        gym.make("Wordle-v1", boards=33)
    with pytest.raises(ValueError, match="hard_mode is not defined for boards=4"):
        gym.make("WordleHard-v1", boards=4)
    with pytest.raises(ValueError, match="action_mask 'hard' needs hard_mode"):
        gym.make("Quordle-v1", action_mask="hard")
    with pytest.raises(
        ValueError, match="boards=4 needs as many distinct answers; the answer list has 3"
    ):
        gym.make("Quordle-v1", answers=["cigar", "rebut", "sissy"], allowed=None)
    with pytest.raises(ValueError, match="WordleEnv plays one board; boards=2 is MultiWordleEnv"):
        WordleEnv(boards=2)
    assert gym.make("Quordle-v1", max_guesses=12).unwrapped.config.max_guesses == 12


def test_reset_answers__fixed_validated_and_distinct() -> None:
    env = MultiWordleEnv(boards=3)
    env.reset(options={"answers": ["cigar", "rebut", 2]})
    assert env.unwrapped.answers == ["cigar", "rebut", env.vocabulary.answers[2]]
    with pytest.raises(
        ValueError, match="distinct answers; game 0 has \\['cigar', 'cigar', 'rebut'\\]"
    ):
        env.reset(options={"answers": ["cigar", "cigar", "rebut"]})
    with pytest.raises(ValueError, match="each game needs 3 answers \\(one per board\\); got 2"):
        env.reset(options={"answers": ["cigar", "rebut"]})
    with pytest.raises(
        TypeError, match="answers must be a list of 3 words or indices; got 'cigar'"
    ):
        env.reset(options={"answers": "cigar"})
    with pytest.raises(ValueError, match="unknown reset options \\['answer'\\]"):
        env.reset(options={"answer": "cigar"})
    vec = MultiWordleVectorEnv(2, boards=2, device="cpu")
    with pytest.raises(ValueError, match="expected answers of shape \\(2, 2\\)"):
        vec.reset(options={"answers": np.zeros(4, dtype=np.int64)})
    with pytest.raises(ValueError, match="answer index 9999 is out of range"):
        vec.reset(options={"answers": np.array([[0, 1], [2, 9999]])})
    with pytest.raises(ValueError, match="answer_weights give 1 answers a chance; 2 boards"):
        vec.answer_weights = torch.nn.functional.one_hot(
            torch.tensor(3), vec.vocabulary.num_answers
        ).float()
    assert vec.answer_weights is None
    weights = torch.zeros(vec.vocabulary.num_answers)
    weights[[5, 7]] = 1.0
    vec.answer_weights = weights
    vec.reset(seed=0)
    assert sorted(vec.state.answers[0].tolist()) == [5, 7] == sorted(vec.state.answers[1].tolist())


def test_distinct_answers__distinct_in_every_game_and_uniform() -> None:
    generator = torch.Generator().manual_seed(0)
    picks = distinct_answers(20000, 4, 6, generator, torch.device("cpu"))
    assert all(len(set(row)) == 4 for row in picks.tolist())
    counts = torch.bincount(picks.flatten(), minlength=6).float()
    assert (counts / counts.sum() - 1 / 6).abs().max() < 0.01  # each answer 1/6 of the boards
    first = torch.bincount(picks[:, 3], minlength=6).float() / 20000
    assert (first - 1 / 6).abs().max() < 0.015  # the last board too, not only the first
    assert sorted(distinct_answers(1, 6, 6, generator, torch.device("cpu"))[0].tolist()) == list(
        range(6)
    )


def test_render__boards_side_by_side_as_text_and_image() -> None:
    env = MultiWordleEnv(boards=2, render_mode="ansi")
    env.reset(options={"answers": ["cigar", "rebut"]})
    env.step(env.vocabulary.action("cigar"))
    env.step(env.vocabulary.action("rebus"))
    text = env.render()
    lines = text.splitlines()
    assert lines[0].split() == ["solved", "board", "2"]
    assert "[C][I][G][A][R]" in lines[1] and "[R][E][B][U]" in lines[2] and len(lines) == 1 + 7
    assert lines[2].startswith(" _ ")  # the solved board shows nothing after its answer
    image = MultiWordleEnv(boards=2, render_mode="rgb_array")
    image.reset(seed=0)
    one = WordleEnv(render_mode="rgb_array", max_guesses=7)
    one.reset(seed=0)
    board = one.render()
    assert image.render().shape == (board.shape[0], 2 * board.shape[1] + 12, 3)
    vec = MultiWordleVectorEnv(20, boards=2, device="cpu", render_mode="ansi")
    vec.reset(seed=0)
    assert len(vec.render()) == 16


def test_vector__autoreset_modes_and_memory_check() -> None:
    for mode in ("next_step", "same_step"):
        vec = MultiWordleVectorEnv(64, boards=2, device="cpu", autoreset_mode=mode)
        obs, _ = vec.reset(seed=0)
        ended = 0
        for _ in range(30):
            obs, _, terminated, _, info = vec.step(torch.randint(vec.vocabulary.num_allowed, (64,)))
            ended += int(terminated.sum())
            assert set(info) >= {
                "action_mask",
                "turn",
                "tiles",
                "solved",
                "invalid",
                "won",
                "is_success",
            }
            if mode == "same_step":
                assert torch.equal(
                    obs[terminated], vec.observation.initial.expand(int(terminated.sum()), -1)
                )
        assert ended >= 64  # every game ends within 7 random guesses
    with pytest.raises(ValueError, match="needs about .* GiB at its steps' peak"):
        MultiWordleVectorEnv(10**9, boards=32, device="cpu")


def test_memory_guard__counts_a_steps_peak_against_the_memory_available(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression (issue 62): Duotrigordle peaked at about twice the guard's estimate (its state,
    masks and observations), and 160,000 games with "candidates" passed the guard on total memory,
    then met the OOM killer. The guard counts the step's peak (PEAK_FACTOR) against the memory
    available now."""
    import wordle_gym.envs.vector as vector

    small = MultiWordleVectorEnv(1, boards=32, device="cpu", action_mask="candidates")
    per_game = vector._nbytes(small.game.new_state(1))
    per_game += small.vocabulary.num_allowed + 4 * math.prod(small.single_observation_space.shape)
    kept = 1000 * per_game
    # the old guard passed this
    monkeypatch.setattr(vector, "_device_memory", lambda device: int(1.5 * kept))
    with pytest.raises(
        ValueError,
        match=r"num_envs=1,000 needs about .* GiB at its steps' peak .* "
        r"available",
    ):
        MultiWordleVectorEnv(1000, boards=32, device="cpu", action_mask="candidates")
    monkeypatch.setattr(vector, "_device_memory", lambda device: int(vector.PEAK_FACTOR * kept) + 1)
    MultiWordleVectorEnv(1000, boards=32, device="cpu", action_mask="candidates")


@pytest.mark.slow
@pytest.mark.parametrize("mask", ["all", "candidates"])
def test_memory_guard__a_steps_real_peak_is_within_its_estimate(mask: str) -> None:
    """The peak resident memory of 4,000 Duotrigordle games stepping (in a fresh process, on Linux)
    stays within the guard's estimate of it."""
    import subprocess
    import sys

    from tests.helpers.processes import ROOT

    code = f"""
import math, torch, gymnasium as gym, wordle_gym
import wordle_gym.envs.vector as vector
def peak():  # this process's peak resident memory (VmHWM: ru_maxrss counts the forking parent's)
    status = open("/proc/self/status")
    return next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmHWM:"))
before = peak()
env = gym.make_vec("Duotrigordle-v1", num_envs=4000, device="cpu", action_mask={mask!r})
u = env.unwrapped
per_game = vector._nbytes(u.game.new_state(1)) + u.vocabulary.num_allowed
per_game += 4 * math.prod(u.single_observation_space.shape)
env.reset(seed=0)
generator = torch.Generator().manual_seed(0)
for _ in range(4):
    env.step(torch.randint(12972, (4000,), generator=generator))
print((peak() - before) / (4000 * per_game))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    import wordle_gym.envs.vector as vector

    assert 0.5 < float(out.stdout.strip().splitlines()[-1]) <= vector.PEAK_FACTOR


def test_make__a_device_for_the_single_env_is_a_clear_type_error() -> None:
    """Reliability 5, finding 11: ``gym.make("Quordle-v1", device="cpu")`` raised "got multiple
    values for keyword argument 'device'" from inside the env; it is the same clear TypeError as
    Wordle-v1's, pointing to make_vec."""
    import gymnasium as gym

    for env_id in ("Quordle-v1", "Wordle-v1"):
        with pytest.raises(TypeError, match=r"unexpected keyword argument 'device'.*make_vec"):
            gym.make(env_id, device="cpu")
