"""Command lines from documented dataclasses: the one way every command of the project takes its
options.

A command's options are the fields of a dataclass, each with a default written once (in the
dataclass) and a docstring (the string under the field), the style of
:class:`~wordle_gym.core.config.WordleConfig`. :func:`add_options` makes one ``--field-name`` option
per field, its help the docstring and its default; :func:`options_from` builds the dataclass from
what was given, so its ``__post_init__`` checks the values. A bad value is one line,
``prog: error: ... (see prog --help)``, exit status 2 (:class:`OneLineParser`).

Types: ``int``, ``float``, ``str``, ``bool`` (``--flag`` / ``--no-flag``), ``X | None`` (``none``
gives None), ``tuple[X, ...]`` (comma-separated, ``--stages 100,1000,full``) and ``Literal[...]``
(its choices). A field without a default is a required option; one marked
``field(metadata={"positional": True})`` is a positional argument (optional where it has a default).
Other ``metadata`` keys: ``parse`` (a str -> value function raising ``argparse.ArgumentTypeError``,
for a check the type cannot say: :func:`integer`), ``flags`` (more names, ``("-o",)``), ``metavar``,
``repeat`` (a ``tuple[X, ...]`` given one value per use of the option) and ``nargs`` (a positional
``tuple[X, ...]``, e.g. ``"+"``). A default of None, False or an empty tuple is not shown in the
help: the docstring says what it means.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo:
    ...     top: int = 32
    ...     '''Guesses tried at each position.'''
    ...     hard: bool = False
    ...     '''Hard mode.'''
    >>> parser = OneLineParser(prog="demo")
    >>> add_options(parser, Demo)
    >>> options_from(Demo, parser.parse_args(["--top", "8", "--hard"]))
    Demo(top=8, hard=True)
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import itertools
import re
import textwrap
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, Literal, NoReturn, TypeVar

T = TypeVar("T")


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line (``prog: error: ...``) and exit status
    2, and help read as plain text (:func:`plain_text`)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """argparse's, with an unknown argument refused by the subcommand it follows (``wordle-gym
        assist: error: ...``; argparse names the top command and its help)."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            where: argparse.ArgumentParser = self
            for action in self._actions:
                if isinstance(action, argparse._SubParsersAction):
                    where = action.choices.get(getattr(parsed, action.dest, None), self)
            where.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed

    def format_help(self) -> str:
        return plain_text(super().format_help(), self.prog)


_ROLE = re.compile(r":[a-z]+:`(?:([^`<]*?)\s*<[^`>]*>|~?(?:[\w.]*\.)?([^`]+?))`")
_LITERAL = re.compile(r"``([^`]+)``")
_PYTHON_M = re.compile(r"python -m wordle_agents\.commands\.(\w+)")


def plain_text(text: str, prog: str = "") -> str:
    """A docstring as a terminal shows it: reStructuredText's roles as their names
    (``:class:`~a.B``` -> ``B``), literals without their backticks, ``::`` as ``:``; and where
    ``prog`` is a ``wordle-gym`` command, ``python -m wordle_agents.commands.NAME`` as the
    ``wordle-gym`` command the user types."""
    text = _ROLE.sub(lambda m: m.group(1) or m.group(2), text)
    text = _LITERAL.sub(r"\1", text)
    text = re.sub(r"::$", ":", text, flags=re.M)
    if prog.startswith("wordle-gym"):
        text = _PYTHON_M.sub(lambda m: f"wordle-gym {m.group(1).replace('_', '-')}", text)
    return text


def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string literal under it), collapsed to one line; inherited fields
    too."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, following in itertools.pairwise(body):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def show(value: Any) -> str:
    """A value as the command line writes it (a tuple comma-separated)."""
    return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _converter(hint: Any) -> tuple[Callable[[str], Any], str]:
    """A string -> value function for a field type, and how to write a value (the metavar)."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        inner, metavar = _converter(next(a for a in args if a is not type(None)))
        return (lambda text: None if text.lower() == "none" else inner(text)), metavar
    if origin is Literal:
        choices = {str(a): a for a in args}

        def parse_choice(text: str) -> Any:
            if text not in choices:
                raise argparse.ArgumentTypeError(
                    f"expected one of {', '.join(choices)}, got {text[:40]!r}"
                )
            return choices[text]

        return parse_choice, "{" + ",".join(choices) + "}"
    if origin is tuple:
        convert, _ = _converter(args[0])
        size = None if len(args) == 2 and args[1] is Ellipsis else len(args)

        def parse_tuple(text: str) -> tuple:
            values = tuple(convert(part.strip()) for part in text.split(",") if part.strip())
            if size is not None and len(values) != size:
                raise argparse.ArgumentTypeError(
                    f"expected {size} comma-separated values, got {text[:40]!r}"
                )
            return values

        return parse_tuple, "A,B,..."
    if hint in (int, float, str):

        def parse_scalar(text: str) -> Any:
            try:
                return hint(text)
            except ValueError:
                article = "an" if hint is int else "a"
                raise argparse.ArgumentTypeError(
                    f"expected {article} {hint.__name__}, got {text[:40]!r}"
                ) from None

        return parse_scalar, hint.__name__.upper()
    raise TypeError(f"no command-line form for a field of type {hint!r}")


def integer(low: int, high: int | None = None) -> Callable[[str], int]:
    """A ``parse`` function: an integer in [low, high], written in plain ASCII digits (``int()``
    also takes ' 2', '02', '1_0' and other scripts' digits)."""

    def parse(text: str) -> int:
        value = int(text) if re.fullmatch(r"-?(0|[1-9][0-9]*)", text, flags=re.ASCII) else None
        if value is None or value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"expected an integer {span}, got {text[:40]!r}")
        return value

    return parse


