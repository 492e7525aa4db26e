"""Every opener's first-move total, from the published tables, checked against the project's own
search.

    python -m benchmarks.opener_totals --alex PATH [--check 12] [--best N] [--time-limit 600]
    [--skip-build]

``PATH``: alex1770/wordle (a checkout, a folder of its files, or the git directory ``fetch`` brings,
read with ``git show``) at commit 8fd3f1bdf884ff6757c24ad1227dc561fab7787d. Writes one shipped
table a game, ``wordle_gym/data/solver/opener_totals_<game>.json`` (the oracle reads it:
``reward="regret"``'s first move), each source cited in it:

* the real lists (``Wordle-v1``): ``normal.some3593.proven`` (3593 openers' proven totals) and
  ``normal.n100`` (every opener's total under alex1770's search restricted to the 100 best guesses a
  node: a real strategy, so a proven upper bound);
* the real lists in hard mode: ``hard.top101.proven`` (101 openers) as upper bounds;
* the NYT lists (``WordleNYT-v1``: 2309 answers, the same 12972 guesses):
  ``results_easy_nyt20220316``, every opener proven; in hard mode ``results_hard_nyt20220316`` as
  upper bounds;
* today's game (``WordleToday-v1``: 3158 answers, 14855 guesses): ``results_easy_nyt20230701``,
  every opener proven; in hard mode ``results_hard_nyt20230701`` as upper bounds (its openers that
  cannot win every game within six have no total there).

alex1770's totals are of trees that never lose a game. The oracle counts a loss as the limit + 1, so
a tree that gives a game up may cost less: in hard mode it does (SALET 8116 with 3 losses against
8122 winning all), so there those totals are upper bounds only; in normal mode they are taken as
exact, and ``--check`` holds a sample of each source to the project's search, which counts losses
(an exact entry must equal it, an upper bound must not be below it). Writes
``benchmarks/results/opener_totals_cpu.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import RESULTS, parse_args, save
from wordle_gym.core.words import Vocabulary
from wordle_gym.utils.files import atomic_write_text

ROOT = Path(__file__).resolve().parent.parent
COMMIT = "8fd3f1bdf884ff6757c24ad1227dc561fab7787d"
REPO = "alex1770/wordle"
NO_LOSS = (
    "totals of trees that lose no game: exact for the oracle's game, which counts a loss as "
    "the limit + 1,"
)
GAMES = {
    "normal": {
        "lists": ("wordlist_orig_hidden", "wordlist_orig_all"),
        "hard": False,
        "sources": [
            (
                "normal.some3593.proven",
                "exact",
                f"3593 openers' proven {NO_LOSS} where no tree with a loss is cheaper",
            ),
            (
                "normal.n100",
                "upper",
                "every opener's total with the 100 best guesses a node tried: a real strategy's",
            ),
        ],
    },
    "hard": {
        "lists": ("wordlist_orig_hidden", "wordlist_orig_all"),
        "hard": True,
        "sources": [
            ("hard.top101.proven", "upper", "101 openers' proven totals of trees that lose no game")
        ],
    },
    "nyt": {
        "lists": ("wordlist_nyt20220316_hidden", "wordlist_nyt20220316_all"),
        "hard": False,
        "sources": [
            (
                "results_easy_nyt20220316",
                "exact",
                f"every opener's proven {NO_LOSS} where none is cheaper",
            )
        ],
    },
    "nyt_hard": {
        "lists": ("wordlist_nyt20220316_hidden", "wordlist_nyt20220316_all"),
        "hard": True,
        "sources": [
            (
                "results_hard_nyt20220316",
                "upper",
                "every opener's proven total of a tree that loses no game",
            )
        ],
    },
    "today": {
        "lists": ("wordlist_nyt20230701_hidden", "wordlist_nyt20220830_all"),
        "hard": False,
        "sources": [
            (
                "results_easy_nyt20230701",
                "exact",
                f"every opener's proven {NO_LOSS} where none is cheaper",
            )
        ],
    },
    "today_hard": {
        "lists": ("wordlist_nyt20230701_hidden", "wordlist_nyt20220830_all"),
        "hard": True,
        "sources": [
            (
                "results_hard_nyt20230701",
                "upper",
                "every opener's proven total of a tree that loses no game",
            )
        ],
    },
}
OURS = {"nyt": ("answers_nyt", "allowed"), "today": ("answers_today", "allowed_today")}
"""The env's lists each game's are held to (the others: the original lists)."""


def read_source(alex: Path, name: str) -> str:
    """A file of the alex1770/wordle snapshot at ``alex``: a folder holding it, or a git
    directory."""
    if (alex / name).is_file():
        return (alex / name).read_text(encoding="utf-8")
    out = subprocess.run(
        ["git", "--git-dir", str(alex), "show", f"{COMMIT}:{name}"], capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(
            f"{name} is neither in {alex} nor in its git history at {COMMIT}: {out.stderr.strip()}"
        )
    return out.stdout


def totals(text: str) -> dict[str, int]:
    """``word [mean] total`` lines (the last field is the total over the answers; Infinity: none
    kept)."""
    out = {}
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[-1].isdigit() and int(fields[-1]) < 10**8:
            out[fields[0]] = int(fields[-1])
    return out


def build(alex: Path, game: str) -> tuple[Path, dict, Vocabulary]:
    """The shipped table of ``game`` from the snapshot (its lists checked to be the env's, as
    sets)."""
    spec = GAMES[game]
    hidden, every = (sorted(read_source(alex, name).split()) for name in spec["lists"])
    vocab = Vocabulary(hidden, every)
    ours = Vocabulary(*OURS.get(game.removesuffix("_hard"), ("answers", "allowed")))
    if vocab.digest != ours.digest:
        raise SystemExit(
            f"{spec['lists']} are not the lists of {ours.num_answers} answers, "
            f"{ours.num_allowed} words"
        )
    sources = []
    for name, kind, what in spec["sources"]:
        found = totals(read_source(alex, name))
        cite = f"{REPO} {name} at {COMMIT[:12]}: {what}"
        sources.append({"name": f"{REPO} {name}", "kind": kind, "cite": cite, "totals": found})
    data = {
        "format": "wordle-gym opener totals 1",
        "lists": vocab.digest,
        "hard_mode": spec["hard"],
        "max_guesses": 6,
        "num_answers": vocab.num_answers,
        "sources": sources,
    }
    return ROOT / "agents" / "checkpoints" / f"opener_totals_{game}.json", data, vocab


def write(path: Path, data: dict) -> None:
    """One line a source's totals: the table stays readable and diffs by source."""
    import json

    head = {k: v for k, v in data.items() if k != "sources"}
    lines = []
    for source in data["sources"]:
        meta = json.dumps({k: v for k, v in source.items() if k != "totals"})[:-1]
        lines.append(f'  {meta}, "totals": {json.dumps(source["totals"], separators=(",", ":"))}}}')
    text = json.dumps(head, indent=1)[:-2] + ',\n "sources": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    atomic_write_text(path, text)


