"""Hostile requests to the web table: each is answered with a clear 4xx (or, for odd but honest
content, a safe 200), never a 5xx or a hang; a refused request changes nothing."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from hostile import LOG, RULES, deadline, edited, started  # noqa: F401  (deadline: a time limit for every test)
from web_server import connect, live_server, read_all, start_server

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("httpx", reason="the FastAPI test client needs httpx")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

import httpx

from sniff_env.game import Game, Phase
from sniff_env.gamelog import game_log, parse_game_log
from sniff_env.presets import make_rules
from sniff_env.web import replays, sessions, views
from sniff_env.web.app import MAX_BODY, MAX_REPLAYS, create_app
from sniff_env.web.job_pool import Workers
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
    import sniff_env.web.views as web_views

    release = threading.Event()

    def slow_frames(log: Any) -> list[Any]:
        release.wait(10)
        return []

    monkeypatch.setattr(web_views, "replay_frames", slow_frames)
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


# -- floods and amplifiers: bounded work, bounded answers, a server that stays responsive ---------
def long_log(hands: int, **rules: Any) -> str:
    """A valid log of ``hands`` hands between first-legal-move players, the target out of reach."""
    game = Game(make_rules("sniff", rules.pop("players", 2), target=10**18, **rules), 1)
    for h in range(hands):
        game.start_hand()
        while game.phase is Phase.PLAY:
            game.step(game.legal_actions()[0])
    return json.dumps(game_log(game, ["human"] + ["random"] * (game.n - 1), {"human_seat": 0}), separators=(",", ":"))


TINY = {"max_pip": 3, "hand_size": 3, "boneyard_reserve": 0}
# (what, log, words of the 413 answer)
OVERSIZED: list[tuple[str, Any, str]] = [
    ("850 hands (under 1 MB) to a target of 10**18", lambda: long_log(850, **TINY), f"at most {replays.MAX_HANDS} hands"),
    ("over 2,500 positions in 40 hands of the double-12 set",
     lambda: long_log(40, players=4, max_pip=12, hand_size=15), f"at most {replays.MAX_FRAMES:,}"),
]


@pytest.mark.parametrize(("what", "make", "says"), OVERSIZED, ids=[o[0] for o in OVERSIZED])
def test_a_valid_log_over_the_replay_limits_is_refused_before_it_is_replayed(
        client: TestClient, monkeypatch: pytest.MonkeyPatch, what: str, make: Any, says: str) -> None:
    body = make()
    assert len(body) <= MAX_BODY and parse_game_log(json.loads(body))  # valid, and not refused for its size
    monkeypatch.setattr(views, "replay_frames", lambda log: pytest.fail("the log was replayed"))
    r = client.post("/api/replay", content=body)
    assert r.status_code == 413 and says in r.json()["error"] and "sniff replay" in r.json()["error"], r.text


def test_a_replay_answer_is_no_longer_than_the_limit(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    full = client.post("/api/replay", json=LOG)
    assert full.status_code == 200
    monkeypatch.setattr(replays, "MAX_BYTES", len(full.content) - 1)
    r = client.post("/api/replay", json=LOG)
    assert r.status_code == 413 and f"({len(full.content) - 1:,} bytes)" in r.json()["error"]


def test_the_frames_are_built_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each event is described once and each hand's start found once: no frame rescans the history."""
    log = parse_game_log(json.loads(long_log(60, **TINY)))
    counts = {"event_json": 0, "hand_start": 0}
    for name in counts:
        real = getattr(views, name)

        def counted(*args: Any, real: Any = real, name: str = name) -> Any:
            counts[name] += 1
            return real(*args)

        monkeypatch.setattr(views, name, counted)
    frames = list(views.replay_frames(log))
    assert len(frames) == sum(1 + len(r.actions) for r in log.records)
    assert counts == {"event_json": len(log.game.events), "hand_start": len(log.records)}


