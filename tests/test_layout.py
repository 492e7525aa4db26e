"""The layers, as each subpackage's docstring states them: every module imports only what its
subpackage's ``May import:`` line names (first-party subpackages and third-party distributions; the
standard library is always allowed), lazy imports inside functions included."""

from __future__ import annotations

import ast
import itertools
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"wordle_gym": ROOT / "wordle_gym", "wordle_agents": ROOT / "agents"}


def subpackages() -> list[tuple[str, Path]]:
    return [
        (f"{name}.{sub.name}", sub)
        for name, root in PACKAGES.items()
        for sub in sorted(root.iterdir())
        if (sub / "__init__.py").is_file()
    ]


def may_import(folder: Path) -> set[str]:
    """The names on the ``May import:`` line of the subpackage's docstring (which may wrap)."""
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    match = doc.split("May import:", 1)
    assert len(match) == 2, f"{folder.name}/__init__.py: its docstring has no 'May import:' line"
    text = match[1].split("\n\n", 1)[0]
    return {name.strip().rstrip(".") for name in text.replace(";", ",").split(",") if name.strip()}


def imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append(node.module or "")
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def allowed(name: str, rules: set[str]) -> bool:
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__":
        return True
    if top in PACKAGES:  # first party: by subpackage
        return any(
            name == rule or name.startswith(rule + ".")
            for rule in rules
            if rule.split(".")[0] in PACKAGES
        )
    return top in rules


@pytest.mark.parametrize(
    ("package", "folder"), subpackages(), ids=[name for name, _ in subpackages()]
)
def test_layout__each_subpackage_imports_only_what_its_docstring_allows(
    package: str, folder: Path
) -> None:
    rules = may_import(folder)
    assert package in rules, f"{package}: its 'May import:' line should name itself"
    for path in sorted(folder.rglob("*.py")):
        for name in imports(path):
            assert allowed(name, rules), (
                f"{path.relative_to(ROOT)} imports {name}, which {package} may not"
            )


def _old_paths() -> dict[str, str]:
    """The modules of the old paths (``wordle_gym.utils.moved.MOVED``), by file."""
    from wordle_gym.utils.moved import MOVED

    def file(old: str) -> str:
        root = "agents" if old.startswith("wordle_agents.") else "wordle_gym"
        return "/".join([root, *old.split(".")[1:]]) + ".py"

    return {file(old): old for old in MOVED}


def test_layout__every_module_sits_in_a_subpackage() -> None:
    """Top level: only the packages' own __init__/__main__, wordle_agents' table of shipped agents,
    and the old paths of one table (``MOVED``), each one line that names it (House IV: nine
    shims of their own kinds before)."""
    old = {p for p in _old_paths() if p.count("/") == 1}
    top = {p.relative_to(ROOT).as_posix() for p in (ROOT / "wordle_gym").glob("*.py")}
    assert top == {"wordle_gym/__init__.py", "wordle_gym/__main__.py"} | {
        p for p in old if p.startswith("wordle_gym/")
    }
    top = {p.relative_to(ROOT).as_posix() for p in (ROOT / "agents").glob("*.py")}
    assert top == {"agents/__init__.py", "agents/zoo.py"} | {
        p for p in old if p.startswith("agents/")
    }
    for path in _old_paths():
        tree = ast.parse((ROOT / path).read_text())
        body = [ast.unparse(node) for node in tree.body if not isinstance(node, ast.Expr)]
        calls = [ast.unparse(node) for node in tree.body if isinstance(node, ast.Expr)][1:]
        assert body == ["from wordle_gym.utils.moved import alias"], path
        assert calls == ["alias(__spec__.name, __name__)"], path


def test_layout__the_commands_table_names_every_command_module() -> None:
    """One home for commands: every module of ``wordle_agents.commands`` with a ``main`` is a row of
    its table, and every row's module and option classes import."""
    from wordle_agents.commands import COMMANDS

    modules = {p.stem for p in (ROOT / "agents" / "commands").glob("*.py")} - {"__init__"}
    assert {command.module.rsplit(".", 1)[1] for command in COMMANDS.values()} == modules
    for name, command in COMMANDS.items():
        assert callable(command.main()), name
        for cls in command.option_classes():
            assert cls.__dataclass_fields__, (name, cls)


