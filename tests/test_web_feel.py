"""The web table for those who come back every evening, in headless Chromium against the real
server: points pop up where they score (with an optional sound), the pace of the others' moves
is a setting, both remembered; a game played by keyboard alone, with names a screen reader reads
(an accessibility snapshot) and moves announced in a live region; the recent finished games, one
click from a replay that jumps hand by hand, listed and replayed without dealing or writing."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_server import (  # noqa: F401  (the games and browser fixtures)
    DESKTOP,
    browser_fixture,
    click_move,
    games_folder,
    open_page,
    play_until,
    require_browser,
    run_server,
    state,
    wait_past,
)

from sniff_env.game import Phase, new_game
from sniff_env.gamelog import save_game_log
from sniff_env.presets import make_rules

require_browser()

FINISHED = "web-20240101-200000-seed4-0a1b2c3d.json"


def finished_game(folder: Path, name: str, seed: int) -> Path:
    """A finished game of random moves (two players, to 30) logged in ``folder`` as ``name``."""
    game = new_game(make_rules("sniff", 2, target=30), seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
        else:
            game.step(rng.choice(game.legal_actions()))
    assert len(game.results) >= 2, "a game of two hands or more, to jump from one to the next"
    return save_game_log(game, folder / name, ["human", "random"], {"human_seat": 0, "names": ["You", "random"]})


@pytest.fixture(scope="module")
def server(games: Path) -> Iterator[str]:
    finished_game(games, FINISHED, 4)
    yield from run_server(games, "--seed", "8", "--opponent", "random", "--rule", "target=60", "--hint-budget", "0.1")


def test_points_pop_up_where_they_score_at_the_pace_chosen(browser: Any, server: str) -> None:
    page = open_page(browser, server, DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    assert page.evaluate("[localStorage.getItem('sniff-sound'), window.sniff.sounds]") == [None, 0], "silent by default"
    page.keyboard.press("?")
    page.wait_for_selector("#help[open] #keys")
    assert "h" in page.inner_text("#keys") and "replay a recent game" in page.inner_text("#keys")
    page.check("#sound")
    page.select_option("#pace", "fast")
    page.click("#help-close")
    page.reload()
    page.wait_for_function("window.sniff && window.sniff.state")
    assert page.is_checked("#sound") and page.input_value("#pace") == "fast", "the settings are remembered"
    # a move of ours that scores: "+N" on its tile and on our chip, and a sound
    s = play_until(page, lambda s: s["your_turn"] and any(o["points"] and o["tile"] for o in s["options"]))
    option = max((o for o in s["options"] if o["tile"]), key=lambda o: o["points"])
    click_move(page, option)
    pop = page.locator(".score-pop.on-chip", has_text=f"+{option['points']}").first
    pop.wait_for(state="attached")
    assert page.locator(".score-pop.on-layout", has_text=f"+{option['points']}").count() >= 1
    s = wait_past(page, s["version"])
    chip = page.locator("#seat-south .seat").bounding_box()
    spot = pop.bounding_box()
    assert chip and spot and abs((spot["x"] + spot["width"] / 2) - (chip["x"] + chip["width"] / 2)) < chip["width"]
    felt = page.evaluate("window.sniff.felt")
    assert {"points": option["points"], "seat": s["seat"], "at": "play"} in felt
    assert page.evaluate("window.sniff.sounds") >= 1
    # the others' tiles come down 220 ms apart at the fast pace, all at once with the pace off
    delays = page.eval_on_selector_all("#layout .tile.arrive", "(ts) => ts.map((t) => parseInt(t.style.animationDelay))")
    assert delays and all(d % 220 == 0 for d in delays)
    page.keyboard.press("?")
    page.select_option("#pace", "off")
    page.uncheck("#sound")
    page.click("#help-close")
    s = play_until(page, lambda x: x["version"] > s["version"] and x["phase"] == "play" and x["your_turn"]
                   and any(e["recent"] and e["kind"] == "play" for e in x["events"]))
    assert page.locator("#layout .fresh").count() >= 1 and page.locator("#layout .arrive").count() == 0
    assert page.evaluate("[localStorage.getItem('sniff-sound'), localStorage.getItem('sniff-pace')]") == ["off", "off"]
    # the end of a hand pops up what it paid
    s = play_until(page, lambda x: x["phase"] != "play")
    ends = [x["end"] for x in s["result"]["scores"] if x["end"]]
    if ends:
        page.locator(".score-pop.hand-end").first.wait_for(state="attached")
    hand = [f["points"] for f in page.evaluate("window.sniff.felt") if f["at"] == "hand"]
    assert not ends or sorted(hand[-len(ends):]) == sorted(ends)
    assert not errors, errors
    page.close()


def test_a_game_by_keyboard_alone_with_names_a_screen_reader_reads(browser: Any, server: str) -> None:
    page = open_page(browser, server, DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    moves = 0
    s = state(page)
    while moves < 4:
        if s["phase"] != "play":
            page.keyboard.press("n")
            s = wait_past(page, s["version"])
            continue
        assert s["your_turn"]
        option = next((o for o in s["options"] if o["tile"]), None)
        if option is None:
            page.keyboard.press("d")
            s = wait_past(page, s["version"])
            continue
        tile = f"{option['tile'][0]}-{option['tile'][1]}"
        index = [f"{t[0]}-{t[1]}" for t in s["hand"]].index(tile)
        if index < 9:
            page.keyboard.press(str(index + 1))
        else:
            page.focus("#hand .hand-tile")
            for _ in range(index):
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        # the focus is on the board, at the first end the tile may go; the arrows go round the ends
        assert page.evaluate("document.activeElement.classList.contains('target')")
        if moves == 0:
            snap = page.locator("#layout").aria_snapshot()
            assert 'button "' in snap and ("lead:" in snap or " end, open " in snap), snap
            hand = page.locator("#hand").aria_snapshot()
            words = page.evaluate("(t) => window.sniff.tileWords(t)", option["tile"])
            assert f'button "{words}"' in hand and "pressed" in hand, hand
        for _ in range(len(s["options"])):
            if page.evaluate("document.activeElement.dataset.action") == str(option["action"]):
                break
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter" if moves % 2 == 0 else " ")
        s = wait_past(page, s["version"])
        moves += 1
        assert page.evaluate("document.activeElement.closest('#hand, #result') !== null"), "the focus comes back to the hand"
    # what a screen reader is told: the seats as text, the ends by name, no decorative glyph
    seats = page.locator("#opponents").aria_snapshot()
    for seat in s["seats"]:
        score = s["sides"][seat["side"]]["score"]
        assert f"{seat['name']}, {score} point{'s' if score != 1 else ''}, {seat['tiles']} tile" in seats, seats
    assert not any(glyph in seats for glyph in "▼◀▲▶★"), seats
    layout = page.locator("#layout").aria_snapshot()
    assert "★" not in layout and "the layout:" in (page.get_attribute("#layout", "aria-label") or "")
    for end in s["layout"]["ends"]:
        if end["open"]:
            assert f'img "{end["end"]} end, open {end["pip"]}"' in layout, layout
    live = page.locator("#announce")
    assert live.get_attribute("aria-live") == "polite"
    page.wait_for_function("document.getElementById('announce').textContent.length > 0")
    said = live.text_content() or ""
    assert "random" in said or "Your turn" in said or "over" in said, said
    # hint (h), undo (u), and the replays (r), by keyboard
    if s["phase"] == "play" and s["your_turn"]:
        page.keyboard.press("h")
        page.wait_for_selector("#moves .move i")
    if s["can_undo"]:
        page.keyboard.press("u")
        s = wait_past(page, s["version"])
    page.keyboard.press("r")
    page.wait_for_selector("#replays[open] .replay-one")
    assert page.evaluate("document.activeElement.classList.contains('replay-one')")
    page.keyboard.press("Escape")
    assert not errors, errors
    page.close()


def test_recent_games_one_click_from_a_replay_that_jumps_hand_by_hand(browser: Any, server: str, games: Path) -> None:
    before = {p.name: p.stat().st_mtime for p in games.glob("*.json")}
    page = browser.new_page(viewport=DESKTOP)
    page.set_default_timeout(15_000)
    page.goto(server)
    row = page.locator(f"#welcome-recent li[data-name='{FINISHED}']")
    row.wait_for()
    assert "sniff to 30" in row.inner_text() and "You, random" in row.inner_text()
    row.locator("button", has_text="Replay").click()
    page.wait_for_selector("#replay-bar:not([hidden])")
    frames = page.evaluate("window.sniff.replay.frames.map((f) => f.hand_number)")
    assert page.evaluate("window.sniff.replay.index") == 0
    page.click("#rp-next-hand")
    assert page.evaluate("window.sniff.replay.index") == frames.index(2), "the next hand's deal"
    page.click("#rp-last")
    assert page.evaluate("window.sniff.replay.index") == len(frames) - 1
    page.keyboard.press("b")
    assert page.evaluate("window.sniff.replay.index") == len(frames) - 2
    page.keyboard.press("e")
    assert page.evaluate("window.sniff.replay.index") == len(frames) - 1
    page.keyboard.press("Escape")
    page.wait_for_selector("#welcome:not([hidden])")
    # the list in the Replay… dialog too, newest first; a look deals nothing and writes nothing
    page.click("#replay-open")
    page.wait_for_selector("#replays[open] .replay-one")
    names = page.eval_on_selector_all("#replays-list li", "(ls) => ls.map((l) => l.dataset.name)")
    assert names[-1] == FINISHED
    page.click("#replays-close")
    assert page.evaluate("window.sniff.state") is None and "game=" not in page.url
    assert {p.name: p.stat().st_mtime for p in games.glob("*.json")} == before
    page.close()
