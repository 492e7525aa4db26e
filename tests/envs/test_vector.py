"""Layers (d) and (e): the vector env agrees with the single env, on CPU and on CUDA."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

import wordle_gym
import wordle_gym.core._kernels
from wordle_gym import WordleEnv, WordleVectorEnv
from wordle_gym.core.words import stage_words

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)]
CONFIGS = [
    {},
    {"hard_mode": True},
    {"action_mask": "candidates", "reward": "tile-shaped"},
    {"observation": "board", "reward": "win-bonus", "hard_mode": True, "action_mask": "all"},
    {
        "answers": ["cat", "act", "tac", "cot"],
        "allowed": ["cat", "act", "tac", "cot", "tic"],
        "max_guesses": 3,
    },
]


def pick_actions(
    rng: random.Random, masks: torch.Tensor, vec: WordleVectorEnv | None = None
) -> torch.Tensor:
    """Random actions: some from the mask, some anywhere (refusals in hard mode) and, given the
    env, some the true answer (so that games are won)."""
    actions = []
    answers = None if vec is None else vec.game.answer_actions[vec.state.answers].tolist()
    for i, row in enumerate(masks.cpu()):
        roll = rng.random()
        if answers is not None and roll < 0.15:
            actions.append(answers[i])
        elif roll < 0.6:
            actions.append(rng.choice(torch.nonzero(row).flatten().tolist()))
        else:
            actions.append(rng.randrange(len(row)))
    return torch.tensor(actions)


def _same_info_layout(infos: dict, single_info: dict) -> None:
    """One name per thing: the single env's info has the vector env's keys (less the autoreset
    ones), each with the same dtype and the shape of one game's row."""
    keys = {key for key in infos if not key.startswith(("final_", "_final_"))}
    assert keys == set(single_info)
    for key in keys:
        one, many = np.asarray(single_info[key]), infos[key].cpu().numpy()
        assert (one.dtype, one.shape) == (many.dtype, many.shape[1:]), key


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("device", DEVICES)
def test_vector__matches_single_env_step_by_step(config: dict, device: str) -> None:
    rng = random.Random(0)
    num = 16
    vec = WordleVectorEnv(num, device=device, **config)
    singles = [WordleEnv(**config) for _ in range(num)]
    obs, infos = vec.reset(seed=11)
    assert obs.device.type == device
    for i, env in enumerate(singles):
        single_obs, single_info = env.reset(options={"answer": int(vec.state.answers[i])})
        assert np.array_equal(obs[i].cpu().numpy(), single_obs)
        assert np.array_equal(
            infos["action_mask"][i].cpu().numpy(), single_info["action_mask"].astype(bool)
        )
        _same_info_layout(infos, single_info)
    pending = [False] * num
    wins = refusals = 0
    for _ in range(30):
        actions = pick_actions(rng, infos["action_mask"], vec)
        obs, rewards, terms, truncs, infos = vec.step(actions.to(device))
        assert not truncs.any()
        for i, env in enumerate(singles):
            if pending[i]:  # the vector env started a new game here; mirror it
                single_obs, single_info = env.reset(options={"answer": int(vec.state.answers[i])})
                assert (float(rewards[i]), bool(terms[i])) == (0.0, False)
            else:
                single_obs, reward, term, _, single_info = env.step(int(actions[i]))
                assert float(rewards[i]) == pytest.approx(reward)
                assert bool(terms[i]) == term
                assert np.array_equal(infos["tiles"][i].cpu().numpy(), single_info["tiles"])
                assert bool(infos["invalid"][i]) == single_info["invalid"]
                wins += bool(infos["won"][i])
                refusals += single_info["invalid"]
                _same_info_layout(infos, single_info)
            assert np.array_equal(obs[i].cpu().numpy(), single_obs)
            assert np.array_equal(
                infos["action_mask"][i].cpu().numpy(), single_info["action_mask"].astype(bool)
            )
            assert int(infos["turn"][i]) == single_info["turn"]
        pending = terms.cpu().tolist()
    assert wins > 0  # the test exercised wins (and, in hard mode, refusals)
    if config.get("hard_mode") and config.get("action_mask") == "all":
        assert refusals > 0


