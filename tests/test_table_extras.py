"""What good domino apps have, on the web table, in headless Chromium at desktop (1280×900) and
phone (390×844) sizes: the seats drawn around the table in the order they play with a partner
opposite; the tiles played since the player's last move coming down one after another, each
marked with the player who laid it; the hint shown on the table and in the hand; how to play each
preset in plain words in the new-game form; a cribbage board for ``sniff-cribbage``; the
player's record across games, kept in the player's data folder, refused clearly when damaged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_server import (  # noqa: F401  (the browser fixture)
    DESKTOP,
    PHONE,
    browser_fixture,
    click_move,
    open_page,
    play_until,
    require_browser,
    run_server,
    screenshot,
    state,
    wait_past,
)

from sniff_env.presets import PRESET_NAMES

playwright_api = require_browser()
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


@pytest.fixture(scope="module")
def muggins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A 4-player Muggins table with claims against random players."""
    yield from run_server(tmp_path_factory.mktemp("muggins"), "--seed", "21", "--preset", "muggins", "--players", "4",
                          "--opponent", "random", "--rule", "muggins_claims=true", "--hint-budget", "0.05")


def centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def seat_boxes(page: Any) -> dict[int, dict[str, Any]]:
    """Each seat's chip: where it is drawn, its place around the table, its name."""
    out = {}
    for chip in page.locator("#opponents .seat").all():
        out[int(chip.get_attribute("data-seat"))] = {"box": chip.bounding_box(), "pos": chip.get_attribute("data-pos"),
                                                     "text": chip.inner_text()}
    return out


@VIEWPORTS
def test_the_seats_sit_around_the_table_in_turn_order(browser: Any, muggins: str, viewport: dict[str, int]) -> None:
    page = open_page(browser, muggins, viewport)
    s = state(page)
    me = s["seat"]
    chips = seat_boxes(page)
    table = page.locator("#layout").bounding_box()
    assert [chips[(me + k) % 4]["pos"] for k in range(4)] == ["south", "west", "north", "east"]
    (_, sy), (wx, _), (nx, ny), (ex, _) = (centre(chips[(me + k) % 4]["box"]) for k in range(4))
    assert sy > table["y"] + table["height"] - 1, "the player sits below the table"
    assert ny < table["y"] + 1, "the player opposite sits above it"
    assert wx < nx < ex, "the next player sits on the left, the one after on the right"
    if viewport is DESKTOP:
        assert wx < table["x"] and ex > table["x"] + table["width"], "the side players sit beside the table"
    for seat, chip in chips.items():
        b = chip["box"]
        assert b["x"] >= 0 and b["x"] + b["width"] <= viewport["width"], f"seat {seat} is off the screen"
        assert s["seats"][seat]["name"] in chip["text"]
    # partnerships chosen in the form: the partner sits opposite, and 3 players sit left and right
    page.click("#new-game")
    page.select_option("#setup-preset", "sniff")
    page.check("#setup-players input[value='4']")
    page.check("#setup-partnership")
    page.select_option("#setup-opponent", "beginner")
    before = s["id"]
    page.click("#setup-start")
    page.wait_for_function(f"window.sniff.state.id !== {before!r}")
    partner = page.locator("#seat-north .seat")
    assert "(partner)" in partner.inner_text() and int(partner.get_attribute("data-seat")) == (state(page)["seat"] + 2) % 4
    page.evaluate("window.sniff.newGame({preset: 'muggins', players: 3, opponent: 'beginner'})")
    page.wait_for_function("window.sniff.state.seats.length === 3")
    assert [c["pos"] for _, c in sorted(seat_boxes(page).items())] == ["south", "west", "east"]
    page.close()


