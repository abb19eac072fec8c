"""The web table's layout in headless Chromium, by the boxes the browser draws: whole seeded games
of two, three and four players replayed frame by frame on a phone (390×844) and at 1280×900,
where no two open-end markers cover each other, no tile covers the sniff's ★, and no tile runs
under a seat's chip or off the table; the score sheet's header shows each name whole; the record
across games is one tap away on a phone; the end of a hand on a phone says when more of it lies
below; the game's notes and the search's warm-up notice go once the game is under way."""

from __future__ import annotations

import json
import random
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
    play_until,
    require_browser,
    run_server,
    state,
    wait_past,
)

from sniff_env.game import Phase, new_game
from sniff_env.gamelog import game_log
from sniff_env.presets import make_rules

require_browser()

GAMES = [(2, 3, 6), (3, 2, 6), (4, 1, 9)]
"""(players, seed, highest pip) of the games replayed: whole games of random moves, the last with
double-nine tiles (long arms); each of the first two, as the table was once laid out, had end
markers covering each other or the ★ under a tile on a phone."""


def log_text(players: int, seed: int, pips: int, names: list[str] | None = None) -> str:
    """A finished game of random moves (to 60), as its log's text."""
    game = new_game(make_rules("sniff", players, target=60, max_pip=pips), seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
        else:
            game.step(rng.choice(game.legal_actions()))
    names = names or ["You"] + [f"Expert#{i}" for i in range(1, players)]
    return json.dumps(game_log(game, ["human"] + ["random"] * (players - 1), {"human_seat": 0, "names": names}))


@pytest.fixture(scope="module")
def server(games: Path) -> Iterator[str]:
    yield from run_server(games, "--seed", "7", "--opponent", "random", "--rule", "target=60", "--hint-budget", "0.1")


def replay(browser: Any, server: str, viewport: dict[str, int], text: str) -> Any:
    """A page replaying the game of ``text``, at its first frame."""
    page = browser.new_page(viewport=viewport, has_touch=viewport is PHONE)
    page.set_default_timeout(15_000)
    page.goto(server)
    page.wait_for_selector("#welcome:not([hidden]) #deal")
    page.evaluate("(text) => window.sniff.openReplayText(text, 'game.json')", text)
    page.wait_for_selector("#replay-bar:not([hidden])")
    return page


# Every frame of the replay, drawn as the replay's buttons draw it (the result panel of a hand's
# end set aside: it covers the table on purpose): what covers what, by the boxes drawn.
FRAMES = """() => {
  const out = [], r = window.sniff.replay;
  let stars = 0;
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (let i = 0; i < r.frames.length; i++) {
    step(i);
    document.getElementById('result').hidden = true;
    const svg = document.getElementById('layout'), table = svg.getBoundingClientRect();
    const tiles = [...svg.querySelectorAll('.tile')].map((t) => t.getBoundingClientRect());
    const ends = [...svg.querySelectorAll('.open-end rect')].map((e) => [e.parentNode.dataset.end, e.getBoundingClientRect()]);
    ends.forEach(([a, x], k) => ends.slice(k + 1).forEach(([b, y]) => {
      if (meet(x, y)) out.push(`frame ${i}: the ${a} and ${b} end markers cover each other`);
    }));
    const chips = [...document.querySelectorAll('#opponents .seat, #opponents .seat *')]
      .map((c) => [c.closest('.slot').id, c.getBoundingClientRect()]).filter(([, b]) => b.width && b.height);
    for (const t of tiles) {
      const chip = chips.find(([, c]) => meet(c, t));
      if (chip) { out.push(`frame ${i}: a tile runs under the chip of ${chip[0]}`); break; }
    }
    if (tiles.some((t) => t.left < table.left - 0.5 || t.right > table.right + 0.5 || t.top < table.top - 0.5
                          || t.bottom > table.bottom + 0.5)) out.push(`frame ${i}: a tile runs off the table`);
    const star = svg.querySelector('.sniff-mark');
    if (star) {
      star.scrollIntoView({ block: 'center' });
      const b = star.getBoundingClientRect(), hit = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
      if (hit !== star) out.push(`frame ${i}: the star is under ${hit ? hit.closest('g, div').getAttribute('class') : 'nothing'}`);
      if (tiles.some((t) => meet(b, t))) out.push(`frame ${i}: the star's box meets a tile`);
      stars += 1;
    }
  }
  return { frames: r.frames.length, stars, out };
}"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_no_part_of_the_table_covers_another_over_whole_games(browser: Any, server: str,
                                                               viewport: dict[str, int]) -> None:
    page = replay(browser, server, viewport, log_text(*GAMES[0]))
    wrong = []
    for players, seed, pips in GAMES:
        page.evaluate("(text) => window.sniff.openReplayText(text, 'game.json')", log_text(players, seed, pips))
        page.wait_for_function(f"window.sniff.replay && window.sniff.replay.frames[0].seats.length === {players}")
        seen = page.evaluate(FRAMES)
        assert seen["frames"] > 20 and seen["stars"] > 0, seen
        wrong += [f"{players} players, seed {seed}, {line}" for line in seen["out"]]
    assert not wrong, f"{len(wrong)} faults: " + "; ".join(wrong[:4] + [w for w in wrong if "end markers" in w][:4])
    page.close()


def test_the_score_sheet_shows_every_name_whole(browser: Any, server: str) -> None:
    names = ["You", "Expert#1", "Beginner#2", "expert expert expert"]
    page = replay(browser, server, DESKTOP, log_text(4, 5, 6, names))
    page.click("#rp-last")
    heads = page.eval_on_selector_all("#sheet thead th", """(ths) => ths.map((th) => ({
      text: th.textContent, title: th.title, scroll: th.scrollWidth, client: th.clientWidth}))""")
    for h in heads:
        assert h["scroll"] <= h["client"], f"{h['text']!r} is cut short: {h['scroll']} px in {h['client']} px"
    assert [h["text"] for h in heads] == ["hand", *names]
    assert [h["title"] for h in heads[1:]] == names, "each name whole in its tooltip too"
    sheet = page.evaluate("[document.getElementById('sheet').scrollWidth, document.getElementById('sheet-panel').clientWidth]")
    assert sheet[0] <= sheet[1], "the score sheet is wider than its panel"
    page.close()


def test_the_record_is_one_tap_away_on_a_phone(browser: Any, server: str) -> None:
    page = open_page(browser, server, PHONE)
    button = page.locator("#stats-open")
    assert button.is_visible()
    b = button.bounding_box()
    assert b and b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"] and b["y"] + b["height"] <= PHONE["height"]
    button.click()
    page.wait_for_selector("#stats[open]")
    page.wait_for_function("document.getElementById('stats-body').textContent.trim().length > 0")
    shown = page.locator("#stats").bounding_box()
    assert shown and shown["x"] >= 0 and shown["x"] + shown["width"] <= PHONE["width"]
    assert page.locator("#stats-close").is_visible()
    page.click("#stats-close")
    assert page.locator("#stats").is_hidden()
    page.close()


def test_the_end_of_a_hand_on_a_phone_says_when_more_lies_below(browser: Any, server: str) -> None:
    page = browser.new_page(viewport=PHONE, has_touch=True)
    page.set_default_timeout(15_000)
    page.goto(server)
    page.wait_for_selector("#welcome:not([hidden]) #deal")
    page.click("#welcome-choose")
    page.wait_for_selector("#setup[open]")
    page.check("#setup-players input[value='4']")
    page.select_option("#setup-opponent", "beginner")
    page.click("#setup-start")
    page.wait_for_function("window.sniff.state && window.sniff.state.seats.length === 4 && !window.sniff.busy")
    play_until(page, lambda s: s["phase"] in ("hand_over", "game_over"))
    page.wait_for_selector("#result h2")
    panel = page.locator("#result").bounding_box()
    button = page.locator("#result-next, #result-new").first.bounding_box()
    assert panel and button and button["y"] + button["height"] <= min(PHONE["height"], panel["y"] + panel["height"])
    cue = page.locator("#result .more-below")
    sizes = page.evaluate("(r => [r.scrollHeight, r.clientHeight])(document.getElementById('result'))")
    if sizes[0] > sizes[1] + 2:
        assert cue.is_visible(), "the panel scrolls with no cue that it does"
        c = cue.bounding_box()
        assert c and panel["y"] < c["y"] and c["y"] + c["height"] <= panel["y"] + panel["height"] + 0.5
        page.evaluate("(r => { r.scrollTop = r.scrollHeight; })(document.getElementById('result'))")
        page.wait_for_function("document.querySelector('#result .more-below').hidden")
    else:
        assert cue.is_hidden()
    page.close()


def test_the_notices_go_once_the_game_is_under_way(browser: Any, server: str) -> None:
    """The game's note on its players is shown as it is dealt, and the search's warm-up notice
    while a move waits for it; both are gone once the move is in, and stay gone move after move,
    even where the browser remembers nothing (private browsing: storage refused)."""
    page = browser.new_page(viewport=DESKTOP)
    page.set_default_timeout(15_000)
    page.add_init_script("Storage.prototype.setItem = () => { throw new DOMException('refused', 'QuotaExceededError'); };")
    page.goto(server)
    page.wait_for_selector("#welcome:not([hidden]) #deal")
    page.click("#welcome-choose")
    page.wait_for_selector("#setup[open]")
    page.select_option("#setup-opponent", "medium")
    page.click("#setup-start")
    page.wait_for_function("window.sniff.state && !window.sniff.busy")
    assert "Medium" in page.inner_text("#notice"), "the game's note is shown as it is dealt"
    s = play_until(page, lambda s: s["phase"] == "play" and s["your_turn"])
    status = '{"compiling": true, "progress": "compiling the search (once): 12 s of about 60 s so far"}'
    page.route("**/api/status", lambda route: route.fulfill(status=200, content_type="application/json", body=status))
    held: list[Any] = []
    page.route("**/api/games/*/move", lambda route: held.append(route))
    click_move(page, s["options"][0])
    page.wait_for_function("document.getElementById('notice').textContent.includes('getting ready')")
    held[0].continue_()
    page.unroute("**/api/games/*/move")
    s = wait_past(page, s["version"])
    assert page.locator("#notice").is_hidden(), page.inner_text("#notice")
    for _ in range(4):
        if s["phase"] != "play":
            break
        click_move(page, s["options"][0])
        s = wait_past(page, s["version"])
        assert page.locator("#notice").is_hidden(), page.inner_text("#notice")
    page.close()
