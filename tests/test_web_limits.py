"""The web server's limits, piece by piece: the worker pool (a cap, no endless queue, abandoned
work dropped or told to stop), the start-up cleaning of its games folder, and the HTTP guards
(slow or idle connections closed, a cap on connections, a time limit on a request's body)."""

from __future__ import annotations

import asyncio
import os
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from hostile import RULES, deadline  # noqa: F401  (deadline: a time limit for every test)
from web_server import connect as _connect
from web_server import live_server
from web_server import read_all as _read_all

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (uvicorn) is not installed")

from sniff_env.web import borders
from sniff_env.web.app import create_app
from sniff_env.web.housekeeping import TEMP_GRACE_S, clean_games_folder
from sniff_env.web.job_pool import Abandoned, Busy, Workers
from sniff_env.web.sessions import TableOptions, WebError

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


# -- the worker pool --------------------------------------------------------------------------------
def test_the_pool_refuses_past_its_capacity_and_frees_each_place_when_its_job_ends() -> None:
    pool = Workers(threads=1, waiting=1)
    release = threading.Event()
    jobs = [pool.submit(release.wait, 10) for _ in range(2)]
    with pytest.raises(Busy) as refused:
        pool.submit(release.wait, 10)
    assert refused.value.status == 429 and refused.value.headers == {"Retry-After": "2"}
    assert "2 requests" in str(refused.value) and pool.in_use == 2
    release.set()
    assert [j.result(5) for j in jobs] == [True, True]
    time.sleep(0.05)
    assert pool.in_use == 0 and pool.submit(lambda: 7).result(5) == 7


def test_work_for_a_client_that_went_away_is_dropped_or_told_to_stop() -> None:
    pool = Workers(threads=1, waiting=2)
    stop, queued_stop = threading.Event(), threading.Event()
    ran: list[str] = []

    def long_job() -> None:
        stop.wait(10)
        ran.append("long")

    async def main() -> list[Any]:
        def gone(after_s: float) -> Any:
            return lambda: asyncio.sleep(after_s)

        return await asyncio.gather(pool.run(long_job, gone=gone(0.3), stop=stop),
                                    pool.run(ran.append, "queued", gone=gone(0.1), stop=queued_stop),
                                    return_exceptions=True)

    answers = asyncio.run(main())
    assert [type(a) for a in answers] == [Abandoned, Abandoned] and answers[0].status == 499
    assert stop.is_set(), "the running job is told to stop"
    time.sleep(0.1)
    assert ran == ["long"] and pool.in_use == 0, "the queued job never ran; both places are free"


def test_closing_the_pool_answers_the_waiting_requests_at_once() -> None:
    pool = Workers(threads=1, waiting=1)
    release = threading.Event()

    async def main() -> list[Any]:
        waiting = [asyncio.ensure_future(pool.run(release.wait, 30)) for _ in range(2)]
        await asyncio.sleep(0.1)
        pool.close()
        return await asyncio.wait_for(asyncio.gather(*waiting, return_exceptions=True), 2)

    answers = asyncio.run(main())
    assert all(isinstance(a, WebError) and a.status == 503 and "stopping" in str(a) for a in answers)
    with pytest.raises(WebError, match="stopping"):
        pool.submit(print)
    release.set()


# -- the games folder -------------------------------------------------------------------------------
def _file(folder: Path, name: str, age_s: float, now: float) -> Path:
    path = folder / name
    path.write_text("{}")
    os.utime(path, (now - age_s, now - age_s))
    return path


