"""Friends at one table: each person joins by the link of their own seat, sees their own hand
only, cannot act or read for another seat (a refusal that changes nothing), comes back through
the same link; the table waits for a person (its clock counts the seconds), or lets a stand-in
play for one away when the host chose so, until they are back."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hostile import deadline  # noqa: F401  (a time limit for every test)

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("httpx", reason="the FastAPI test client needs httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from sniff_env.presets import make_rules
from sniff_env.tiles import mask_tiles
from sniff_env.web.app import create_app
from sniff_env.web.sessions import TableOptions
from sniff_env.web.tables import SharedTable

PAIRS = ["me", "beginner", "friend", "beginner"]
"""Two people in partnership against two agents (at 4-player partnership rules)."""


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(tmp_path: Path, clock: Clock) -> TestClient:
    options = TableOptions(make_rules("sniff", 2), ("random",), games_dir=tmp_path, hint_budget_s=0.05)
    return TestClient(create_app(options, clock=clock))


def open_table(client: TestClient, seats: list[str] = PAIRS, **extra: Any) -> tuple[dict[str, Any], list[str]]:
    """A new shared table (4-player partnership sniff to 30): the host's view and every person's
    key (the host's first, then the friends' in seat order)."""
    body = {"preset": "sniff", "players": len(seats), "partnership": len(seats) == 4, "target": 30,
            "seats": seats, **extra}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    host = r.json()
    return host, [host["id"], *(link["path"].removeprefix("/?game=") for link in host["table"]["links"])]


def table_of(client: TestClient, key: str) -> SharedTable:
    table = client.app.state.store.get(key)  # type: ignore[attr-defined]
    assert isinstance(table, SharedTable)
    return table


def view(client: TestClient, key: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{key}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def pairs_in(data: Any) -> set[tuple[int, int]]:
    """Every list of two whole numbers anywhere in ``data`` (where a tile would show), but in the
    drawing of lots for the lead (public tiles, shuffled back before the deal)."""
    if isinstance(data, dict) and data.get("kind") == "lots":
        return set()
    if isinstance(data, dict):
        return set().union(*(pairs_in(v) for v in data.values())) if data else set()
    if isinstance(data, list):
        found = {tuple(data)} if len(data) == 2 and all(type(x) is int for x in data) else set()
        return found.union(*(pairs_in(v) for v in data))
    return set()


def hand_of(table: SharedTable, seat: int) -> set[tuple[int, int]]:
    game = table.session.game
    return {tuple(game.ts.tiles[t]) for t in mask_tiles(game.hands[seat])}  # type: ignore[misc]


def to_move(client: TestClient, keys: list[str]) -> tuple[str, dict[str, Any]]:
    """The key of the person to move, and their view."""
    for key in keys:
        v = view(client, key)
        if v["your_turn"]:
            return key, v
    raise AssertionError("no person is to move")


def refused(client: TestClient, keys: list[str], method: str, path: str, status: int, **kw: Any) -> str:
    """A request that must be refused with ``status`` and a JSON error, every seat's view unchanged."""
    for k in keys:  # every seat has joined: their pages ask on
        view(client, k)
    before = [view(client, k) for k in keys]
    r = client.request(method, path, **kw)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert isinstance(error, str) and error
    after = [view(client, k) for k in keys]
    for b, a in zip(before, after):
        b["table"].pop("people"), a["table"].pop("people")  # who was seen when: the only change
        assert a == b
    return str(error)


def test_each_person_joins_by_their_own_link_and_sees_their_own_hand_only(client: TestClient) -> None:
    host, keys = open_table(client)
    assert len(keys) == 2 and len(set(keys)) == 2 and all(len(k) >= 22 for k in keys)
    assert [link["seat"] for link in host["table"]["links"]] == [2] and host["seat"] == 0
    friend = view(client, keys[1])
    assert friend["seat"] == 2 and friend["id"] == keys[1] and friend["table"]["links"] == []
    assert keys[0] not in json.dumps(friend), "a friend's view must not hold the host's link"
    table = table_of(client, keys[0])
    for seen, seat, other in ((host, 0, 2), (friend, 2, 0)):
        assert {tuple(t) for t in seen["hand"]} == hand_of(table, seat)
        assert not pairs_in(seen) & hand_of(table, other), "a view shows another seat's tile"
        assert not pairs_in(seen) & (hand_of(table, 1) | hand_of(table, 3))
    assert [p["name"] for p in friend["table"]["people"]] == ["Host (partner)", "You"]
    assert view(client, keys[0])["table"]["people"][1]["joined"] is True


