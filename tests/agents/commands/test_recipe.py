"""The training recipes of the shipped learned agents (``python -m wordle_agents.commands.recipe``),
run on tiny lists."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from wordle_agents.commands.recipe import (
    Recipe,
    RecipeRun,
    Stage,
    load_recipe,
    main,
    recipe_names,
    run_recipe,
)
from wordle_agents.zoo import AGENTS
from wordle_gym.core.words import stage_words

# A first stage made tiny: 20 words, a few updates (an A2C update plays batch_games games).
TINY = {
    "train-a2c": {
        "stages": ["20"],
        "iterations": [6],
        "eval_every": 3,
        "batch_games": 32,
        "hidden": 32,
    },
    "train-dqn": {
        "stages": ["20"],
        "iterations": [8],
        "eval_every": 4,
        "learning_starts": 32,
        "hidden": 32,
    },
}


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, map_location="cpu", weights_only=True)["model"]


def _same(a: Path, b: Path) -> bool:
    wa, wb = _weights(a), _weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def test_recipes__one_for_every_shipped_learned_agent_ending_in_its_weights() -> None:
    learned = {
        name for name, agent in AGENTS.items() if any(w.endswith(".pt") for w in agent.weights)
    }
    assert set(recipe_names()) == learned
    shipped = {w for agent in AGENTS.values() for w in agent.weights}
    for name in recipe_names():
        recipe = load_recipe(name)
        weights = {w for w in AGENTS[name].weights if w.endswith(".pt")}
        assert recipe.stages[-1].ships in weights, name
        # each of its networks has a stage
        assert weights <= {stage.ships for stage in recipe.stages}, name
        for stage in recipe.stages:
            assert stage.ships is None or stage.ships in shipped, (name, stage.name)
            assert stage.argv() == [a for a in stage.argv() if a]  # every option renders
    # Extending a recipe puts its stages first.
    assert (
        load_recipe("dqn-explored").names[: len(load_recipe("dqn").names)]
        == load_recipe("dqn").names
    )


def test_recipe__bad_recipes_and_options_are_one_line_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["no-such-agent"]) == 2
    assert "unknown recipe 'no-such-agent'; expected one of: a2c," in capsys.readouterr().err
    assert main(["dqn", "--set", "iterations=5"]) == 2
    assert "expected STAGE.OPTION=VALUE" in capsys.readouterr().err
    assert main(["dqn", "--set", "vocab-1000.init=x.pt"]) == 2
    assert "option 'init' is set by the recipe runner" in capsys.readouterr().err
    assert main(["dqn", "--set", "nope.lr=0.1"]) == 2
    assert (
        "recipe 'dqn' has no stage 'nope'; its stages: vocab-1000, answers-2315, full"
    ) in capsys.readouterr().err
    assert main(["dqn", "--set", "full.topp=3"]) == 2
    err = capsys.readouterr().err
    assert "train-dqn has no option 'topp'; expected one of" in err and err.count("\n") == 1
    assert main(["dqn", "--max-minutes", "-1"]) == 2
    assert "--max-minutes must be a number of minutes > 0; got -1.0" in capsys.readouterr().err
    with pytest.raises(
        ValueError, match="continues 'vocab-1000', which is no earlier improve stage"
    ):
        bad = Stage("again", "improve", {}, continues="vocab-1000")
        from wordle_agents.commands.recipe import _check

        _check(Recipe("x", "", (load_recipe("dqn").stages[0], bad)))


def test_recipe__a_stage_stopped_by_ctrl_c_stops_the_recipe_as_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dataclasses import dataclass

    from wordle_agents.commands import COMMANDS, Command

    @dataclass(frozen=True)
    # a stage's command, as a recipe's own table may give it (House III: no mock)
    class Interrupted(Command):
        def main(self):  # type: ignore[override]
            return lambda argv: 130  # what a command returns on Ctrl-C

    commands = {
        **COMMANDS,
        "train-dqn": Interrupted(
            *(getattr(COMMANDS["train-dqn"], f) for f in ("module", "options"))
        ),
    }
    assert main(["dqn", "--run-dir", str(tmp_path)], commands=commands) == 130
    err = capsys.readouterr().err
    assert "interrupted; the same command continues" in err and "exit status" not in err
    assert not (tmp_path / "vocab-1000.done").exists()


def _tiny_first(name: str) -> Recipe:
    recipe = load_recipe(name)
    first = recipe.stages[0]
    return recipe.with_options(first.name, **TINY[first.command])


@pytest.mark.slow
def test_recipe__each_first_stage_on_a_tiny_list_is_deterministic(tmp_path: Path) -> None:
    """Same seed, same weights: every recipe's first stage, run twice (the recipes share two first
    stages)."""
    runs: dict[str, Path] = {}
    for name in recipe_names():
        recipe = _tiny_first(name)
        first = recipe.stages[0]
        key = repr((first.command, sorted(first.options.items())))
        if key in runs:
            continue
        outs = []
        for attempt in range(2):
            run = RecipeRun(tmp_path / f"{name}-{attempt}", until=first.name)
            assert run_recipe(recipe, run)
            outs.append(run.weights(first))
            assert run.done(first).is_file()
        assert _same(*outs), name
        runs[key] = outs[0]
    assert len(runs) == 2  # the A2C family's and the DQN family's
    # ... and the comparison can fail: another seed, other weights.
    recipe = _tiny_first("dqn")
    reseeded = recipe.with_options(recipe.stages[0].name, seed=1)
    other = RecipeRun(tmp_path / "seed1", until=recipe.stages[0].name)
    assert run_recipe(reseeded, other)
    assert not _same(
        other.weights(recipe.stages[0]),
        runs[repr((recipe.stages[0].command, sorted(recipe.stages[0].options.items())))],
    )
    # The command continues a finished stage by skipping it: the same weights, untouched.
    before = runs[next(iter(runs))].stat().st_mtime_ns
    recipe = _tiny_first("a2c")
    assert run_recipe(recipe, RecipeRun(runs[next(iter(runs))].parent, until=recipe.stages[0].name))
    assert runs[next(iter(runs))].stat().st_mtime_ns == before


@pytest.mark.slow
def test_recipe__a_run_folder_keeps_its_recipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recipe = _tiny_first("dqn")
    assert run_recipe(recipe, RecipeRun(tmp_path, until="vocab-1000"))
    other = recipe.with_options("vocab-1000", lr=0.01)
    with pytest.raises(ValueError, match="with another stage 'vocab-1000'"):
        run_recipe(other, RecipeRun(tmp_path, until="vocab-1000"))
    with pytest.raises(ValueError, match="ran recipe 'dqn' with 3 stages; this command has 5"):
        run_recipe(_tiny_first("dqn-improved"), RecipeRun(tmp_path, until="vocab-1000"))


def _tiny_chain(tmp_path: Path) -> Recipe:
    """Two training stages, an improve run, and a stage that continues it: all on 20 words."""
    words = stage_words("20")[0]
    lists = tmp_path / "words.txt"
    lists.write_text("\n".join(words) + "\n")
    on_words = {"answers": str(lists), "allowed": str(lists), "top": 4, "epochs": 2}
    return Recipe(
        "tiny",
        "a tiny chain",
        (
            Stage("one", "train-dqn", TINY["train-dqn"]),
            Stage("two", "train-dqn", {**TINY["train-dqn"], "iterations": [8]}),
            Stage("better", "improve", {**on_words, "iterations": 1}),
            Stage("better-more", "improve", {**on_words, "iterations": 2}, continues="better"),
        ),
    )


def test_recipe__list_names_each_stage_with_where_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "  explore-salet (from explore-third's weights): improve --opener salet " in out
    assert "  explore-2 (continues explore): improve " in out
    # dqn-explored's last stage, and again in dqn-boards (extends it)
    assert out.count("-> dqn_explored.pt") == 2
    assert (
        "  boards: improve-boards --boards 2,4 --see-all --train-board " in out
        and "-> dqn_boards.pt" in out
    )


def test_recipe__a_branch_starts_from_the_weights_of_its_after_stage(tmp_path: Path) -> None:
    from wordle_agents.commands.recipe import _check, _start

    chain = _tiny_chain(tmp_path)
    branch = Stage("branch", "improve", chain.stage("better").options, after="two")
    recipe = Recipe("tiny", "", (*chain.stages, branch))
    _check(recipe)
    run = RecipeRun(tmp_path)
    # not the previous stage's
    assert _start(recipe, 4, run) == str(run.weights(recipe.stage("two")))
    # a continued run: its own start
    assert _start(recipe, 3, run) == str(run.weights(recipe.stage("two")))
    after_later = Recipe(
        "tiny", "", (chain.stages[0], replace(branch, after="two"), chain.stages[1])
    )
    both = Recipe("tiny", "", (*chain.stages, replace(branch, continues="better")))
    for bad in (after_later, both):
        with pytest.raises(ValueError, match="starts after 'two', which is no earlier stage"):
            _check(bad)


@pytest.mark.slow
def test_recipe__an_improve_boards_stage_writes_a_network_that_sees_every_board(
    tmp_path: Path,
) -> None:
    """A stage of ``improve-boards --see-all`` after a training stage (as dqn-boards follows
    dqn-explored): its weights and the recipe's float16 ``--out`` load as
    :class:`AllBoardsNetwork` and play Dordle."""
    from wordle_agents.commands.recipe import write_final
    from wordle_agents.rl.networks import AllBoardsNetwork
    from wordle_gym.harness.evaluation import evaluate

    words = stage_words("20")[0]
    lists = tmp_path / "words.txt"
    lists.write_text("\n".join(words) + "\n")
    tiny = {
        "answers": str(lists),
        "allowed": str(lists),
        "top": 2,
        "samples": 2,
        "games": 4,
        "validation": 20,
    }
    boards = {
        **tiny,
        "boards": "2",
        "see_all": True,
        "train_board": True,
        "epochs": 1,
        "iterations": 1,
    }
    recipe = Recipe(
        "tiny",
        "",
        (Stage("one", "train-dqn", TINY["train-dqn"]), Stage("b", "improve-boards", boards)),
    )
    run = RecipeRun(tmp_path / "run")
    assert run_recipe(recipe, run)
    write_final(recipe, run, str(tmp_path / "out.pt"))
    for path in (run.weights(recipe.stage("b")), tmp_path / "out.pt"):
        seeing = AllBoardsNetwork.load(path)
        assert seeing.hidden == 256 and seeing.max_guesses == 7  # Dordle's game
        result = evaluate(seeing, answers=words, allowed=words, boards=2, games=10, device="cpu")
        assert result.games == 10 and 0.0 <= result.win_rate <= 1.0
    final = torch.load(tmp_path / "out.pt", weights_only=True)
    assert {v.dtype for v in [*final["board"]["model"].values(), *final["context"].values()]} == {
        torch.float16
    }


@pytest.mark.slow
def test_recipe__a_stopped_run_continues_to_the_same_weights(tmp_path: Path) -> None:
    recipe = _tiny_chain(tmp_path)
    whole = RecipeRun(tmp_path / "whole")
    assert run_recipe(recipe, whole)
    # The improve stages are one run: the continued stage's run folder holds both iterations.
    improved = torch.load(whole.folder(recipe.stage("better-more")) / "last.pt", weights_only=True)
    assert (
        len(improved["history"]) == 2 and whole.folder(recipe.stage("better-more")).name == "better"
    )
    assert not (tmp_path / "whole" / "better-more").exists()
    # Stopped by the time limit inside every stage (each command makes one update or iteration at
    # least), then continued by the same command until done: the weights of the run that never
    # stopped.
    stopped = RecipeRun(tmp_path / "stopped", max_minutes=1e-6)
    finished, commands = False, 0
    while not finished:
        finished = run_recipe(recipe, stopped)
        commands += 1
        assert commands < 60
    assert commands > len(recipe.stages)
    for stage in recipe.stages:
        assert _same(whole.weights(stage), stopped.weights(stage)), stage.name


def test_recipe__improve_stages_need_weights_and_continue_only_an_earlier_improve_stage() -> None:
    """A recipe whose first stage improves has nothing to start from; a stage continues only an
    earlier improve stage (of the same command): ``improve-boards`` continues no ``improve`` run; an
    unknown command is named."""
    from wordle_agents.commands.recipe import STAGES, _check

    improve = Stage("better", "improve", {"iterations": 1})
    with pytest.raises(ValueError, match="the first stage has no weights to improve"):
        _check(Recipe("tiny", "", (improve,)))
    first = Stage("one", "train-dqn", TINY["train-dqn"])
    _check(Recipe("tiny", "", (first, improve, Stage("more", "improve", {}, continues="better"))))
    with pytest.raises(ValueError, match="continues 'one', which is no"):
        _check(Recipe("tiny", "", (first, Stage("x", "improve", {}, continues="one"))))
    assert "improve-boards" in STAGES
    boards = Stage("b", "improve-boards", {"boards": "2"})
    _check(
        Recipe(
            "tiny", "", (first, improve, boards, Stage("b2", "improve-boards", {}, continues="b"))
        )
    )
    with pytest.raises(ValueError, match="continues 'better', which is no"):
        _check(
            Recipe(
                "tiny", "", (first, improve, Stage("b", "improve-boards", {}, continues="better"))
            )
        )
    with pytest.raises(
        ValueError, match="unknown command 'improve-board'; expected one of train-a2c, train-dqn, "
    ):
        _check(Recipe("tiny", "", (first, Stage("b", "improve-board", {}))))


@pytest.mark.parametrize(
    "record", ['{"recipe": "dqn", "stages": "x"}', '{"recipe": "dqn", "stages": [1, 2]}']
)
def test_recipe__a_run_folder_whose_record_is_no_stage_list_is_one_line(
    tmp_path: Path, record: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (issue 62): ``recipe.json`` with ``"stages": "x"`` ended in an AttributeError
    traceback."""
    (tmp_path / "recipe.json").write_text(record)
    assert main(["dqn", "--run-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        "recipe.json' is no recipe run's record; use another --run-dir" in err
        and err.count("\n") == 1
    )


def test_recipe__a_toml_date_in_set_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (issue 62): ``--set full.lr=1979-05-27`` reached the run folder's JSON record as a
    date and ended in 'datetime is not JSON serializable'; a quoted date is a string."""
    assert main(["dqn", "--run-dir", str(tmp_path), "--set", "full.lr=1979-05-27T07:32:00"]) == 2
    err = capsys.readouterr().err
    assert (
        "'1979-05-27T07:32:00' reads as a TOML date or time; expected a number" in err
        and err.count("\n") == 1
    )
    assert not (tmp_path / "recipe.json").exists()
    from wordle_agents.commands.recipe import _parse_set, load_recipe

    recipe = _parse_set(load_recipe("dqn"), ['full.reward="1979-05-27"'])
    assert recipe.stage("full").options["reward"] == "1979-05-27"


def test_recipe__a_stages_error_names_its_command_not_the_recipe_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (issue 62): a training stage's errors were prefixed with the running script's
    name, ``recipe.py``, which is no command a user can run with those options."""
    monkeypatch.setattr(sys, "argv", ["/somewhere/recipe.py"])
    with pytest.raises(SystemExit) as stopped:  # the stage's own parser stops the command
        main(["dqn", "--run-dir", str(tmp_path), "--set", "vocab-1000.lr=-1"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "python -m wordle_agents.commands.train_dqn: error: lr must be > 0; got -1.0" in err
    assert "recipe.py" not in err


def test_recipe__under_wordle_gym_a_stage_names_the_command_the_user_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """First hour 4, item 6: under ``wordle-gym recipe`` an interrupt said "python -m
    wordle_agents.commands.train_dqn: interrupted". A stage is run as ``wordle-gym COMMAND``."""
    from dataclasses import dataclass

    from wordle_agents.commands import COMMANDS, Command

    named: list[str] = []

    @dataclass(frozen=True)
    class Stopped(Command):
        def main(self):  # type: ignore[override]
            def run(argv, prog="python -m wordle_agents.commands.train_dqn"):  # type: ignore[no-untyped-def]
                named.append(prog)
                return 130

            return run

    fields = (getattr(COMMANDS["train-dqn"], f) for f in ("module", "options"))
    commands = {**COMMANDS, "train-dqn": Stopped(*fields)}
    argv = ["dqn", "--run-dir", str(tmp_path)]
    assert main(argv, prog="wordle-gym recipe", commands=commands) == 130
    assert main(argv, commands=commands) == 130
    assert named == ["wordle-gym train-dqn", "python -m wordle_agents.commands.train_dqn"]


@pytest.mark.parametrize("name", ["train-a2c", "train-dqn", "improve", "improve-boards", "optimal",
                                  "recipe", "teach"])  # fmt: skip
def test_help__reads_as_plain_text_and_names_the_command_typed(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """First hour 4, item 6: ``wordle-gym train-a2c --help`` printed reStructuredText
    ("``python -m wordle_agents.commands.train_a2c``: ... :class:`~...RunConfig`'s"), and its
    examples the ``python -m`` forms."""
    from wordle_agents.commands import COMMANDS

    command = COMMANDS[name].main() if name != "recipe" else main
    with pytest.raises(SystemExit) as stop:
        command(["--help"], prog=f"wordle-gym {name}")
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert f"wordle-gym {name}" in out
    for rest in ("``", ":class:", ":func:", ":mod:", ":meth:", "python -m wordle_agents"):
        assert rest not in out, (rest, out)