@pytest.mark.parametrize("device", DEVICES)
def test_vector__same_step_autoreset(device: str) -> None:
    vec = WordleVectorEnv(3, device=device, autoreset_mode="same_step", max_guesses=2)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    vec.reset(options={"answers": ["parry", "cigar", "parry"]})
    single = WordleEnv(max_guesses=2)
    single.reset(options={"answer": "parry"})
    parry, error = vec.vocabulary.action("parry"), vec.vocabulary.action("error")
    obs, rewards, terms, _, infos = vec.step(torch.tensor([parry, error, error]))
    assert terms.tolist() == [True, False, False] and infos["_final_obs"].tolist() == [
        True,
        False,
        False,
    ]
    expected_final = single.step(parry)[0]
    assert np.array_equal(infos["final_obs"][0].cpu().numpy(), expected_final)
    assert torch.equal(obs[0], vec.observation.initial)  # a new game already
    assert int(vec.state.turn[0]) == 0 and int(vec.state.turn[1]) == 1
    obs, rewards, terms, _, infos = vec.step(torch.tensor([error, error, error]))
    assert terms.tolist() == [False, True, True] and rewards.tolist() == [-1.0, -6.0, -6.0]
    assert (obs[1:] == vec.observation.initial).all()


def test_vector__next_step_autoreset_ignores_the_action() -> None:
    vec = WordleVectorEnv(2, device="cpu", max_guesses=1)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    vec.reset(seed=0, options={"answers": ["cigar", "rebut"]})
    _, rewards, terms, _, _ = vec.step(torch.tensor([vec.vocabulary.action("cigar"), 0]))
    assert terms.tolist() == [True, True] and rewards[0] == -1.0 and rewards[1] == -6.0
    obs, rewards, terms, _, infos = vec.step(torch.tensor([5, 5]))
    assert rewards.tolist() == [0.0, 0.0] and terms.tolist() == [False, False]
    assert (obs == vec.observation.initial).all() and (infos["turn"] == 0).all()
    assert (infos["tiles"] == 3).all()


@pytest.mark.parametrize("device", DEVICES)
def test_vector__disabled_autoreset_with_the_callers_resets_equals_same_step(device: str) -> None:
    """Autoreset "disabled" (TorchRL's preference): step resets nothing; the caller's reset_mask of
    the games that ended gives exactly the games, rewards and infos of "same_step" (the same answers
    are drawn), and stepping a game that ended without resetting it is refused."""
    answers, allowed = stage_words("40")

    def make(mode):
        return WordleVectorEnv(
            32, device=device, answers=answers, allowed=allowed, autoreset_mode=mode
        )

    disabled, same = make("disabled"), make("same_step")
    assert disabled.metadata["autoreset_mode"] == AutoresetMode.DISABLED
    obs_d, _ = disabled.reset(seed=4)
    obs_s, _ = same.reset(seed=4)
    gen, ended = torch.Generator().manual_seed(0), 0
    for _ in range(40):
        actions = torch.randint(len(answers), (32,), generator=gen).to(device)  # answers = guesses
        obs_d, rew_d, term_d, trunc_d, info_d = disabled.step(actions)
        obs_s, rew_s, term_s, _, info_s = same.step(actions)
        assert torch.equal(rew_d, rew_s) and torch.equal(term_d, term_s) and not trunc_d.any()
        # where nothing ended, the same observation
        assert torch.equal(obs_d[~term_d], obs_s[~term_s])
        # where a game ended, its last one
        assert torch.equal(obs_d[term_d], info_s["final_obs"][term_s])
        for key in ("tiles", "invalid", "won", "is_success"):
            assert torch.equal(info_d[key], info_s[key]), key
        assert torch.equal(
            info_d["turn"], torch.where(term_s, info_s["final_info"]["turn"], info_s["turn"])
        )
        assert "final_obs" not in info_d
        if term_d.any():
            ended += int(term_d.sum())
            with pytest.raises(RuntimeError, match="ended and was not reset"):
                disabled.step(actions)
        # Every step, as same_step draws answers every step (a no-op where nothing ended).
        obs_d, info_d = disabled.reset(options={"reset_mask": term_d})
        assert torch.equal(obs_d, obs_s) and torch.equal(
            info_d["action_mask"], info_s["action_mask"]
        )
        assert torch.equal(disabled.state.answers, same.state.answers)
    assert ended > 32