def test_old_server_logs_and_leftover_temporary_files_are_removed(tmp_path: Path) -> None:
    now, day = 1.0e9, 86400.0
    logs = [_file(tmp_path, f"web-2000010{i}-000000-seed{i}-ab.json", i * day, now) for i in range(1, 6)]
    old_log = _file(tmp_path, "web-19990101-000000-seed0-ab.json", 40 * day, now)
    resumed = _file(tmp_path, "web-19980101-000000-seed0-cd.json", 400 * day, now)
    theirs = _file(tmp_path, "20000101-000000-seed1-ab.json", 400 * day, now)  # sniff play's
    stale = _file(tmp_path, ".web-x.json.a1b2c3.tmp", TEMP_GRACE_S + 1, now)
    writing = _file(tmp_path, ".web-y.json.d4e5f6.tmp", 1, now)  # a write under way
    (tmp_path / "web-link.json").symlink_to(theirs)
    cleaned = clean_games_folder(tmp_path, keep=3, keep_days=30, spare=[resumed], now=now)
    assert (cleaned.logs, cleaned.temporary) == (3, 1)
    assert str(cleaned) == "removed 3 old game logs of this server and 1 leftover temporary file"
    kept = {p.name for p in tmp_path.iterdir()}
    assert kept == {*(p.name for p in logs[:3]), resumed.name, theirs.name, writing.name, "web-link.json"}
    assert not old_log.exists() and not stale.exists()
    assert clean_games_folder(tmp_path / "missing") == clean_games_folder(tmp_path, 3, 30, [resumed], now)
    with pytest.raises(ValueError, match="keep must be"):
        clean_games_folder(tmp_path, keep=-1)


# -- the HTTP guards --------------------------------------------------------------------------------
def test_slow_headers_idle_connections_and_too_many_connections_are_cut(tmp_path: Path) -> None:
    with live_server(TableOptions(RULES, ("random",), games_dir=tmp_path), header_timeout_s=0.5,
                     max_connections=4) as port:
        slow = _connect(port)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the end of the headers
        idle = _connect(port)
        idle.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        quiet = [_connect(port) for _ in range(2)]
        time.sleep(0.2)
        refused = _connect(port)
        assert _read_all(refused).startswith(b"HTTP/1.1 503 ")
        started = time.perf_counter()
        answer = _read_all(slow)
        assert answer.startswith(b"HTTP/1.1 408 ") and b"did not come within 0.5 s" in answer
        assert time.perf_counter() - started < 2
        assert all(_read_all(q) == b"" for q in quiet), "a connection that sends nothing is closed, silently"
        first = idle.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 ") and b"x-frame-options: DENY" in first
        assert _read_all(idle) == b"", "an idle kept-alive connection is closed after a while, with no answer"
        for s in (slow, idle, refused, *quiet):
            s.close()
        time.sleep(0.2)
        again = _connect(port)
        again.sendall(b"HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert _read_all(again).startswith(b"HTTP/1.1 200 ")


def test_a_body_that_does_not_come_in_time_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(borders, "BODY_TIMEOUT_S", 0.5)
    with live_server(TableOptions(RULES, ("random",), games_dir=tmp_path)) as port:
        s = _connect(port)
        s.sendall(b"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"form")
        answer = _read_all(s)
        assert answer.startswith(b"HTTP/1.1 408 ") and b"did not all come within 0.5 seconds" in answer


def test_stopping_the_server_answers_the_requests_that_wait_for_workers(tmp_path: Path) -> None:
    app = create_app(TableOptions(RULES, ("random",), games_dir=tmp_path, hint_budget_s=20))
    client = TestClient(app)
    game = client.post("/api/games").json()
    answers: list[Any] = []
    hint = threading.Thread(target=lambda: answers.append(client.get(f"/api/games/{game['id']}/hint")))
    hint.start()
    time.sleep(0.3)
    app.state.workers.close()
    hint.join(5)
    assert answers[0].status_code == 503 and answers[0].headers["Retry-After"] == "5"


def test_the_load_test_plays_games_and_only_against_this_machine(tmp_path: Path) -> None:
    from sniff_env.speed import web_load

    for far in ("http://example.com/", "http://10.0.0.1:8765/", "http://[2001:db8::1]/"):
        with pytest.raises(SystemExit, match="must name this machine"):
            web_load.loopback(far)
    with live_server(TableOptions(RULES, ("random",), games_dir=tmp_path, hint_budget_s=0.05)) as port:
        url = web_load.loopback(f"http://127.0.0.1:{port}")
        tally, seconds = asyncio.run(web_load.load(url, clients=2, seconds=3.0, hint_every=2))  # room for a loaded machine
    text = web_load.report(tally, seconds, 2)
    assert tally.statuses[("move", 200)] > 0 and tally.statuses[("hint", 200)] > 0 and not tally.failures, text
    assert "requests/s" in text and "p99" in text
