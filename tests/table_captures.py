"""Captures of the terminal table and the web table, to set one version beside another:
``python tests/table_captures.py --out DIR [--prefix after]``.

Run from a checkout, it captures that checkout's tables, each deterministic by its seed:

* the terminal at 80×24 (through a pseudo-terminal, as :mod:`test_terminal_fit` runs it): a
  4-player partnership game to its first hand's end (``terminal-4p-hand-end.txt``), a 3-player
  game to 30 to its end (``terminal-3p-game-over.txt``), the screen after ``rules`` and then
  after ``board`` (``terminal-rules-board.txt``) and the first turn after a double is led with
  no sniff (``terminal-double-led.txt``);
* the web table in headless Chromium (as :mod:`web_server` starts it): 3 players at 1280×900
  mid-hand with a long east arm (``web-3p-desktop.png``), a "+N" just after a scoring move
  (``web-score-pop.png``), the keys' marks after pressing the number of a tile that plays (``web-keys.png``), the welcome of a
  later visit (``web-recent.png``) and the phone at 390×844 once the sniff has arms on every side
  (``web-phone.png``).

Each file is ``DIR/PREFIX-NAME``. A step that a version does not have is not an error: its
capture says what did not happen (a ``.txt`` note in place of a picture), and the rest goes on.
Pictures are reduced to 256 colours, each under :data:`web_server.MOST_BYTES`.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pexpect
from test_terminal_fit import CLAIMABLE, screen, spawn
from web_server import (
    ARGS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    best_scoring,
    click_move,
    finish,
    play_until,
    save_png,
    settled,
    start_server,
    wait_past,
)

WIDTH, HEIGHT = 80, 24
RULE = "-" * WIDTH
MOVE = "\n> "
NEXT_HAND = "press Enter for the next hand"
SCORES_PAGE = "press Enter for the scores"
PAGER = [re.escape("press Enter for more (q: back) "), re.escape("press Enter for the table (or type a move) ")]
HOME = "~/.sniff"
"""Where the captures say the game logs are (each run has a temporary home of its own)."""


class Capture:
    """One text capture: screens of the 80×24 terminal, each under a line saying what led to it."""

    def __init__(self, command: list[str]) -> None:
        self.parts = [f"sniff {' '.join(command)}  (a terminal of {WIDTH}×{HEIGHT})"]

    def add(self, what: str, shown: list[str]) -> None:
        self.parts += [f"== {what} ==", RULE, *shown, RULE]

    def note(self, text: str) -> None:
        self.parts.append(f"note: {text}")

    def write(self, path: Path) -> None:
        path.write_text("\n".join(self.parts) + "\n")
        print(f"{path.name}: {len(self.parts)} lines")


class Child:
    """``sniff`` in a pseudo-terminal of 80×24, with all its output kept."""

    def __init__(self, home: Path, command: list[str]) -> None:
        self.proc = spawn(home, (WIDTH, HEIGHT), *command)
        self.proc.timeout = 60
        self.home = str(home / "h")
        self.seen = ""

    def upto(self, patterns: list[Any]) -> int:
        i = int(self.proc.expect(patterns))
        self.seen += self.proc.before + (self.proc.after if isinstance(self.proc.after, str) else "")
        return i

    def screen(self) -> list[str]:
        return screen(self.seen.replace(self.home, HOME), WIDTH, HEIGHT)

    def move(self) -> None:
        """Play the first listed move (claimed where it scores)."""
        self.proc.sendline("1!" if CLAIMABLE.search(self.proc.before) else "1")

    def close(self) -> None:
        if self.proc.isalive():
            self.proc.sendline("quit")
            try:
                self.proc.expect(pexpect.EOF, timeout=20)
            except pexpect.TIMEOUT:
                self.proc.terminate(force=True)


def terminal(home: Path, path: Path, command: list[str], steps: Callable[[Child, Capture], None]) -> None:
    """Run ``sniff COMMAND`` through ``steps``; whatever goes wrong is noted in the capture, with
    the last screen, and the capture is written all the same."""
    capture, child = Capture(command), Child(home, command)
    try:
        steps(child, capture)
    except Exception as exc:  # noqa: BLE001 - an older version may lack the step; say so, go on
        capture.note(f"the capture stopped here ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})")
        capture.add("the last screen", child.screen())
    finally:
        child.close()
    capture.write(path)


def first_hand_end(child: Child, capture: Capture) -> None:
    for _ in range(400):
        i = child.upto([MOVE, NEXT_HAND, SCORES_PAGE])
        if i == 0:
            child.move()
        elif i == 2:
            capture.add("the end of the hand, its first screen (press Enter for the scores)", child.screen())
            child.proc.sendline("")
        else:
            capture.add("the end of the first hand", child.screen())
            return
    raise RuntimeError("the first hand did not end in 400 prompts")


def game_over(child: Child, capture: Capture) -> None:
    pages: list[list[str]] = []
    for _ in range(2000):
        i = child.upto([MOVE, NEXT_HAND, SCORES_PAGE, pexpect.EOF])
        if i == 0:
            child.move()
            pages = []
        elif i == 1:
            child.proc.sendline("")
            pages = []
        elif i == 2:
            pages.append(child.screen())
            child.proc.sendline("")
        else:
            for shown in pages:
                capture.add("the end of the last hand, its first screen (press Enter for the scores)", shown)
            capture.add("the end of the game (the program has ended; the shell's prompt comes under it)",
                        child.screen())
            capture.note(f"the game logs went to a temporary folder, written here as {HOME}; a line the "
                         f"program cut at {WIDTH} columns (with the longer name) stays cut where it was")
            return
    raise RuntimeError("the game did not end in 2000 prompts")


def rules_then_board(child: Child, capture: Capture) -> None:
    child.upto([MOVE])
    capture.add("the table at the first prompt", child.screen())
    child.proc.sendline("rules")
    child.upto([*PAGER, MOVE])
    capture.add("after typing rules", child.screen())
    child.proc.sendline("board")
    child.upto([MOVE])
    capture.add("after typing board", child.screen())


def first_turn(child: Child, capture: Capture) -> None:
    child.upto([MOVE])
    capture.add("the first prompt, after the lead", child.screen())


TERMINAL: list[tuple[str, list[str], Callable[[Child, Capture], None]]] = [
    ("terminal-4p-hand-end", ["--players", "4", "--rule", "partnership=true", "--seed", "5"], first_hand_end),
    ("terminal-3p-game-over", ["--players", "3", "--rule", "target=30", "--seed", "2"], game_over),
    ("terminal-rules-board", ["--seed", "11"], rules_then_board),
    ("terminal-double-led", ["--preset", "muggins", "--seed", "2"], first_turn),
]


def open_table(browser: Any, address: str, viewport: dict[str, int]) -> Any:
    """A page of the table with a game dealt: Deal pressed on the welcome where the page has one
    (an older page deals as it opens)."""
    page = browser.new_page(viewport=cast(Any, viewport), has_touch=viewport is PHONE)
    page.set_default_timeout(20_000)
    page.goto(address)
    page.wait_for_function("window.sniff && (window.sniff.state || document.querySelector('#deal'))")
    if page.locator("#welcome:not([hidden]) #deal").count():
        page.click("#deal")
    page.wait_for_function("window.sniff.state && !window.sniff.busy")
    return page


def play_to(page: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Play the best-scoring move (the next hand, a new game, as needed) until it is the player's
    turn in a position where ``wanted``."""
    return play_until(page, lambda s: s["phase"] == "play" and s["your_turn"] and wanted(s), 400,
                      choose=best_scoring)


