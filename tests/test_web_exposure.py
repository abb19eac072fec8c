"""What the web table gives out: its static files under their own names only, logs that name
the server's players but never its files, and replays judged by the list they replay (a decoy
list cannot hide a log's length); a resumed game is open as soon as the server listens; a
server on an address other than loopback says what that exposes."""

from __future__ import annotations

import json
import shutil
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from hostile import RULES, deadline  # noqa: F401  (deadline: a time limit for every test)
from web_server import start_server

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("httpx", reason="the FastAPI test client needs httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

import httpx

from sniff_env.cli.serve import exposure
from sniff_env.cli.serve import main as serve_main
from sniff_env.game import Phase, new_game
from sniff_env.gamelog import game_log, seat_log
from sniff_env.play.session import HUMAN, SeatPlayer
from sniff_env.players import agents
from sniff_env.presets import make_rules
from sniff_env.web import replays, server, views
from sniff_env.web.app import create_app, told_players
from sniff_env.web.sessions import TableOptions


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    return TestClient(create_app(TableOptions(RULES, ("random",), games_dir=tmp_path_factory.mktemp("games"))))


@pytest.mark.parametrize("path", ["/static/index.html/", "/static/app.js/", "/static//app.js", "/static/"])
def test_static_files_answer_under_their_own_names_only(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404 and r.headers["X-Frame-Options"] == "DENY"
    assert client.get("/static/app.js").status_code == 200


def test_a_log_for_the_browser_names_players_never_the_servers_files(tmp_path: Path) -> None:
    seats = [SeatPlayer("You", HUMAN), SeatPlayer("mine", str(tmp_path / "secret" / "mine.onnx")),
             SeatPlayer("search", "search:simulations=50"), SeatPlayer("g", f"guided:agent={tmp_path}/x.onnx")]
    assert told_players(seats) == [HUMAN, "mine", "search:simulations=50", "g"]
    shipped = agents.shipped_agents()
    if not shipped:
        pytest.skip("no shipped agent is installed")
    agent = shipped.get("sniff-2p") or next(iter(shipped.values()))
    private = tmp_path / "private-folder" / "policy.onnx"
    private.parent.mkdir()
    shutil.copy(agent.path, private)
    client = TestClient(create_app(TableOptions(agent.rules, (str(private),), games_dir=tmp_path / "games")))
    game = client.post("/api/games").json()
    log = client.get(f"/api/games/{game['id']}/log")
    assert log.status_code == 200 and "private-folder" not in log.text and str(private) not in log.text
    assert log.json()["format"] == "sniff-seat-log" and log.json()["players"][1] == "policy"


def long_seat_record() -> dict[str, Any]:
    """A seat's record of 40 hands of the double-12 set between 4 seats: over 2,500 positions."""
    game = new_game(make_rules("sniff", 4, target=10**18, max_pip=12, hand_size=15), seed=1)
    for _ in range(40):
        if game.phase is not Phase.PLAY:
            game.start_hand()
        while game.phase is Phase.PLAY:
            game.step(game.legal_actions()[0])
    return json.loads(json.dumps(seat_log(game, 0, ["human", "random", "random", "random"])))


def test_a_decoy_list_does_not_hide_a_records_length(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    data = long_seat_record()
    assert sum(1 + len(h["events"]) for h in data["hands"]) > replays.MAX_FRAMES
    for hand in data["hands"]:
        hand["decisions"] = []
    monkeypatch.setattr(views, "seat_replay_frames", lambda log: pytest.fail("the record was replayed"))
    r = client.post("/api/replay", content=json.dumps(data))
    assert r.status_code == 413 and f"at most {replays.MAX_FRAMES:,}" in r.json()["error"], r.text[:300]


def test_a_resumed_game_is_open_as_soon_as_the_server_listens(tmp_path: Path) -> None:
    game = new_game(RULES, seed=8)
    while game.turn == 0:
        game.step(game.legal_actions()[0])
    log = tmp_path / "agents-to-move.json"
    log.write_text(json.dumps(game_log(game, [HUMAN, "search:budget_s=4"], {"human_seat": 0})))
    games = tmp_path / "games"
    started = time.perf_counter()
    proc, address, line = start_server(games, "--opponent", "random", "--resume", str(log))
    try:
        listening = time.perf_counter() - started
        game_id = line.split("?game=")[1].split()[0]
        http = httpx.Client(base_url=address, timeout=30)
        quick = time.perf_counter()
        assert http.get("/").status_code == 200 and time.perf_counter() - quick < 2.0
        deadline_at = time.monotonic() + 40
        while (view := http.get(f"/api/games/{game_id}")).status_code == 503 and time.monotonic() < deadline_at:
            assert "still busy" in view.json()["error"]
        assert view.status_code == 200 and view.json()["version"] == 1 and view.json()["your_turn"]
    finally:
        proc.terminate()
        proc.wait(10)
    assert listening < 30, f"the server listened after {listening:.0f} s"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_a_loopback_server_exposes_nothing_and_says_nothing(host: str) -> None:
    assert exposure(host) is None


def test_a_server_on_another_address_says_what_it_exposes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    for host in ("0.0.0.0", "::", "192.168.1.20", "table.example"):
        said = exposure(host)
        assert said and "anyone who can reach it can open the page" in said and "held by its link alone" in said
    assert "every address of this machine" in str(exposure("0.0.0.0"))
    monkeypatch.setattr(server, "serve", lambda app, sock, **kwargs: sock.close())
    assert serve_main(["--host", "0.0.0.0", "--port", "0", "--opponent", "random", "--games-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    address = next(i for i, line in enumerate(lines) if line.startswith("sniff table at http://0.0.0.0:"))
    assert lines[address + 1] == exposure("0.0.0.0")