@pytest.mark.parametrize("seats", [["me", "friend", "friend", "friend"], ["me", "easy", "medium", "beginner"]],
                         ids=["four people", "one person and three agents"])
def test_four_people_or_one_with_three_agents_each_see_their_own_hand(client: TestClient, seats: list[str]) -> None:
    host, keys = open_table(client, seats)
    people = [s for s, who in enumerate(seats) if who in ("me", "friend")]
    assert len(keys) == len(people) == len(set(keys)) and [link["seat"] for link in host["table"]["links"]] == people[1:]
    table = table_of(client, keys[0])
    for key, seat in zip(keys, people):
        seen = view(client, key)
        assert seen["seat"] == seat and {tuple(t) for t in seen["hand"]} == hand_of(table, seat)
        assert not pairs_in(seen) & set().union(*(hand_of(table, s) for s in range(4) if s != seat))
    mover, v = to_move(client, keys)  # the agents have played up to a person's turn
    r = client.post(f"/api/games/{mover}/move", json={"version": v["version"], "action": v["options"][0]["action"]})
    assert r.status_code == 200, r.text


def test_a_seat_cannot_act_or_read_for_another(client: TestClient) -> None:
    _, keys = open_table(client)
    mover, v = to_move(client, keys)
    other = keys[1 - keys.index(mover)]
    action = v["options"][0]["action"]
    error = refused(client, keys, "POST", f"/api/games/{other}/move", 403,
                    json={"version": v["version"], "action": action})
    assert "only a seat's own link may move for it" in error
    refused(client, keys, "GET", f"/api/games/{other}/hint", 409)
    refused(client, keys, "POST", f"/api/games/{other}/undo", 403, json={"version": v["version"]})
    refused(client, keys, "POST", f"/api/games/{mover}/next", 409, json={"version": v["version"]})
    for wrong in (mover[:-1], mover + "A", mover.swapcase(), table_of(client, mover).id):
        for method, path, kw in (("GET", "", {}), ("POST", "/move", {"json": {"version": v["version"], "action": action}}),
                                 ("GET", "/log", {}), ("GET", "/hint", {})):
            assert "nor a seat with that link" in refused(client, keys, method, f"/api/games/{wrong}{path}", 404, **kw)
    log = client.get(f"/api/games/{other}/log").json()
    assert log["format"] == "sniff-seat-log" and log["seat"] == 2 * keys.index(other) and "seed" not in log
    dealt = {tuple(t) for t in log["hands"][0]["your_tiles"]}
    shown = dealt | {tuple(sorted(map(int, e["tile"].split("-")))) for e in log["hands"][0]["events"] if e.get("tile")}
    assert {tuple(t) for t in view(client, other)["hand"]} <= shown  # dealt, or drawn in its own log
    assert not shown & hand_of(table_of(client, mover), 2 * keys.index(mover)), "a seat's log shows another's tile"


def test_leave_and_come_back_through_the_same_link(client: TestClient, clock: Clock) -> None:
    _, keys = open_table(client)
    first = view(client, keys[1])
    clock.t += 30
    assert not view(client, keys[0])["table"]["people"][1]["here"], "a friend gone quiet is not shown as here"
    again = TestClient(client.app)  # another browser: nothing but the link
    back = again.get(f"/api/games/{keys[1]}").json()
    assert back["seat"] == 2 and back["hand"] == first["hand"] and back["version"] == first["version"]
    assert view(client, keys[0])["table"]["people"][1]["here"]