def arms(s: dict[str, Any]) -> dict[str, int]:
    return {end: len(tiles) for end, tiles in s["layout"]["arms"].items()}


def long_east(s: dict[str, Any]) -> bool:
    """Mid-hand, the east arm long enough to reach the right-hand seat."""
    return arms(s)["east"] >= 5


def sniff_on_all_sides(s: dict[str, Any]) -> bool:
    """The sniff down with a tile on its north and its south side."""
    a = arms(s)
    return a["north"] >= 1 and a["south"] >= 1 and a["west"] + a["east"] >= 2


def scoring_move(s: dict[str, Any]) -> bool:
    return best_scoring(s)["points"] > 0 and bool(best_scoring(s)["tile"])


def picture(out: Path, name: str, take: Callable[[], bytes]) -> None:
    """``take`` a picture to ``out/NAME.png``; a ``.txt`` note in its place where it cannot be."""
    try:
        path = out.with_name(f"{out.name}{name}.png")
        print(f"{path.name}: {save_png(take(), path):,} bytes")
    except Exception as exc:  # noqa: BLE001 - an older page may lack the step; say so, go on
        note = out.with_name(f"{out.name}{name}.txt")
        note.write_text(f"no picture: {type(exc).__name__}: {exc}\n")
        print(f"{note.name}: {traceback.format_exception_only(exc)[-1].strip()}")