def test_moves_come_down_one_by_one_marked_with_their_player(browser: Any, muggins: str) -> None:
    page = open_page(browser, muggins, DESKTOP)
    s = play_until(page, lambda s: s["your_turn"] and len(s["layout"]["arms"]["west"]) + len(s["layout"]["arms"]["east"]) >= 2)
    click_move(page, s["options"][0])
    s = wait_past(page, s["version"])
    plays = [e for e in s["events"] if e["kind"] == "play"]
    fresh = [(i, e) for i, e in enumerate(plays) if e["recent"]]
    assert len(fresh) >= 2, "the player's move and a reply came down"
    tiles = page.evaluate("""() => [...document.querySelectorAll('#layout .tile.fresh')].map((t) => ({
        order: +t.dataset.order, seat: +t.dataset.seat, delay: parseFloat(t.style.animationDelay),
        arrive: t.classList.contains('arrive')}))""")
    assert sorted(t["order"] for t in tiles) == [i for i, _ in fresh]
    assert all(t["arrive"] for t in tiles), "the new tiles come down"
    by_order = sorted(tiles, key=lambda t: t["order"])
    delays = [t["delay"] for t in by_order]
    assert delays == sorted(delays) and delays[-1] - delays[0] >= 400 * (len(delays) - 1), "one after another"
    names = {x["seat"]: x["name"] for x in s["seats"]}
    marks = page.evaluate("""() => [...document.querySelectorAll('#layout .by-mark')].map((m) => ({
        seat: +m.dataset.seat, tile: m.dataset.tile, title: m.querySelector('title').textContent,
        pos: m.dataset.pos}))""")
    assert sorted((m["seat"], m["tile"]) for m in marks) == sorted(
        (e["seat"], f"{e['tile'][0]}-{e['tile'][1]}") for _, e in fresh)
    for m in marks:
        assert m["title"].endswith(f"played by {names[m['seat']]}")
        assert page.locator(f"#opponents .seat[data-seat='{m['seat']}']").get_attribute("data-pos") == m["pos"]
    # each player's chip shows the tile it played last
    for seat in {e["seat"] for _, e in fresh}:
        last = [e for e in plays if e["seat"] == seat][-1]["tile"]
        assert page.locator(f"#opponents .seat[data-seat='{seat}'] .last-tile").get_attribute(
            "data-tile") == f"{last[0]}-{last[1]}"
    # they are all down a moment later, and a redraw (a tile picked) does not bring them down again
    page.wait_for_function("Date.now() > window.sniff.pacedUntil")
    page.wait_for_function("document.getAnimations().every((a) => a.playState === 'finished')")
    assert page.evaluate("getComputedStyle(document.querySelector('#layout .tile.fresh')).opacity") == "1"
    option = next(o for o in s["options"] if o["tile"])
    page.click(f"#hand [data-tile='{option['tile'][0]}-{option['tile'][1]}']")
    assert page.locator("#layout .tile.arrive").count() == 0
    page.close()


@VIEWPORTS
def test_the_hint_is_shown_on_the_table_and_in_the_hand(browser: Any, muggins: str, viewport: dict[str, int]) -> None:
    page = open_page(browser, muggins, viewport)
    s = play_until(page, lambda s: s["your_turn"] and sum(1 for o in s["options"] if o["tile"]) >= 2)
    page.click("#hint")
    page.wait_for_selector("#moves .move i")
    values = page.evaluate("JSON.parse(JSON.stringify(window.sniff.hints))")
    best = max(s["options"], key=lambda o: values[str(o["action"])])
    tile = f"{best['tile'][0]}-{best['tile'][1]}"
    hinted = page.locator("#hand .hand-tile.hinted")
    assert hinted.count() == 1 and hinted.get_attribute("data-tile") == tile
    assert hinted.locator(".hint-badge").inner_text() == "hint"
    spot = page.locator("#layout .hint-spot")
    assert spot.count() == 1 and spot.get_attribute("data-action") == str(best["action"])
    assert spot.get_attribute("data-end") == best["end"] and f"hint: {tile}" in (spot.text_content() or "")
    b = spot.bounding_box()
    layout = page.locator("#layout").bounding_box()
    assert b["width"] >= 44 and layout["x"] <= b["x"] and b["x"] + b["width"] <= layout["x"] + layout["width"] + 1
    # picked, the hinted tile's target is marked instead
    page.click(f"#hand [data-tile='{tile}']")
    assert page.locator(f"#layout .target.hinted[data-action='{best['action']}']").count() == 1
    assert page.locator("#layout .hint-spot").count() == 0
    # the hint is for one position: after the move it is gone from the table and the hand
    page.click(f"#layout .target[data-action='{best['action']}']")
    wait_past(page, s["version"])
    assert page.locator("#hand .hand-tile.hinted, #layout .hint-spot").count() == 0
    page.close()


