"""The `wordle-gym` command, run as a user would: subprocesses, input from a pipe."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.helpers.lists import list_pair
from tests.helpers.processes import ROOT, drain, interrupt, wordle_gym_here, wordle_gym_process
from tests.helpers.reference import feedback_ref
from wordle_agents.commands.optimal import main as optimal_main
from wordle_gym.cli.commands import main as cli_main

SMALL = [
    "cigar",
    "rebut",
    "sissy",
    "humph",
    "awake",
    "blush",
    "focal",
    "evade",
    "naval",
    "serve",
    "parry",
    "error",
]


cli, cli_here = wordle_gym_here, wordle_gym_here


def assert_clean_error(out: subprocess.CompletedProcess[str], message: str) -> None:
    assert out.returncode == 2, out.stdout + out.stderr
    assert message in out.stderr and "Traceback" not in out.stderr


def test_play__invalid_words_cost_no_turn() -> None:
    out = cli("play", "--answer", "parry", stdin="crane\nzzzzz\ncran\nparry\n")
    assert out.returncode == 0, out.stderr
    assert " c (R)(A) n  e " in out.stdout
    assert "'zzzzz' is not in the word list; try again (no turn used)" in out.stdout
    assert "'cran' is not a 5-letter word" in out.stdout
    assert "[P][A][R][R][Y]" in out.stdout and "Solved in 2/6!" in out.stdout


def test_play__hard_mode_refusal_and_giving_up() -> None:
    out = cli("play", "--answer", "parry", "--hard", stdin="error\ncrane\nquit\n")
    assert "hard mode: letter 3 must be R; try again (no turn used)" in out.stdout
    assert out.returncode == 1 and "The answer was PARRY." in out.stdout
    out = cli("play", "--answer", "parry", "--hard", stdin="error\nrotor\n")  # eof ends the game
    # ROTOR keeps R at 3 and has two R
    assert "hard mode: the guess must use R twice" not in out.stdout
    out = cli("play", "--answer", "parry", "--hard", stdin="error\nbarns\n")
    assert "hard mode: the guess must use R twice" in out.stdout


def test_play__loses_after_six_guesses() -> None:
    out = cli(
        "play",
        "--answer",
        "parry",
        "--seed",
        "1",
        stdin="crane\nsloth\nbumpy\nwight\nfudge\nerror\n",
    )
    assert out.returncode == 1 and "Out of guesses. The answer was PARRY." in out.stdout


def test_assist__feedback_formats_undo_and_contradictions() -> None:
    steps = (
        "salet .g...\nhello\nsalet .g..q\nxxxxx 21002\ncorny 2222\ncorny ..gyg\nundo\nundo\nsalet "
        "02000\nparry ggggg\n"
    )
    out = cli("assist", stdin=steps)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "2315 candidates left" in text and "soare" in text  # the opening suggestions
    assert "82 candidates left" in text
    assert "Expected a guess and its colours" in text
    assert "feedback '.g..q' is malformed" in text
    assert "'xxxxx' is not in the word list; ignored." in text
    assert "feedback '2222' has 4 tiles; expected 5; ignored." in text
    assert "No answer fits CORNY ..gyg" in text
    assert "Undone; 0 guesses entered." in text and "Nothing to undo." in text
    assert "Suggestions (bits of information):" in text  # what the scores measure
    assert text.count("82 candidates left") == 2  # same state after undo and the digit form
    assert "Solved in 2!" in text


def test_assist__optimal_opens_with_the_proven_best_first_guesses() -> None:
    """Regression (issue 41): --optimal opened with the greedy solver's SOARE and scores without a
    unit; the shipped ranking, proven over every allowed guess, gives the first guess and its exact
    value."""
    out = cli("assist", "--optimal", stdin="quit\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    at = next(
        i for i, line in enumerate(lines) if line.startswith("The best first guesses, proven")
    )
    assert lines[at + 1] == "  salet  3.4212" and "expected guesses to solve" in lines[at]
    hard = cli("assist", "--optimal", "--hard", stdin="quit\n")
    assert "  salet  3.5084" in hard.stdout


def _judged_as_analyzed(game: list[str], answer: str, lists: list[str]) -> None:
    """``assist --optimal`` fed ``game`` (the feedback of ``answer``) judges each guess with the
    exact skill cost and luck that ``wordle-gym analyze`` gives the same game."""
    lines = "".join(f"{g} {''.join('.yg'[t] for t in feedback_ref(g, answer))}\n" for g in game)
    out = cli("assist", "--optimal", *lists, stdin=lines + "quit\n")
    assert out.returncode == 0, out.stderr
    judged = [line for line in out.stdout.splitlines() if ": skill " in line]
    analyzed = cli("analyze", *game, "--answer", answer, *lists)
    rows = [
        line
        for line in analyzed.stdout.splitlines()
        if line.startswith("| ") and line[2:7].isupper()
    ]
    assert len(rows) == len(game) and len(judged) == len(game)
    for line, row in zip(judged, rows, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        word, regret, luck = cells[0], float(cells[1]), float(cells[2])
        assert line.startswith(f"{word}: skill ") and f"luck {luck:+.4f}" in line
        assert ("skill optimal" in line) == (regret == 0) and (
            regret == 0 or f"cost {regret:+.4f}" in line
        )


def test_assist__optimal_judges_each_guess_as_analyze_does(tmp_path: Path) -> None:
    """Issue 45: after each guess entered, --optimal shows its exact skill cost and luck, the
    figures of ``wordle-gym analyze`` for the same game, the first guess included; on the real lists
    an opener the tables do not hold exactly gets its proven bounds, charged the upper one (issue
    73: never the optimistic bound)."""
    answers, allowed, lists = list_pair(tmp_path, seed=4, answers=60, guesses=150)
    answer = answers[7]
    game = [
        *[w for w in allowed if w != answer and feedback_ref(w, answer).count(2) < 3][:2],
        answer,
    ]
    _judged_as_analyzed(game, answer, lists)
    # solved at once: no search after it
    rough = cli("assist", "--optimal", stdin="fuzzy ggggg\nquit\n")
    line = next(line for line in rough.stdout.splitlines() if line.startswith("FUZZY: skill"))
    assert "cost at most +" in line and "proven at least +" in line and "luck" not in line
    high, low = (float(line.split(k)[1].split()[0].rstrip(";")) for k in ("at most ", "at least "))
    assert 0 < low < high


@pytest.mark.slow
def test_assist__optimal_judges_the_opener_from_the_shipped_ranking_as_analyze_does() -> None:
    """On the real lists the first guess is judged from the opener tables, as analyze judges it;
    analyze values the rest by search (10 s), hence slow."""
    _judged_as_analyzed(["salet", "crony", "cigar"], "cigar", [])


def test_assist__lists_few_candidates_and_names_the_last() -> None:
    out = cli("assist", "--top", "2", stdin="salet .g...\ncorny ..g.g\nharpy .ggyg\n")
    assert "5 candidates left: hardy, harpy, harry, marry, parry" in out.stdout
    assert "It must be PARRY." in out.stdout
    lines = out.stdout.splitlines()
    blocks = [i for i, line in enumerate(lines) if line.startswith("Suggestions (")]
    assert len(blocks) == 3  # at the start and after each of the first two guesses: 2 lines each
    assert all(lines[i + 2].startswith("  ") and not lines[i + 3].startswith("  ") for i in blocks)


def test_eval__custom_list_json_and_random_agent(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("\n".join(SMALL) + "\n")
    target = tmp_path / "res.json"
    out = cli(
        "eval",
        "--agent",
        "max-entropy",
        "--answers",
        str(words),
        "--allowed",
        str(words),
        "--device",
        "cpu",
        "--json",
        str(target),
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith("| agent | win % |")
    assert "| max-entropy (entropy, opener computed) | 100.00 |" in out.stdout
    data = json.loads(target.read_text())
    assert data["games"] == 12 and data["wins"] == 12 and sum(data["histogram"]) == 12
    out = cli(
        "eval",
        "--agent",
        "random",
        "--answers",
        str(words),
        "--allowed",
        str(words),
        "--device",
        "cpu",
    )
    assert out.returncode == 0 and "| random (masked) |" in out.stdout


def test_eval__shipped_agents_are_told_apart_by_their_labels(tmp_path: Path) -> None:
    """Regression (issue 41): eval --agent dqn and --agent dqn-explored both labelled their row "DQN
    (letter-decomposed, prioritized replay)"; the label names the agent and the weights it plays."""
    few = tmp_path / "answers.txt"
    few.write_text("\n".join(SMALL) + "\n")
    rows = {}
    for agent in ("dqn", "dqn-explored"):
        out = cli_here(
            "eval",
            "--agent",
            agent,
            "--device",
            "cpu",
            "--answers",
            str(few),
            "--allowed",
            "allowed",
        )
        assert out.returncode == 0, out.stderr
        rows[agent] = out.stdout.splitlines()[2]
    assert rows["dqn"].startswith("| dqn (dqn_full.pt) |")
    assert rows["dqn-explored"].startswith("| dqn-explored (dqn_explored.pt) |")
    # In hard mode it plays its hard-mode weights, and the label named the normal file.
    hard = cli_here(
        "eval", "--agent", "dqn-explored", "--hard", "--device", "cpu", "--answers", str(few)
    )
    assert hard.returncode == 0, hard.stderr
    assert hard.stdout.splitlines()[2].startswith("| dqn-explored (dqn_explored_hard.pt) |")


