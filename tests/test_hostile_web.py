"""Hostile requests to the web table: each is answered with a clear 4xx (or, for odd but honest
content, a safe 200), never a 5xx or a hang; a refused request changes nothing."""

from __future__ import annotations

import json
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from hostile import LOG, RULES, deadline, edited  # noqa: F401  (deadline: a time limit for every test)

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("httpx", reason="the FastAPI test client needs httpx")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from sniff_env.web.app import MAX_BODY, MAX_REPLAYS, create_app
from sniff_env.web.sessions import TableOptions


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    options = TableOptions(RULES, ("random",), seed=3, games_dir=tmp_path_factory.mktemp("games"), hint_budget_s=0.05)
    return TestClient(create_app(options), raise_server_exceptions=False)


# (what, body of POST /api/replay, status, words the answer must hold)
REPLAYS: list[tuple[str, str | bytes, int, str]] = [
    ("deeply nested array", "[" * 100_000 + "]" * 100_000, 422, "nested too deeply"),
    ("deeply nested object", '{"a":' * 50_000 + "1" + "}" * 50_000, 422, "nested too deeply"),
    ("a string", '"sniff-game-log"', 422, "not a JSON object"),
    ("an array", "[1, 2]", 422, "not a JSON object"),
    ("null", "null", 422, "not a JSON object"),
    ("not JSON", "{", 422, "not valid JSON"),
    ("not UTF-8", b"\xff\xfe\x00{", 422, "not valid JSON"),
    ("an integer of 5000 digits", "1" * 5000, 422, "not valid JSON"),
    ("a result that is a list", edited(hands__0__result=[1, 2]), 422, "'result' must be a mapping"),
    ("a deal that is a string", edited(hands__0__deal="x"), 422, "the deal must be a mapping"),
    ("players not strings", edited(players=[1, 2]), 422, "'players' must name"),
    ("meta that is a list", edited(meta=[1]), 422, "'meta' must be a mapping"),
    ("decisions of another seat", edited(hands__0__decisions__0__seat=1 - LOG["hands"][0]["decisions"][0]["seat"]),
     422, "recorded for seat"),
    ("a body over the limit", b" " * (MAX_BODY + 1), 413, "longer than this server accepts"),
]