def test_vector__reset_options_and_mask() -> None:
    vec = WordleVectorEnv(4, device="cpu")
    with pytest.raises(RuntimeError, match="call reset"):
        vec.step(torch.zeros(4, dtype=torch.long))
    with pytest.raises(ValueError, match="first reset must reset every game"):
        vec.reset(options={"reset_mask": np.array([True, False, False, False])})
    vec.reset(options={"answers": ["cigar", 1, "parry", 3]})
    assert vec.state.answers.tolist() == [
        vec.vocabulary.answer_id("cigar"),
        1,
        vec.vocabulary.answer_id("parry"),
        3,
    ]
    vec.step(torch.full((4,), vec.vocabulary.action("crane")))
    obs, infos = vec.reset(
        options={"reset_mask": np.array([False, True, False, True]), "answers": torch.arange(4)}
    )
    assert vec.state.turn.tolist() == [1, 0, 1, 0] and vec.state.answers.tolist()[1::2] == [1, 3]
    assert (obs[1] == vec.observation.initial).all() and not (
        obs[0] == vec.observation.initial
    ).all()
    assert infos["turn"].tolist() == [1, 0, 1, 0]
    with pytest.raises(ValueError, match="expected 4 answers \\(one per game\\); got 2"):
        vec.reset(options={"answers": ["cigar", "rebut"]})
    with pytest.raises(ValueError, match="answer index 9999 is out of range"):
        vec.reset(options={"answers": torch.tensor([0, 1, 2, 9999])})
    with pytest.raises(ValueError, match="reset_mask must be a bool array of shape \\(4,\\)"):
        vec.reset(options={"reset_mask": np.ones(3, dtype=bool)})
    with pytest.raises(ValueError, match="unknown reset options \\['answer'\\]"):
        vec.reset(options={"answer": "cigar"})


def test_vector__seeding_and_action_errors() -> None:
    a, b = WordleVectorEnv(64, device="cpu"), WordleVectorEnv(64, device="cpu")
    a.reset(seed=5)
    b.reset(seed=5)
    assert torch.equal(a.state.answers, b.state.answers)
    b.reset(seed=6)
    assert not torch.equal(a.state.answers, b.state.answers)
    with pytest.raises(ValueError, match="expected actions of shape \\(64,\\); got \\(3,\\)"):
        a.step([1, 2, 3])
    with pytest.raises(ValueError, match="action 12972 is out of range"):
        a.step(torch.full((64,), 12972))
    with pytest.raises(TypeError, match="integer word indices; got dtype torch.float32"):
        a.step(torch.zeros(64))
    a.step(np.zeros(64, dtype=np.int32))  # numpy and other int dtypes are accepted
    with pytest.raises(ValueError, match="num_envs must be a positive integer; got 0"):
        WordleVectorEnv(0)
    with pytest.raises(ValueError, match="unknown autoreset_mode 'sometimes'"):
        WordleVectorEnv(2, autoreset_mode="sometimes")


def test_make_vec__entry_point_spaces_and_device() -> None:
    vec = gym.make_vec("Wordle-v0", num_envs=8, device="cpu", hard_mode=True)
    assert isinstance(vec, WordleVectorEnv) and vec.device.type == "cpu" and vec.config.hard_mode
    assert vec.single_observation_space.shape == (319,)
    assert vec.observation_space.shape == (8, 319)
    assert isinstance(vec.action_space, spaces.MultiDiscrete) and vec.action_space.shape == (8,)
    obs, infos = vec.reset(seed=0)
    assert obs.dtype == torch.int8 and infos["action_mask"].shape == (8, 12972)
    assert vec.action_space.contains(vec.action_space.sample())
    assert vec.observation_space.contains(obs.numpy())
    auto = gym.make_vec("Wordle-v0", num_envs=2, device="auto")
    assert auto.device.type == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            WordleVectorEnv(2, device="cuda")


def test_vector__render_first_games() -> None:
    vec = WordleVectorEnv(20, device="cpu", render_mode="ansi")
    vec.reset(seed=0)
    vec.step(torch.zeros(20, dtype=torch.long))
    frames = vec.render()
    assert len(frames) == 16 and all(f.count("\n") == 6 for f in frames)
    images = WordleVectorEnv(2, device="cpu", render_mode="rgb_array")
    images.reset(seed=0)
    assert [f.shape for f in images.render()] == [(268, 224, 3)] * 2


