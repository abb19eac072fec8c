"""The web table at desktop (1280×900) and phone (390×844) sizes in headless Chromium: nothing
scrolls sideways, panels do not cover each other, touch targets are at least 44 px, the count adds
up end by end, muggins shows what a click does with the points, results can be closed and name
the players, replays show each hand once with the players' names.

The phone screenshot goes to a temporary folder (the README's pictures are taken by
``tests/web_screenshots.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_server import (  # noqa: F401  (the games and browser fixtures)
    DESKTOP,
    PHONE,
    browser_fixture,
    click_move,
    games_folder,
    open_page,
    require_browser,
    run_server,
    state,
    wait_past,
)
from web_server import play_until as shared_play_until

TOUCH = 44

playwright_api = require_browser()


@pytest.fixture(scope="module")
def server(games: Path) -> Iterator[str]:
    yield from run_server(games, "--seed", "11", "--opponent", "random", "--rule", "muggins_claims=true",
                          "--rule", "target=40", "--hint-budget", "0.1")


def tile_key(option: dict[str, Any]) -> str:
    return f"{option['tile'][0]}-{option['tile'][1]}"


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found, f"{selector} is not shown"
    return dict(found)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def no_sideways_scroll(page: Any) -> None:
    wide = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], f"the page scrolls sideways: {wide[0]} px in a {wide[1]} px window"


def play(page: Any, option: dict[str, Any], claim: bool) -> None:
    """Play ``option`` by clicking, with the claim box set as asked (when the rules have it)."""
    click_move(page, option, claim)


def play_until(page: Any, wanted: Any, limit: int = 200) -> dict[str, Any]:
    """Click the first listed move (claimed) until ``wanted(state)`` holds."""
    return shared_play_until(page, wanted, limit, claim=True)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_table_fits_the_screen(browser: Any, server: str, viewport: dict[str, int], tmp_path: Path) -> None:
    page = open_page(browser, server, viewport)
    s = play_until(page, lambda s: s["phase"] == "play" and s["your_turn"] and len(s["layout"]["ends"]) >= 3
                   and any(o["tile"] for o in s["options"]))
    no_sideways_scroll(page)
    # the count badge, the end-by-end sum, the boneyard and the layout do not cover each other
    parts = ["#count-badge", "#count-sum", "#boneyard", "#layout"]
    for i, a in enumerate(parts):
        for b in parts[i + 1:]:
            assert not overlap(box(page, a), box(page, b)), f"{a} covers {b}"
    # the header keeps to two rows and every header button is on screen
    assert box(page, "header")["height"] < 110
    for button in page.locator("header button:visible, header .button:visible").all():
        b = button.bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= viewport["width"], button.inner_text()
    # the whole hand is on screen without scrolling, and every tile in it is a large enough target
    hand = box(page, "#hand")
    assert hand["y"] + hand["height"] <= viewport["height"], "the hand is below the fold"
    for tile in page.locator("#hand .hand-tile").all():
        b = tile.bounding_box()
        assert b["width"] >= TOUCH and b["height"] >= TOUCH
    # a picked tile's end targets are large enough to touch
    option = next(o for o in s["options"] if o["tile"])
    page.click(f"#hand [data-tile='{tile_key(option)}']")
    targets = page.locator("#layout .target rect").all()
    assert targets
    for t in targets:
        b = t.bounding_box()
        assert b["width"] >= TOUCH and b["height"] >= TOUCH, f"a target of {b['width']:.0f}×{b['height']:.0f} px"
    if viewport is PHONE:
        for button in page.locator("#controls button:visible, #moves .move").all():
            b = button.bounding_box()
            assert b["height"] >= TOUCH, f"{button.inner_text()!r} is {b['height']:.0f} px tall"
        shot = tmp_path / "phone.png"
        page.screenshot(path=str(shot))
        assert shot.read_bytes()[:4] == b"\x89PNG"
    page.close()


def test_the_count_adds_up_end_by_end(browser: Any, server: str) -> None:
    page = open_page(browser, server, DESKTOP)
    s = play_until(page, lambda s: s["phase"] == "play" and len(s["layout"]["ends"]) >= 3)
    shares = page.locator("#count-sum .share")
    values = [int(v) for v in shares.evaluate_all("(els) => els.map((e) => e.dataset.value)")]
    assert sum(values) == int(page.inner_text("#count")) == s["layout"]["count"]
    text = page.inner_text("#count-sum")
    for e in s["layout"]["ends"]:
        if e["counts"]:
            assert f"{e['end']} {e['value']}" in text
    page.close()


def test_muggins_shows_where_the_points_go(browser: Any, server: str) -> None:
    page = open_page(browser, server, DESKTOP)
    s = play_until(page, lambda s: s["your_turn"] and any(o["points"] and o["tile"] for o in s["options"]))
    option = next(o for o in s["options"] if o["points"] and o["tile"])
    if page.is_checked("#claim"):
        page.click("#claim")
    page.click(f"#hand [data-tile='{tile_key(option)}']")
    target = page.locator(f"#layout .target[data-action='{option['action']}']")
    assert f"gives {option['points']}" in (target.text_content() or "")
    assert "not ticked" in page.inner_text("#status") and "takes them" in page.inner_text("#status")
    page.click("#claim")
    target = page.locator(f"#layout .target[data-action='{option['action']}']")
    assert (target.locator("text").text_content() or "").strip() == f"+{option['points']}"
    mine = next(side for side in s["sides"] if side["yours"])["side"]
    before = s["sides"][mine]["score"]
    target.click()
    s = wait_past(page, s["version"])
    assert s["sides"][mine]["score"] >= before + option["points"], "a claimed move scores for its player"
    page.close()


def test_results_close_and_name_the_players(browser: Any, server: str) -> None:
    page = open_page(browser, server, PHONE)
    s = play_until(page, lambda s: s["phase"] in ("hand_over", "game_over"))
    page.wait_for_selector("#result h2")
    text = page.inner_text("#result")
    assert "You" in text and not re.search(r"\bseat \d", text), text
    page.click("#result-close")
    assert page.locator("#result").is_hidden()
    assert page.locator("#layout .tile").count() == len(s["layout"]["arms"]["west"]) + len(
        s["layout"]["arms"]["east"]) + len(s["layout"]["arms"]["north"]) + len(s["layout"]["arms"]["south"]) + 1
    page.click("#show-result")
    assert page.locator("#result").is_visible()
    no_sideways_scroll(page)
    page.close()


def test_a_stale_click_says_the_table_resynced(browser: Any, server: str) -> None:
    page = open_page(browser, server, DESKTOP)
    s = play_until(page, lambda s: s["your_turn"])
    page.evaluate("window.sniff.state.version -= 1")
    page.evaluate(f"window.sniff.play({s['options'][0]['action']})")
    page.wait_for_function("document.querySelector('#notice').textContent.includes('moved on')")
    assert "reload" not in page.inner_text("#notice")
    assert state(page)["version"] == s["version"]
    page.close()


def test_hints_are_labelled(browser: Any, server: str) -> None:
    page = open_page(browser, server, DESKTOP)
    play_until(page, lambda s: s["your_turn"])
    page.click("#hint")
    page.wait_for_selector("#moves .move i")
    assert all(t.startswith("hint ") for t in page.locator("#moves .move i").all_inner_texts())
    page.close()


def test_a_replay_shows_each_hand_once_with_names(browser: Any, server: str, games: Path) -> None:
    page = open_page(browser, server, DESKTOP)
    play_until(page, lambda s: s["phase"] in ("hand_over", "game_over"))
    log = max(games.glob("*.json"), key=lambda p: p.stat().st_mtime).read_text()
    page.evaluate("(text) => window.sniff.openReplayText(text, 'game.json')", log)
    page.wait_for_selector("#replay-bar:not([hidden])")
    page.click("#rp-last")
    players = page.evaluate("window.sniff.replay.frames[0].seats.length")
    assert page.locator("#opponents .opponent").count() == players
    events = " ".join(page.locator("#log li").all_inner_texts())
    assert "You play" in events or "You lead" in events
    assert not re.search(r"\bYou (plays|draws|leads|passes)\b", events)
    page.close()


def test_widened_drop_targets_are_placed_apart_over_their_ends(browser: Any, server: str) -> None:
    """The sniff's four ends lie close together: drop targets widened around them for touch
    would cover one another, so the table places them apart, each still over its own end and
    of its full size."""
    page = open_page(browser, server, PHONE)
    u = 40  # a tile's half length, in the layout's units
    bases = [  # the spots of a sniff's east, south, north and west ends (the double at the centre)
        {"x": u, "y": -u / 2, "w": 2 * u, "h": u}, {"x": -u / 2, "y": u, "w": u, "h": 2 * u},
        {"x": -u / 2, "y": -3 * u, "w": u, "h": 2 * u}, {"x": -3 * u, "y": -u / 2, "w": 2 * u, "h": u},
    ]
    size = 183.0
    placed = page.evaluate("(spots) => separate(spots).map((s) => s.r)",
                           [{"base": b, "w": size, "h": size} for b in bases])
    rects = [{"x": r["x"], "y": r["y"], "width": r["w"], "height": r["h"]} for r in placed]
    centred = [{"x": b["x"] + b["w"] / 2 - size / 2, "y": b["y"] + b["h"] / 2 - size / 2, "width": size,
                "height": size} for b in bases]
    assert overlap(centred[0], centred[1]), "centred, these targets would cover each other"
    for i, (r, b) in enumerate(zip(rects, bases)):
        assert r["width"] == r["height"] == size, "a target shrank"
        assert r["x"] <= b["x"] and b["x"] + b["w"] <= r["x"] + r["width"], f"target {i} is off its end"
        assert r["y"] <= b["y"] and b["y"] + b["h"] <= r["y"] + r["height"], f"target {i} is off its end"
        assert not any(overlap(r, other) for other in rects[i + 1:]), f"target {i} covers another"
    # targets that do not meet stay centred over their ends
    far = page.evaluate("(spots) => separate(spots).map((s) => s.r)",
                        [{"base": bases[0], "w": 60, "h": 60}, {"base": bases[3], "w": 60, "h": 60}])
    assert far[0]["x"] == bases[0]["x"] + bases[0]["w"] / 2 - 30 and far[1]["y"] == bases[3]["y"] + bases[3]["h"] / 2 - 30
    page.close()


def test_a_slow_start_shows_a_busy_state_with_what_compiles(browser: Any, server: str, tmp_path: Path) -> None:
    """A new game that waits on the server (a first use of the search compiling) disables "Start the
    game", marks the page busy and says what compiles, from ``/api/status``; all of it clears once
    the game is in."""
    page = open_page(browser, server, DESKTOP)
    status = '{"compiling": true, "progress": "compiling the search (once): 12 s of about 60 s so far"}'
    page.route("**/api/status", lambda route: route.fulfill(status=200, content_type="application/json", body=status))

    held: list[Any] = []
    page.route("**/api/games", lambda route: held.append(route))  # the new game waits until the test lets it through
    page.click("#new-game")
    page.click("#setup-start")
    page.wait_for_function("document.body.getAttribute('aria-busy') === 'true'")
    assert page.is_disabled("#setup-start") and page.inner_text("#setup-start") == "Starting…"
    page.wait_for_function("document.querySelector('#setup-busy').textContent.includes('getting ready')")
    assert "12 s of about 60 s" in page.inner_text("#setup-busy")
    page.screenshot(path=str(tmp_path / "busy.png"))
    held[0].continue_()
    page.wait_for_function("document.body.getAttribute('aria-busy') === 'false'")
    assert not page.is_disabled("#setup-start") and page.is_hidden("#setup-busy")
    page.close()
