"""The documentation's pages and tables that come from the code, so that they cannot drift from it.

* ``{wordle-registrations}``: a table of every env id ``import wordle_gym`` registers, with the
  keywords each passes and its two entry points (read from Gymnasium's registry);
* ``agents/``: one page per shipped agent, written when the build starts from the table of
  :mod:`wordle_agents.zoo` (what it is, its options, its weights, how it was made) and the rows
  ``wordle-gym bench`` measured for it (``benchmarks/results/agents/*.json``).
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive

from wordle_gym.harness.bench_table import training_time

DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
RESULTS = ROOT / "benchmarks" / "results" / "agents"


def _table(header: list[str], rows: list[list[str]]) -> nodes.table:
    """A table node: the header, then the rows (each row's first cell as code)."""
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    group += [nodes.colspec(colwidth=1) for _ in header]
    head, body = nodes.thead(), nodes.tbody()
    head += _row([nodes.Text(text) for text in header])
    for values in rows:
        body += _row([nodes.literal(text=values[0]), *(nodes.Text(text) for text in values[1:])])
    group += head
    group += body
    return table


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        row += nodes.entry("", nodes.paragraph("", "", cell))
    return row


class Registrations(Directive):
    """The env ids wordle_gym registers: id, keywords, entry points."""

    def run(self) -> list[nodes.Node]:
        import gymnasium as gym

        import wordle_gym  # noqa: F401  (registers the ids)

        rows = []
        for env_id, spec in sorted(gym.registry.items()):
            if not str(spec.entry_point).startswith("wordle_gym"):
                continue
            kwargs = ", ".join(f"{k}={v!r}" for k, v in spec.kwargs.items()) or "(the defaults)"
            rows.append([env_id, kwargs, str(spec.entry_point), str(spec.vector_entry_point)])
        return [
            _table(
                ["id", "keywords", "entry_point (gym.make)", "vector_entry_point (gym.make_vec)"],
                rows,
            )
        ]


class Docstring(Directive):
    """A class's docstring, read as Markdown (the env docstrings follow Gymnasium's template in
    Markdown headings), its reStructuredText roles turned into code:
    ``{wordle-docstring} wordle_gym.WordleEnv``."""

    required_arguments = 1
    option_spec = {"heading-offset": int}

    def run(self) -> list[nodes.Node]:
        import importlib
        import re

        from docutils.statemachine import StringList

        module, _, name = self.arguments[0].rpartition(".")
        doc = inspect.getdoc(getattr(importlib.import_module(module), name)) or ""
        doc = re.sub(r":(?:mod|class|func|meth|attr|data):`~?([^`]+)`", r"`\1`", doc)
        doc = re.sub(r"``([^`]+)``", r"`\1`", doc)
        offset = self.options.get("heading-offset", 0)
        lines = [
            ("#" * offset + line) if line.startswith("#") else line for line in doc.splitlines()
        ]
        container = nodes.container()
        self.state.nested_parse(
            StringList(lines, source=self.arguments[0]), self.content_offset, container
        )
        return container.children


def _results() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))]


def _row_lines(label: str, results: list[dict[str, Any]]) -> list[str]:
    lines = []
    for r in results:
        if r["agent"] == label or r["agent"].startswith(label + ","):
            d, extra = r["derived"], r.get("extra", {})
            lists = f"{r['games']} x {r['num_allowed']}" + (
                ", hard mode" if r.get("hard_mode") else ""
            )
            lines.append(
                f"| {r['agent']} | {lists} | {100 * d['win_rate']:.2f} | "
                f"{d['mean_guesses_wins']:.4f} | {extra.get('learned_from', '')} | "
                f"{training_time(extra)} |"
            )
    return lines


