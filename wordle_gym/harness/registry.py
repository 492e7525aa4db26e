"""Agents are plugins: found through the entry-point group ``wordle_gym.agents``.

A distribution registers an agent in its ``pyproject.toml``::

    [project.entry-points."wordle_gym.agents"]
    my-agent = "my_package.agent:MyAgent"

The entry point names a callable (a class or a factory function) that returns a *Policy*: any
object with ``act(observations, action_masks, env)`` (see :mod:`wordle_gym.harness.evaluation`).
``wordle-gym eval --agent my-agent`` calls it with the options the user gave that its signature
accepts (``checkpoint``, ``opener``, ``score``, ``seed``, ... and ``device`` when it takes one); a
class with a no-argument constructor works as it is. Optionally the callable has a
``bench_runs()`` attribute returning :class:`BenchRun` items, the rows ``wordle-gym bench`` shows
for it; without one, bench evaluates it once with no options. A ``description`` attribute (one line:
what the agent is, how it learned) is what ``wordle-gym agents`` shows. A policy may carry a
``provenance`` dict (``learned_from``: text, ``training_s``: seconds, ``machine``: where it
trained), which bench puts in its row. A policy that plays some games with a part of itself (a
network per game mode, a mixture on several boards) may have ``plays(hard_mode, boards)`` returning
that part: a row's label and provenance are then that part's (:func:`playing`).

Looking agents up imports nothing until one is asked for, and an agent that fails to import
gives an :class:`AgentError` naming its entry point without affecting the others: ``import
wordle_gym`` and ``gym.make`` never load agent code. The project's own agents register exactly
this way.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any, NamedTuple

GROUP = "wordle_gym.agents"
COMMANDS_GROUP = "wordle_gym.commands"
"""Commands a distribution adds to ``wordle-gym`` (training, the exact solver):
``name = "module:main"``, a ``main(argv, prog) -> exit status``; ``wordle-gym NAME ARGS`` runs
it."""


def playing(policy: Any, hard_mode: bool = False, boards: int = 1) -> Any:
    """The part of ``policy`` that plays games of this mode and board count:
    ``policy.plays(hard_mode, boards)`` where it has one, else the policy itself."""
    plays = getattr(policy, "plays", None)
    return policy if plays is None else plays(hard_mode, boards)


class AgentError(ValueError):
    """An agent that is not installed, fails to load, or does not take the options given."""


class BenchRun(NamedTuple):
    """One row of ``wordle-gym bench`` for an agent."""

    label: str
    """Row name in the table."""
    options: dict[str, Any] = {}
    """Keyword options for the agent's callable."""
    env: dict[str, Any] = {}
    """Keyword options for :func:`wordle_gym.harness.evaluation.evaluate` (e.g. ``action_mask``)."""
    section: str | None = None
    """A section of its own in the table, by title (None: the main table; e.g. agents that imitated
    a teacher rather than learning from the game's reward)."""


def _entry_points(group: str = GROUP) -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=group):
        # the first distribution on sys.path wins, as for console scripts
        found.setdefault(ep.name, ep)
    return found


def command_names() -> list[str]:
    """Names of the commands installed distributions add to ``wordle-gym`` (reads metadata only)."""
    return sorted(_entry_points(COMMANDS_GROUP))


def command_help(name: str) -> str:
    """The first paragraph of command ``name``'s module docstring, after its ``python -m ...:``
    (read from the file, not imported: ``wordle-gym --help`` stays fast); a plain line where it
    cannot be read."""
    import ast
    from importlib.util import find_spec

    module = _entry_points(COMMANDS_GROUP)[name].value.split(":")[0]
    try:
        spec = find_spec(module)
        with open(str(spec.origin), encoding="utf-8") as file:  # type: ignore[union-attr]
            doc = ast.get_docstring(ast.parse(file.read())) or ""
    except (ImportError, OSError, SyntaxError, ValueError, AttributeError):
        doc = ""
    first = " ".join(doc.split("\n\n")[0].split())  # the first paragraph, however it wraps
    if ": " not in first:
        return f"an installed package's command ({module})"
    return first.split(": ", 1)[1].rstrip(".")


def load_command(name: str) -> Callable[..., int]:
    """The ``main(argv, prog)`` registered as command ``name``."""
    point = _entry_points(COMMANDS_GROUP)[name]
    try:
        main = point.load()
    except (Exception, SystemExit) as exc:
        raise AgentError(
            f"command {name!r} (entry point {point.value!r}) failed to load: {type(exc).__name__}: "
            f"{exc}"
        ) from None
    if not callable(main):
        raise AgentError(f"command {name!r} (entry point {point.value!r}) is not callable")
    return main


def agent_names() -> list[str]:
    """Names of the installed agents (reads metadata only; imports nothing)."""
    return sorted(_entry_points())


def load_factory(name: str) -> Callable[..., Any]:
    """The callable registered as agent ``name``."""
    points = _entry_points()
    if name not in points:
        known = ", ".join(sorted(points)) or "none"
        raise AgentError(f"unknown agent {name!r}; installed agents: {known}")
    point = points[name]
    try:
        factory = point.load()
    # an agent's import error (or exit) must not escape as a traceback
    except (Exception, SystemExit) as exc:
        raise AgentError(
            f"agent {name!r} (entry point {point.value!r}) failed to load: {type(exc).__name__}: "
            f"{exc}"
        ) from None
    if not callable(factory):
        raise AgentError(f"agent {name!r} (entry point {point.value!r}) is not callable")
    return factory


def accepted_options(factory: Callable[..., Any]) -> set[str] | None:
    """Keyword names ``factory`` accepts; None when it takes ``**kwargs`` (or cannot be
    inspected)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {p.name for p in params if p.kind in kinds}


def make_agent(name: str, options: dict[str, Any] | None = None, device: Any = None) -> Any:
    """Build agent ``name``: ``options`` must all be accepted; ``device`` is passed when it is."""
    factory = load_factory(name)
    options = dict(options or {})
    accepted = accepted_options(factory)
    if accepted is not None:
        refused = sorted(set(options) - accepted)
        if refused:
            takes = ", ".join(sorted(accepted - {"device"})) or "no options"
            raise AgentError(f"agent {name!r} does not take option(s) {refused}; it takes: {takes}")
    if device is not None and (accepted is None or "device" in accepted):
        options["device"] = device
    try:
        policy = factory(**options)
    except (AgentError, ValueError, TypeError, FileNotFoundError) as exc:
        raise AgentError(f"agent {name!r}: {exc}") from None
    except ImportError:
        raise  # a missing extra: its message says what to install
    except Exception as exc:  # a plugin's own fault: one line, naming it, not a traceback
        raise AgentError(f"agent {name!r} failed to start: {type(exc).__name__}: {exc}") from None
    if not callable(getattr(policy, "act", None)):
        raise AgentError(
            f"agent {name!r} returned a {type(policy).__name__}, which has no act() method"
        )
    return policy


def bench_runs(name: str) -> list[BenchRun]:
    """The benchmark rows agent ``name`` declares (one default row if it declares none)."""
    factory = load_factory(name)
    declared = getattr(factory, "bench_runs", None)
    if declared is None:
        return [BenchRun(name)]
    try:
        runs = declared()
    except Exception as exc:
        raise AgentError(
            f"agent {name!r}: bench_runs() failed: {type(exc).__name__}: {exc}"
        ) from None
    if not isinstance(runs, list | tuple) or not all(isinstance(r, BenchRun) for r in runs):
        raise AgentError(
            f"agent {name!r}: bench_runs() returned {type(runs).__name__}; expected a "
            "list of BenchRun"
        )
    return list(runs)