def test_the_table_waits_for_a_person_and_counts_the_seconds(client: TestClient, clock: Clock) -> None:
    _, keys = open_table(client)
    mover, v = to_move(client, keys)
    assert v["table"]["waiting"]["seconds"] == 0 and v["table"]["waiting"]["takeover_in"] is None
    clock.t += 600
    for key in keys:
        w = view(client, key)["table"]["waiting"]
        assert w["seconds"] == 600 and w["seat"] == v["seat"] and w["for"] == "move"
    assert view(client, mover)["version"] == v["version"], "without a takeover time the table waits"
    r = client.post(f"/api/games/{mover}/move", json={"version": v["version"], "action": v["options"][0]["action"]})
    assert r.status_code == 200 and r.json()["version"] == v["version"] + 1


def test_a_stand_in_plays_for_a_person_away_until_they_return(client: TestClient, clock: Clock) -> None:
    _, keys = open_table(client, takeover_s=10)
    table = table_of(client, keys[0])
    game = table.session.game
    # the friend never opens the link: past 10 s, a stand-in plays their turns as they come
    clock.t += 11
    for _ in range(40):
        v = view(client, keys[0])
        if v["your_turn"] or v["phase"] != "play":
            break
        clock.t += 1
    assert v["table"]["people"][1]["stand_in"] and not v["table"]["people"][1]["joined"]
    assert any(e["kind"] == "play" and e["seat"] == 2 for e in v["events"]), "the stand-in played for the friend"
    # the friend comes back: the seat is theirs, and the table waits for them again
    assert not view(client, keys[1])["table"]["people"][1]["stand_in"]
    while game.turn != 2 and game.phase.name == "PLAY":
        mover, v = to_move(client, keys)
        client.post(f"/api/games/{mover}/move", json={"version": v["version"], "action": v["options"][0]["action"]})
    if game.phase.name != "PLAY":
        pytest.skip("the hand ended before the friend's turn came back")
    version = view(client, keys[1])["version"]
    clock.t += 5
    assert view(client, keys[0])["version"] == version and view(client, keys[1])["your_turn"]
    # present but idle: after 10 s of waiting the stand-in makes one move, and the seat stays theirs
    clock.t += 6
    after = view(client, keys[1])
    assert after["version"] == version + 1 and any(e["kind"] in ("play", "draw") and e["seat"] == 2 and e["recent"]
                                                   for e in after["events"])
    assert not after["table"]["people"][1]["stand_in"]


def test_a_game_of_friends_plays_to_the_end_and_each_log_stays_the_seats_own(client: TestClient,
                                                                             tmp_path: Path) -> None:
    _, keys = open_table(client, seats=["friend", "me", "friend", "beginner"])
    assert len(keys) == 3
    for _ in range(400):
        v = view(client, keys[0])
        if v["phase"] == "game_over":
            break
        if v["phase"] == "hand_over":
            r = client.post(f"/api/games/{keys[2]}/next", json={"version": v["version"]})
        else:
            mover, v = to_move(client, keys)
            r = client.post(f"/api/games/{mover}/move", json={"version": v["version"], "action": v["options"][0]["action"]})
        assert r.status_code == 200, r.text
    assert v["phase"] == "game_over" and v["stats"] is None
    for key in keys:
        log = client.get(f"/api/games/{key}/log").json()
        assert log["format"] == "sniff-seat-log" and log["finished"] and "seed" not in log
    assert len(list(tmp_path.glob("web-*.json"))) == 1, "the full log is written on the server"


@pytest.mark.parametrize(("change", "says"), [
    ({"seats": ["me", "friend"]}, "has 4 seats"),
    ({"seats": ["me", "friend", "bob", "easy"]}, "seats[2] is 'bob'"),
    ({"seats": ["me", "me", "easy", "easy"]}, "exactly one seat must be 'me'"),
    ({"seats": ["friend", "friend", "easy", "easy"]}, "exactly one seat must be 'me'"),
    ({"takeover_s": 3}, "takeover_s must be 0"),
    ({"takeover_s": 99999}, "takeover_s must be 0"),
    ({"seats": "me,friend"}, "malformed request"),
    ({"opponent": "easy"}, "malformed request"),
    ({"players": 3}, "partnerships need 4 players"),
])
def test_a_bad_table_is_refused_saying_what_is_allowed(client: TestClient, change: dict[str, Any], says: str) -> None:
    body = {"preset": "sniff", "players": 4, "partnership": True, "seats": PAIRS, **change}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422 and says in r.json()["error"], r.text
    assert not client.app.state.store.tables  # type: ignore[attr-defined]
