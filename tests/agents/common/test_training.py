"""Configuration as one source of truth: command lines from the dataclasses, checkpoints, the resume
rule."""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, fields
from pathlib import Path

import pytest
import torch

from wordle_agents.common.checkpoint import config_from_dict
from wordle_agents.common.training import RunConfig, main, parse_command
from wordle_agents.rl.a2c import TRAINING, A2CAgent, A2CConfig
from wordle_agents.rl.dqn import DQNAgent, DQNConfig
from wordle_gym import WordleConfig, WordleEnv, WordleVectorEnv
from wordle_gym.utils.commandline import field_docs
from wordle_gym.utils.files import (
    path_lock,
)

SHORT_RUN = [
    "--stages",
    "10",
    "--iterations",
    "4",
    "--eval-every",
    "2",
    "--checkpoint-every",
    "1",
    "--device",
    "cpu",
    "--hidden",
    "16",
    "--batch-games",
    "8",
]
"""A run of 4 updates on 10 words."""

TINY_RUN = [
    "--stages",
    "10",
    "--iterations",
    "2",
    "--eval-every",
    "1",
    "--checkpoint-every",
    "1",
    "--device",
    "cpu",
    "--hidden",
    "16",
    "--batch-games",
    "8",
]


@pytest.mark.parametrize("cls", [RunConfig, A2CConfig, DQNConfig, WordleConfig])
def test_config__every_field_is_documented(cls: type) -> None:
    docs = field_docs(cls)
    assert [f.name for f in fields(cls) if not docs.get(f.name)] == []


def _parse(argv: list[str]) -> tuple[RunConfig, A2CConfig]:
    return parse_command(TRAINING, argv)


def test_command_line__generated_from_the_dataclasses() -> None:
    run, config = _parse(
        [
            "--stages",
            "100,1000",
            "--iterations",
            "5,6",
            "--lr",
            "0.002",
            "--betas",
            "0.8,0.9",
            "--stop-at",
            "0.99",
            "--tensorboard",
            "--encoding",
            "knowledge",
        ]
    )
    assert run.plan == [("100", 5), ("1000", 6)] and run.stop_at == 0.99 and run.tensorboard
    # untouched fields keep the script's defaults
    assert run.run_dir == "runs/a2c" and run.init is None
    assert config == A2CConfig(lr=0.002, betas=(0.8, 0.9), encoding="knowledge")
    run, config = _parse([])
    assert run == TRAINING.defaults and config == A2CConfig()
    assert _parse(["--iterations", "7"])[0].iterations == (7, 7, 7, 7)  # one value for every stage


