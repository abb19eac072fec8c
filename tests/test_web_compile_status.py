"""The web table tells a waiting page what the server compiles: ``/api/status`` reports the search
compiling in the background (a first start) and a compile under way in the server itself, and
every game the server starts waits for the background compile at its searching agent's move."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("httpx", reason="the FastAPI test client needs httpx")

with warnings.catch_warnings():  # the test client's own deprecation notice
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from sniff_env.presets import make_rules
from sniff_env.vector.notices import NOTICES
from sniff_env.web.app import create_app
from sniff_env.web.sessions import TableOptions


class Compiling:
    """A stand-in for :class:`sniff_env.play.warm.Warming` whose compile is under way until told."""

    def __init__(self) -> None:
        self.done = False

    def ready(self) -> bool:
        return self.done

    def progress(self) -> str:
        return "compiling the search (once): 12 s of about 30 s so far"

    def wait(self, report: Any = None) -> None:
        self.done = True


def _client(tmp_path: Path) -> TestClient:
    options = TableOptions(rules=make_rules("sniff"), opponents=("random",), seed=5, games_dir=tmp_path)
    return TestClient(create_app(options))


def test_the_status_says_what_compiles_and_games_wait_for_it(tmp_path: Path) -> None:
    client = _client(tmp_path)
    assert client.get("/api/status").json() == {"compiling": False, "progress": ""}
    warming = Compiling()
    client.app.state.store.warming = warming  # type: ignore[attr-defined]
    assert client.get("/api/status").json() == {"compiling": True, "progress": warming.progress()}
    game = client.post("/api/games").json()
    session = client.app.state.store.get(game["id"]).session  # type: ignore[attr-defined]
    assert session.warming is warming  # a searching agent of this game waits for it at its move
    warming.done = True
    assert client.get("/api/status").json() == {"compiling": False, "progress": ""}


def test_the_status_reports_a_compile_in_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(tmp_path)
    monkeypatch.setattr(NOTICES, "current", lambda: "compiling the search (search_actions): 4 s so far")
    assert client.get("/api/status").json() == {
        "compiling": True, "progress": "compiling the search (search_actions): 4 s so far"}