def choice(options: Sequence[str]) -> Callable[[str], str]:
    """A ``parse`` function: one of ``options`` (a choice known only at run time)."""

    def parse(text: str) -> str:
        if text not in options:
            raise argparse.ArgumentTypeError(
                f"expected one of {', '.join(options)}, got {text[:40]!r}"
            )
        return text

    return parse


def _default(field: dataclasses.Field, defaults: Any) -> Any:
    if defaults is not None:
        return getattr(defaults, field.name)
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def add_options(
    parser: argparse.ArgumentParser,
    cls: type,
    defaults: Any = None,
    title: str | None = None,
    skip: Sequence[str] = (),
) -> None:
    """One ``--field-name`` option per field of ``cls`` (but ``skip``); help from the field's
    docstring, defaults from ``defaults`` (an instance) or the class. With ``title``, the options
    form a group."""
    group = parser.add_argument_group(title) if title else parser
    hints, docs = typing.get_type_hints(cls), field_docs(cls)
    for field in dataclasses.fields(cls):
        if field.init and field.name not in skip:
            _add_option(group, field, hints[field.name], _default(field, defaults), docs)


def _add_option(group: Any, field: dataclasses.Field, hint: Any, default: Any, docs: dict) -> None:
    """``field``'s option (a flag, a switch for a bool, or a positional argument) on ``group``."""
    meta = field.metadata
    flags = (*meta.get("flags", ()), "--" + field.name.replace("_", "-"))
    text = docs.get(field.name, "").replace("%", "%%")
    required = default is dataclasses.MISSING
    shown = " (required)" if required else _shown_default(default)
    if hint is bool:
        group.add_argument(
            *flags, action=argparse.BooleanOptionalAction, default=None, help=text + shown
        )
        return
    many = meta.get("repeat") or meta.get("nargs")  # a tuple given value by value
    convert, metavar = _converter(typing.get_args(hint)[0] if many else hint)
    convert = meta.get("parse", convert)
    if meta.get("positional"):
        group.add_argument(
            field.name,
            type=convert,
            default=None,
            nargs=meta.get("nargs") or (None if required else "?"),
            metavar=meta.get("metavar", field.name.upper()),
            help=text + ("" if required else shown),
        )
        return
    if metavar == "STR":  # a word or a path: named by the field, as argparse names it
        metavar = field.name.upper()
    group.add_argument(
        *flags,
        type=convert,
        default=None,
        action="append" if meta.get("repeat") else "store",
        metavar=meta.get("metavar", metavar),
        required=required,
        help=text + shown,
    )


def _shown_default(default: Any) -> str:
    """What an option's help says of its default: nothing for none, off or empty."""
    if default is None or default is False or default == ():
        return ""
    return f" (default: {show(default)})".replace("%", "%%")


def options_from(
    cls: type[T], args: argparse.Namespace, defaults: T | None = None, **fixed: Any
) -> T:
    """The dataclass from the options given (``defaults``' values, or the class's, for the others)
    and ``fixed`` values; its own checks run (a ``ValueError`` or ``TypeError`` names the bad
    value)."""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    given = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    given = {name: tuple(v) if isinstance(v, list) else v for name, v in given.items()}
    given.update(fixed)
    if defaults is not None:
        return dataclasses.replace(defaults, **given)
    return cls(**given)


def parse_options(
    cls: type[T],
    argv: Sequence[str] | None,
    prog: str,
    description: str | None = None,
    defaults: T | None = None,
) -> T:
    """``argv`` parsed into ``cls`` (one-line errors and exit status 2 for anything bad)."""
    parser = OneLineParser(
        prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser, cls, defaults)
    args = parser.parse_args(argv)
    try:
        return options_from(cls, args, defaults)
    except (ValueError, TypeError) as exc:
        parser.error(str(exc))