@pytest.mark.parametrize("device", DEVICES)
def test_vector__same_results_as_on_the_cpu(device: str) -> None:
    """The env on ``device`` plays exactly as on the CPU, every game and every new game's answer
    chosen by the test (each device draws its own random answers, so autoreset is off and the test
    resets the games that ended). On the CPU it checks itself: it first ran on a GPU in issue 47,
    and failed there, reading the reward as the mask."""
    rng, n = random.Random(3), 64
    make = lambda d: WordleVectorEnv(  # noqa: E731
        n, device=d, action_mask="candidates", reward="tile-shaped", autoreset_mode="disabled"
    )
    cpu, other = make("cpu"), make(device)
    answers = torch.tensor([rng.randrange(2315) for _ in range(n)])
    outs = [env.reset(options={"answers": answers.to(env.device)}) for env in (cpu, other)]
    ended = 0
    for _ in range(12):
        actions = pick_actions(rng, outs[0][-1]["action_mask"], cpu)
        steps = [env.step(actions.to(env.device)) for env in (cpu, other)]
        for x, y in zip(steps[0][:4], steps[1][:4], strict=True):
            assert torch.equal(x, y.cpu())
        for key in ("tiles", "turn", "won", "invalid", "action_mask"):
            assert torch.equal(steps[0][4][key], steps[1][4][key].cpu()), key
        done = steps[0][2] | steps[0][3]
        ended += int(done.sum())
        answers = torch.tensor([rng.randrange(2315) for _ in range(n)])
        outs = [
            env.reset(
                options={"reset_mask": done.to(env.device), "answers": answers.to(env.device)}
            )
            for env in (cpu, other)
        ]
        assert torch.equal(outs[0][0], outs[1][0].cpu())
    assert ended > n  # the games ended and new ones were played