FIELD_WORDS = re.compile(r"\b\w+_\w+\b|\b(?:bonus_div5|count_div5|max_two|subtract_own|crosswise|double_placement)\b")


def test_how_to_play_each_preset_in_plain_words(browser: Any, muggins: str) -> None:
    page = open_page(browser, muggins, PHONE)
    page.click("#new-game")
    page.wait_for_selector("#setup[open]")
    page.click("#setup-how summary")
    seen = {}
    for name in PRESET_NAMES:
        page.select_option("#setup-preset", name)
        page.wait_for_function(f"document.querySelector('#setup-how-body').textContent.includes({name + ':'!r})")
        text = page.inner_text("#setup-how-body")
        assert page.inner_text("#setup-how summary").startswith(f"How to play {name}")
        for section in ("The game", "The deal and the lead", "Playing", "Scoring as you play", "The end of a hand"):
            assert section in text, f"{name}: no {section!r}"
        assert not FIELD_WORDS.search(text), f"{name} is explained with engine words: {FIELD_WORDS.search(text)}"
        seen[name] = text
    assert "cribbage board" in seen["sniff-cribbage"] and "one point per five" in seen["sniff-cribbage"]
    assert "cribbage board" not in seen["sniff"]
    assert "no drawing" in seen["muggins-sleepers"].lower() and "no sniff" in seen["muggins"]
    page.check("#setup-claims")
    page.wait_for_function("document.querySelector('#setup-how-body').textContent.includes('Muggins:')")
    wide = page.evaluate("[document.querySelector('#setup').scrollWidth, document.querySelector('#setup').clientWidth]")
    assert wide[0] <= wide[1], "the form scrolls sideways"
    page.close()


@pytest.fixture(scope="module")
def cribbage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from run_server(tmp_path_factory.mktemp("cribbage"), "--seed", "4", "--preset", "sniff-cribbage",
                          "--opponent", "random")


@VIEWPORTS
def test_a_cribbage_board_for_sniff_cribbage(browser: Any, cribbage: str, muggins: str,
                                            viewport: dict[str, int], tmp_path: Path) -> None:
    page = open_page(browser, cribbage, viewport)
    s = play_until(page, lambda s: s["phase"] == "play" and all(p["front"] > 0 for p in s["pegs"])
                   and any(p["back"] > 0 for p in s["pegs"]))
    assert s["rules"]["points"] == "count_div5" and s["rules"]["target"] == 61
    page.locator("#pegging-panel").scroll_into_view_if_needed()
    board = page.locator("#pegging").bounding_box()
    assert board["width"] >= 250 and board["x"] + board["width"] <= viewport["width"]
    lanes = page.locator("#pegging .lane").all()
    assert len(lanes) == 2
    for lane, side, pegs in zip(lanes, s["sides"], s["pegs"]):
        assert lane.locator(".hole:not(.start)").count() == 61
        assert pegs["front"] == side["score"] and pegs["back"] < pegs["front"]
        assert int(lane.locator(".peg.front").get_attribute("data-hole")) == side["score"]
        assert int(lane.locator(".peg.back").get_attribute("data-hole")) == pegs["back"]
        assert f": {side['score']} of 61" in lane.locator(".lane-name").text_content()
        hole = lane.locator(f".hole[data-hole='{side['score']}']").bounding_box()
        peg = lane.locator(".peg.front").bounding_box()
        assert abs(centre(hole)[0] - centre(peg)[0]) < 1 and abs(centre(hole)[1] - centre(peg)[1]) < 1
        assert hole["width"] >= 3, "the holes are large enough to see"
    assert page.locator(".lane.yours").get_attribute("data-side") == str(next(x["side"] for x in s["sides"] if x["yours"]))
    wide = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], "the page scrolls sideways"
    screenshot(page, f"cribbage-{'desktop' if viewport is DESKTOP else 'phone'}", tmp_path)
    # no board for rules that score the count itself
    other = open_page(browser, muggins, viewport)
    assert other.locator("#pegging-panel").is_hidden()
    other.close()
    page.close()


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Short games (to 10 points) against a random player; the player's data folder beside them."""
    games = tmp_path_factory.mktemp("quick")
    for address in run_server(games, "--seed", "3", "--opponent", "random", "--rule", "target=10"):
        yield address, games / "home"


