"""Take the README's pictures of the web table again: ``python tests/web_screenshots.py``.

Starts ``sniff serve`` on a seeded game against the random player (as :mod:`web_server` starts it
for the browser tests), plays it in headless Chromium until the layout has a sniff with arms on
every side and a scoring move to pick, picks that tile and takes the table at 1280×900
(``web-table.png``) and on a 390×844 phone (``web-phone.png``); then the welcome of a later
visit, with the finished games to replay (``web-recent.png``). The pictures go to
``checkpoints/results/`` (``--out`` for another folder), reduced to 256 colours so that each
stays under :data:`web_server.MOST_BYTES`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any, cast

from web_server import (
    ARGS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    RESULTS,
    best_scoring,
    deal,
    finish,
    play_until,
    save_png,
    settled,
    start_server,
)

SERVER = ("--seed", "3", "--opponent", "random", "--rule", "target=30", "--hint-budget", "0.1")


def worth_a_picture(s: dict[str, Any]) -> bool:
    """A position that shows the sniff with arms on all sides and a scoring move to pick."""
    arms = s["layout"]["arms"]
    if not (s["phase"] == "play" and s["your_turn"]):
        return False
    best = best_scoring(s)
    return (len(arms["north"]) + len(arms["south"]) >= 1 and len(arms["west"]) + len(arms["east"]) >= 3
            and bool(best["tile"]) and best["points"] > 0)


def play_to_a_picture(page: Any) -> dict[str, Any]:
    """Play the best-scoring move until :func:`worth_a_picture` (the next hand, a new game, as
    needed); then pick the tile of the best move, so that its ends are shown."""
    s = play_until(page, worth_a_picture, 400, choose=best_scoring)
    tile = best_scoring(s)["tile"]
    page.click(f"#hand [data-tile='{tile[0]}-{tile[1]}']")
    return s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RESULTS, help="the folder for the pictures (default: %(default)s)")
    args = parser.parse_args(argv)
    if not args.out.is_dir():
        parser.error(f"--out must be a folder that exists; got {args.out}")
    if not CHROMIUM.is_file():
        parser.error(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        proc, address, _ = start_server(Path(folder), *SERVER)
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            for name, viewport in (("table", DESKTOP), ("phone", PHONE)):
                page = browser.new_page(viewport=cast(Any, viewport), has_touch=viewport is PHONE)
                page.set_default_timeout(15_000)
                page.goto(address)
                deal(page)
                page.wait_for_function("window.sniff && window.sniff.state")
                play_to_a_picture(page)
                size = save_png(settled(page), args.out / f"web-{name}.png")
                print(f"web-{name}.png: {viewport['width']}×{viewport['height']}, {size:,} bytes")
                if viewport is DESKTOP:
                    page.keyboard.press("Escape")
                    finish(page)
                page.close()
            page = browser.new_page(viewport=cast(Any, DESKTOP))
            page.goto(address)
            page.wait_for_selector("#welcome-recent li")
            size = save_png(settled(page), args.out / "web-recent.png")
            print(f"web-recent.png: {DESKTOP['width']}×{DESKTOP['height']}, {size:,} bytes")
        finally:
            browser.close()
            proc.terminate()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