@pytest.mark.parametrize(("what", "body", "status", "says"), REPLAYS, ids=[r[0] for r in REPLAYS])
def test_hostile_replays_are_refused(client: TestClient, what: str, body: str | bytes, status: int, says: str) -> None:
    r = client.post("/api/replay", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status, r.text[:300]
    assert says in r.json()["error"]


@pytest.mark.parametrize("name", ["[bold red]boss[/]", "[/]", "\x1b[2J\x1b[31mred", "a\\", "[link=http://x]y[/link]"])
def test_names_with_markup_or_escapes_replay_as_text(client: TestClient, name: str) -> None:
    r = client.post("/api/replay", content=edited(meta__names=[name, "random"]))
    assert r.status_code == 200, r.text[:300]
    shown = {n for f in r.json()["frames"] for side in f["sides"] for n in side["names"]}
    texts = " ".join(e["text"] for f in r.json()["frames"] for e in f["events"])
    assert not any("\x1b" in n for n in shown)
    printable = name.replace("\x1b", "\\x1b")
    assert printable in shown and printable in texts


def test_a_chunked_body_over_the_limit_is_refused_before_the_game_sees_it(client: TestClient) -> None:
    game = client.post("/api/games").json()

    def chunks() -> Any:
        for _ in range(MAX_BODY // 65536 + 2):
            yield b" " * 65536

    r = client.post(f"/api/games/{game['id']}/move", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "longer than" in r.json()["error"]
    assert client.get(f"/api/games/{game['id']}").json()["version"] == 0


# (what, headers of POST /api/games, status)
ORIGINS: list[tuple[str, dict[str, str], int]] = [
    ("another site", {"Origin": "http://evil.example"}, 403),
    ("another site, text/plain", {"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403),
    ("another port of this host", {"Origin": "http://testserver:8080"}, 403),
    ("an opaque origin", {"Origin": "null"}, 403),
    ("a file page", {"Origin": "file://"}, 403),
    ("another site's page, no Origin", {"Referer": "http://evil.example/page"}, 403),
    ("its own page", {"Origin": "http://testserver"}, 200),
    ("its own page, no Origin", {"Referer": "http://testserver/?game=x"}, 200),
    ("no browser at all", {}, 200),
]


@pytest.mark.parametrize(("what", "headers", "status"), ORIGINS, ids=[o[0] for o in ORIGINS])
def test_changes_only_from_the_servers_own_pages(client: TestClient, what: str, headers: dict[str, str],
                                                 status: int) -> None:
    before = len(client.app.state.store.tables)  # type: ignore[attr-defined]
    r = client.post("/api/games", headers=headers)
    assert r.status_code == status, r.text
    if status == 403:
        assert "only from its own pages" in r.json()["error"]
        assert len(client.app.state.store.tables) == before  # type: ignore[attr-defined]
    game = client.post("/api/games").json()
    action = game["options"][0]["action"]
    moved = client.post(f"/api/games/{game['id']}/move", json={"version": 0, "action": action}, headers=headers)
    assert moved.status_code == status
    assert client.get(f"/api/games/{game['id']}").json()["version"] == (0 if status == 403 else 1)


def test_a_server_for_named_hosts_refuses_other_names(tmp_path: Path) -> None:
    options = TableOptions(RULES, ("random",), games_dir=tmp_path, hosts=("127.0.0.1", "localhost"))
    client = TestClient(create_app(options), base_url="http://127.0.0.1:8765")
    assert client.post("/api/games").status_code == 200
    r = client.get("/", headers={"Host": "rebound.example:8765"})
    assert r.status_code == 403 and "answers to 127.0.0.1, localhost only" in r.json()["error"]


# (what, path template, body) of requests that must be refused with a 4xx and change nothing
REQUESTS: list[tuple[str, str, str | bytes]] = [
    ("deep nesting", "move", "[" * 100_000),
    ("an endless number", "move", '{"version": 0, "action": ' + "9" * 5000 + "}"),
    ("infinity", "move", '{"version": 1e400, "action": 1}'),
    ("NaN", "move", '{"version": NaN, "action": 1}'),
    ("not UTF-8", "move", b"\xff\xfe"),
    ("a huge action", "move", '{"version": 0, "action": 99999999999999999999}'),
    ("a negative action", "move", '{"version": 0, "action": -1}'),
    ("claim as a string", "move", '{"version": 0, "action": 0, "claim": "true"}'),
    ("claim as infinity", "move", '{"claim": Infinity}'),
    ("a list", "undo", "[0]"),
    ("an unknown field", "next", '{"version": 0, "please": 1}'),
]


@pytest.mark.parametrize(("what", "where", "body"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_hostile_requests_are_4xx_and_change_nothing(client: TestClient, what: str, where: str,
                                                     body: str | bytes) -> None:
    game = client.post("/api/games").json()
    r = client.post(f"/api/games/{game['id']}/{where}", content=body, headers={"Content-Type": "application/json"})
    assert 400 <= r.status_code < 500, r.text[:300]
    assert r.json()["error"]
    assert client.get(f"/api/games/{game['id']}").json() == game


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries({}, optional={"version": JSON | st.integers(-2, 2),
                                             "action": JSON | st.integers(-2, 200), "claim": JSON})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(["move", "undo", "next"]), body=FIELDS | JSON)
def test_generated_bodies_never_get_a_5xx(client: TestClient, where: str, body: Any) -> None:
    game = client.post("/api/games").json()
    # sent as json.dumps writes it (Infinity included), which httpx's json= refuses to encode
    r = client.post(f"/api/games/{game['id']}/{where}", content=json.dumps(body),
                    headers={"Content-Type": "application/json"})
    assert r.status_code < 500, r.text[:300]
    if r.status_code >= 400:
        assert client.get(f"/api/games/{game['id']}").json() == game


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=JSON | st.binary(max_size=64))
def test_generated_replay_uploads_never_get_a_5xx(client: TestClient, body: Any) -> None:
    r = client.post("/api/replay", content=body if isinstance(body, bytes) else json.dumps(body))
    assert 400 <= r.status_code < 500 and r.json()["error"], r.text[:300]


def test_a_slow_replay_does_not_hold_up_the_other_players(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sniff_env.web.app as web_app

    release = threading.Event()

    def slow_frames(log: Any) -> list[Any]:
        release.wait(10)
        return []

    monkeypatch.setattr(web_app, "replay_frames", slow_frames)
    with TestClient(create_app(TableOptions(RULES, ("random",), games_dir=tmp_path))) as client:  # one event loop
        game = client.post("/api/games").json()
        answers: list[int] = []
        replays = [threading.Thread(target=lambda: answers.append(client.post("/api/replay", json=LOG).status_code))
                   for _ in range(MAX_REPLAYS)]
        for t in replays:
            t.start()
        time.sleep(0.3)
        started = time.perf_counter()
        assert client.get(f"/api/games/{game['id']}").status_code == 200
        assert time.perf_counter() - started < 2.0, "the page waited for another player's replay"
        busy = client.post("/api/replay", json=LOG)
        assert busy.status_code == 429 and "try again" in busy.json()["error"]
        release.set()
        for t in replays:
            t.join(10)
        assert answers == [200] * MAX_REPLAYS
