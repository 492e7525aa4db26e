"""Build the documentation with warnings as errors, then open it in a real headless browser.

    python docs/check.py [--out docs/_build/html] [--screenshots FOLDER] [--browser
    /usr/bin/chromium]

The build is ``sphinx-build -W`` (a broken internal link or anchor, a docstring that does not parse,
a page in no table of contents: each is an error). The site is then served on the loopback address
only, and Chromium (Debian's package; driven by Playwright, whose own browser download is never
used) opens the home page, the Wordle env page and the search page: each must load without a console
error, and the search must find ``Wordle-v1`` on the env page. Then every page of the site is opened
at 1280 x 800, a laptop's screen: nothing may run past the right edge or need a sideways scroll (the
page, a code block, a table, an image), no table row is over 160 px tall, no table cell breaks a
word or number across lines (but the code of a table of long strings, marked ``wrap-code``), no
line of code wraps, and no image is shown below three quarters of its size. Exit status 0 when all
of it holds; one line per failure otherwise.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

DOCS = Path(__file__).resolve().parent
BROWSER_FLAGS = [  # what a closed network and a root user need (no sandbox, no background traffic)
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def build(out: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        str(DOCS),
        str(out),
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the documentation does not build without warnings:\n{done.stderr}")


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A browser that moves on before a file is sent closes the connection: not a failure of the
        site."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # no line per request
        pass


OVERFLOW = """() => {
  const found = [];
  const text = (el) => (el.textContent || el.getAttribute('src') || '').trim()
    .replace(/\\s+/g, ' ');
  const named = (el) => el.tagName.toLowerCase() + ' "' + text(el).slice(0, 40) + '"';
  if (document.documentElement.scrollWidth > window.innerWidth) found.push('the page');
  const boxes = 'article pre, article .highlight, article .table-wrapper, article img, '
    + 'article table';
  for (const el of document.querySelectorAll(boxes)) {
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const box = scrolls ? el : el.closest('.table-wrapper, .highlight') || el;
    if (box.getBoundingClientRect().right > window.innerWidth + 1) found.push(named(el));
    // a box that must be scrolled sideways to show all of it
    else if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      found.push(named(el) + ' (scrolls sideways)');
    }
  }
  if (!location.pathname.endsWith('genindex.html')) {  // the index: a list, not a table
    for (const row of document.querySelectorAll('article tr')) {
      const height = row.getBoundingClientRect().height;
      if (height > 160) found.push('a row ' + Math.round(height) + ' px tall ("'
        + text(row).slice(0, 30) + '")');
    }
  }
  return found;
}"""
"""What runs past the right edge of a page or scrolls sideways, and the table rows too tall to
read at a glance (JavaScript, evaluated in the browser)."""

BROKEN = """() => {
  const found = [];
  const lines = (node, start, end) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    const rects = [...range.getClientRects()].filter(r => r.width > 0.5);
    return new Set(rects.map(r => Math.round(r.top))).size;
  };
  for (const cell of document.querySelectorAll('article td, article th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // a table of long strings (custom.css: div.wrap-code) wraps its code where the column ends
      if (node.parentElement.closest('div.wrap-code code')) continue;
      for (const word of node.textContent.matchAll(/\\S+/g)) {
        const [start, end] = [word.index, word.index + word[0].length];
        if (lines(node, start, end) < 2) continue;
        // a word of prose may go on after its hyphen on the next line, as print does; a number,
        // never
        const splitsAt = (j) => lines(node, start, start + j + 1) === 1
          && lines(node, start + j + 1, end) === 1;
        const atHyphen = !/\\d/.test(word[0])
          && [...word[0]].some((c, j) => c === '-' && j + 1 < word[0].length && splitsAt(j));
        if (!atHyphen) found.push('cell "' + word[0].slice(0, 40) + '"');
      }
    }
  }
  for (const pre of document.querySelectorAll('article pre')) {
    const style = getComputedStyle(pre);
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    const height = pre.clientHeight - padding;
    const shown = Math.round(height / parseFloat(style.lineHeight));
    const written = pre.textContent.replace(/\\n$/, '').split('\\n').length;
    if (shown > written) {
      const start = pre.textContent.trim().slice(0, 40);
      found.push('code "' + start + '" (' + written + ' lines shown as ' + shown + ')');
    }
  }
  for (const img of document.querySelectorAll('article img')) {
    if (img.naturalWidth && img.clientWidth < 0.75 * img.naturalWidth) {
      const shown = Math.round(100 * img.clientWidth / img.naturalWidth);
      found.push('image ' + img.getAttribute('src') + ' shown at ' + shown + ' % of its size');
    }
  }
  return found;
}"""
"""What a reader cannot read as written: a word or number of a table cell broken across lines, a
line of code wrapped, an image shrunk below three quarters of its size (its labels too small to
read)."""


def overflowing(page: object, base: str, out: Path) -> list[str]:
    """Every page of the site at the viewport's width: the pages and elements that run past the
    right edge."""
    failures = []
    for path in sorted(out.rglob("*.html")):
        if {"_static", "_sources"} & set(path.relative_to(out).parts):
            continue
        page.goto(f"{base}/{path.relative_to(out).as_posix()}", wait_until="load")  # type: ignore[attr-defined]
        wide = page.evaluate(OVERFLOW)  # type: ignore[attr-defined]
        if wide:
            failures.append(
                f"{path.relative_to(out)}: runs past the right edge at 1280 px: "
                f"{', '.join(wide[:3])}"
            )
        broken = page.evaluate(BROKEN)  # type: ignore[attr-defined]
        if broken:
            failures.append(
                f"{path.relative_to(out)}: not readable as written at 1280 px: "
                f"{', '.join(broken[:3])}"
            )
    return failures


def browse(base: str, browser: str, screenshots: Path | None, out: Path) -> list[str]:
    """Open the pages; the failures, one line each."""
    from playwright.sync_api import sync_playwright

    failures: list[str] = []
    pages = {
        "home": "/index.html",
        "wordle-env": "/envs/wordle.html",
        "search": "/search.html?q=Wordle-v1",
    }
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=browser, args=BROWSER_FLAGS)
        page = chromium.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on(
            "console",
            lambda message: errors.append(message.text) if message.type == "error" else None,
        )
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on(
            "response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None
        )
        for name, path in pages.items():
            errors.clear()
            response = page.goto(base + path, wait_until="load")
            if response is None or response.status != 200:
                failures.append(
                    f"{name}: {path} answered {None if response is None else response.status}"
                )
                continue
            if name == "search":
                page.wait_for_selector("#search-results li a", timeout=15_000)
                found = page.eval_on_selector_all(
                    "#search-results li a", "links => links.map(a => a.href)"
                )
                if not any("envs/wordle" in link for link in found):
                    failures.append(
                        f"search: 'Wordle-v1' does not find the Wordle env page (found {found[:5]})"
                    )
            if errors:
                failures.append(f"{name}: console errors: {errors[:3]}")
            if screenshots is not None:
                screenshots.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(screenshots / f"{name}.png"), full_page=False)
        failures += overflowing(page, base, out)
        chromium.close()
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", default=str(DOCS / "_build" / "html"), help="where the site is built"
    )
    parser.add_argument(
        "--screenshots", default=None, help="save a screenshot of each page opened here"
    )
    parser.add_argument("--browser", default="/usr/bin/chromium", help="the Chromium to drive")
    parser.add_argument(
        "--no-build", action="store_true", help="check the site already built in --out"
    )
    args = parser.parse_args()
    out = Path(args.out)
    if not args.no_build:
        build(out)
    server, base = serve(out)
    try:
        failures = browse(
            base, args.browser, Path(args.screenshots) if args.screenshots else None, out
        )
    finally:
        server.shutdown()
    for failure in failures:
        print(f"docs: {failure}", file=sys.stderr)
    if not failures:
        print(
            f"docs: built in {out} without warnings; home, env and search pages load cleanly, "
            "search finds Wordle-v1; at 1280 x 800 nothing runs past the right edge or scrolls "
            "sideways, no table row is over 160 px, no table cell breaks a word or number, no line "
            "of code wraps and no image is shrunk below three "
            "quarters of its size"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