def test_vector__answer_weights_steer_new_games() -> None:
    vec = WordleVectorEnv(512, device="cpu", answers=["cigar", "rebut", "sissy"], allowed=None)
    vec.answer_weights = torch.tensor([0.0, 1.0, 3.0])
    vec.reset(seed=0)
    counts = torch.bincount(vec.state.answers, minlength=3).tolist()
    assert counts[0] == 0 and 0.6 < counts[2] / 512 < 0.9  # about 3/4 SISSY, never CIGAR
    vec.answer_weights = None
    vec.reset(seed=0)
    assert torch.bincount(vec.state.answers, minlength=3)[0] > 0
    with pytest.raises(
        ValueError, match="answer_weights must be 3 finite non-negative numbers with a positive sum"
    ):
        vec.answer_weights = torch.tensor([0.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="non-negative numbers with a positive sum"):
        vec.answer_weights = torch.zeros(3)


@pytest.mark.parametrize(
    "config",
    [
        {"action_mask": "candidates"},
        {"hard_mode": True},
        {"hard_mode": True, "action_mask": "candidates"},
    ],
)
@pytest.mark.usefixtures("two_torch_threads")
def test_vector__compiled_masks_equal_torch_masks_step_by_step(config: dict) -> None:
    """The CPU's compiled mask kernels (wordle_gym.core._kernels) against the torch engine, on the
    real lists, in batches big enough to split over threads; every output and the candidates after
    each step."""
    if not wordle_gym.core._kernels.available():
        pytest.skip("numba does not import here")
    n = 96  # 1.2 MB of mask: split over threads
    compiled, reference = (WordleVectorEnv(n, device="cpu", **config) for _ in range(2))
    reference.game.compiled = False
    assert compiled.game.compiled
    gen = torch.Generator().manual_seed(3)
    (_, info), (_, want) = compiled.reset(seed=5), reference.reset(seed=5)
    for t in range(40):
        assert torch.equal(info["action_mask"], want["action_mask"]), t
        if compiled.state.candidates is not None:
            assert torch.equal(compiled.state.candidates, reference.state.candidates), t
        # A third each: a word the mask allows, the answer, any word (refused in hard mode).
        scores = torch.rand((n, 12972), generator=gen).masked_fill_(
            ~want["action_mask"].bool(), -1.0
        )
        kind = torch.randint(3, (n,), generator=gen)
        actions = torch.where(
            kind == 0, scores.argmax(1), torch.randint(12972, (n,), generator=gen)
        )
        actions = torch.where(
            kind == 1, reference.game.answer_actions[reference.state.answers], actions
        )
        *got, info = compiled.step(actions)
        *expected, want = reference.step(actions)
        assert all(torch.equal(a, b) for a, b in zip(got, expected, strict=True)), t


@pytest.mark.parametrize("width", [13, 64, 203])
def test_kernels__mask_rows_are_exact_for_any_rows_and_touch_nothing_else(width: int) -> None:
    """The mask kernels called on rows [start, stop), as the thread split calls them, with widths
    that are and are not multiples of 64: those rows get exactly the reference's values, every other
    byte keeps its own."""
    if not wordle_gym.core._kernels.available():
        pytest.skip("numba does not import here")
    kernels, rng = wordle_gym.core._kernels, np.random.default_rng(width)
    games, answers = 9, width // 3 + 1
    actions = np.sort(rng.choice(width, answers, replace=False)).astype(np.uint32)
    candidates = rng.random((games, answers)) < 0.5
    sets = rng.integers(0, 2**63, (5, -(-width // 64)), dtype=np.int64).view(np.uint64)
    # no word past the last, as in
    sets.view(np.uint8).reshape(5, -1)[:, width // 8 :] &= (1 << width % 8) - 1
    sets.view(np.uint8).reshape(5, -1)[:, width // 8 + 1 :] = 0  # Game.requirement_sets
    rows = rng.integers(0, 5, (games, 3))
    expected_candidates = np.zeros((games, width), dtype=bool)
    expected_candidates[:, actions] = candidates
    # (games, 8 * words), little-endian
    words = np.bitwise_and.reduce(sets[rows], axis=1).view(np.uint8)
    expected_hard = np.unpackbits(words, axis=1, bitorder="little")[:, :width].astype(bool)
    for start, stop in [(0, games), (1, 8), (3, 4), (2, 7), (5, 5)]:
        bytes_, bits = actions >> 3, (actions & 7).astype(np.uint8)
        for kernel, inputs, expected in [
            (kernels.candidates_mask, (candidates, actions), expected_candidates),
            (kernels.hard_mask, (sets, rows, False), expected_hard),
            (kernels.candidates_bits, (candidates, bytes_, bits), packbits(expected_candidates)),
            (kernels.hard_mask, (sets, rows, True), packbits(expected_hard)),
        ]:
            out = np.full_like(expected, True if expected.dtype == bool else 0xA5)
            kernel.compiled()(start, stop, *inputs, out)
            assert np.array_equal(out[start:stop], expected[start:stop]), (
                kernel.__name__,
                start,
                stop,
            )
            untouched = np.full_like(expected, True if expected.dtype == bool else 0xA5)
            assert np.array_equal(out[:start], untouched[:start]) and np.array_equal(
                out[stop:], untouched[stop:]
            )


def packbits(mask: np.ndarray) -> np.ndarray:
    return np.packbits(mask, axis=-1, bitorder="little")


@pytest.mark.parametrize(
    "config",
    [
        {"action_mask": "all"},
        {"action_mask": "candidates"},
        {"hard_mode": True},
        {"action_mask": "candidates", "boards": 4},
        {"action_mask": "all", "boards": 2},
    ],
)
@pytest.mark.parametrize(
    ("device", "compiled"),
    [("cpu", True), ("cpu", False), pytest.param("cuda", False, marks=pytest.mark.cuda)],
)
def test_vector__packed_masks_are_the_bool_masks_packed_step_by_step(
    config: dict, device: str, compiled: bool
) -> None:
    """``mask_dtype="packed"``: every step's info mask is numpy's
    ``packbits(..., bitorder="little")`` of the bool mask of an env that plays the same games (the
    compiled kernels and torch's packing alike, on the CPU and on CUDA), and
    ``wordle_gym.unpack_mask`` gives the bools back, as a tensor or an array."""
    n = 64
    packed, plain = (
        gym.make_vec("Wordle-v0", num_envs=n, device=device, mask_dtype=dtype, **config)
        for dtype in ("packed", "bool")
    )
    for env in (packed, plain):
        if hasattr(env.unwrapped.game, "compiled"):  # the multi-board mask is torch's
            env.unwrapped.game.compiled = compiled and env.unwrapped.game.compiled
    (_, info), (_, want) = packed.reset(seed=2), plain.reset(seed=2)
    gen = torch.Generator().manual_seed(2)
    for t in range(12):
        assert info["action_mask"].device == want["action_mask"].device == torch.device(device)
        got, bools = info["action_mask"].cpu(), want["action_mask"].cpu()
        assert got.dtype == torch.uint8 and got.shape == (n, -(-bools.shape[1] // 8))
        assert np.array_equal(got.numpy(), packbits(bools.numpy())), t
        assert torch.equal(
            wordle_gym.unpack_mask(info["action_mask"], bools.shape[1]).cpu(), bools
        ), t
        assert np.array_equal(wordle_gym.unpack_mask(got.numpy(), bools.shape[1]), bools.numpy()), t
        # an allowed word each
        scores = torch.rand(bools.shape, generator=gen).masked_fill_(~bools, -1.0)
        *_, info = packed.step(scores.argmax(1).to(device))
        *_, want = plain.step(scores.argmax(1).to(device))


@pytest.mark.parametrize("shape", [(3, 9), (5, 12972), (2, 3, 17), (4, 64), (7, 1)])
def test_pack_bits__is_numpys_little_packbits_for_any_layout(shape: tuple[int, ...]) -> None:
    """The torch packing (CUDA's masks, and the CPU's without the compiled kernels) reads each
    bool's byte in place: contiguous, expanded (mode "all"'s one row) and sliced masks all pack as
    numpy packs them."""
    from wordle_gym.core.game import pack_bits

    mask = torch.rand(shape, generator=torch.Generator().manual_seed(len(shape))) < 0.5
    for layout in (mask, mask[..., :1, :].expand(shape), mask[..., 1:] if shape[-1] > 1 else mask):
        assert np.array_equal(pack_bits(layout).numpy(), packbits(layout.numpy())), layout.stride()


def test_unpack_mask__a_mask_that_is_not_packed_is_a_one_line_error() -> None:
    match = r"expected a packed mask \(uint8, at least 2 bytes a row\); got bool \(3, 9\)"
    with pytest.raises(ValueError, match=match):
        wordle_gym.unpack_mask(np.zeros((3, 9), dtype=bool), 9)
    with pytest.raises(ValueError, match=r"at least 3 bytes a row\); got torch.uint8 \(2,\)"):
        wordle_gym.unpack_mask(torch.zeros(2, dtype=torch.uint8), 17)


def test_vector__masks_are_never_overwritten_while_held_and_recycled_once_dropped() -> None:
    """Big masks reuse the memory of masks nobody holds any more (no allocation, no page faults); a
    mask that anything still holds, even a numpy view or a slice of it, keeps its values."""
    if not wordle_gym.core._kernels.available():
        pytest.skip("numba does not import here")
    env = WordleVectorEnv(64, device="cpu", action_mask="candidates")
    env.reset(seed=0)
    step = lambda: env.step(torch.randint(env.vocabulary.num_allowed, (64,)))[-1]["action_mask"]  # noqa: E731
    held, view, part = step(), step().numpy(), step()[3:5, 100:200]
    copies = [held.clone(), view.copy(), part.clone()]
    addresses = {held.data_ptr(), view.ctypes.data, part.data_ptr() - (3 * held.shape[1] + 100)}
    for _ in range(6):
        fresh = step()
        assert fresh.data_ptr() not in addresses
        del fresh
    assert (
        torch.equal(held, copies[0])
        and np.array_equal(view, copies[1])
        and torch.equal(part, copies[2])
    )
    recycled = {step().data_ptr() for _ in range(8)}  # each mask dropped before the next step
    assert len(recycled) <= 2 and not recycled & addresses


def test_vector__masks_without_numba_come_from_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wordle_gym.core._kernels, "available", lambda: False)
    env = WordleVectorEnv(4, device="cpu", hard_mode=True)
    assert not env.game.compiled
    _, info = env.reset(seed=0)
    assert info["action_mask"].shape == (4, 12972) and bool(info["action_mask"].all())


@pytest.mark.parametrize("boards", [1, 4])
def test_vector__a_big_cpu_step_runs_torch_on_one_thread_its_kernels_on_all(
    monkeypatch: pytest.MonkeyPatch, boards: int
) -> None:
    """Speed (issue 47): torch's idle OpenMP workers spin after each parallel torch call, on the
    cores a big step's compiled kernels split onto (hard mode, 16384 games: 20.9 -> 13.3 ms a step).
    A big CPU batch's reset, step and masks run their torch calls on one thread while the kernels
    still split over torch's thread count, which is restored afterwards, also when the step raises;
    a small batch is left alone."""
    kernels = wordle_gym.core._kernels
    seen: list[tuple[int, int]] = []
    real_run = kernels.run

    def spy(kernel, rows, cost, *args):
        seen.append((torch.get_num_threads(), getattr(kernels._split, "threads", 0)))
        return real_run(kernel, rows, cost, *args)

    monkeypatch.setattr(kernels, "run", spy)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        num_envs = kernels.STEP_MIN_ROWS // boards
        big = gym.make_vec("Wordle-v0", num_envs=num_envs, boards=boards, action_mask="candidates")
        big.reset(seed=0)
        big.step(torch.zeros(big.num_envs, dtype=torch.int64))
        big.unwrapped.action_masks()
        assert seen and set(seen) == {(1, 2)} and torch.get_num_threads() == 2
        with pytest.raises(ValueError, match="out of range"):
            big.step(torch.full((big.num_envs,), -1, dtype=torch.int64))
        assert torch.get_num_threads() == 2 and not getattr(kernels._split, "threads", 0)
        seen.clear()
        small = gym.make_vec("Wordle-v0", num_envs=8, boards=boards)
        small.reset(seed=0)
        small.step(torch.zeros(8, dtype=torch.int64))
        assert not seen and torch.get_num_threads() == 2  # torch alone, on its threads
        assert kernels.openmp_backend()  # the usual wheels; another backend is left alone:
        monkeypatch.setattr(kernels, "openmp_backend", lambda: False)
        big.step(torch.zeros(big.num_envs, dtype=torch.int64))
        assert set(seen) == {(2, 0)}
    finally:
        torch.set_num_threads(threads)


def test_vector_env__a_numpy_integer_is_a_count() -> None:
    """Reliability 6, finding 16: ``num_envs=np.int64(4)`` was refused as "not a positive
    integer"; a bool still is."""
    envs = WordleVectorEnv(num_envs=np.int64(4))
    assert envs.num_envs == 4 and type(envs.num_envs) is int
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        WordleVectorEnv(num_envs=True)


@pytest.mark.parametrize("compiled", [True, False])
def test_random_actions__uniform_over_the_allowed_words_of_each_game(
    compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """First hour 4, item 2: the README's ``torch.multinomial(infos["action_mask"].float(), 1)``
    took about a second a draw on 4096 real games, 100x the step. ``wordle_gym.random_actions``
    draws the same distribution (one allowed word per game, uniform): every draw allowed, each
    game's words drawn alike (dense rows, a few words, one word), compiled on CPU or by torch (a
    GPU's way); a game with none is a ValueError."""
    import wordle_gym.core._kernels as kernels

    if not compiled:
        monkeypatch.setattr(kernels, "available", lambda: False)
    generator = torch.Generator().manual_seed(0)
    mask = torch.zeros(6, 500, dtype=torch.bool)
    mask[0] = True  # every word
    mask[1, ::2] = True  # half
    mask[2, [3, 77, 401]] = True  # three words: past the rejection rounds
    mask[3, 499] = True  # one
    mask[4, :5] = True
    mask[5, torch.randperm(500, generator=generator)[:40]] = True
    draws = torch.stack([wordle_gym.random_actions(mask, generator) for _ in range(3000)])
    assert draws.dtype == torch.int64 and draws.shape == (3000, 6)
    assert bool(mask[torch.arange(6), draws].all())
    for row in (2, 4, 5):
        allowed = mask[row].nonzero().squeeze(1)
        counts = torch.bincount(draws[:, row], minlength=500)[allowed].double()
        expected = 3000 / len(allowed)
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        assert chi2 < 3 * len(allowed) + 30, (row, chi2)  # far below a skewed draw's
    assert bool((draws[:, 3] == 499).all()) and len(draws[:, 0].unique()) > 400
    again = torch.Generator().manual_seed(7)
    first = wordle_gym.random_actions(mask, again)
    assert torch.equal(first, wordle_gym.random_actions(mask, torch.Generator().manual_seed(7)))
    mask[4] = False
    with pytest.raises(ValueError, match="a game has no allowed action"):
        wordle_gym.random_actions(mask, generator)
