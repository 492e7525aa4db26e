"""The best opener over all 12972 allowed guesses, proven, normal and hard mode (original lists).

    python -m benchmarks.openers [--modes normal hard] [--skip-run]

Runs ``python -m wordle_agents.commands.optimal --all-openers [--hard] --save
wordle_gym/data/solver/openers_<mode>.json`` (the shipped rankings are its output; the command's own
clock, summed over its sessions, is the time reported), then checks every figure against
alex1770/wordle's published proven lists (cited below):
each exact total it lists must be ours, and each opener we ruled out must have a lower bound at most
its listed total. ``--skip-run`` only reads the shipped rankings. Writes
``benchmarks/results/openers_cpu.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.common import parse_args, save
from wordle_gym.solver.openers import load, shipped_ranking

ROOT = Path(__file__).resolve().parent.parent
SOURCE = {
    "normal": "alex1770/wordle, normal.top105.proven",
    "hard": "alex1770/wordle, hard.top101.proven",
}
# Cited: the proven totals alex1770 published for the best openers on the original lists, 6 guesses.
CITED = {
    "normal": """salet 7920 reast 7923 crate 7926 trace 7926 slate 7928 crane 7930 carle 7937
        slane 7943 carte 7949 torse 7950 slant 7951 trice 7952 least 7954 trine 7956 prate 7958
        slart 7962 caret 7965 roast 7965 stale 7967 rance 7968 clast 7969 lance 7969 trone 7969
        carse 7970 crine 7972 train 7972 earst 7974 stare 7974 trade 7975 leant 7976 roist 7976
        trape 7976 taser 7978 snare 7980 peart 7981 react 7981 saint 7982 crone 7984 toile 7984
        stane 7985 reist 7987 scale 7988 plate 7989 loast 7990 crise 7991 drant 7991 riant 7992
        sorel 7993 clart 7994 roset 7994 saner 7994 corse 7996 slice 7996 parse 7997 soare 7997
        plane 7998 alist 7999 dealt 8000 roate 8000 tares 8000 crost 8001 resat 8001 aline 8002
        artel 8002 canst 8002 liane 8002 ronte 8002 stile 8002 prase 8003 raine 8003 store 8003
        tried 8003 antre 8004 tripe 8004 caner 8005 raile 8005 sault 8005 orant 8006 saine 8006
        strae 8006 tears 8006 trail 8006 orate 8008 snirt 8008 stole 8008 thale 8008 truce 8008
        close 8009 cater 8010 arose 8011 cline 8011 crest 8011 earnt 8011 alter 8012 seral 8012
        trans 8012 liart 8013 place 8013 snore 8013 grate 8014 raise 8014 rinse 8014 slade 8014
        spalt 8014 taler 8014""",
    "hard": """salet 8122 least 8127 reast 8134 crate 8143 trape 8144 slane 8149 prate 8151
        crane 8155 teals 8160 train 8160 carle 8163 dealt 8166 trice 8166 reist 8168 trine 8168
        stale 8170 alist 8171 clast 8173 torse 8173 trade 8173 trail 8173 peart 8174 tripe 8178
        slart 8179 trone 8179 earst 8180 lance 8182 palet 8182 alert 8183 plate 8183 carse 8184
        plane 8185 taels 8189 tales 8189 clart 8191 tarns 8191 trial 8191 plast 8192 tears 8193
        artel 8196 drant 8196 scale 8198 spalt 8198 cleat 8199 leapt 8199 roist 8199 setal 8199
        tesla 8199 loast 8200 prase 8200 toile 8200 tries 8201 roast 8202 tails 8202 laten 8203
        lacet 8204 taler 8204 scart 8205 taser 8205 crost 8207 perst 8207 place 8207 trans 8207
        tried 8207 plait 8208 stare 8208 antre 8209 parse 8209 tires 8209 spale 8210 triol 8210
        talon 8211 seral 8212 toran 8212 crone 8213 liart 8213 tride 8213 learn 8214 roate 8214
        leans 8215 slipt 8215 snort 8215 tares 8215 teras 8215 alter 8216 teils 8216 tiles 8216
        ratel 8217 tared 8217 alien 8218 orate 8218 snare 8218 clote 8219 prest 8219 trope 8219
        ancle 8220 derat 8220 pleat 8220 ronte 8220 spate 8220 stole 8220""",
}


def cited(mode: str) -> dict[str, int]:
    items = CITED[mode].split()
    return {word: int(total) for word, total in zip(items[::2], items[1::2], strict=True)}


def against_cited(data: dict, cited_totals: dict[str, int]) -> tuple[int, int, list[str]]:
    """A ranking's openers against cited proven totals: (exact and equal, bounded at most the
    total, the words that disagree). An exact figure must equal the total; a bound (or an opener
    ruled out unsolvable) must not exceed it."""
    ours = dict(
        zip(data["words"], zip(data["values"], data["exact_flags"], strict=True), strict=True)
    )
    agree = bounded = 0
    disagree: list[str] = []
    for word, total in cited_totals.items():
        value, exact = ours[word]
        if exact == "1":
            agree += value == total
            if value != total:
                disagree.append(word)
        elif value is None or value <= total:
            bounded += 1
        else:
            disagree.append(word)
    return agree, bounded, disagree


def check(mode: str, data: dict) -> dict:
    """Our figures against the cited proven totals: exact ones must agree, bounds must not exceed
    them."""
    agree, bounded, disagree = against_cited(data, cited(mode))
    top = cited(mode)
    tenth = sorted(top.values())[data["top"] - 1]
    return {
        "cited": len(top),
        "exact_agree": agree,
        "bounds_below": bounded,
        "disagree": len(disagree),
        "cited_top": [[w, t] for w, t in top.items() if t <= tenth],
    }


KEEP = (
    "top",
    "cutoff",
    "ranking",
    "ruled_out",
    "exact",
    "unsolvable",
    "nodes",
    "thread_s",
    "wall_s",
    "sessions",
    "workers",
)
"""The figures of a ranking a benchmark keeps."""


def finished_ranking(path: Path, options: list[str], skip_run: bool) -> dict:
    """Run (unless ``skip_run``) ``optimal --all-openers OPTIONS --save PATH`` and return the
    finished ranking; an unfinished one ends the benchmark."""
    if not skip_run:
        command = [sys.executable, "-m", "wordle_agents.commands.optimal", "--all-openers"]
        subprocess.run([*command, *options, "--save", str(path)], cwd=ROOT, check=True)
    data = load(path)
    if not data["finished"]:
        raise SystemExit(f"{path}: the ranking is not finished (the same command continues it)")
    return data


def main() -> None:
    def extra(parser: object) -> None:
        parser.add_argument(
            "--modes", nargs="+", choices=["normal", "hard"], default=["normal", "hard"]
        )
        parser.add_argument(
            "--skip-run", action="store_true", help="read the shipped rankings, run nothing"
        )

    args, _, result = parse_args(__doc__, "(no quick mode: the ranking is the benchmark)", extra)
    rows = []
    for mode in args.modes:
        path = shipped_ranking(mode == "hard")
        data = finished_ranking(path, ["--hard"] if mode == "hard" else [], args.skip_run)
        rows.append(
            {
                "mode": mode,
                **{k: data[k] for k in KEEP},
                "check": check(mode, data),
                "source": SOURCE[mode],
            }
        )
        print(mode, rows[-1]["check"])
    result["rankings"] = rows
    save("openers", result)


if __name__ == "__main__":
    main()
