"""The web table's "Save log" in the middle of a game, as a player uses it: the file it gives (a
seat's record, no seed and no other hand) opens in the page's Replay… (desktop 1280×900 and phone
390×844, in headless Chromium) and in ``sniff replay`` at a terminal (80×24 and 120×40, through a
pseudo-terminal). Both show what the seat saw, move by move, with the running scores, its own
tiles face up and every other hand hidden: no tile the seat had not seen appears anywhere.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_server import (  # noqa: F401  (the games and browser fixtures)
    DESKTOP,
    PHONE,
    browser_fixture,
    games_folder,
    open_page,
    play_until,
    require_browser,
    run_server,
    screenshot,
    state,
)

from sniff_env.gamelog import load_game_log
from sniff_env.tiles import mask_tiles

pexpect = pytest.importorskip("pexpect")
playwright_api = require_browser()

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "checkpoints" / "results"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture(scope="module")
def server(games: Path) -> Iterator[str]:
    yield from run_server(games, "--seed", "5", "--opponent", "random", "--rule", "target=200")


@pytest.fixture(scope="module")
def saved(browser: Any, server: str, games: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A game played some moves into its second hand by clicking, then saved with the Save log
    button: the file, the tiles hidden from the player in that hand, the player's own tiles."""
    page = open_page(browser, server, DESKTOP)
    s = play_until(page, lambda s: s["hand_number"] == 2 and s["your_turn"] and len(s["events"]) >= 8)
    folder = tmp_path_factory.mktemp("saved")
    with page.expect_download() as download:
        page.click("#save-log")
    path = folder / download.value.suggested_filename
    download.value.save_as(path)
    log = max(games.glob("web-*.json"), key=lambda p: p.stat().st_mtime)  # the server's own log of it
    full = load_game_log(log).game
    ts = full.ts
    hidden = {ts.name(t) for seat in range(full.n) if seat != 0 for t in mask_tiles(full.hands[seat])}
    hidden |= {ts.name(t) for t in full.boneyard[full.bone_pos:]}
    page.close()
    return {"path": path, "hidden": hidden, "hand": [f"{a}-{b}" for a, b in s["hand"]], "scores": full.scores}


def test_the_saved_file_is_the_seats_record(saved: dict[str, Any]) -> None:
    data = json.loads(saved["path"].read_text())
    assert data["format"] == "sniff-seat-log" and "seed" not in data and not data["finished"]
    assert len(data["hands"]) == 2 and "result" in data["hands"][0]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_page_replays_what_the_seat_saw(browser: Any, server: str, saved: dict[str, Any],
                                            viewport: dict[str, int], tmp_path: Path) -> None:
    page = open_page(browser, server, viewport)
    page.set_input_files("#replay-file", str(saved["path"]))
    page.wait_for_selector("#replay-bar:not([hidden])")
    assert "what you saw" in page.inner_text("#rp-title")
    frames = page.evaluate("JSON.parse(JSON.stringify(window.sniff.replay.frames))")
    assert len(frames) > 10 and all(f["hands"][1] is None for f in frames), "the other hand stays hidden"
    shown = json.dumps([f for f in frames if f["hand_number"] == 2])
    leaked = {t for t in saved["hidden"] if re.search(rf"\[{t[0]}, ?{t[2]}\]|\[{t[2]}, ?{t[0]}\]", shown)}
    assert not leaked, f"tiles hidden from the seat in this hand are in its replay: {leaked}"
    # the last position: the seat's own tiles face up at the bottom, the other hand as tile backs
    page.click("#rp-last")
    last = frames[-1]
    assert sorted(f"{a}-{b}" for a, b in last["hands"][0]) == sorted(saved["hand"])
    assert [side["score"] for side in last["sides"]] == saved["scores"]
    if viewport is DESKTOP:
        assert page.locator("#seat-south .seat .tiles.open g.tile").count() == len(saved["hand"])
    assert page.locator("#seat-north .seat .tiles.open").count() == 0
    assert page.locator("#seat-north .seat .tiles .tile.back").count() == last["seats"][1]["tiles"]
    assert page.locator("#layout .tile").count() == (1 if last["layout"]["centre"] else 0) + sum(
        len(arm) for arm in last["layout"]["arms"].values())
    screenshot(page, f"seat-replay-{'desktop' if viewport is DESKTOP else 'phone'}", tmp_path)
    # back one move, and the hand over of the first hand: its scores and the seat's own tiles
    page.click("#rp-back")
    assert page.evaluate("window.sniff.replay.index") == len(frames) - 2
    over = next(i for i, f in enumerate(frames) if f["phase"] == "hand_over")
    page.evaluate(f"window.sniff.replay.index = {over}")
    page.click("#rp-forward")
    page.click("#rp-back")
    page.wait_for_selector("#result .hand-scores")
    assert "tiles not in this record" in page.inner_text("#result")
    assert page.locator("#result .hand-scores tbody tr").count() == 2
    wide = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], "the page scrolls sideways"
    page.close()