def test_a_hint_flood_is_refused_and_the_page_stays_quick(tmp_path: Path) -> None:
    options = TableOptions(RULES, ("random",), seed=3, games_dir=tmp_path, hint_budget_s=1.0)
    with TestClient(create_app(options)) as client:
        game = client.post("/api/games").json()
        answers: list[Any] = []
        flood = [threading.Thread(target=lambda: answers.append(client.get(f"/api/games/{game['id']}/hint")))
                 for _ in range(80)]
        for t in flood:
            t.start()
        time.sleep(0.3)
        for path in ("/", f"/api/games/{game['id']}"):
            started = time.perf_counter()
            assert client.get(path).status_code == 200
            assert time.perf_counter() - started < 1.0, f"{path} waited for the hints"
        for t in flood:
            t.join(20)
    busy = [r for r in answers if r.status_code == 429]
    assert len(answers) == 80 and sum(r.status_code == 200 for r in answers) >= 1 and len(busy) >= 70
    assert all("being worked out already" in r.json()["error"] and r.headers["Retry-After"] == "1" for r in busy)


def test_a_full_worker_pool_refuses_with_retry_after_and_the_page_stays_quick(tmp_path: Path) -> None:
    options = TableOptions(RULES, ("random",), seed=3, games_dir=tmp_path, hint_budget_s=1.0)
    with TestClient(create_app(options, workers=Workers(threads=1, waiting=1))) as client:
        games = [client.post("/api/games").json()["id"] for _ in range(3)]
        answers: list[Any] = []
        hints = [threading.Thread(target=lambda g=g: answers.append(client.get(f"/api/games/{g}/hint")))
                 for g in games]
        for t in hints:
            t.start()
            time.sleep(0.1)
        started = time.perf_counter()
        assert client.get("/").status_code == 200 and client.get(f"/api/games/{games[0]}").status_code == 200
        assert time.perf_counter() - started < 1.0
        refused = client.post(f"/api/games/{games[0]}/move", json={"version": 0, "action": 0})
        for t in hints:
            t.join(20)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "2"
    assert "the server is busy: 2 requests" in refused.json()["error"]
    assert sorted(r.status_code for r in answers) == [200, 200, 429]


def test_a_game_whose_agents_think_on_is_answered_503_not_waited_for(client: TestClient,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions, "LOCK_WAIT_S", 0.3)
    game = client.post("/api/games").json()
    table = client.app.state.store.get(game["id"])  # type: ignore[attr-defined]
    with table.lock:  # as a search with a huge budget holds it
        for method, path, kw in [("GET", "", {}), ("GET", "/log", {}), ("GET", "/hint", {}),
                                 ("POST", "/move", {"json": {"version": 0, "action": game["options"][0]["action"]}})]:
            r = client.request(method, f"/api/games/{game['id']}{path}", **kw)
            assert r.status_code == 503 and "still busy" in r.json()["error"] and r.headers["Retry-After"] == "2"
        assert client.get("/").status_code == 200 and client.post("/api/games").status_code == 200
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_every_answer_has_the_security_headers_and_head_works(client: TestClient) -> None:
    game = client.post("/api/games").json()
    answers = [client.get("/"), client.head("/"), client.get("/static/app.js"), client.get(f"/api/games/{game['id']}"),
               client.get("/api/games/nope"), client.post("/api/games", headers={"Origin": "http://evil.example"}),
               client.post("/api/replay", content=b" " * (MAX_BODY + 1)), client.post("/api/replay", content="{")]
    assert [r.status_code for r in answers] == [200, 200, 200, 200, 404, 403, 413, 422]
    assert answers[1].content == b"" and answers[1].headers["content-type"].startswith("text/html")
    for r in answers:
        assert r.headers["X-Frame-Options"] == "DENY", r.request.url
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        assert r.headers["X-Content-Type-Options"] == "nosniff" and r.headers["Referrer-Policy"] == "same-origin"