def agent_page(agent: Any, results: list[dict[str, Any]]) -> str:
    """The page of one shipped agent (markdown)."""
    build = agent.build
    where = f"`{build.__module__}.{getattr(build, '__qualname__', type(build).__name__)}`"
    if "<locals>" in where:  # a factory the table made: its docstring says what it builds
        where = (inspect.getdoc(build) or "").replace("``", "`")
    names = list(inspect.signature(build).parameters)
    options = ", ".join(f"`{name}`" for name in names if name != "device") or "none"
    options += " (and `device`)" if "device" in names else ""
    lines = [
        f"# `{agent.name}`",
        "",
        agent.description[0].upper() + agent.description[1:] + ".",
        "",
        "```text",
        f"wordle-gym eval --agent {agent.name}",
        "```",
        "",
        "| | |",
        "| --- | --- |",
        f"| built by | {where} |",
        f"| options | {options} |",
    ]
    if agent.weights:  # a list of names wraps between them, not a table row hundreds of px tall
        files = ", ".join(f"`{name}`" for name in agent.weights)
        lines += ["", f"Its files (`agents/checkpoints/`): {files}."]
    rows = [line for run in agent.rows for line in _row_lines(run.label, results)]
    if rows:
        lines += [
            "",
            "## Its rows in the benchmark table",
            "",
            "Measured by `wordle-gym bench` (greedy play, every answer once); the full table is on "
            "[the results page](../results/index.md).",
            "",
            "| row | answers x guesses | win % | mean guesses (wins) | learned from | training |",
            "| --- | --- | ---: | ---: | --- | --- |",
            *rows,
        ]
    if any(name.endswith((".pt", ".zip", ".npz")) for name in agent.weights):
        lines += [
            "",
            "## How it was made",
            "",
            "Each file's training, from its starting weights to the commands and the figures on "
            "the way, is its row of [the shipped weights' account](../results/weights.md).",
        ]
    return "\n".join(lines) + "\n"


def write_agent_pages(app: Any) -> None:
    """``agents/index.md`` and one page per agent of :data:`wordle_agents.zoo.AGENTS` (rewritten
    only when they change, so that an unchanged build is not redone)."""
    from wordle_agents.zoo import AGENTS

    folder = DOCS / "agents"
    folder.mkdir(exist_ok=True)
    results = _results()
    pages = {f"{name}.md": agent_page(agent, results) for name, agent in AGENTS.items()}
    index = [
        "# Shipped agents",
        "",
        "Every agent of `wordle_agents` (its table is `wordle_agents.zoo.AGENTS`; each is an entry "
        "point in the group `wordle_gym.agents`, so `wordle-gym eval --agent NAME` plays it). "
        "Written from the code when the documentation is built.",
        "",
        "| agent | what it is |",
        "| --- | --- |",
        *(f"| [`{name}`]({name}.md) | {agent.description} |" for name, agent in AGENTS.items()),
        "",
        "```{toctree}",
        ":hidden:",
        "",
        *AGENTS,
        "```",
    ]
    pages["index.md"] = "\n".join(index) + "\n"
    for name, text in pages.items():
        path = folder / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    for stale in set(folder.glob("*.md")) - {folder / name for name in pages}:
        stale.unlink()


RESULT_PAGES = {
    "agents": (
        "Agents",
        "Every agent through the same harness, the published figures, and the training stages.",
    ),
    "optimum": (
        "The gap to perfect play",
        "The greedy and exact solvers, the openers, and every decision's regret.",
    ),
    "multi-board": (
        "Multi-board Wordle",
        "Dordle to Duotrigordle: the solvers, the learned agents, the bounds.",
    ),
    "speed": (
        "Speed",
        "The vector env on the CPU and CUDA, every agent on CUDA, and on a busy machine.",
    ),
    "training": (
        "Training",
        "Throughput, learning curves, ablations and the improvement by own rollouts.",
    ),
    "language-models": ("Language models", "The text env's speed and its regret reward."),
}
"""The results pages (``results/NAME.md``): a title and a line each; BENCHMARKS.md's sections go to
them by topic."""


def _result_page(title: str) -> str:
    """Which results page a section of BENCHMARKS.md belongs on, by its title."""
    lowered = title.lower()
    if "multi-board" in lowered or "dordle" in lowered or lowered.startswith("![multi-board"):
        return "multi-board"
    if "text env" in lowered:
        return "language-models"
    topics = {
        "optimum": ("solvers:", "exact solver", "best opener", "against the optimum"),
        "speed": ("throughput: c", "cuda graph", "every agent on cuda", "busy machine"),
        "training": (
            "training throughput",
            "learning curves",
            "replay",
            "ablation",
            "policy iteration",
            "update",
        ),
    }
    for page, words in topics.items():
        if any(word in lowered for word in words):
            return page
    return "agents"


