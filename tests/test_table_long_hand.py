"""A long 4-player Muggins hand (with claims) in headless Chromium at desktop (1280×900) and phone
(390×844) sizes, as a player meets it: the line turns before it runs off the table and its tiles
stay large (never under 60% of a tile in the hand), the open ends' numbers stay readable, the
controls, the moves, the scores, the hand and the latest moves stay on screen (a hint does not
push the moves away), the hand's end shows the new scores and the score sheet adds up; the
new-game form plays the game chosen in it, and the help explains its rules.

With ``SNIFF_UPDATE_SCREENSHOT=1`` the screenshots of the long hand replace
``checkpoints/results/web-after-*.png``; otherwise they go to a temporary folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_server import (  # noqa: F401  (the games and browser fixtures)
    DESKTOP,
    PHONE,
    RESULTS,
    browser_fixture,
    games_folder,
    open_page,
    require_browser,
    run_server,
    state,
)
from web_server import play_until as shared_play_until

LONG = 20
"""Tiles on the table that make a long hand (seed 21: the human's last turn of hand 1 has 20)."""

playwright_api = require_browser()


@pytest.fixture(scope="module")
def server(games: Path) -> Iterator[str]:
    yield from run_server(games, "--seed", "21", "--preset", "muggins", "--players", "4", "--opponent", "random",
                          "--rule", "muggins_claims=true", "--hint-budget", "0.05")


def tiles_down(s: dict[str, Any]) -> int:
    return (1 if s["layout"]["centre"] else 0) + sum(len(a) for a in s["layout"]["arms"].values())


def play_until(page: Any, wanted: Any) -> dict[str, Any]:
    """Play the first listed move (claimed) by clicking until ``wanted(state)`` holds."""
    return shared_play_until(page, wanted, 100, claim=True)


MEASURE = """() => {
  const svg = document.querySelector('#layout'), box = svg.getBoundingClientRect();
  const faces = [...svg.querySelectorAll('.tile .face')].map((f) => f.getBoundingClientRect());
  const face = document.querySelector('#hand .hand-tile .face');
  const hand = face && face.getBoundingClientRect().width ? face.getBoundingClientRect() : {width: 34, height: 68};
  const scale = svg.getScreenCTM().a;
  const ends = [...svg.querySelectorAll('.open-end .pip-value')].map((t) => ({
    px: parseFloat(getComputedStyle(t).fontSize) * scale, height: t.getBoundingClientRect().height}));
  const rows = new Set(faces.filter((f) => f.width > f.height).map((f) => Math.round(f.top + f.height / 2)));
  let overlaps = 0;
  faces.forEach((a, i) => faces.slice(i + 1).forEach((b) => {
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) overlaps++;
  }));
  return {
    outside: faces.filter((f) => f.left < box.left - 1 || f.right > box.right + 1 || f.top < box.top - 1
                                 || f.bottom > box.bottom + 1).length,
    overlaps, rows: rows.size, tiles: faces.length,
    smallest: Math.min(...faces.map((f) => Math.min(f.width, f.height))),
    hand: Math.min(hand.width, hand.height), ends,
  };
}"""


def check_board(page: Any, s: dict[str, Any], viewport: dict[str, int], ends: int = 2) -> None:
    m = page.evaluate(MEASURE)
    assert m["tiles"] == tiles_down(s)
    assert m["outside"] == 0, f"{m['outside']} tiles run off the table"
    assert m["overlaps"] == 0, "tiles on the table cover each other"
    assert m["rows"] >= 3, "a line this long turns"
    assert m["smallest"] >= 0.6 * m["hand"], f"tiles of {m['smallest']:.1f} px beside {m['hand']:.1f} px in the hand"
    assert len(m["ends"]) == ends and all(e["px"] >= 14 and e["height"] >= 14 for e in m["ends"]), m["ends"]
    wide = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], "the page scrolls sideways"


def on_screen(page: Any, selector: str, viewport: dict[str, int]) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found, f"{selector} is not shown"
    assert found["y"] >= 0 and found["y"] + found["height"] <= viewport["height"] + 0.5, \
        f"{selector} is at y={found['y']:.0f}..{found['y'] + found['height']:.0f}, off a {viewport['height']} px screen"
    return dict(found)


def shot(page: Any, name: str, tmp_path: Path) -> None:
    path = RESULTS / f"web-after-{name}.png" if os.environ.get("SNIFF_UPDATE_SCREENSHOT") else tmp_path / f"{name}.png"
    page.wait_for_function("document.getAnimations().every((a) => a.playState === 'finished')")  # the tiles are down
    page.screenshot(path=str(path))


