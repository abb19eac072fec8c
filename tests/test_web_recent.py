"""The list of recent finished games and their replays: newest first, finished games only (the log
of a game in play holds its seed and every hand), read without dealing or writing anything."""

from __future__ import annotations

import json
import os
import random
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("httpx", reason="the FastAPI test client needs httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from sniff_env.game import Game, Phase, new_game
from sniff_env.gamelog import save_game_log
from sniff_env.presets import make_rules
from sniff_env.web.app import create_app
from sniff_env.web.sessions import TableOptions


def played(preset: str, seed: int, finish: bool = True, players: int = 2) -> Game:
    """A game of random moves to its end (or a few moves into it)."""
    game = new_game(make_rules(preset, players, target=30), seed=seed)
    rng = random.Random(seed)
    moves = 0
    while game.phase is not Phase.GAME_OVER and (finish or moves < 5):
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        game.step(rng.choice(game.legal_actions()))
        moves += 1
    return game


def write(folder: Path, name: str, game: Game, specs: list[str], names: list[str], age_s: float) -> Path:
    path = save_game_log(game, folder / name, specs, {"human_seat": 0, "names": names})
    stamp = 1_700_000_000 - age_s
    os.utime(path, (stamp, stamp))
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    games = tmp_path / "games"
    games.mkdir()
    write(games, "web-old.json", played("sniff", 1), ["human", "random"], ["You", "random"], 300)
    write(games, "20240101-new.json", played("muggins", 2, players=3), ["human", "greedy", "/srv/secret/policy.onnx"],
          ["You", "greedy", "policy"], 100)
    write(games, "web-in-play.json", played("sniff", 3, finish=False), ["human", "random"], ["You", "random"], 0)
    (games / "junk.json").write_text("{not json")
    (games / ".web-x.json.1234.tmp").write_text("{}")
    (games / "link.json").symlink_to(games / "web-old.json")
    return games


def client_for(folder: Path) -> TestClient:
    options = TableOptions(make_rules("sniff", 2, target=30), ("random",), seed=5, games_dir=folder)
    return TestClient(create_app(options))


def listing(folder: Path) -> set[tuple[str, float]]:
    return {(p.name, p.stat(follow_symlinks=False).st_mtime) for p in folder.iterdir()}


def test_the_finished_games_newest_first_and_nothing_dealt_or_written(folder: Path) -> None:
    client = client_for(folder)
    before = listing(folder)
    games: list[dict[str, Any]] = client.get("/api/recent").json()["games"]
    assert [g["name"] for g in games] == ["20240101-new.json", "web-old.json"], "finished games only, newest first"
    new, old = games
    assert new["preset"] == "muggins" and new["players"] == ["You", "greedy", "policy"] and len(new["scores"]) == 3
    assert old["preset"] == "sniff" and old["target"] == 30 and old["date"] < new["date"]
    for g in games:
        assert g["result"].endswith(("win", "wins")) or g["result"] == "a draw"
        assert g["yours"] in (True, False, None)
    frames = client.get("/api/recent/20240101-new.json")
    assert frames.status_code == 200, frames.text
    data = frames.json()
    assert len(data["frames"]) > 3 and data["frames"][-1]["phase"] == "game_over"
    assert "/srv/secret" not in frames.text, "a file of the server is named by its player's name"
    assert not client.app.state.store.tables, "nothing is dealt"  # type: ignore[attr-defined]
    assert listing(folder) == before, "listing and replaying write nothing"


@pytest.mark.parametrize(("name", "status", "says"), [
    ("web-in-play.json", 404, "not a finished game"),
    ("nothing.json", 404, "no game log"),
    ("link.json", 404, "no game log"),
    ("junk.json", 422, "not valid JSON"),
    (".web-x.json.1234.tmp", 422, "not the name of a game log"),
    ("..%2Fgames%2Fweb-old.json", 404, ""),
])
def test_a_game_that_is_not_a_finished_log_here_is_refused(folder: Path, name: str, status: int, says: str) -> None:
    answer = client_for(folder).get(f"/api/recent/{name}")
    assert answer.status_code == status, answer.text
    assert says in answer.json()["error"]
    assert '"seed"' not in answer.text and str(folder) not in answer.text


def test_an_empty_or_missing_folder_lists_nothing(tmp_path: Path) -> None:
    assert client_for(tmp_path / "none").get("/api/recent").json() == {"games": []}
    assert json.loads(client_for(tmp_path).get("/api/recent").text) == {"games": []}