def check(
    data: dict,
    vocab: Vocabulary,
    count: int,
    seconds: float,
    seed: int = 0,
    best: int | None = None,
) -> list[dict]:
    """``count`` entries of each source valued by the project's search (a loss as the limit + 1),
    drawn from its ``best`` lowest totals where given (a poor opener's exact search can take many
    minutes)."""
    from wordle_gym.solver.oracle import Oracle

    oracle = Oracle(
        answers=vocab.answers,
        allowed=vocab.allowed,
        hard_mode=data["hard_mode"],
        root_opener=None,
        opener_table="/nonexistent.json",
    )
    oracle.root_exact.clear()  # every value searched here, none read from a table
    rows, rng = [], random.Random(seed)
    for source in data["sources"]:
        pool = (
            sorted(source["totals"], key=lambda w: (source["totals"][w], w))[:best]
            if best
            else sorted(source["totals"])
        )
        for word in rng.sample(pool, min(count, len(pool))):
            start = time.perf_counter()
            try:
                deadline = time.perf_counter() + seconds
                action = vocab.action(word)
                total = oracle.search.run(
                    lambda a=action: oracle._q_total(oracle.start(), a), deadline=deadline
                )
            except TimeoutError:
                total = None
            cited = source["totals"][word]
            held = (
                None
                if total is None
                else (total == cited if source["kind"] == "exact" else total <= cited)
            )
            rows.append(
                {
                    "source": source["name"],
                    "kind": source["kind"],
                    "opener": word,
                    "cited": cited,
                    "searched": total,
                    "seconds": round(time.perf_counter() - start, 1),
                    "holds": held,
                }
            )
            print(
                f"{source['name']} {word}: cited {cited}, searched {total} "
                f"({rows[-1]['seconds']} s)",
                flush=True,
            )
    return rows


def main() -> None:
    def extra(parser) -> None:
        parser.add_argument(
            "--alex", required=True, help="alex1770/wordle: a checkout, its files, or its git dir"
        )
        parser.add_argument(
            "--check", type=int, default=6, help="entries of each source searched (default 6)"
        )
        parser.add_argument(
            "--time-limit", type=float, default=600, help="seconds an entry's search (default 600)"
        )
        parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
        parser.add_argument(
            "--skip-build", action="store_true", help="check the shipped tables only"
        )
        parser.add_argument(
            "--best", type=int, help="draw the sample from each source's N lowest totals"
        )

    args, _, result = parse_args(__doc__, "one entry of each source, 120 s each", extra)
    count, seconds = (1, 120.0) if args.quick else (args.check, args.time_limit)
    result["command"] = " ".join(["python -m benchmarks.opener_totals", *sys.argv[1:]])
    result["source"] = f"{REPO} at {COMMIT}"
    result["games"] = {}
    earlier = RESULTS / f"opener_totals_{result['device']}.json"
    if earlier.is_file():  # the games not rerun keep their rows, each with its own command and date
        before = json.loads(earlier.read_text(encoding="utf-8"))
        for game, row in before.get("games", {}).items():
            if game not in args.games:
                result["games"][game] = {
                    "command": before["command"],
                    "date": before["date"],
                    **row,
                }
    for game in args.games:
        path, data, vocab = build(Path(args.alex), game)
        if not args.skip_build:
            write(path, data)
        counts = {s["name"]: [s["kind"], len(s["totals"])] for s in data["sources"]}
        checked = check(data, vocab, count, seconds, best=args.best)
        row = {"table": path.name, "sources": counts, "checked": checked}
        result["games"][game] = {**row, "command": result["command"], "date": result["date"]}
    save("opener_totals", result)


if __name__ == "__main__":
    main()