def test_eval__full_list_with_salet() -> None:
    out = cli("eval", "--opener", "salet", "--device", "cpu")
    assert out.returncode == 0, out.stderr
    assert "2315/2315 won (100.00 %)" in out.stdout


def test_solve__shows_rows_until_solved() -> None:
    out = cli("solve", "parry", "--opener", "salet")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert (
        lines[0].startswith(" s [A] l  e  t ")
        and lines[-2] == "[P][A][R][R][Y]"
        and lines[-1] == "Solved in 4."
    )


BAD_ARGUMENTS = [
    (("solve", "zzzzz"), "'zzzzz' is not one of the 2315 possible answers"),
    (("eval", "--answers", "klingon"), "unknown word list 'klingon'"),
    (
        ("eval", "--agent", "nope"),
        "unknown agent 'nope'; installed agents: a2c, a2c-boards, a2c-improved, a2c-taught, dqn, "
        "dqn-boards, dqn-explored, dqn-improved, dqn-today, llm, max-entropy, optimal, random, sb3",
    ),
    (
        ("eval", "--agent", "random", "--opener", "salet"),
        "agent 'random' does not take option(s) ['opener']",
    ),
    (("eval", "-o", "tolerance"), "bad agent option 'tolerance': expected KEY=VALUE"),
    (("eval", "--opener", "qqqqq", "--device", "cpu"), "'qqqqq' is not an allowed guess"),
    (("eval", "--device", "tpu"), "unknown device 'tpu'"),
    (("play", "--answer", "xyzzy"), "'xyzzy' is not one of the 2315 possible answers"),
    (("play", "--max-guesses", "0"), "expected an integer from 1 to 1000, got '0'"),
    (
        ("play", "--max-guesses", "99999999999999999999"),
        "expected an integer from 1 to 1000, got '9999",
    ),
    (("play", "--seed", "-1"), "expected an integer >= 0, got '-1'"),
    # regression: int() reads '٢'
    (("eval", "--boards", "\u0662"), "expected an integer from 1 to 32, got '\u0662'"),
    (("eval", "--boards", " 2"), "expected an integer from 1 to 32, got ' 2'"),
    (("eval", "--boards", "02"), "expected an integer from 1 to 32, got '02'"),
    (("eval", "--games", "1_000"), "expected an integer"),
    (
        ("eval", "--device", "mps"),
        "device 'mps' is not supported; expected 'cpu', 'cuda', 'cuda:N' or 'auto'",
    ),
    (("eval", "--device", "meta"), "device 'meta' is not supported"),
    (("eval", "--json", "/tmp"), "'/tmp' is a folder; expected a file name"),
    (("eval", "--json", "/tmp/" + "x" * 300 + ".json"), "the name is too long"),
    (("eval", "--json", "/proc/wordle/out.json"), "cannot write '/proc/wordle/out.json'"),
    (("bench", "--out", "README.md"), "'README.md' is a file; expected a folder"),
    (("bench", "--out", "/proc/wordle-out"), "cannot write '/proc/wordle-out'"),
    (("bench", "--only", "no-such-agent", "--out", "/tmp/wordle-bench-none"), "matches no agent"),
    (
        ("bench", "--env", "--sizes", "8,lots"),
        "--sizes must be whole numbers separated by commas; got '8,lots'",
    ),
    (
        ("bench", "--env", "--sizes", "8", "--seconds", "0"),
        "--seconds in (0, 3600]; got '8' and 0.0",
    ),
    (("assist", "--opener", "salet"), "--opener is for eval and solve"),
    (
        ("eval", "--agent", "sb3", "--checkpoint", "README.md"),
        "is not a Stable-Baselines3 model file",
    ),
    (("assist", "--score", "best"), "unknown score 'best'"),
    ((), "the following arguments are required: COMMAND"),
]