def _absurd_log(path: Path) -> Path:
    """A game in progress, the human to move, whose opponent searches for as long as the table allows."""
    session = started()
    assert session.human_to_move
    path.write_text(json.dumps(game_log(session.game, ["human", "search:budget_s=30"], session.meta)))
    return path


def test_sigterm_stops_a_server_whose_workers_think_on(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    old, stale, theirs = games / "web-20000101-000000-seed1-aa.json", games / ".web-x.json.ab12.tmp", games / "old.json"
    for f in (old, stale, theirs):
        f.write_text("{}")
        os.utime(f, (time.time() - 90 * 86400,) * 2)
    log = _absurd_log(tmp_path / "absurd.json")
    proc, address, line = start_server(games, "--opponent", "random", "--hint-budget", "30", "--resume", str(log))
    try:
        game = line.split("?game=")[1].split()[0]
        http = httpx.Client(base_url=address, timeout=30)
        view = http.get(f"/api/games/{game}").json()
        busy = [threading.Thread(target=lambda: http.post(f"/api/games/{game}/move",
                                                          json={"version": 0, "action": view["options"][0]["action"]}),
                                 daemon=True)]
        other = http.post("/api/games").json()["id"]
        busy.append(threading.Thread(target=lambda: http.get(f"/api/games/{other}/hint"), daemon=True))
        for t in busy:
            t.start()
        time.sleep(1.0)
        started_at = time.perf_counter()
        assert http.get("/").status_code == 200 and http.post("/api/games").status_code == 200
        assert time.perf_counter() - started_at < 2.0, "the page waited for the workers"
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        started_at = time.perf_counter()
        proc.wait(timeout=10)
        assert time.perf_counter() - started_at < 10
    finally:
        if proc.poll() is None:
            proc.kill()
    out = line + (proc.stdout.read() if proc.stdout else "")
    assert "removed 1 old game log of this server and 1 leftover temporary file" in out, out
    assert not old.exists() and not stale.exists() and theirs.exists() and log.exists()
    assert "Traceback" not in out, out


def test_abandoned_replays_stop_and_let_the_next_one_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    real = views.replay_frames

    def slow_frames(log: Any) -> Any:
        if len(built) >= MAX_REPLAYS:
            yield from real(log)
            return
        built.append(0)
        me = len(built) - 1
        for _ in range(200):  # ten seconds of work, unless it is stopped
            time.sleep(0.05)
            built[me] += 1
            yield {}

    monkeypatch.setattr(views, "replay_frames", slow_frames)
    body = json.dumps(LOG).encode()
    request = b"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    with live_server(TableOptions(RULES, ("random",), games_dir=tmp_path)) as port:
        uploads = [connect(port) for _ in range(MAX_REPLAYS)]
        for s in uploads:
            s.sendall(request + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        time.sleep(0.5)
        for s in uploads:
            s.close()  # the uploader gives up
        time.sleep(0.5)
        work = list(built)
        time.sleep(0.3)
        assert built == work and max(work) < 40, f"the abandoned replays went on: {built}"
        r = httpx.post(f"http://127.0.0.1:{port}/api/replay", content=body, timeout=10)
        assert r.status_code == 200 and len(r.json()["frames"]) == sum(1 + len(h["decisions"]) for h in LOG["hands"])


def test_a_flood_of_half_open_connections_is_capped_and_cut(tmp_path: Path) -> None:
    with live_server(TableOptions(RULES, ("random",), games_dir=tmp_path), header_timeout_s=0.5,
                     max_connections=16) as port:
        flood = [connect(port) for _ in range(60)]
        for s in flood:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and never more
        answers = [read_all(s) for s in flood]  # 408 when its time is up, or 503 (or a reset) at once
        assert sum(a.startswith(b"HTTP/1.1 408 ") for a in answers) <= 16
        assert all(a.startswith((b"HTTP/1.1 408 ", b"HTTP/1.1 503 ")) or a == b"" for a in answers)
        for s in flood:
            s.close()
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 200
