"""The text env's speed: ``WordleText-v0`` steps per second, and the same game behind TextArena's
interface (``WordleReal-v0``, its default wrappers), with TextArena's own ``Wordle-v0`` where it can
be built.

    python -m benchmarks.text_env [--before PATH] [--quick]

Each env plays whole games of replies written as a language model writes them
(``"I will try <guess>word</guess>"`` for the text env, ``"[word]"`` for TextArena), the words drawn
from the answers, about 10 % of replies with no guess; steps per second over the games of a time
budget, one process. TextArena's ``Wordle-v0`` downloads NLTK data when its module is imported; on a
machine without that data and without the network (this one), it cannot be built, and its row says
so. ``--before PATH`` (a checkout of an older commit): the same in a fresh process on that code,
each row beside this code's. Writes ``benchmarks/results/text_env_cpu.json`` and regenerates
BENCHMARKS.md.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks.common import parse_args, save
from wordle_gym.core.words import load_word_list


def _replies(seed: int, style: str) -> Callable[[], str]:
    rng = random.Random(seed)
    words = load_word_list("answers")

    def reply() -> str:
        if rng.random() < 0.1:
            return "Let me think about the letters first."
        word = rng.choice(words)
        return f"I will try <guess>{word}</guess>" if style == "text" else f"[{word}]"

    return reply


def _time(
    make: Callable[[], Any], play: Callable[[Any, Callable[[], str], int], int], budget: float
) -> dict:
    env, reply = make(), _replies(0, "text")
    steps, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < budget:
        steps += play(env, reply, games)
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "steps": steps,
        "games": games,
        "steps_per_s": steps / elapsed,
        "us_per_step": 1e6 * elapsed / steps,
    }


def _play_text(env: Any, reply: Callable[[], str], game: int) -> int:
    env.reset(seed=game)
    steps, done = 0, False
    while not done:
        _, _, done, _, _ = env.step(reply())
        steps += 1
    return steps


def _play_textarena(env: Any, reply: Callable[[], str], game: int) -> int:
    env.reset(num_players=1, seed=game)
    steps, done = 0, False
    while not done:
        env.get_observation()
        text = reply()
        done, _ = env.step(text.replace("I will try <guess>", "[").replace("</guess>", "]"))
        steps += 1
    env.close()
    return steps


def measure(budget: float) -> list[dict]:
    """Each env's row, ``budget`` seconds of games each."""
    import gymnasium as gym

    import wordle_gym  # noqa: F401 (registers the ids)

    rows = [
        {
            "env": "WordleText-v0 (wordle_gym)",
            **_time(lambda: gym.make("WordleText-v0"), _play_text, budget),
        }
    ]
    try:
        import textarena as ta

        from wordle_gym.integrations.textarena import register

        register()
        rows.append(
            {
                "env": "WordleReal-v0 (wordle_gym, through TextArena)",
                **_time(lambda: ta.make("WordleReal-v0"), _play_textarena, budget),
            }
        )
        try:
            theirs = _time(lambda: ta.make("Wordle-v0"), _play_textarena, budget)
            rows.append({"env": "Wordle-v0 (TextArena)", **theirs})
        except Exception as exc:  # NLTK's data cannot be fetched here
            first = next(
                (line.strip() for line in str(exc).splitlines() if any(c.isalpha() for c in line)),
                "",
            )
            rows.append(
                {"env": "Wordle-v0 (TextArena)", "error": f"{type(exc).__name__}: {first[:160]}"}
            )
    except ImportError:
        rows.append({"env": "TextArena", "error": "not installed (pip install -e '.[textarena]')"})
    return rows


def main() -> None:
    # here, not at the top: this file also runs against older checkouts' common (measure_fresh)
    from benchmarks.common import before_option

    args, _, result = parse_args(__doc__, "a 0.5 s budget per env", before_option)
    budget = 0.5 if args.quick else 10.0
    result["command"] = " ".join(["python -m benchmarks.text_env", *sys.argv[1:]])
    if args.before:
        # here: this file also runs against older checkouts' common
        from benchmarks.common import measure_fresh

        result["before"] = measure_fresh(__file__, f"measure({budget})", args.before)
    result["rows"] = measure(budget)
    save("text_env", result)


if __name__ == "__main__":
    main()