@pytest.mark.parametrize(("args", "message"), BAD_ARGUMENTS)
def test_cli__bad_arguments_exit_2_without_traceback(args: tuple[str, ...], message: str) -> None:
    out = cli_here(*args)
    assert_clean_error(out, message)
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_cli__bad_arguments_exit_2_without_traceback_as_a_command() -> None:
    """The same cases through the installed entry point, each in its own process (four at a time:
    the time is the interpreter's start-up)."""
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda case: wordle_gym_process(*case[0]), BAD_ARGUMENTS))
    for (args, message), out in zip(BAD_ARGUMENTS, outs, strict=True):
        assert_clean_error(out, message)
        assert len(out.stderr.strip().splitlines()) == 1, args


def test_cli__word_list_file_that_is_not_text(tmp_path: Path) -> None:
    bad = tmp_path / "words.bin"
    bad.write_bytes(b"cigar\n\xff\xfe\n")
    assert_clean_error(
        cli("eval", "--answers", str(bad)), f"{str(bad)!r} is not a UTF-8 text file of words"
    )


def test_play__long_input_is_not_echoed_back() -> None:
    out = cli("play", "--answer", "parry", stdin="x" * 1_000_000 + "\nquit\n")
    assert (
        "'xxxxxxxxxxxxxxxxxxxxxxxx'... (1,000,000 characters) is not a 5-letter word"
    ) in out.stdout
    assert len(out.stdout) < 2_000