def write_result_pages(app: Any) -> None:
    """BENCHMARKS.md split by topic into ``results/NAME.md`` (:data:`RESULT_PAGES`), each section
    whole, its images' paths made relative to the page; rewritten only when they change."""
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    head, _, body = text.partition("\n## Agents\n")
    pages: dict[str, list[str]] = {name: [] for name in RESULT_PAGES}
    page, intro = "agents", head.split("\n", 1)[1].strip()
    for line in body.splitlines():
        line = line.replace("](benchmarks/", "](../../benchmarks/")
        if line.startswith("### "):
            page = _result_page(line[4:])
            line = "## " + line[4:]
        elif line.startswith("![") and "multi_board" in line:
            pages["multi-board"] += [line, ""]
            continue
        pages[page].append(line)
    folder = DOCS / "results"
    for name, (title, summary) in RESULT_PAGES.items():
        lines = [f"# {title}", "", summary, "", intro, "", *pages[name]]
        content = "\n".join(lines).rstrip() + "\n"
        path = folder / f"{name}.md"
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")


def _png(rgb: Any) -> bytes:
    """An (H, W, 3) uint8 array as PNG bytes (the standard library's zlib: no imaging package)."""
    import struct
    import zlib

    height, width = rgb.shape[:2]
    raw = b"".join(b"\x00" + row.tobytes() for row in rgb)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def write_env_pictures(app: Any) -> None:
    """``envs/_pictures/``: a game of each env as it renders (``rgb_array``; the text env's text),
    for its page."""
    import gymnasium as gym

    import wordle_gym  # noqa: F401  (registers the ids)

    folder = DOCS / "envs" / "_pictures"
    folder.mkdir(exist_ok=True)
    files: dict[str, bytes] = {}
    env = gym.make("Wordle-v1", render_mode="rgb_array")
    env.reset(seed=0, options={"answer": "cigar"})
    for word in ("salet", "brain", "cigar"):
        env.step(env.unwrapped.vocabulary.action(word))
    files["wordle.png"] = _png(env.render())
    env = gym.make("Dordle-v1", render_mode="rgb_array")
    env.reset(seed=0, options={"answers": ["cigar", "humph"]})
    for word in ("salet", "brain", "cigar", "thump", "humph"):
        env.step(env.unwrapped.vocabulary.action(word))
    files["dordle.png"] = _png(env.render())
    env = gym.make("WordleText-v0", render_mode="ansi")
    env.reset(seed=0, options={"answer": "cigar"})
    env.step("<think>S and T are common.</think> My guess: <guess>salet</guess>")
    env.step("<guess>brain</guess>")
    files["text.txt"] = (env.render().rstrip() + "\n").encode()
    for name, data in files.items():
        path = folder / name
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)


NUMBERED_WORD = re.compile(r"\S*\d\S*")
"""A token with a digit in it (a date, ``1e-4``, ``2-core``, ``DeepSeek-R1``): its hyphens never end
a line."""


def keep_numbers_whole(app: Any, doctree: Any, docname: str) -> None:
    """In table cells, the hyphens of a token with a digit become non-breaking hyphens (U+2011), so
    that no browser ends a line inside a number or a date; code is left as it is (a reader copies
    it: it never wraps, by CSS)."""
    for entry in doctree.findall(nodes.entry):
        for text in list(entry.findall(nodes.Text)):
            if isinstance(text.parent, nodes.literal) or "-" not in text:
                continue
            joined = NUMBERED_WORD.sub(lambda m: m.group(0).replace("-", "\u2011"), str(text))
            if joined != str(text):
                text.parent.replace(text, nodes.Text(joined))


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-resolved", keep_numbers_whole)
    app.add_directive("wordle-registrations", Registrations)
    app.add_directive("wordle-docstring", Docstring)
    app.connect("builder-inited", write_agent_pages)
    app.connect("builder-inited", write_result_pages)
    app.connect("builder-inited", write_env_pictures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