def test_a_long_hand_on_desktop_and_phone(browser: Any, server: str, tmp_path: Path) -> None:
    desk = open_page(browser, server, DESKTOP)
    start = state(desk)
    phone = open_page(browser, f"{server}?game={start['id']}", PHONE)
    shot(desk, "desktop-start", tmp_path)
    shot(phone, "phone-start", tmp_path)
    phone.close()
    s = play_until(desk, lambda s: s["your_turn"] and tiles_down(s) >= LONG)
    # the desktop: the whole line, large, and the controls and the moves below the fold no more
    check_board(desk, s, DESKTOP)
    for selector in ("#hand", "#claim-box", "#hint", "#undo", "#moves-panel"):
        on_screen(desk, selector, DESKTOP)
    moves = on_screen(desk, "#moves", DESKTOP)
    for move in desk.locator("#moves .move").all():
        b = move.bounding_box()
        assert b["y"] + b["height"] <= moves["y"] + moves["height"] + 0.5, "a move is cut off"
    desk.click("#hint")
    desk.wait_for_selector("#moves .move i")
    after = on_screen(desk, "#moves", DESKTOP)
    assert abs(after["y"] - moves["y"]) < 2, "the hint pushed the moves away"
    option = next(o for o in s["options"] if o["tile"])
    desk.click(f"#hand [data-tile='{option['tile'][0]}-{option['tile'][1]}']")
    for target in desk.locator("#layout .target rect").all():
        b = target.bounding_box()
        assert b["width"] >= 44 and b["height"] >= 44
    shot(desk, "desktop-long", tmp_path)
    # the phone, on the same position: the line, the scores, the latest moves and the hand at once
    phone = open_page(browser, f"{server}?game={s['id']}", PHONE)
    check_board(phone, s, PHONE)
    for selector in ("#opponents", "#layout", "#recent li", "#hand", "#claim-box"):
        on_screen(phone, selector, PHONE)
    assert phone.locator("#opponents .seat .score").count() == 4, "every player's score is shown"
    phone.click(f"#hand [data-tile='{option['tile'][0]}-{option['tile'][1]}']")
    shot(phone, "phone-long", tmp_path)
    # the end of the hand: its points and the new scores, side by side with the score sheet
    s = play_until(desk, lambda s: s["phase"] != "play")
    desk.wait_for_selector("#result .hand-scores")
    rows = desk.locator("#result .hand-scores tbody tr").all_inner_texts()
    assert len(rows) == 4
    for row, side in zip(rows, s["sides"]):
        cells = row.split("\t")
        before, play, end, now = (int(c.replace("+", "")) for c in cells[1:])
        assert before + play + end == now == side["score"], row
    assert "round5 rounds to the nearest multiple of 5" in desk.inner_text("#result")
    sheet = desk.locator("#sheet tbody tr").all_inner_texts()
    assert len(sheet) == s["hand_number"]
    totals = [int(cell.split()[0]) for cell in sheet[-1].split("\t")[1:]]
    assert totals == [side["score"] for side in s["sides"]]
    shot(desk, "desktop-hand-over", tmp_path)
    phone.reload()
    phone.wait_for_selector("#result .hand-scores")
    on_screen(phone, "#result .hand-scores", PHONE)
    shot(phone, "phone-hand-over", tmp_path)
    phone.close()
    desk.close()


def test_the_new_game_form_and_the_rules(browser: Any, server: str) -> None:
    page = open_page(browser, server, PHONE)
    page.click("#new-game")
    page.wait_for_selector("#setup[open]")
    page.select_option("#setup-preset", "sniff")
    page.check("#setup-players input[value='4']")
    page.check("#setup-partnership")
    page.select_option("#setup-opponent", "easy")
    page.select_option("#setup-target", "50")
    shown = [c for c in page.locator("#setup select, #setup button").all() if c.is_visible()]  # the seats' choices wait for "with friends"
    assert len(shown) >= 4
    for control in shown:
        assert control.bounding_box()["height"] >= 44, "a control of the form is too small to touch"
    before = state(page)["id"]
    page.click("#setup-start")
    page.wait_for_function(f"window.sniff.state.id !== {before!r}")
    s = state(page)
    assert page.locator("#setup").is_hidden()
    assert (s["rules"]["name"], s["rules"]["players"], s["rules"]["partnership"], s["rules"]["target"]) == \
        ("sniff", 4, True, 50)
    assert [seat["name"] for seat in s["seats"][1:]] == ["Easy#1", "Easy#2 (partner)", "Easy#3"]
    assert s["setup"]["opponent"] == "easy"
    page.click("#help-open")
    page.wait_for_selector("#help[open] h3")
    text = page.inner_text("#help")
    assert "The end of a hand" in text and "divided by 5" in text and "one point for every 5 pips" in text
    assert "partnerships" in text and "50 points" in text
    page.click("#help-close")
    assert page.evaluate("fetch('/favicon.ico').then((r) => r.status)") == 200
    page.close()


def long_double_nine_log() -> str:
    """A one-hand game of double-nine Sniff whose layout holds 40 tiles or more, every arm long."""
    from conftest import first_random_hand

    from sniff_env.gamelog import game_log
    from sniff_env.presets import make_rules

    game = first_random_hand(make_rules("sniff", 2, max_pip=9), range(50),
                             lambda g: len(g.plays) >= 40 and g.sniff_tile >= 0)
    return json.dumps(game_log(game, ["human", "random"], {"human_seat": 0}))


def test_every_arm_turns_in_a_long_double_nine_replay(browser: Any, server: str) -> None:
    """The sniff's four arms, 40 tiles and more, on a phone: they turn clear of one another."""
    page = open_page(browser, server, PHONE)
    page.evaluate("(text) => window.sniff.openReplayText(text, 'long.json')", long_double_nine_log())
    page.wait_for_selector("#replay-bar:not([hidden])")
    page.click("#rp-last")
    page.click("#rp-back")
    frame = page.evaluate("JSON.parse(JSON.stringify(window.sniff.replay.frames[window.sniff.replay.index]))")
    assert frame["phase"] == "play" and tiles_down(frame) >= 39
    check_board(page, frame, PHONE, ends=sum(e["open"] for e in frame["layout"]["ends"]))
    page.close()