def finish(page: Any) -> dict[str, Any]:
    s = play_until(page, lambda s: s["phase"] == "game_over")
    page.wait_for_selector("#result-stats")
    return s


def test_the_record_across_games(browser: Any, quick: tuple[str, Path]) -> None:
    address, home = quick
    page = open_page(browser, address, PHONE)
    s = finish(page)
    mine = next(x for x in s["sides"] if x["yours"])
    won = s["result"]["game_winner"] is not None and "You" in s["result"]["game_winner"]
    line = page.inner_text("#result-stats")
    assert line.startswith("Your record: sniff, 2 players, to 10, against random: 1 played, " + ("1 won" if won else "0 won"))
    stored = json.loads((home / "stats.json").read_text())
    row = stored["records"]["sniff · 2 players · to 10 · random"]
    assert (row["played"], row["won"], row["best"]) == (1, int(won), mine["score"])
    # a second game; the record in the Stats dialog of the new-game form
    page.click("#result-new")
    page.wait_for_function(f"window.sniff.state.id !== {s['id']!r}")
    s2 = finish(page)
    won2 = "You" in (s2["result"]["game_winner"] or [])
    page.click("#new-game")
    page.click("#setup-stats")
    page.wait_for_selector("#stats[open] #stats-table")
    cells = page.locator("#stats-table tbody tr").first.locator("td").all_inner_texts()
    assert cells[0] == "2" and cells[1].startswith(str(int(won) + int(won2)))
    assert cells[2] == str(max(mine["score"], next(x for x in s2["sides"] if x["yours"])["score"]))
    assert "2 played" in page.inner_text("#stats-body")
    page.click("#stats-close")
    page.click("#setup-cancel")
    # a damaged record is refused, said, and left as it is (not reset); the game still ends
    (home / "stats.json").write_text('{"format": "sniff-stats", "version": 1, "records": {"x": 3}}')
    page.click("#result-new")
    page.wait_for_function(f"window.sniff.state.id !== {s2['id']!r}")
    finish(page)
    said = page.inner_text("#result-stats")
    assert said.startswith("Not counted in your record:") and "cannot be read" in said and "stats.json" in said
    assert (home / "stats.json").read_text() == '{"format": "sniff-stats", "version": 1, "records": {"x": 3}}'
    page.click("#new-game")
    page.click("#setup-stats")
    page.wait_for_selector("#stats[open] .stats-error")
    assert "move it away" in page.inner_text("#stats-body")
    page.close()


def test_the_stats_button_on_a_desktop(browser: Any, quick: tuple[str, Path]) -> None:
    address, _ = quick
    page = open_page(browser, address, DESKTOP)
    assert page.locator("#stats-open").is_visible()
    page.click("#stats-open")
    page.wait_for_selector("#stats[open]")
    assert page.locator("#stats-body").inner_text().strip()
    page.close()
    phone = open_page(browser, address, PHONE)
    assert phone.locator("#stats-open").is_visible(), "on a phone the record is one tap away too"
    phone.close()
