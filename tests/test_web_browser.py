"""The web table end to end: the real server, headless Chromium, a hand played by clicking.

Needs Debian's ``chromium`` at /usr/bin/chromium and the ``playwright`` Python package (its own
browser downloads are not used). Takes a screenshot of a fixed-seed game, in a temporary folder
(the README's pictures are taken by ``tests/web_screenshots.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_server import (  # noqa: F401  (the games fixture)
    ARGS,
    CHROMIUM,
    click_move,
    deal,
    games_folder,
    require_browser,
    run_server,
    state,
    wait_past,
)

playwright_api = require_browser()


@pytest.fixture(scope="module")
def server(games: Path) -> Iterator[str]:
    yield from run_server(games, "--seed", "3", "--opponent", "random", "--rule", "target=30",
                          "--hint-budget", "0.1")


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        pg = browser.new_page(viewport={"width": 1280, "height": 860})
        pg.set_default_timeout(10_000)
        pg.goto(server)
        deal(pg)
        pg.wait_for_function("window.sniff && window.sniff.state")
        yield pg
        browser.close()


def worth_a_picture(s: dict[str, Any]) -> bool:
    """A position that shows the sniff with arms on all sides and a scoring move to pick."""
    arms = s["layout"]["arms"]
    best = max(s["options"], key=lambda o: o["points"])
    return (len(arms["north"]) + len(arms["south"]) >= 1 and len(arms["west"]) + len(arms["east"]) >= 3
            and bool(best["tile"]) and best["points"] > 0)


def test_a_hand_in_the_browser(page: Any, tmp_path: Path) -> None:
    screenshot = tmp_path / "web-table.png"
    s = state(page)
    assert s["phase"] == "play" and s["your_turn"]
    assert page.locator("#hand .hand-tile").count() == len(s["hand"])
    assert "game=" in page.url

    # a tile with no legal placement is refused by the page, visibly; the API refuses a bad move
    playable = {f"{o['tile'][0]}-{o['tile'][1]}" for o in s["options"] if o["tile"]}
    first = s["options"][0]
    click_move(page, first)
    s = wait_past(page, s["version"])
    stuck = [t for t in s["hand"] if f"{t[0]}-{t[1]}" not in {f"{o['tile'][0]}-{o['tile'][1]}"
                                                               for o in s["options"] if o["tile"]}]
    if stuck:
        page.click(f"#hand [data-tile='{stuck[0][0]}-{stuck[0][1]}']")
        assert "cannot be played now" in page.inner_text("#notice")
    version = s["version"]
    page.evaluate("window.sniff.play(9999)")
    page.wait_for_selector("#notice.error")
    assert "not legal" in page.inner_text("#notice")
    assert state(page)["version"] == version
    del playable

    # the hint shows the search player's value next to the moves
    if s["your_turn"]:
        page.click("#hint")
        page.wait_for_selector("#moves .move i")

    # a reload keeps the game
    before = state(page)
    page.reload()
    page.wait_for_function("window.sniff && window.sniff.state")
    after = state(page)
    assert (after["id"], after["version"], after["hand"]) == (before["id"], before["version"], before["hand"])

    # play the hand out by clicking; the screenshot is taken a few moves in
    shot = False
    while s["phase"] == "play":
        if not shot and worth_a_picture(s):
            option = max(s["options"], key=lambda o: o["points"])
            if option["tile"]:
                page.click(f"#hand [data-tile='{option['tile'][0]}-{option['tile'][1]}']")
                page.screenshot(path=str(screenshot), full_page=True)
                shot = True
                page.click(f"#layout .target[data-action='{option['action']}']")
                s = wait_past(page, s["version"])
                continue
        click_move(page, max(s["options"], key=lambda o: o["points"]))
        s = wait_past(page, s["version"])
    page.wait_for_selector("#result h2")
    assert "is over" in page.inner_text("#result h2") or "Game over" in page.inner_text("#result h2")
    assert len(s["result"]["hands"]) == 2 and s["result"]["lines"]
    if s["phase"] == "hand_over":
        page.click("#result-next")
        s = wait_past(page, s["version"])
        assert s["hand_number"] == 2
    if not shot:
        page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_replay_a_saved_log(page: Any, server: str, games: Path) -> None:
    s = state(page)
    while s["phase"] == "play":  # a hand played out first, where no test before did it on this page
        click_move(page, max(s["options"], key=lambda o: o["points"]))
        s = wait_past(page, s["version"])
    so_far = page.evaluate(f"fetch('{server}api/games/' + window.sniff.state.id + '/log').then(r => r.text())")
    over = page.evaluate("window.sniff.state.phase") == "game_over"
    expected = "sniff-game-log" if over else "sniff-seat-log"
    assert json.loads(so_far)["format"] == expected, "while the game runs, the page gets no deal"
    # the server's full log of the game played above: the one with the most decisions (a game
    # started since, e.g. after the first ended, is logged beside it)
    logs = [p.read_text() for p in games.glob("*.json")]
    log = max(logs, key=lambda text: sum(len(h["decisions"]) for h in json.loads(text)["hands"]))
    assert json.loads(log)["format"] == "sniff-game-log"
    page.evaluate("(text) => window.sniff.openReplayText(text, 'game.json')", log)
    page.wait_for_selector("#replay-bar:not([hidden])")
    total = page.evaluate("window.sniff.replay.frames.length")
    assert total > 3
    page.click("#rp-last")
    assert page.evaluate("window.sniff.replay.index") == total - 1
    page.click("#rp-back")
    assert page.evaluate("window.sniff.replay.index") == total - 2
    assert page.locator("#layout .tile").count() >= 1
    page.click("#rp-close")
    assert page.locator("#replay-bar").is_hidden()


def test_opening_the_page_deals_nothing_until_deal(page: Any, server: str, games: Path) -> None:
    """A visit that only looks (the page, its help, the rules of the game it offers) deals no game
    and writes no log; Deal deals the game offered, and the form's game is offered next time."""
    page = page.context.browser.new_page(viewport={"width": 1280, "height": 860})  # a visitor of its own
    page.set_default_timeout(10_000)
    before = set(games.glob("*.json"))
    page.goto(server)
    page.wait_for_selector("#welcome:not([hidden]) #deal")
    assert "sniff, 2 players, to 30, against random" in page.inner_text("#welcome-game")
    page.click("#help-open")
    page.wait_for_selector("#help[open] h3")
    assert "The end of a hand" in page.inner_text("#help")
    page.click("#help-close")
    page.reload()
    page.wait_for_selector("#welcome:not([hidden]) #deal")
    assert page.evaluate("window.sniff.state") is None and "game=" not in page.url
    assert page.locator("#me").is_hidden()
    assert set(games.glob("*.json")) == before, "looking wrote no log"
    deal(page)
    page.wait_for_function("window.sniff.state && window.sniff.state.your_turn")
    s = state(page)
    assert page.locator("#welcome").is_hidden() and "game=" in page.url and s["rules"]["target"] == 30
    assert set(games.glob("*.json")) == before, "a game nobody has played yet has no log"
    click_move(page, s["options"][0])
    wait_past(page, s["version"])
    assert len(set(games.glob("*.json")) - before) == 1, "the first move writes the log"
    # a game chosen in the form is the one offered on the next visit
    page.click("#new-game")
    page.wait_for_selector("#setup[open]")
    page.select_option("#setup-preset", "muggins")
    page.select_option("#setup-opponent", "easy")
    page.click("#setup-start")
    page.wait_for_function(f"window.sniff.state.id !== {s['id']!r}")
    page.goto(server)
    page.wait_for_selector("#welcome:not([hidden]) #deal")
    assert "muggins, 2 players, to 30, against Easy" in page.inner_text("#welcome-game")
    page.close()