def spawn(tmp_path: Path, size: tuple[int, int], *args: str) -> Any:
    width, height = size
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS=str(width), LINES=str(height),
               SNIFF_HOME=str(tmp_path / "home"))
    return pexpect.spawn(sys.executable, ["-m", "sniff_env.cli", *args], cwd=str(ROOT), env=env,
                         encoding="utf-8", timeout=30, dimensions=(height, width))


def plain(text: str) -> list[str]:
    return [ANSI.sub("", line).rstrip() for line in text.replace("\r", "").split("\n")]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_sniff_replay_steps_through_what_the_seat_saw(tmp_path: Path, saved: dict[str, Any],
                                                      size: tuple[int, int]) -> None:
    width = size[0]
    child = spawn(tmp_path, size, "replay", str(saved["path"]))
    child.logfile_read = io.StringIO()
    child.expect("what you saw: your own tiles face up")
    child.expect(r"\[Enter: next move, n: next hand, e: the end, b: back, q: quit\]")
    child.sendline("")
    child.expect(r"hand 1, move 1 of (\d+)\r\n([^\r\n]*)\r\n")
    first = child.match.group(2)
    child.expect(r"You: [\d\-= ]+ · tiles held: random \d+ · boneyard \d+")
    child.expect(r"scores: You \d+ · random \d+ \(target 200\)")
    child.sendline("")
    child.expect("hand 1, move 2 of")
    child.sendline("b")
    child.expect(r"hand 1, move 1 of \d+\r\n([^\r\n]*)\r\n")
    assert child.match.group(1) == first, "back shows the move before again"
    child.expect(r"\[Enter: next move, n: next hand, e: the end, b: back, q: quit\]")
    if size == (80, 24) and os.environ.get("SNIFF_UPDATE_SCREENSHOT"):
        shown = plain(child.logfile_read.getvalue())[-24:]
        (RESULTS / "pty-80x24-seat-replay.txt").write_text("\n".join(shown) + "\n")
    child.sendline("q")
    child.expect(pexpect.EOF)
    # the whole record at once: every line fits, the last scores are the game's, nothing hidden shows
    child = spawn(tmp_path, size, "replay", str(saved["path"]), "--all")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    lines = plain(child.before)
    text = "\n".join(lines)
    assert max(len(line) for line in lines if "/" not in line) <= width
    assert "hand 1 is over" in text and "── hand 2 ──" in text
    assert re.search(r"random holds \d+ tiles \(\d+ pips\)", text), "the other hand is told by its size only"
    final = re.findall(r"the record ends mid-game; scores: (\d+) / (\d+)", text)
    assert [list(map(int, final[-1]))] == [saved["scores"]]
    mine = [line for line in lines if line.lstrip().startswith("You: ")][-1]
    assert sorted(re.findall(r"\d-\d", mine.split("·")[0])) == sorted(saved["hand"])
    second = text.split("── hand 2 ──")[1]
    for tile in saved["hidden"]:
        a, b = tile.split("-")
        assert not re.search(rf"(?<!\d)({a}[-=]{b}|{b}[-=]{a})(?!\d)", second), f"{tile} was hidden from the seat"