DESKTOP_3P = ("--players", "3", "--seed", "4", "--opponent", "random", "--rule", "target=60", "--hint-budget", "0.1")
PHONE_2P = ("--seed", "3", "--opponent", "random", "--rule", "target=30", "--hint-budget", "0.1")


def web(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        proc, address, _ = start_server(Path(folder) / "desktop", *DESKTOP_3P)
        try:
            page = open_table(browser, address, DESKTOP)

            def desktop() -> bytes:
                play_to(page, long_east)
                return settled(page)

            def score_pop() -> bytes:
                s = play_to(page, scoring_move)
                click_move(page, best_scoring(s))
                wait_past(page, s["version"])
                page.wait_for_timeout(350)
                return bytes(page.screenshot())

            def keys() -> bytes:
                s = play_to(page, lambda s: any(o["tile"] for o in s["options"]))
                settled(page)
                hand = list(dict.fromkeys(page.eval_on_selector_all("#hand [data-tile]", "xs => xs.map((x) => x.dataset.tile)")))
                tile = "-".join(map(str, best_scoring(s)["tile"]))
                page.keyboard.press(str(hand.index(tile) + 1 if tile in hand else 1))
                page.wait_for_timeout(200)
                return settled(page)

            def recent() -> bytes:
                page.keyboard.press("Escape")
                finish(page)
                again = browser.new_page(viewport=cast(Any, DESKTOP))
                again.goto(address)
                again.wait_for_function("window.sniff && (window.sniff.state || document.querySelector('#welcome'))")
                again.wait_for_timeout(500)
                return settled(again)

            picture(out, "web-3p-desktop", desktop)
            picture(out, "web-score-pop", score_pop)
            picture(out, "web-keys", keys)
            picture(out, "web-recent", recent)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        proc, address, _ = start_server(Path(folder) / "phone", *PHONE_2P)
        try:
            def phone() -> bytes:
                page = open_table(browser, address, PHONE)
                play_to(page, sniff_on_all_sides)
                return settled(page)

            picture(out, "web-phone", phone)
        finally:
            browser.close()
            proc.terminate()
            proc.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder for the captures (it must exist)")
    parser.add_argument("--prefix", default="after", help="the start of each file's name (default: %(default)s)")
    parser.add_argument("--only", choices=["terminal", "web"], help="take one kind of capture only")
    args = parser.parse_args(argv)
    if not args.out.is_dir():
        parser.error(f"--out must be a folder that exists; got {args.out}")
    out = args.out / f"{args.prefix}-"
    if args.only != "web":
        with tempfile.TemporaryDirectory() as home:
            for name, options, steps in TERMINAL:
                command = ["play", *options, "--opponent", "random"]
                terminal(Path(home) / name, out.with_name(f"{out.name}{name}.txt"), command, steps)
    if args.only != "terminal":
        if not CHROMIUM.is_file():
            parser.error(f"no Chromium at {CHROMIUM}")
        web(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
