"""Friends at one table in the browser: the real server, headless Chromium, two people in a
partnership (two browser contexts at once, as two machines would be) against two agents, played
by clicking to the end of the game. The host seats them with the new-game form and copies the
friend's link from the table; the friend's page never holds the host's tiles, a move sent with
the host's link while the friend is to play is refused and changes nothing, and the friend
closes the tab and comes back to the same seat through the same link."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_server import (  # noqa: F401  (the games and browser fixtures)
    DESKTOP,
    browser_fixture,
    click_move,
    games_folder,
    require_browser,
    run_server,
    state,
)

playwright_api = require_browser()


@pytest.fixture(scope="module")
def server(games: Path) -> Iterator[str]:
    yield from run_server(games, "--opponent", "random")


def seat_the_table(browser: Any, server: str) -> tuple[Any, str]:
    """The host opens the form, seats a friend opposite and two Beginners, to 30 points: the
    host's page and the friend's link as the page shows it."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.set_default_timeout(15_000)
    page.goto(server)
    page.click("#welcome-choose")
    page.select_option("#setup-preset", "sniff")
    page.check("#setup-players input[value='4']")
    page.check("#setup-partnership")
    page.check("#setup-friends")
    for seat, who in enumerate(["me", "beginner", "friend", "beginner"]):
        page.select_option(f"#setup-seats select[data-seat='{seat}']", who)
    page.select_option("#setup-target", "30")
    page.click("#setup-start")
    page.wait_for_function("window.sniff.state && window.sniff.state.table")
    link = page.input_value("#friends .link[data-seat='2'] input")
    assert link.startswith(server + "?game=") and "they work here only" in page.inner_text("#friends")
    return page, link


def open_seat(context: Any, link: str) -> Any:
    """A page of the seat that ``link`` opens, once its state is in."""
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(link)
    page.wait_for_function("window.sniff.state && window.sniff.state.seat === 2")
    return page


def caught_up(pages: list[Any], version: int) -> list[dict[str, Any]]:
    """Every page's state once it shows ``version`` at least (each page asks every second)."""
    for page in pages:
        page.wait_for_function(f"window.sniff.state.version >= {version} && !window.sniff.busy")
    return [state(page) for page in pages]


def acting_for_the_other(host: Any, friend: dict[str, Any]) -> None:
    """From the host's page, with the host's link: the friend's move, while the friend is to play."""
    answer = host.evaluate("""async ([version, action]) => {
        const r = await fetch(`/api/games/${encodeURIComponent(window.sniff.state.id)}/move`, {method: "POST",
            headers: {"Content-Type": "application/json"}, body: JSON.stringify({version, action})});
        return {status: r.status, body: await r.json()};
    }""", [friend["version"], friend["options"][0]["action"]])
    assert answer["status"] == 403 and "only a seat's own link may move for it" in answer["body"]["error"]
    cut = host.evaluate("""async (key) => (await fetch(`/api/games/${key.slice(0, -1)}`)).status""", friend["id"])
    assert cut == 404


def test_two_friends_play_a_partnership_game_to_the_end(browser: Any, server: str) -> None:
    host, link = seat_the_table(browser, server)
    friends = browser.new_context(viewport=DESKTOP)
    friend = open_seat(friends, link)
    pages = [host, friend]
    tried, waited = False, False
    for _ in range(200):
        version = max(state(p)["version"] for p in pages)
        states = caught_up(pages, version)
        now = states[0]
        if now["phase"] == "game_over":
            break
        mine, theirs = {tuple(t) for t in states[0]["hand"]}, {tuple(t) for t in states[1]["hand"]}
        assert not mine & theirs and "hand" in states[1]
        assert all(s["seat"] == seat for s, seat in zip(states, (0, 2)))
        if now["phase"] == "hand_over":
            friend.click("#result-next")
        else:
            mover = next(i for i, s in enumerate(states) if s["your_turn"])
            if mover == 1 and not tried:
                waited = "Waiting for Friend 1 (partner) to play" in host.inner_text("#friends-clock")
                acting_for_the_other(host, states[1])
                tried = True
                assert caught_up(pages, version)[0]["version"] == version, "a refused move changed the game"
                friend.close()  # the friend closes the tab, and comes back through the same link
                friend = pages[1] = open_seat(friends, link)
                assert state(friend)["hand"] == states[1]["hand"] and state(friend)["your_turn"]
            click_move(pages[mover], states[mover]["options"][0])
        pages[0].wait_for_function(f"window.sniff.state.version > {version}")
    else:
        pytest.fail("the game did not end")
    assert tried and waited
    ends = caught_up(pages, now["version"])
    assert all(s["phase"] == "game_over" and s["result"]["winner_text"] for s in ends)
    log = friend.evaluate("async () => (await fetch(document.querySelector('#save-log').href)).json()")
    assert log["format"] == "sniff-seat-log" and log["seat"] == 2 and log["finished"]