def test_stages__today_is_the_game_of_today() -> None:
    """A run may train on today's game (``--stages today``): its 3158 answers among its 14855
    guesses."""
    from wordle_gym.core.words import load_word_list, stage_words

    answers, allowed = stage_words("today")
    assert answers == load_word_list("answers_today") and len(answers) == 3158
    assert allowed == load_word_list("allowed_today") and set(answers) <= set(allowed)
    assert _parse(["--stages", "today", "--iterations", "9"])[0].plan == [("today", 9)]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--iterations", "abc"], "argument --iterations: expected an int, got 'abc'"),
        (["--stages", ""], "stages must be a non-empty list"),
        (["--stages", "100,huge"], "unknown stage 'huge'"),
        (["--eval-every", "0"], "eval_every must be >= 1; got 0"),
        (["--iterations", "0"], "iterations must be >= 1"),
        (["--batch-games", "0"], "batch_games must be an integer from 1"),
        (["--stages", "100,1000", "--iterations", "1,2,3"], "iterations has 3 values for 2 stages"),
        (
            ["--stages", "20"],
            "stage '20' has no default number of updates (the defaults: 100 5000, ",
        ),
        (["--betas", "0.9"], "expected 2 comma-separated values"),
    ],
)
def test_command_line__bad_values_exit_2_naming_them(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(TRAINING, argv)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_command_line__stages_without_iterations_take_each_stages_default() -> None:
    """Regression: ``--stages full`` alone was refused ("iterations has 4 values for 1 stages"): the
    four stages' default update counts were kept for one stage."""
    assert _parse(["--stages", "full"])[0].plan == [("full", 30000)]
    assert _parse(["--stages", "2315,full"])[0].plan == [("2315", 15000), ("full", 30000)]
    assert _parse(["--stages", "full", "--iterations", "7"])[0].plan == [("full", 7)]


@pytest.mark.parametrize("cls", [A2CConfig, DQNConfig])
def test_config__round_trips_through_a_checkpoint_dict(cls: type) -> None:
    config = cls(hidden=64, lr=0.01, seed=3)
    assert config_from_dict(cls, asdict(config)) == config
    with pytest.raises(ValueError, match=r"unknown .*Config fields \['nope'\]"):
        config_from_dict(cls, {**asdict(config), "nope": 1})


@pytest.mark.parametrize(
    ("agent_class", "config"), [(A2CAgent, A2CConfig(hidden=32)), (DQNAgent, DQNConfig(hidden=32))]
)
def test_checkpoint__bounds_checked_before_building_and_shapes_checked(
    agent_class: type, config, tmp_path
) -> None:
    agent = agent_class(config)
    path = tmp_path / "agent.pt"
    agent.save(path)
    data = torch.load(path, weights_only=True)
    torch.save({**data, "config": {**data["config"], "hidden": 10**9}}, tmp_path / "huge.pt")
    with pytest.raises(
        ValueError, match="hidden must be an integer from 1 to 16384; got 1000000000"
    ):
        agent_class.load(tmp_path / "huge.pt")  # fails at once: nothing of that size is allocated
    torch.save({**data, "config": {**data["config"], "hidden": 48}}, tmp_path / "shape.pt")
    with pytest.raises(ValueError, match="the weights do not fit its .* config"):
        agent_class.load(tmp_path / "shape.pt")
    torch.save({k: v for k, v in data.items() if k != "model"}, tmp_path / "empty.pt")
    with pytest.raises(ValueError, match="holds no model weights"):
        agent_class.load(tmp_path / "empty.pt")


@pytest.mark.slow
def test_resume__refuses_other_settings_and_extends_by_appending_stages(tmp_path, capsys) -> None:
    run_dir = ["--run-dir", str(tmp_path / "run")]
    assert main(TRAINING, [*TINY_RUN, *run_dir]) == 0
    assert main(TRAINING, [*TINY_RUN, *run_dir, "--lr", "0.01"]) == 2
    err = capsys.readouterr().err
    assert (
        "was trained with other settings: lr (run: 0.001, command: 0.01)"
    ) in err and "--fresh" in err
    assert main(TRAINING, [*TINY_RUN, *run_dir, "--stages", "20"]) == 2
    assert (
        "follows the plan [10:2] (stage:updates); this command asks [20:2]"
    ) in capsys.readouterr().err
    assert main(TRAINING, [*TINY_RUN, *run_dir, "--iterations", "3"]) == 2  # stage 10 is finished
    assert (
        "may append stages, and give its last stage more updates while"
    ) in capsys.readouterr().err
    assert main(TRAINING, [*TINY_RUN, *run_dir, "--stages", "10,20", "--iterations", "2,2"]) == 0
    assert (
        "extending the plan" in capsys.readouterr().out
        and (tmp_path / "run" / "best_20.pt").is_file()
    )
    # how it was made, for the tables
    info = A2CAgent.load(tmp_path / "run" / "best_20.pt").checkpoint
    assert (
        info.teacher is None
        and info.curriculum == ("10:2 updates -> 20:2 updates")
        and "CPU" in info.machine
    )
    # --fresh starts over
    assert main(TRAINING, [*TINY_RUN, *run_dir, "--lr", "0.01", "--fresh"]) == 0
    last = tmp_path / "run" / "last.pt"  # a run killed in its last stage may be given more updates
    state = torch.load(last, weights_only=True)
    torch.save({**state, "stage_index": 0, "trainer": None, "iterations": [1]}, last)
    assert main(TRAINING, [*TINY_RUN, *run_dir, "--lr", "0.01", "--iterations", "3"]) == 0
    assert torch.load(last, weights_only=True)["iterations"] == [3]
    other = ["--run-dir", str(tmp_path / "other"), "--init", str(tmp_path / "run" / "best_10.pt")]
    assert main(TRAINING, [*TINY_RUN, *other, "--hidden", "32"]) == 2
    assert "a network of another shape" in capsys.readouterr().err


def test_wordle_config__one_builder_for_both_envs() -> None:
    config = WordleConfig(
        answers=["cigar", "rebut", "sissy"], allowed=None, max_guesses=3, hard_mode=True
    )
    single, vector = WordleEnv(config), WordleVectorEnv(2, config, device="cpu")
    by_keywords = WordleEnv(
        answers=["cigar", "rebut", "sissy"], allowed=None, max_guesses=3, hard_mode=True
    )
    assert single.config == vector.config == by_keywords.config == config
    assert (
        single.observation.layout == vector.observation.layout
        and single.observation.layout.size == 52 * 5 + 52 + 4
    )
    with pytest.raises(TypeError, match=r"pass config= or keyword options, not both"):
        WordleEnv(config, hard_mode=False)
    with pytest.raises(
        TypeError,
        match=r"Wordle got an unexpected keyword argument 'hard'; "
        r"expected any of",
    ):
        WordleVectorEnv(2, device="cpu", hard=True)


def test_knowledge_observation__named_slices_read_the_blocks() -> None:
    env = WordleEnv(answers=["cigar", "rebut"], allowed=None)
    env.reset(options={"answer": "cigar"})
    obs, *_ = env.step(env.vocabulary.action("rebut"))
    green, excluded, low, high, turn = env.observation.layout.fields(torch.as_tensor(obs)[None])
    assert turn[0].tolist() == [0, 1, 0, 0, 0, 0, 0] and int(green.sum()) == 0
    r = ord("r") - ord("a")
    assert (
        int(low[0, r]) == 1 and int(high[0, ord("b") - ord("a")]) == 0 and bool(excluded[0, 0, r])
    )
    assert list(env.observation.slices) == ["green", "excluded", "min_count", "max_count", "turn"]


def test_max_minutes__stops_exported_and_the_same_command_continues(tmp_path, capsys) -> None:
    """A time slot (a GPU lease of a few minutes): the run stops cleanly after the limit, and the
    same command picks it up where it stopped."""
    run = [
        *TINY_RUN,
        "--iterations",
        "4",
        "--run-dir",
        str(tmp_path / "run"),
        "--export",
        str(tmp_path / "a.pt"),
    ]
    last = tmp_path / "run" / "last.pt"
    for made in (1, 2):  # a limit that has passed by the first update: one update per command
        assert main(TRAINING, [*run, "--max-minutes", "1e-9"]) == 0
        assert "stage 10 stopped at update" in capsys.readouterr().out
        saved = torch.load(last, weights_only=True)
        assert saved["stage_index"] == 0 and saved["trainer"]["iteration"] == made
        rows = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
        assert len(rows) == made  # evaluated every update (--eval-every 1)
        assert A2CAgent.load(tmp_path / "a.pt").config.hidden == 16  # exported
    assert main(TRAINING, run) == 0  # no limit: the stage runs to its end
    saved = torch.load(last, weights_only=True)
    assert saved["stage_index"] == 1 and saved["step_offset"] == 4
    with pytest.raises(SystemExit) as exit_:
        main(TRAINING, [*run, "--max-minutes", "0"])
    assert exit_.value.code == 2 and "max_minutes must be > 0; got 0.0" in capsys.readouterr().err


def test_max_minutes__stopped_after_every_update_ends_with_the_weights_of_one_never_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: a stopped command evaluated where it stopped, off the --eval-every schedule, so
    its best network (and the export) could differ from the run that never stopped."""
    whole = [*SHORT_RUN, "--run-dir", str(tmp_path / "whole")]
    assert main(TRAINING, whole) == 0
    stopped = [*SHORT_RUN, "--run-dir", str(tmp_path / "stopped"), "--max-minutes", "1e-9"]
    assert main(TRAINING, stopped) == 0
    assert "stopped at update 1/4, not evaluated yet (every 2 updates)" in capsys.readouterr().out
    assert not (tmp_path / "stopped" / "metrics.jsonl").exists()
    for _ in range(3):
        assert main(TRAINING, stopped) == 0
    rows = [(tmp_path / run / "metrics.jsonl").read_text() for run in ("whole", "stopped")]
    assert len(rows[1].splitlines()) == 2  # updates 2 and 4, as the run that never stopped
    for name in ("best_10.pt", "last.pt"):
        a, b = (
            torch.load(tmp_path / run / name, weights_only=True) for run in ("whole", "stopped")
        )
        weights = (a["model"], b["model"]) if name == "best_10.pt" else (a["trainer"], b["trainer"])
        assert _same_tensors(*weights), name


def _same_tensors(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_same_tensors(a[k], b[k]) for k in a)
        )
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    return True  # figures and clocks may differ; the tensors may not


def test_training__resume_drops_log_rows_written_after_the_checkpoint(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert main(TRAINING, [*SHORT_RUN, "--run-dir", str(run_dir), "--iterations", "2"]) == 0
    rows = (run_dir / "metrics.jsonl").read_text().splitlines()
    with (run_dir / "metrics.jsonl").open("a") as log:  # a row logged, then killed before last.pt
        log.write(json.dumps({"stage": "10", "iteration": 99}) + "\n")
    assert (
        main(
            TRAINING,
            [*SHORT_RUN, "--run-dir", str(run_dir), "--stages", "10,20", "--iterations", "2,2"],
        )
        == 0
    )
    after = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in after][: len(rows)] == [
        json.loads(r)["iteration"] for r in rows
    ]
    assert all(r["iteration"] != 99 for r in after) and [r["stage"] for r in after][-1] == "20"


def test_training__a_second_training_in_the_same_folder_is_refused(tmp_path: Path, capsys) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    with path_lock(run_dir, "training"):
        assert main(TRAINING, [*SHORT_RUN, "--run-dir", str(run_dir)]) == 2
    assert (
        f"'{run_dir}' is in use by another training (pid {os.getpid()})"
    ) in capsys.readouterr().err
    assert not (run_dir / "metrics.jsonl").exists()
    # the lock goes with its holder
    assert main(TRAINING, [*SHORT_RUN, "--run-dir", str(run_dir)]) == 0
    # regression (issue 65): the lock file stayed in the run folder after training ended
    assert not [p.name for p in run_dir.iterdir() if p.name.startswith(".lock")]


def test_training_log__win_rate_is_the_greedy_evaluation(tmp_path: Path) -> None:
    """Regression: the training batch's stats used to overwrite the evaluation's win_rate in the
    log."""
    run_dir = tmp_path / "run"
    argv = [
        *SHORT_RUN,
        "--run-dir",
        str(run_dir),
        "--batch-games",
        "3",
        "--iterations",
        "6",
        "--eval-every",
        "1",
    ]
    assert main(TRAINING, argv) == 0
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all("train_win_rate" in r and "train_loss" in r for r in rows)
    # k of the 10 answers
    assert all(abs(10 * r["win_rate"] - round(10 * r["win_rate"])) < 1e-9 for r in rows)
    import torch

    best = torch.load(run_dir / "best_10.pt", weights_only=True)["figures"]
    assert best["win_rate"] == max(r["win_rate"] for r in rows)


# ---------------------------------------------------------------------------------------- smaller
def test_training__a_tiny_time_limit_still_makes_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wordle_agents.common.training import main
    from wordle_agents.rl.a2c import TRAINING

    args = [
        *SHORT_RUN,
        "--run-dir",
        str(tmp_path / "run"),
        "--iterations",
        "50",
        "--max-minutes",
        "1e-9",
    ]
    for done in (1, 2):
        assert main(TRAINING, args) == 0
        out = capsys.readouterr().out
        assert "-100.00" not in out and f"stopped at update {done}/50" in out
        assert (tmp_path / "run" / "last.pt").is_file()


def test_training__a_failed_write_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import wordle_gym.utils.files as io_module
    from wordle_agents.common.training import main
    from wordle_agents.rl.a2c import TRAINING

    def full_disk(path, write):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(io_module, "atomic_write", full_disk)
    assert main(TRAINING, [*SHORT_RUN, "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]  # the rest is the progress bar
    assert len(errors) == 1 and "No space left on device" in errors[0] and "Traceback" not in err
    assert not (tmp_path / "run" / "last.pt").exists()


def test_training__a_run_from_init_adds_the_hours_and_machines_the_init_trained(
    tmp_path: Path,
) -> None:
    """A run started from weights trained elsewhere (a GPU run from CPU weights) records both
    machines' hours, not only its own: the tables' training column reads it."""
    assert main(TRAINING, [*TINY_RUN, "--run-dir", str(tmp_path / "first")]) == 0
    init = tmp_path / "init.pt"
    data = torch.load(tmp_path / "first" / "best_10.pt", weights_only=True)
    torch.save({**data, "training_s": 7200.0, "machine": "NVIDIA H200 (CUDA)"}, init)
    assert (
        main(TRAINING, [*TINY_RUN, "--run-dir", str(tmp_path / "second"), "--init", str(init)]) == 0
    )
    info = A2CAgent.load(tmp_path / "second" / "best_10.pt").checkpoint
    assert 7200.0 < info.training_s < 7200.0 + 600
    first, second = info.machine.split("; ")
    assert (
        first == "NVIDIA H200 (CUDA): 2.00 h"
        and second.startswith("CPU, ")
        and second.endswith(" h")
    )


@pytest.mark.parametrize("agent", ["a2c", "dqn"])
def test_config__an_infinite_or_zero_learning_rate_is_refused(agent: str) -> None:
    """Issue 62: --lr inf trained to NaN weights and exported them (rc 0)."""
    from wordle_agents.rl.a2c import A2CConfig
    from wordle_agents.rl.dqn import DQNConfig

    config = {"a2c": A2CConfig, "dqn": DQNConfig}[agent]
    for bad, message in ((math.inf, "finite"), (math.nan, "finite"), (0.0, "> 0"), (-1e-3, "> 0")):
        with pytest.raises(ValueError, match=f"lr must be .*{message}"):
            config(lr=bad)


def test_ctrl_c__saves_the_update_it_came_in_and_the_same_command_continues(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """First hour 4, item 4: Ctrl-C in training said "run the same command again to continue" but
    nothing had been saved since the last --checkpoint-every (the rerun of `recipe dqn` started at
    0 after 140 updates). A Ctrl-C during an update is held until the update ends; last.pt is
    written there, the message says so, and the same command continues from that update."""
    import signal

    from wordle_agents.rl.a2c import A2CTrainer

    run = [*TINY_RUN[:2], "--iterations", "6", "--eval-every", "1000", "--checkpoint-every"]
    run += ["1000", *TINY_RUN[8:], "--run-dir", str(tmp_path / "run")]
    step = A2CTrainer.step

    def interrupted_in_the_third(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.iteration == 2:
            os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, mid-update
        return step(self, *args, **kwargs)

    monkeypatch.setattr(A2CTrainer, "step", interrupted_in_the_third)
    assert main(TRAINING, run) == 130
    err = capsys.readouterr().err
    assert "interrupted; stage 10 saved at update 3/6" in err and "same command again" in err
    saved = torch.load(tmp_path / "run" / "last.pt", weights_only=True)
    assert saved["stage_index"] == 0 and saved["trainer"]["iteration"] == 3
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    monkeypatch.setattr(A2CTrainer, "step", step)
    assert main(TRAINING, run) == 0  # continued: three updates more, to the stage's end
    saved = torch.load(tmp_path / "run" / "last.pt", weights_only=True)
    assert saved["stage_index"] == 1 and saved["step_offset"] == 6