def test_layout__the_lab_is_not_in_the_wheel() -> None:
    """Research (the multi-board bounds, the multi-board improvement experiments) sits in
    ``research/``, beside the product: no module of the installed packages imports it, and the
    wheel's package list leaves it out."""
    for folder in ("wordle_gym", "agents"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for name in imports(path):
                assert name.split(".")[0] != "research", f"{path.relative_to(ROOT)} imports {name}"
    text = (ROOT / "pyproject.toml").read_text()
    assert (
        '"research'
        not in text.split("[tool.setuptools]", 1)[1].split("[tool.setuptools.package-data]")[0]
    )


def test_layout__no_product_module_names_the_lab_or_reaches_into_it() -> None:
    """House III, item 2: the product names no lab module, not even in a message (the A2C config's
    retired fields named ``research.a2c_variants.A2CVariantAgent``); the lab imports no private name
    of the product (it imported ``_board_state`` and ``_per_game``) and patches nothing of it (it
    swapped a command with ``mock.patch.dict``)."""
    for folder in ("wordle_gym", "agents"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            assert "research." not in text and "research/" not in text, (
                f"{path.relative_to(ROOT)} names the lab"
            )
    for path in sorted((ROOT / "research").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                ("wordle_gym", "wordle_agents")
            ):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports the private {private} from {node.module}"
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = [getattr(node, "module", None) or "", *(a.name for a in node.names)]
                assert not any("mock" in n for n in names), f"{path.name} imports a mock"


def test_layout__wordle_gym_imports_no_agent_code() -> None:
    for path in sorted((ROOT / "wordle_gym").rglob("*.py")):
        for name in imports(path):
            assert name.split(".")[0] not in ("wordle_agents", "agents"), (
                f"{path.relative_to(ROOT)} imports {name}"
            )


def test_layout__agents_use_only_public_wordle_gym_modules() -> None:
    """The package boundary: ``wordle_agents`` imports documented ``wordle_gym`` modules, never a
    ``_private`` one or the command line (the CLI sits above the agents and reaches them by the
    registry)."""
    for path in sorted([*(ROOT / "agents").rglob("*.py"), *(ROOT / "research").rglob("*.py")]):
        for name in imports(path):
            if name.startswith("wordle_gym."):
                parts = name.split(".")[1:]
                assert not any(part.startswith("_") for part in parts), (
                    f"{path.name} imports the private {name}"
                )
                assert parts[0] != "cli", (
                    f"{path.relative_to(ROOT)} imports the command line {name}"
                )


def test_layout__tests_mirror_the_subpackages() -> None:
    """Each subpackage's tests are in the folder of the same name: tests/<sub>/ for wordle_gym's,
    tests/agents/<sub>/ for wordle_agents'; repository-wide tests (layout, README, scripts) at the
    top."""
    for package, folder in subpackages():
        tests = (
            ROOT / "tests" / ("agents" if package.startswith("wordle_agents") else "") / folder.name
        )
        assert list(tests.glob("test_*.py")), f"{package}: no tests in {tests.relative_to(ROOT)}"
    assert list((ROOT / "tests" / "research").glob("test_*.py")), (
        "research/: no tests in tests/research"
    )
    top = {p.name for p in (ROOT / "tests").glob("test_*.py")}
    assert top == {"test_layout.py", "test_docs.py", "test_examples.py"}


def test_layout__benchmarks_measure_through_the_harness_not_the_command_line() -> None:
    """What the benchmarks measure with (the agents table, the vector env's steps/s) is the
    harness's; a benchmark that wants the command runs it as a process."""
    for path in sorted((ROOT / "benchmarks").rglob("*.py")):
        for name in imports(path):
            assert not name.startswith("wordle_gym.cli"), (
                f"{path.relative_to(ROOT)} imports the command line {name}"
            )
        assert "wordle_gym.cli" not in path.read_text(), (
            f"{path.relative_to(ROOT)} names the command line's modules"
        )


def test_layout__no_sys_path_edits() -> None:
    """Scripts run as modules or import installed packages; tests import their helpers as a
    package."""
    for folder in ("wordle_gym", "agents", "research", "benchmarks", "examples", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            edit = "sys.path." + "insert"  # spelled in two parts: this file is checked too
            assert edit not in path.read_text(), path.relative_to(ROOT)


def _module_graph() -> dict[str, set[str]]:
    """Each first-party module and the first-party modules it imports, lazily or not (a name
    imported from a package is the submodule when there is one, else the package)."""
    paths = {}
    for package, root in PACKAGES.items():
        for path in root.rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            paths[
                ".".join([package, *parts[:-1]] if parts[-1] == "__init__" else [package, *parts])
            ] = path

    def module_of(name: str) -> str | None:
        while name not in paths and "." in name:
            name = name.rsplit(".", 1)[0]
        return name if name in paths else None

    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    found.add(module_of(f"{node.module}.{alias.name}"))
            elif isinstance(node, ast.Import):
                found.update(module_of(alias.name) for alias in node.names)
        graph[module] = found - {None, module}
    return graph


def test_layout__no_module_imports_itself_back() -> None:
    """Issue 76: no import circle between first-party modules, lazy imports included (there were
    ``patterns`` <-> ``rules`` in the core, and the exact solver's search <-> its oracle and
    ranking)."""
    graph = _module_graph()

    def reaches(start: str, goal: str) -> list[str] | None:
        seen, stack = set(), [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == goal:
                    return [*path, nxt]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
        return None

    circles = [reaches(m, m) for m in sorted(graph)]
    assert not [c for c in circles if c], [" -> ".join(c) for c in circles if c][:3]


def test_layout__module_names_tell_apart_in_a_traceback() -> None:
    """Issue 76: no two modules of the installed packages share a file name (four were
    ``improve.py``), but for the old paths (``MOVED``), each the new module under its old name."""
    shims = set(_old_paths())
    seen: dict[str, str] = {}
    for folder in PACKAGES.values():
        for path in sorted(folder.rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            if path.name == "__init__.py" or where in shims:
                continue
            assert path.name not in seen, f"{where} and {seen[path.name]} share a name"
            seen[path.name] = where


def test_layout__every_command_takes_its_options_from_a_dataclass() -> None:
    """Issue 76: one option system. Every command of the installed packages (``wordle-gym``'s own,
    bench, the agents' commands, recipe, the OpenEnv server) declares its options as a documented
    dataclass (``wordle_gym.utils.commandline``); none adds an argparse option by hand but
    ``--version``."""
    home = ROOT / "wordle_gym" / "utils" / "commandline.py"
    for folder in PACKAGES.values():
        for path in sorted(folder.rglob("*.py")):
            if path == home:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "add_argument"
                ):
                    flags = [a.value for a in node.args if isinstance(a, ast.Constant)]
                    assert flags == ["--version"], f"{path.relative_to(ROOT)}: add_argument{flags}"


def test_layout__usage_examples_in_docstrings_keep_their_lines() -> None:
    """A command's examples, as ``--help`` and the docs show them: a reflow once ran them together
    (two commands on one line, a comment's words followed by the next command) and left lines of
    one option between two continuations."""
    bad = []
    folders = [*PACKAGES.values(), ROOT / "examples", ROOT / "benchmarks", ROOT / "research"]
    for path in (p for folder in folders for p in sorted(folder.rglob("*.py"))):
        lines = path.read_text().splitlines()
        for number, (line, after) in enumerate(itertools.pairwise(lines), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            if line.count("python -m ") > 1 and "`" not in line:
                bad.append(f"{where}: two commands on one line")
            text = line.strip()
            if (
                "python -m " in text
                and not text.startswith("python")
                and re.search(r"\S {4,}#", text)
            ):
                bad.append(f"{where}: a comment run into the text")
            stub = after.strip()
            if line.rstrip().endswith("\\") and stub.endswith("\\") and len(stub) < 25:
                bad.append(f"{where}: a continuation line holding only {stub!r}")
    assert not bad, "\n".join(bad)


def test_layout__the_tree_fits_what_a_gpu_lease_carries() -> None:
    """A GPU lease carries the working tree, 64 MiB at most (../shared/GPU.md); the tracked files
    stay under 62 MiB, leaving room for the wheels a call brings. Shipped weights are what grows:
    the DQN's curriculum stages left the tree when today's network pushed it to 69 MiB."""
    import subprocess

    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listed.returncode == 0:
        files = [ROOT / name for name in listed.stdout.decode().split("\0") if name]
    else:  # a tree that is no git checkout (the sdist): every file but caches
        caches = {"__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist"}
        files = [
            p
            for p in ROOT.rglob("*")
            if not caches & set(p.parts) and not any(x.endswith(".egg-info") for x in p.parts)
        ]
    size = sum(p.stat().st_size for p in files if p.is_file())
    assert size < 62 * 2**20, f"the tracked tree is {size / 2**20:.1f} MiB"


MOST_BRANCHES = 15
"""The most cyclomatic complexity a function may have, as radon counts it (boolean operators
included): what a newcomer reads in one sitting (House IV)."""


def _says_why(lines: list[str], lineno: int) -> bool:
    """Whether the function defined at ``lineno`` (1-based) says why it stays above
    :data:`MOST_BRANCHES`: ``# noqa: C901 (why)`` on its line, or ``# complexity: why`` among the
    comments and decorators just above it."""
    if re.search(r"# noqa: C901 \(\w", lines[lineno - 1]):
        return True
    above = lineno - 2
    while above >= 0 and lines[above].strip().startswith(("@", "#")):
        if re.search(r"# complexity: \w", lines[above]):
            return True
        above -= 1
    return False


def test_layout__every_function_reads_in_one_sitting_or_says_why_not() -> None:
    """Every function and method of the library, the lab, the benchmarks and the examples has
    radon's complexity of at most 15, or says in one line why it stays above (the hot kernels:
    compiled searches, a step inlined, a baseline timed as written)."""
    from radon.complexity import cc_visit

    over, marked = [], []
    for folder in ("wordle_gym", "agents", "research", "benchmarks", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text()
            lines = text.splitlines()
            for block in cc_visit(text):
                if getattr(block, "is_method", None) is None or block.complexity <= MOST_BRANCHES:
                    continue  # a class (its methods are listed on their own)
                name = f"{path.relative_to(ROOT)}:{block.lineno} {block.fullname}"
                (marked if _says_why(lines, block.lineno) else over).append(name)
    assert not over, f"radon's complexity over {MOST_BRANCHES}, with no reason given: {over}"
    assert len(marked) <= 8, f"more hot kernels than a house needs: {marked}"


def test_layout__a_reason_for_branches_is_found_where_it_is_written() -> None:
    """The reasons the complexity test accepts: on the def line as ruff's noqa, or a comment among
    the decorators above; not a reason further up, nor an empty one."""
    assert _says_why(["def f():  # noqa: C901 (compiled)"], 1)
    assert _says_why(["# complexity: compiled", "@njit", "def f():"], 3)
    assert not _says_why(["# complexity: compiled", "", "def f():"], 3)
    assert not _says_why(["def f():  # noqa: C901"], 1)
    assert not _says_why(["# complexity:", "def f():"], 2)


def test_layout__no_file_does_several_jobs_past_800_lines() -> None:
    """House IV: no module of the library, the lab, the benchmarks or the examples is over 800
    lines (a job a file; the biggest rooms split by job)."""
    long = {
        str(path.relative_to(ROOT)): n
        for folder in ("wordle_gym", "agents", "research", "benchmarks", "examples")
        for path in (ROOT / folder).rglob("*.py")
        if (n := len(path.read_text().splitlines())) > 800
    }
    assert not long, f"modules over 800 lines: {long}"


def test_layout__one_public_class_a_name() -> None:
    """House IV, goal 4: no two public classes of the installed packages share a name (there were
    two ``WordleEnv``: the Gymnasium env and OpenEnv's client; two ``WordleState``, ``Position``,
    ``Iteration``, ``Run``, ``Command``)."""
    seen: dict[str, str] = {}
    for folder in PACKAGES.values():
        for path in sorted(folder.rglob("*.py")):
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    where = path.relative_to(ROOT).as_posix()
                    assert node.name not in seen, f"{where} and {seen[node.name]}: {node.name}"
                    seen[node.name] = where