def test_eval__lists_a_few_lost_answers_and_counts_them(tmp_path: Path) -> None:
    out = cli("eval", "--agent", "random", "--device", "cpu", "--max-guesses", "1")
    line = next(line for line in out.stdout.splitlines() if line.startswith("lost "))
    count = int(line.split()[1].rstrip(":"))
    assert (
        count > 2000
        and line.count(",") == 9
        and (f"(+{count - 10} more; --json lists all)") in line
    )


def test_colour__only_on_a_terminal_unless_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    from wordle_gym.envs.render import _use_color, ansi_row

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert "\x1b[" not in ansi_row("parry", [2, 2, 2, 2, 2])  # pytest's stdout is not a terminal
    assert _use_color(None, Tty()) and not _use_color(None, io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _use_color(None, Tty())
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in ansi_row("parry", [2, 2, 2, 2, 2])


def test_cli__a_reader_that_goes_away_ends_it_quietly() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordle_gym", "assist"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stdout.readline().startswith("Type the guess")
    proc.stdout.close()  # like `| head -1`
    _, err = proc.communicate("salet .g...\ncrony .....\nquit\n", timeout=120)
    assert proc.returncode == 141 and err == ""


def test_outputs__the_solver_and_eval_write_into_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, allowed, lists = list_pair(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader, got = drain(fifo)
    assert optimal_main([allowed[0], *lists, "--quiet", "--save", str(fifo)]) == 0
    reader.join(10)
    # an npz (a zip) went through
    assert got and got[0][:2] == b"PK" and stat.S_ISFIFO(os.stat(fifo).st_mode)
    reader, got = drain(fifo)
    assert (
        cli_main(["eval", "--agent", "random", *lists, "--device", "cpu", "--json", str(fifo)]) == 0
    )
    reader.join(10)
    assert json.loads(got[0])["games"] == 30 and stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.slow
def test_assist__ctrl_c_stops_the_exact_values_at_once() -> None:
    """``assist --optimal`` after MUMMY all grey (1325 candidates): a long exact search, with a
    bar."""
    args = [sys.executable, "-m", "wordle_gym", "assist", "--optimal"]
    code, took, err = interrupt(args, "exact values", "mummy 00000\n")
    assert code == 130 and "Traceback" not in err and took < 30


# --------------------------------------------------------------------------- 7. options and plugins
def test_cli__bad_options_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    *_, lists = list_pair(tmp_path)
    bad = [
        (["-o", "seed=abc"], "use --seed instead"),  # the flag checks its value; -o would bypass it
        # was ignored: the flag's value won silently
        (["-o", "device=cuda"], "use --device instead"),
        (["-o", "x=" + "-" * 5000 + "1"], "at most 1,000"),  # RecursionError before
        (["-o", "x=" + "(1," * 300], "nested too deeply"),  # MemoryError before
    ]
    for extra, message in bad:
        assert cli_main(["eval", "--agent", "random", *lists, *extra]) == 2, extra[1][:20]
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and len(err) < 400, (
            extra[1][:20],
            err,
        )
    assert cli_main(["eval", "--agent", "random", "--answers", "x" * 120_000]) == 2
    assert len(capsys.readouterr().err) < 300  # a 120 kB argument is not echoed back whole
    # issue 62: a billion games built a list for hours; one-board agents on boards failed after
    # their work
    for argv, message in (
        (["--boards", "4", "--games", "1000000000"], "from 1 to 1000000"),
        (["--boards", "2", "--agent", "optimal"], "--agent optimal plays one board"),
        (["--boards", "2", "--agent", "sb3"], "--agent sb3 plays one board"),
    ):
        try:
            code = cli_main(["eval", "--agent", "random", *argv])
        except SystemExit as exc:  # argparse's own refusal of a value
            code = exc.code
        assert code == 2, argv
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    from wordle_agents.solvers.baselines import RandomPolicy

    for seed in ("abc", 1.5, True, -1):
        with pytest.raises(ValueError, match="seed must be an integer"):
            RandomPolicy(seed)  # type: ignore[arg-type]


def test_cli__an_unknown_argument_is_refused_by_the_subcommand_it_follows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # argparse named the top command and its help ("wordle-gym: error: ... (see wordle-gym --help)")
    for argv in (["assist", "--hard", "maybe"], ["eval", "--agent", "random", "--nope"]):
        with pytest.raises(SystemExit) as exc:
            cli_main(argv)
        assert exc.value.code == 2
        prog = f"wordle-gym {argv[0]}"
        expected = f"{prog}: error: unrecognized arguments: {argv[-1]} (see {prog} --help)\n"
        assert capsys.readouterr().err == expected


def test_cli__optimal_without_numba_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, allowed, lists = list_pair(tmp_path)
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "wordle_gym.solver._kernel", raising=False)
    assert cli_main(["eval", "--agent", "optimal", "--opener", allowed[1], *lists]) == 2
    err = capsys.readouterr().err
    assert "pip install numba" in err and len(err.strip().splitlines()) == 1


def test_cli__version_and_a_run_with_no_win(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 65: ``wordle-gym --version`` was a usage error; a run with no win printed ``mean nan``.
    The version is written once (the package's), and the installed metadata reads it."""
    import importlib.metadata

    import torch

    import wordle_gym
    from wordle_gym.harness.evaluation import evaluate

    with pytest.raises(SystemExit) as exited:
        cli_main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"wordle-gym {wordle_gym.__version__}"
    assert importlib.metadata.version("wordle-gym") == wordle_gym.__version__

    class Cigar:  # always the first allowed word, which is no answer here
        def act(
            self, observations: torch.Tensor, action_masks: torch.Tensor, env: object
        ) -> torch.Tensor:
            return torch.zeros(len(observations), dtype=torch.long)

    words = [
        "cigar",
        "rebut",
        "sissy",
        "humph",
        "awake",
        "blush",
        "focal",
        "evade",
        "naval",
        "serve",
    ]
    result = evaluate(
        Cigar(), answers=words[1:], allowed=words, max_guesses=2, device="cpu", progress=False
    )
    assert result.wins == 0 and "no game won" in result.summary() and "nan" not in result.summary()


def test_analyze__a_guess_that_breaks_hard_mode_is_refused_naming_the_rule(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (issue 62): ``analyze --hard salet bumph --answer cigar`` scored BUMPH as a spent
    turn without saying that it breaks hard mode (after SALET the answer holds an A); the game
    refuses it, so analyze does."""
    import wordle_gym.cli.cmd_analyze as commands

    monkeypatch.setattr(commands, "_oracle", lambda: pytest.fail("the search should not start"))
    assert cli_main(["analyze", "--hard", "salet", "bumph", "--answer", "cigar"]) == 2
    err = capsys.readouterr().err
    assert (
        "guess 2, BUMPH, breaks hard mode: the guess must use A once" in err
        and err.count("\n") == 1
    )
    monkeypatch.setattr(
        commands, "_oracle", lambda: (_ for _ in ()).throw(RuntimeError("searched"))
    )
    # a legal hard-mode game goes on to the search
    with pytest.raises(RuntimeError, match="searched"):
        cli_main(["analyze", "--hard", "salet", "brain", "--answer", "cigar"])


def test_waits__a_wait_over_a_second_says_what_it_is(capsys) -> None:
    """Issue 75: ``assist --optimal`` showed nothing for 28.5 s after the first feedback on an empty
    cache, and ``eval --boards 4`` stayed at 0/2000 for 12 s: a long wait says what it is doing, and
    the games' bar shows the guess the games are at before any game ends."""
    import time

    from wordle_agents import RandomPolicy
    from wordle_gym.cli.shared import waiting
    from wordle_gym.harness.play import play

    with waiting("valuing the guess exactly", after_s=0.05):
        time.sleep(0.3)
    assert "valuing the guess exactly" in capsys.readouterr().err
    with waiting("valuing the guess exactly", after_s=5):
        pass
    assert capsys.readouterr().err == ""
    play(
        RandomPolicy(seed=0),
        answers=["cigar", "rebut", "sissy"],
        allowed=None,
        device="cpu",
        progress=True,
    )
    assert "guess 1 of 6" in capsys.readouterr().err


def test_help__says_what_the_commands_do() -> None:
    """Issue 75: ``--help`` said bench rewrites BENCHMARKS.md (it writes
    wordle-gym-bench/BENCHMARKS.md), ``bench -h`` named one plot of two, ``analyze -h`` showed
    ``[--answer ANSWER]`` as optional although it is required, ``--version`` took 2.6 s (it imported
    torch), and in ``play`` Ctrl-D printed the answer on the prompt's line."""
    import subprocess
    import sys

    top = wordle_gym_here("--help").stdout
    assert "wordle-gym-bench/BENCHMARKS.md" in top and "rewrite BENCHMARKS.md" not in top
    bench = wordle_gym_here("bench", "-h").stdout
    assert "guess_distribution.png" in bench and "multi_board.png" in bench
    usage = wordle_gym_here("analyze", "-h").stdout
    assert "--answer ANSWER" in usage and "[--answer ANSWER]" not in usage
    code = (
        "import sys; from wordle_gym.cli import main; main(['--version']); print('torch' in "
        "sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["wordle-gym", out.stdout.split()[1], "False"], out.stderr
    played = subprocess.run(
        [sys.executable, "-m", "wordle_gym", "play", "--answer", "lanky"],
        input="",
        capture_output=True,
        text=True,
    )
    assert "guess 1/6: \nThe answer was LANKY." in played.stdout


def test_game_today__every_command_plays_the_nyts_lists_of_today() -> None:
    """Issue 78: --game today names the NYT's lists of today (3158 answers, 14855 guesses) in every
    command: a word of today's lists plays (FLOWY, an answer since 2022, is in no original list),
    the optimal agent plays the opener proven best there (TARSE, 11219 guesses in all, not SALET's
    11235), and assist and analyze value by it."""
    out = cli("play", "--game", "today", "--answer", "flowy", stdin="abjad\nflowy\n")
    assert out.returncode == 0 and "Solved in 2/6!" in out.stdout, out.stdout + out.stderr
    assert_clean_error(
        cli("play", "--answer", "flowy"), "'flowy' is not one of the 2315 possible answers"
    )
    out = cli("eval", "--agent", "optimal", "--game", "today")
    assert (
        "optimal (opener tarse): 3158/3158 won (100.00 %), mean 3.5526 guesses"
    ) in out.stdout, out.stderr
    out = cli("assist", "--optimal", "--game", "today", stdin="quit\n")
    lines = out.stdout.splitlines()
    at = next(
        i for i, line in enumerate(lines) if line.startswith("The best first guesses, proven")
    )
    assert lines[at + 1] == f"  tarse  {11219 / 3158:.4f}"
    out = cli("analyze", "tarse", "flowy", "--answer", "flowy", "--game", "today")
    assert "| TARSE | +0.0000 |" in out.stdout and "3.5526 from the start" in out.stdout, out.stderr
    assert_clean_error(
        cli("eval", "--game", "today", "--answers", "answers"), "--game today names the lists"
    )


def test_agent_commands__run_from_wordle_gym_as_from_python_m(tmp_path: Path) -> None:
    """House III, item 4: the agents' commands (training, teaching, the exact solver, recipes) are
    reached from ``wordle-gym`` through the entry points ``wordle_gym.commands``, named as such in
    their messages, with the same options as ``python -m wordle_agents.commands.NAME``."""
    listed = cli("--help").stdout
    for name in (
        "train-a2c",
        "train-dqn",
        "improve",
        "improve-boards",
        "teach",
        "optimal",
        "recipe",
    ):
        assert f"    {name}" in listed, name
    assert "train the A2C agent (wordle-gym train-a2c --help)" in " ".join(listed.split())
    tree = tmp_path / "tree.npz"
    answers, _, lists = list_pair(tmp_path, seed=3, answers=20, guesses=60)
    out = cli("optimal", answers[0], *lists, "--quiet", "--save", str(tree))
    assert out.returncode == 0 and "over 20 answers" in out.stdout and tree.is_file(), (
        out.stdout + out.stderr
    )
    assert_clean_error(
        cli("improve", "--init", str(tmp_path / "none.pt"), "--out", "x.pt"),
        "wordle-gym improve: error",
    )
    assert_clean_error(cli("train-dqn", "--iterations", "zero"), "wordle-gym train-dqn: error")


@pytest.mark.parametrize(
    ("module", "options", "required"),
    [
        ("wordle_agents.commands.optimal", "OptimalRun", ["tarse"]),
        ("wordle_agents.commands.improve", "ImproveRun", ["--init", "a.pt", "--out", "b.pt"]),
        ("wordle_agents.commands.teach", "TeachRun", ["--out", "b.pt"]),
    ],
)
def test_game_today__the_agents_commands_take_it_too(
    module: str, options: str, required: list[str]
) -> None:
    """Reliability 6, finding 14 (first hour 4, item 7): `optimal tarse --game today` was refused
    ("unrecognized arguments: --game today"), as in improve and teach, while every other command
    takes --game. Each names both of the game's lists with it, and refuses it beside a list."""
    import importlib

    from wordle_gym.utils.commandline import OneLineParser, add_options, options_from

    kind = getattr(importlib.import_module(module), options)
    parser = OneLineParser(prog="test")
    add_options(parser, kind)
    run = options_from(kind, parser.parse_args([*required, "--game", "today"]))
    assert (run.answers, run.allowed) == ("answers_today", "allowed_today")
    plain = options_from(kind, parser.parse_args(required))
    assert (plain.answers, plain.allowed) == ("answers", "allowed")
    with pytest.raises(ValueError, match="--game today names the lists"):
        options_from(kind, parser.parse_args([*required, "--game", "today", "--allowed", "x"]))


def test_play__ctrl_c_reveals_the_answer_as_quit_does() -> None:
    """First hour 4, item 7: Ctrl-C in ``play`` ended the game without the answer that ``quit``
    shows."""
    import signal
    import time

    child = subprocess.Popen(
        [sys.executable, "-m", "wordle_gym.cli.commands", "play", "--answer", "parry"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert child.stdout is not None and "guess 1/6" not in child.stdout.readline()
        time.sleep(1.0)  # at its prompt, waiting for a guess
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130 and "The answer was PARRY." in out, (out, err)
    assert "Traceback" not in err


def test_assist__no_padding_past_the_candidates_and_new_starts_another_game() -> None:
    """First hour 4, item 7: with few candidates left ``assist`` padded its list with words that
    tell no more (AALII, ABAFT ... at the candidates' score), and after "Solved in 3!" it stayed at
    its prompt with no way to start anew."""
    out = cli("assist", stdin="salet 00000\ncrony 00000\nhumph 22222\nnew\nquit\n")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    block = text.split("4 candidates left: humid, humph, vivid, whiff")[1].split(">")[0]
    shown = [line.split()[0] for line in block.splitlines() if line.startswith("  ")]
    assert shown == ["humid", "humph", "vivid", "whiff"], block
    assert "Solved in 3! 'new' for another game, or 'quit'." in text
    assert "A new game.\n2315 candidates left" in text


def test_eval__a_trained_agent_on_answers_it_did_not_learn_says_so_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """First hour 4, item 7: an agent trained on the original lists evaluated with --game today
    lost 538 games silently (SOLVE ABASH guessed AWASH three times at "1 left"): it finds the
    answers it learned. One line says so; none where the answers are its own."""
    (tmp_path / "a.txt").write_text("cigar\nabash\nrebut\n")  # ABASH: a guess, never an answer
    assert cli_main(["eval", "--agent", "a2c", "--answers", str(tmp_path / "a.txt")]) == 0
    err = capsys.readouterr().err
    assert err.count("note: this agent learned the 2,315 answers and 12,972 guesses") == 1
    assert "1 of these 3 answers are not among them (0 it cannot even guess)" in err
    (tmp_path / "b.txt").write_text("cigar\nrebut\n")
    assert cli_main(["eval", "--agent", "a2c", "--answers", str(tmp_path / "b.txt")]) == 0
    assert "note:" not in capsys.readouterr().err


def test_cli__help_and_usage_errors_import_no_torch() -> None:
    """``wordle-gym --help`` and a bad option answer without importing torch (seconds of start-up):
    the commands import the game where they run it."""
    code = (
        "import sys\n"
        "from wordle_gym.cli.commands import main\n"
        "cases = [['--help'], ['play', '--help'], ['assist', '--help'], ['solve', '--bogus']]\n"
        "for argv in cases:\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as exc:\n"
        "        print('exit', argv[0], exc.code)\n"
        "print('exit torch', 'torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    exits = [line for line in out.stdout.splitlines() if line.startswith("exit ")]
    assert exits == [
        "exit --help 0",
        "exit play 0",
        "exit assist 0",
        "exit solve 2",
        "exit torch False",
    ], out.stdout + out.stderr
