"""Layer (g): the examples and benchmark scripts run end to end as a user would run them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from wordle_gym.harness.bench_table import Layout, render

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.mark.slow
def test_random_agent_example__plays_every_answer_once() -> None:
    out = run("examples/random_agent.py", "--device", "cpu", "--answers", "nyt", "--hard")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "2309 answers (hard mode)" in lines[0]
    won, total = lines[1].split()[1].split("/")
    assert int(total) == 2309 and int(won) > 2000  # guessing among candidates wins almost always
    counts = dict(item.split(":") for item in lines[2].split()[1:])
    assert sum(map(int, counts.values())) == 2309 and int(counts["X"]) == 2309 - int(won)


@pytest.mark.slow
def test_random_agent_example__bad_argument_fails_cleanly() -> None:
    out = run("examples/random_agent.py", "--answers", "klingon")
    assert out.returncode == 2 and "unknown word list 'klingon'" in out.stderr
    assert "Traceback" not in out.stderr


def _quick_benchmark(tmp_path: Path, script: str, *args: str) -> dict:
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    reports = [p.name for p in (ROOT / "benchmarks").glob("report*.py")]  # the sections' renderers
    for name in (script, "make_table.py", "common.py", "__init__.py", *reports):
        (bench / name).write_text((ROOT / "benchmarks" / name).read_text())
    # Run as the docs say, ``python -m benchmarks.NAME``, here from a copy: it writes under
    # tmp_path.
    out = run(
        "-m",
        f"benchmarks.{script.removesuffix('.py')}",
        "--device",
        "cpu",
        "--quick",
        *args,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    return json.loads((bench / "results" / script.replace(".py", "_cpu.json")).read_text())


@pytest.mark.slow
def test_env_throughput_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    # this checkout as "before"
    result = _quick_benchmark(tmp_path, "env_throughput.py", "--before", str(ROOT))
    assert result["pattern_table"]["shape"] == [12972, 2315]
    assert {(r["num_envs"], r["mask"]) for r in result["vector"]} >= {(16384, "all"), (1, "hard")}
    assert all(r["env_steps_per_s"] > 0 for r in result["vector"])
    for row in result["vector"]:  # the two figures of a row come from one timing: they must agree
        assert row["env_steps_per_s"] == pytest.approx(
            row["num_envs"] / (row["ms_per_step"] / 1000), rel=1e-9
        )
    vector = result["side_by_side"]["vector_ms_per_step"]
    assert set(vector) == {"this checkout", "before", "this checkout, OMP_WAIT_POLICY=PASSIVE"}
    # --quick's; packed: before gets its int8 masks
    configs = {"64 all", "16384 hard 1 packed", "16384 all 4"}
    assert set(vector["this checkout"]) == set(vector["before"]) == configs
    assert set(vector["this checkout, OMP_WAIT_POLICY=PASSIVE"]) == {
        c for c in configs if c.startswith("16384 ")
    }
    assert set(result["side_by_side"]["single_env"]) == {"this checkout", "before"}
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert (
        "| 16,384 |" in table
        and "plain-Python" in table
        and "| 1,024 |" in table
        and "speed-up" in table
    )
    assert '| 16,384 | `hard`, `mask_dtype="packed"` |' in table
    assert "`OMP_WAIT_POLICY=PASSIVE` |" in table  # its column
    # torch's profile of a step: operators, each with its calls and time a step
    profile = result["profile"]
    assert profile["num_envs"] == 16384 and profile["calls_per_step"] > 10
    assert profile["ops"] and all(
        op["name"].startswith("aten::") and op["calls_per_step"] > 0 for op in profile["ops"]
    )
    assert "Where a step's time goes, mask `all`, 16,384 games" in table


@pytest.mark.slow
def test_solvers_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "solvers.py")
    salet = next(r for r in result["runs"] if r["opener"] == "salet" and not r["hard_mode"])
    assert (
        salet["result"]["wins"] == 2315
        and round(salet["result"]["derived"]["mean_guesses_wins"], 4) == 3.4324
    )
    assert [c["opener"] for c in result["cold_start"]] == ["salet", "computed"]
    assert "### Solvers" in (tmp_path / "BENCHMARKS.md").read_text()


@pytest.mark.slow
def test_replay_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "replay.py")
    assert [r["capacity"] for r in result["replay"]] == [10**4, 10**5]
    assert all(r["sum_tree_per_s"] > 0 and r["linear_per_s"] > 0 for r in result["replay"])
    assert "### Prioritized replay" in (tmp_path / "BENCHMARKS.md").read_text()


@pytest.mark.slow
def test_training_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "training.py")
    assert [(r["agent"], r["stage"]) for r in result["throughput"]] == [
        ("a2c", "100"),
        ("a2c", "full"),
        ("a2c", "full, from `a2c_2315.pt`"),
        ("dqn", "100"),
        ("dqn", "full"),
    ]
    # updates/s and items/s
    assert all(min(r["this checkout"].values()) > 0 for r in result["throughput"])
    # every one-board network, training stages included (not dqn_boards.pt: it sees every board)
    shipped = [
        p
        for p in (ROOT / "agents" / "checkpoints").rglob("*.pt")
        if torch.load(p, weights_only=True)["kind"] != "see-all"
    ]
    assert len(shipped) < len(list((ROOT / "agents" / "checkpoints").rglob("*.pt")))
    assert len(result["checkpoints"]) == len(shipped) >= 2
    from wordle_agents.common.checkpoint import CheckpointInfo

    recorded = {
        p.name: CheckpointInfo.of(p, torch.load(p, weights_only=True)).figures for p in shipped
    }  # at training
    # greedy play is deterministic: the same lists give the same figures
    for row in result["checkpoints"]:
        figures = recorded[row["agent"].split("`")[1]]
        assert row["wins"] / row["games"] == pytest.approx(figures["win_rate"], abs=1e-12), row[
            "agent"
        ]
        assert row["derived"]["mean_guesses_wins"] == pytest.approx(
            figures["mean_guesses"], abs=1e-9
        ), row["agent"]
    assert (
        "### Training throughput and shipped checkpoints"
        in (tmp_path / "BENCHMARKS.md").read_text()
    )


@pytest.mark.slow
def test_dqn_ablation_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "dqn_ablation.py")
    seed001 = "seed-001 settings (prioritized, dueling, double, lr 5e-4, width 512)"
    assert [r["setting"] for r in result["runs"]] == [seed001]
    assert (
        result["runs"][0]["config"]["hidden"] == 512
        and result["runs"][0]["config"]["reward"] == "tile-shaped"
    )
    run = result["runs"][0]
    assert (
        run["curve"][-1][0] == 250 and 0.0 <= run["final_win_rate"] <= run["best_win_rate"] <= 1.0
    )
    assert "### DQN ablation, 100-word stage" in (tmp_path / "BENCHMARKS.md").read_text()


@pytest.mark.slow
def test_a2c_ablation_benchmark__reads_a_collected_run_log(tmp_path: Path) -> None:
    """The ablation table is made from the runs' own logs: a collected log's evaluations become its
    curve, after the figures of the weights it started from; a name the script does not know is
    refused."""
    run_dir = tmp_path / "runs" / "x"
    run_dir.mkdir(parents=True)
    rows = [
        {"stage": "full", "iteration": 100, "elapsed_s": 9.0, "train_loss": 1.0},
        {
            "stage": "full",
            "iteration": 250,
            "elapsed_s": 20,
            "win_rate": 0.998,
            "mean_guesses": 3.77,
        },
    ]
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    long_dir = (
        tmp_path / "runs" / "long"
    )  # evaluated every 25 updates: the table shows every third of its 21 points and the last
    long_dir.mkdir()
    rows = [
        {"iteration": 25 * i, "elapsed_s": i, "win_rate": 0.997, "mean_guesses": 3.7 + i / 1e4}
        for i in range(1, 21)
    ]
    (long_dir / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    recipe_dir = tmp_path / "runs" / "recipe"  # a from-scratch recipe run: one log per recipe stage
    logs = {
        "vocab-1000": [
            {
                "stage": "100",
                "iteration": 100,
                "elapsed_s": 30,
                "win_rate": 0.02,
                "mean_guesses": 2,
                "train_win_rate": 0.2,
            },
            {"stage": "1000", "iteration": 200, "elapsed_s": 90, "train_win_rate": 0.3},
        ],
        "answers-2315": [
            {"stage": "2315", "iteration": 7, "elapsed_s": 3.0, "train_win_rate": 0.5}
        ],
    }
    for stage, rows in logs.items():
        (recipe_dir / stage).mkdir(parents=True)
        (recipe_dir / stage / "metrics.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows)
        )
    collected = {
        "lr1e-4": run_dir,
        "batch4096": run_dir,
        "ppo0.2-shipped": long_dir,
        "scratch-entropy0.01": recipe_dir,
    }
    flags = [
        flag for name, folder in collected.items() for flag in ("--collect", f"{name}={folder}")
    ]
    result = _quick_benchmark(tmp_path, "a2c_ablation.py", *flags)
    (scratch,) = result["scratch"]
    assert [(p["recipe_stage"], p["stage"], p["update"]) for p in scratch["points"]] == [
        ("vocab-1000", "100", 100),
        ("vocab-1000", "1000", 200),
        ("answers-2315", "2315", 7),
    ]
    assert "--set full-gamma0.8.entropy_coef=0.01" in scratch["command"]
    kept, bigger, long = result["runs"]
    assert len(long["curve"]) == 21
    points = [(p["update"], p["games"], p["mean_guesses"]) for p in kept["curve"]]
    assert points == [(0, 0, 3.7812), (250, 512_000, 3.77)]
    # games counted with each run's batch
    assert [p["games"] for p in bigger["curve"]] == [0, 1_024_000]
    assert (
        "--lr 0.0001" in kept["command"]
        and (tmp_path / "benchmarks" / "plots" / "a2c_ablation.png").stat().st_size
    )
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert "| lr 1e-4 |" in table
    shown = (
        next(line for line in table.splitlines() if line.startswith("| PPO"))
        .split(" | ")[2]
        .split("; ")
    )
    # beside the shipped run's log at the same update of the same stage (a 100-word evaluation; a
    # sampled win rate)
    assert (
        "| vocab-1000 | 100 | 100 | 1.00 / 1.0000; sampled 10.4 | 2.00 / 2.0000; sampled 20.0 "
        "| 0.01 h |"
    ) in table
    assert "| vocab-1000 | 1000 | 200 | sampled 15.4 | sampled 30.0 |" in table
    # the shipped log has no update 7
    assert "| answers-2315 | 2315 | 7 | sampled - | sampled 50.0 |" in table
    assert (  # the curve thinned to five points (the plot has them all)
        len(shown) == 5
        and shown[0].startswith("0.00 M")
        and shown[-1] == ("1.02 M: 99.70 / 3.7020")
    ), shown
    assert "| Greedy max-entropy, opener SALET (seed 002) (cited) | 100 | 3.4423 | 5 |" in table
    bad = run("-m", "benchmarks.a2c_ablation", "--collect", f"nope={run_dir}", cwd=tmp_path)
    assert (
        bad.returncode != 0 and "unknown run 'nope'" in bad.stderr and "Traceback" not in bad.stderr
    )


@pytest.mark.slow
def test_profile_training_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "profile_training.py")
    for name in ("a2c", "dqn"):
        assert result[name]["wall_s"] > 0 and len(result[name]["top"]) == 12
        top = result[name]["top"]
        assert 0 < sum(op["share"] for op in top) <= 1 + 1e-9  # the top ops: part of the whole
        assert [op["self_ms"] for op in top] == sorted((op["self_ms"] for op in top), reverse=True)
        for op in top:  # each share is its time over the same total
            assert op["share"] * top[0]["self_ms"] == pytest.approx(
                top[0]["share"] * op["self_ms"], rel=1e-9
            )
    assert "### Where a training update's time goes" in (tmp_path / "BENCHMARKS.md").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("script", ["cleanrl_ppo.py", "torchrl_ppo.py"])
def test_ppo_examples__learn_a_small_list(script: str) -> None:
    """The per-stack PPO examples learn 20 words (random guessing wins about half of them)."""
    if script == "torchrl_ppo.py":
        pytest.importorskip("torchrl")
    out = run(
        f"examples/{script}",
        "--words",
        "20",
        "--iterations",
        "100",
        "--num-envs",
        "64",
        "--device",
        "cpu",
    )
    assert out.returncode == 0, out.stderr
    summary = out.stdout.splitlines()[-1]
    won = int(summary.split(": ")[1].split("/")[0])
    assert won >= 18, summary


@pytest.mark.slow
def test_ppo_example__bad_argument_fails_cleanly() -> None:
    out = run("examples/cleanrl_ppo.py", "--words", "1")
    assert (
        out.returncode == 2
        and "--words must be 2..2315; got 1" in out.stderr
        and "Traceback" not in out.stderr
    )


@pytest.mark.slow
def test_oracle_benchmark__quick_run_writes_regrets(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "oracle.py")
    rows = {r["agent"]: r for r in result["rows"]}
    optimal, greedy = rows["optimal (best-of-1)"], rows["max-entropy (entropy)"]
    assert optimal["mean_regret"] == pytest.approx(0.0) and optimal["mean_cost"] == pytest.approx(
        optimal["root_value"]
    )
    assert greedy["mean_regret"] == pytest.approx(
        greedy["mean_cost"] - greedy["root_value"], abs=1e-6
    )
    assert greedy["mean_regret"] >= 0 and sum(greedy["by_turn"].values()) == pytest.approx(
        greedy["mean_regret"]
    )
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert (
        "### Every decision against the optimum: regret by turn" in table
        and ("| max-entropy (entropy) |") in table
    )


@pytest.mark.slow
def test_oracle_benchmark__rows_are_one_board_real_games() -> None:
    """Regression: the multi-board mixture rows of the bench were taken for real-game rows, and the
    oracle (one board) failed on their 2000 games."""
    code = (
        "import json; from benchmarks.oracle import real_game_rows; print(json.dumps([[label, "
        "options.get('boards', 1)] for label, _, options in real_game_rows()]))"
    )
    out = run("-c", code)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout.splitlines()[-1])
    assert all(boards == 1 for _, boards in rows) and not any(
        "mixture" in label for label, _ in rows
    )
    assert "DQN `dqn_explored.pt` (stage full), real game" in [label for label, _ in rows]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a wordle-gym result (Expecting property name"),
        (json.dumps({"agent": "x"}), "missing 8 required positional arguments"),
        (
            json.dumps(
                {
                    "agent": "x",
                    "games": 0,
                    "wins": 0,
                    "max_guesses": 6,
                    "histogram": [0] * 7,
                    "lost_answers": [],
                    "openers": {},
                    "wall_time_s": 1.0,
                    "device": "cpu",
                }
            ),
            "a result needs at least one game",
        ),
    ],
)
def test_report__bad_results_json_names_the_file(
    tmp_path: Path, content: str, message: str
) -> None:
    agents = tmp_path / "benchmarks" / "results" / "agents"
    agents.mkdir(parents=True)
    (agents / "broken.json").write_text(content)
    with pytest.raises(ValueError, match="broken.json: not a wordle-gym result") as info:
        render(Layout.under(tmp_path))
    assert message in str(info.value)
    assert not (tmp_path / "BENCHMARKS.md").exists()


@pytest.mark.slow
def test_bench_device__rows_of_another_device_beside_the_cpu_rows(tmp_path: Path) -> None:
    """``benchmarks.bench_device`` keeps a bench run's rows on another device; the table sets each
    beside the CPU row of the same file, saying where the games differ."""
    bench = tmp_path / "benchmarks"
    (bench / "results" / "agents").mkdir(parents=True)
    reports = [p.name for p in (ROOT / "benchmarks").glob("report*.py")]
    for name in ("bench_device.py", "make_table.py", "common.py", "__init__.py", *reports):
        (bench / name).write_text((ROOT / "benchmarks" / name).read_text())
    cpu = json.loads(
        (ROOT / "benchmarks" / "results" / "agents" / "optimal-salet.json").read_text()
    )  # a real row
    cpu["wall_time_s"] = 2.0
    histogram = list(cpu["histogram"])
    rows = tmp_path / "rows"
    rows.mkdir()
    for name, wins in (("same.json", 3), ("other.json", 2)):
        (bench / "results" / "agents" / name).write_text(json.dumps({**cpu, "agent": name}))
        other = (
            histogram
            if wins == 3
            else [*histogram[:2], histogram[2] - 1, *histogram[3:-1], histogram[-1] + 1]
        )
        row = {
            **cpu,
            "agent": name,
            "wins": cpu["wins"] - 3 + wins,
            "histogram": other,
            "device": "cuda",
        }
        row["wall_time_s"] = 0.5
        (rows / name).write_text(json.dumps(row))
    out = run(
        "-m", "benchmarks.bench_device", "--rows", str(rows), "--machine", "a GPU", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    result = json.loads((bench / "results" / "bench_cuda.json").read_text())
    assert result["device"] == "cuda" and [r["file"] for r in result["rows"]] == [
        "other.json",
        "same.json",
    ]
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert "### Every agent on cuda, beside its CPU row" in table and "Machine: a GPU." in table
    assert "| same.json | 2,315 | 2315 | 2315 | 2.00 s | 0.50 s |" in table
    assert "| other.json | 2,315 | 2315 | 2314 (other games) | 2.00 s | 0.50 s |" in table


def test_bench_device__bad_rows_folder_gets_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from benchmarks import bench_device

    row = {"agent": "a", "games": 1, "wins": 1, "histogram": [1], "wall_time_s": 1.0}
    for name, device in (("a.json", "cpu"), ("b.json", "cuda")):
        (tmp_path / name).write_text(json.dumps({**row, "device": device}))
    for folder, message in (
        (tmp_path, "mixes devices ['cpu', 'cuda']"),
        (tmp_path / "nothing", "holds no row files"),
    ):
        with pytest.raises(SystemExit) as info:
            bench_device.main(["--rows", str(folder)])
        assert info.value.code == 2 and message in capsys.readouterr().err


def test_cuda_graph_benchmark__without_cuda_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import cuda_graph

    monkeypatch.setattr(sys, "argv", ["cuda_graph", "--device", "cpu"])
    with pytest.raises(SystemExit, match="needs a CUDA device: run it with --device cuda on a GPU"):
        cuda_graph.main()


@pytest.mark.slow
def test_regret_reward_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "regret_reward.py")
    assert list(result["runs"]) == ["this, cold", "this, warm"]
    for run in result["runs"].values():
        assert [r["play"] for r in run["rows"]] == [
            "LLM-like",
            "random words",
            "random candidates",
            "mixed",
        ]
        assert all(r["moves"] >= 2 and r["max_s"] >= r["p50_s"] > 0 for r in run["rows"])
    assert (
        "### The text env's regret reward on LLM-like and poor play"
        in (tmp_path / "BENCHMARKS.md").read_text()
    )


@pytest.mark.slow
def test_text_env_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "text_env.py")
    rows = {r["env"]: r for r in result["rows"]}
    assert rows["WordleText-v0 (wordle_gym)"]["steps_per_s"] > 0
    assert rows["WordleReal-v0 (wordle_gym, through TextArena)"]["games"] > 0
    assert (
        "| env | code | steps/s | us a step | games |" in (tmp_path / "BENCHMARKS.md").read_text()
    )


@pytest.mark.slow
def test_multi_board_benchmark__quick_run_writes_results(tmp_path: Path) -> None:
    result = _quick_benchmark(tmp_path, "multi_board.py")
    rows = {r["boards"]: r for r in result["rows"]}
    assert set(rows) == {2, 4} and all(r["games"] == 20 and r["wins"] >= 19 for r in rows.values())
    assert rows[4]["mean_guesses_wins"] > rows[2]["mean_guesses_wins"] > 3
    assert [t["boards"] for t in result["throughput"]] == [1, 4]
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert ("### Multi-board Wordle: the greedy solver and the vector env: cpu (") in table and (
        "| Quordle | 4 |"
    ) in table
    from research.order_bound import shipped_bounds

    (quordle,) = shipped_bounds([4])  # its bounds beside the solver: both, and the better
    one, order = quordle["one_board_bound"], quordle["order_bound"]["lower_bound"]
    assert f"| Quordle | 4 | {one:.4f} | {order:.4f} | {max(one, order):.4f} |" in table


def test_multi_board_benchmark__a_command_run_again_is_named_once() -> None:
    """The CPU table's command named the same run three times, one after the other (each rerun
    appended)."""
    from benchmarks.multi_board import merged_command

    first, second = (
        "python -m benchmarks.multi_board --boards 2,4,8",
        ("python -m benchmarks.multi_board --boards 2"),
    )
    assert merged_command(first, second) == f"{first}; then {second}"
    assert merged_command(f"{first}; then {second}", second) == f"{first}; then {second}"
    assert merged_command(f"{second}; then {first}", second) == f"{first}; then {second}"


@pytest.mark.slow
def test_dordle_bound_benchmark__quick_run_writes_the_bound_beside_the_solver(
    tmp_path: Path,
) -> None:
    from wordle_gym.core.words import Vocabulary

    words = Vocabulary().answers[:300]  # the quick run's lists: every opener of them bounded first
    (tmp_path / "a.txt").write_text("\n".join(words) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(sorted({*words, "salet"})) + "\n")
    journal = tmp_path / "journal.json"
    lists = ["--answers", str(tmp_path / "a.txt"), "--allowed", str(tmp_path / "g.txt"), "--quiet"]
    out = run("-m", "research.boards_bound", "--all-openers", *lists, "--save", str(journal))
    assert out.returncode == 0, out.stderr
    # then the weakest refined and searched
    cut = f"{json.loads(journal.read_text())['weakest'][2][1]:.6f}"
    out = run(
        "-m",
        "research.boards_bound",
        "--all-openers",
        *lists,
        "--save",
        str(journal),
        "--search-below",
        cut,
    )
    assert out.returncode == 0, out.stderr
    result = _quick_benchmark(tmp_path, "dordle_bound.py", "--every-opener", str(journal))
    every = result["every_opener"]
    assert every["openers"] == 301 and every["per_opener_s"] > 0
    assert every["searched"] == len(json.loads(journal.read_text())["searched"]) >= 1
    assert every["searched_below"] == float(cut) and every["searched_least"] >= every["lower_bound"]
    assert (
        every["lower_bound"]
        == min(b for _, b in every["weakest"])
        <= result["rows"][0]["lower_bound"]
    )
    (row,) = result["rows"]
    solver, pairs = row["solver"], row["pairs"]
    assert row["opener"] == "salet" and pairs == 300 * 299 and solver["games"] == 200
    for t in "34":  # no policy finishes more games by a guess than the search's most
        assert solver["finished_by"][t] <= row["finished_by"][t] / pairs + 3 * (0.25 / 200) ** 0.5
    assert 3 < row["lower_bound"] < solver["mean_guesses_all"] + 3 * solver["standard_error"]
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert (
        "### Dordle from a fixed opener" in table
        and (f"| SALET | {row['lower_bound']:.4f} |") in table
    )
    assert f"**Every policy, whatever its opener: at least {every['lower_bound']:.4f}.**" in table
    assert f"the {every['searched']:,} still below {float(cut)} searched exactly as above" in table


def test_gpu_script__runs_every_module_that_holds_cuda_tests() -> None:
    from benchmarks.gpu import CUDA_TEST_MODULES

    mark = ".".join(("pytest", "mark", "cuda"))  # spelled so that this file holds no such mark
    marked = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if mark in p.read_text()
    }
    assert marked == set(CUDA_TEST_MODULES)


@pytest.mark.slow
def test_gpu_script__dry_run_runs_every_step_on_the_cpu(tmp_path: Path) -> None:
    """The one-command GPU run (issue 47): every step dry-run on the CPU with tiny sizes, its logs
    and summary under --out, nothing written elsewhere."""
    before = sorted((ROOT / "benchmarks" / "results").glob("*.json"))
    out = run(
        "-m",
        "benchmarks.gpu",
        "--dry-run",
        "--out",
        str(tmp_path / "gpu"),
        *("--opener-minutes", "1", "--opener-cores", "2"),
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    summary = json.loads((tmp_path / "gpu" / "summary.json").read_text())
    names = [s["name"] for s in summary["steps"]]
    assert names == [
        "cuda-tests",
        "env-throughput",
        "cuda-graph",
        "training",
        "multi-board",
        "bench",
        "bench-device",
        "train-a2c",
        "train-dqn",
        "improve",
        "improve-hard",
        "improve-root",
        "improve-boards",
        "benchmarks",
        "opener-values-1",
        "opener-values-2",
    ]
    assert all(s["exit"] == 0 for s in summary["steps"]) and summary["dry_run"]
    assert all((tmp_path / "gpu" / f"{name}.log").stat().st_size > 0 for name in names)
    assert (tmp_path / "gpu" / "runs" / "a2c" / "last.pt").exists() and (
        tmp_path / "gpu" / "bench"
    ).is_dir()
    # improved from the tiny A2C's
    for weights in ("dqn_explored.pt", "dqn_explored_hard.pt", "dqn_root.pt"):
        assert (
            torch.load(tmp_path / "gpu" / weights, weights_only=True)["improving"]["iterations"]
            == 1
        )
    # the network over K boards
    seeing = torch.load(tmp_path / "gpu" / "dqn_boards.pt", weights_only=True)
    assert seeing["kind"] == "see-all" and seeing["board"]["boards_training"]["iterations"] == 1
    assert sorted((ROOT / "benchmarks" / "results").glob("*.json")) == before
    # the opener values beside the steps, two shares into one table (a tiny game of its own)
    table = json.loads((tmp_path / "gpu" / "opener_values_dry.json").read_text())
    assert len(table["values"]) == 20


@pytest.mark.slow
def test_rllib_example__help_works_without_ray_and_the_hint_names_the_extra() -> None:
    """Regression (issue 65): --help exited 1 without Ray, and the hint named a package index entry
    that does not exist."""
    try:
        import ray  # noqa: F401
    except ImportError:
        out = run("examples/rllib_ppo.py", "--help")
        assert out.returncode == 0 and "--iterations" in out.stdout, out.stderr
        out = run("examples/rllib_ppo.py", "--iterations", "1")
        assert out.returncode == 1 and "pip install '.[rllib]' in the repository" in out.stderr
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    else:  # CI's RLlib venv: the help is the same
        out = run("examples/rllib_ppo.py", "--help")
        assert out.returncode == 0 and "--iterations" in out.stdout, out.stderr


def test_regret_reward_benchmark__first_move_history_keeps_one_row_a_table() -> None:
    from benchmarks.regret_reward import _history
    from benchmarks.report_solver import regret_reward_section

    result = json.loads((ROOT / "benchmarks/results/regret_reward_cpu.json").read_text())
    shipped = ROOT / "wordle_gym/data/solver/opener_values_normal.json"
    table = len(json.loads(shipped.read_text())["values"])
    earlier = [
        {"date": "2026-11-28", "table": 1, "exact": 3600, "upper": 9372},
        {"date": "2026-11-29", "table": table, "exact": 1, "upper": 12971},  # merged again since
    ]
    result["first_move"]["real"] |= {"exact": 4000, "upper": 8972}
    result["first_move_history"] = earlier
    history = _history(result, "2026-11-30")
    now = {"date": "2026-11-30", "table": table, "exact": 4000, "upper": 8972}
    assert history == [earlier[0], now]
    text = "\n".join(regret_reward_section(result | {"first_move_history": history}))
    assert "| 2026-11-28 | 1 | 3,600 | 9,372 |" in text
    assert f"| 2026-11-30 | {table:,} | 4,000 | 8,972 |" in text
    assert "| 2026-11-29 |" not in text.split("over the runs")[1]
