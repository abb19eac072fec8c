"""The JSON game log: round trip, re-running to the same result, and clear errors on bad files."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from sniff_env.game import Game, Phase, new_game
from sniff_env.gamelog import (
    FORMAT,
    SEAT_FORMAT,
    VERSION,
    GameLogError,
    load_game_log,
    parse_game_log,
    save_game_log,
    seat_log,
)
from sniff_env.presets import make_rules
from sniff_env.tiles import mask_tiles


def play_out(game: Game, seed: int, decisions: int | None = None) -> Game:
    """Random play (with a muggins claim now and then), to the end or for ``decisions`` moves."""
    rng = random.Random(seed)
    done = 0
    while game.phase is not Phase.GAME_OVER and (decisions is None or done < decisions):
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))], claim=rng.random() < 0.7)
        done += 1
    return game


@pytest.fixture()
def finished(tmp_path: Path) -> tuple[Game, Path]:
    game = play_out(new_game(make_rules("sniff", 2, target=40, muggins_claims=True), seed=7), 7)
    path = save_game_log(game, tmp_path / "game.json", ["human", "random"], {"human_seat": 0})
    return game, path


def edit(path: Path, change: Any) -> Path:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


def test_round_trip(finished: tuple[Game, Path]) -> None:
    game, path = finished
    data = json.loads(path.read_text())
    assert data["format"] == FORMAT and data["version"] == VERSION
    assert data["rules"]["muggins_claims"] is True
    first = data["hands"][0]
    assert set(first["deal"]) == {"hands", "boneyard", "leader", "lots"}
    assert {"seat", "action", "move", "claim"} <= set(first["decisions"][0])
    assert first["result"]["lines"] and first["events"][0]["kind"] in ("lots", "deal")
    log = load_game_log(path)
    assert log.finished and log.game.scores == game.scores == data["scores"]
    assert log.game.winner == game.winner == data["winner"]
    assert log.records == game.records
    assert log.players == ["human", "random"] and log.meta == {"human_seat": 0}
    assert [p.name for p in path.parent.iterdir()] == ["game.json"]  # no temporary file left


def test_a_game_in_progress_resumes_where_it_stopped(tmp_path: Path) -> None:
    game = play_out(new_game(make_rules("sniff-us", 3), seed=3, max_hands=5), 3, decisions=30)
    log = load_game_log(save_game_log(game, tmp_path / "g.json", ["a", "b", "c"]))
    assert not log.finished and log.max_hands == 5
    again = log.game
    assert (again.phase, again.turn, again.hands, again.scores) == (game.phase, game.turn, game.hands, game.scores)
    assert again.legal_actions() == game.legal_actions()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.update(format="chess-pgn"), "not a sniff game log"),
        (lambda d: d.update(version=99), "log version 99"),
        (lambda d: d["rules"].update(scoring="sevens"), "rules cannot be read"),
        (lambda d: d.update(scores=[999, 0]), "re-run to scores"),
        (lambda d: d.update(players=["solo"]), "must name each of the 2 seats"),
        (lambda d: d["hands"][0]["decisions"][0].update(move="6-6 north"), "but the log says '6-6 north'"),
        (lambda d: d["hands"][0]["decisions"][0].update(action=100000), "out of range"),
        (lambda d: d["hands"][0]["deal"]["hands"][0].append([9, 9]), "bad deal"),
        (lambda d: d.update(winner=5), "winner"),
        (lambda d: d["hands"][0]["decisions"].pop(), "hand 1"),
    ],
)
def test_tampered_logs_are_refused(finished: tuple[Game, Path], change: Any, says: str) -> None:
    with pytest.raises(GameLogError) as err:
        load_game_log(edit(finished[1], change))
    assert says in str(err.value)


def test_a_changed_move_does_not_replay(finished: tuple[Game, Path]) -> None:
    _, path = finished
    data = json.loads(path.read_text())
    dec = data["hands"][0]["decisions"][1]
    dec["action"] = data["hands"][0]["decisions"][0]["action"]  # a tile that is already on the table
    dec.pop("move")
    path.write_text(json.dumps(data))
    with pytest.raises(GameLogError, match="decision 2: the recorded move does not replay"):
        load_game_log(path)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(GameLogError, match="cannot read"):
        load_game_log(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "sniff-game-log", "vers')
    with pytest.raises(GameLogError, match="not valid JSON"):
        load_game_log(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(GameLogError, match="not a JSON object"):
        load_game_log(bad)


def test_a_seat_log_holds_only_what_the_seat_may_know() -> None:
    game = new_game(make_rules("sniff", 2, target=200), seed=123_456_789_012)
    while game.hand_index < 1 or len(game.hand_actions) < 4:  # into the second hand
        play_out(game, 3, decisions=1)
    data = seat_log(game, 0, ["human", "random"], {"human_seat": 0})
    assert data["format"] == SEAT_FORMAT and not data["finished"] and "seed" not in data
    assert "123456789012" not in json.dumps(data)
    first, current = data["hands"]
    assert first["result"]["lines"] and "result" not in current
    assert [tuple(t) for t in current["your_tiles"]] == [game.ts.tiles[t] for t in game.deal.hands[0]]
    assert [e["kind"] for e in current["events"]][:1] in (["deal"], ["lots"])
    unseen = {game.ts.name(t) for t in [*mask_tiles(game.hands[1]), *game.boneyard[game.bone_pos:]]}
    named = {e.get("tile") for e in current["events"]} | {"-".join(map(str, t)) for t in current["your_tiles"]}
    assert not unseen & named, "no tile still hidden from seat 0 is named in this hand"
    drawn_by_other = [e for e in current["events"] if e["kind"] == "draw" and e["seat"] == 1]
    assert all(e["tile"] is None for e in drawn_by_other)
    with pytest.raises(GameLogError, match="in progress"):
        parse_game_log(data)


def test_an_exclusive_save_never_replaces_a_file(finished: tuple[Game, Path]) -> None:
    game, path = finished
    before = path.read_text()
    with pytest.raises(FileExistsError):
        save_game_log(game, path, ["human", "random"], exclusive=True)
    assert path.read_text() == before and sorted(p.name for p in path.parent.iterdir()) == ["game.json"]
    blocker = path.parent / "blocker"
    blocker.write_text("")
    with pytest.raises(NotADirectoryError):
        save_game_log(game, blocker / "game.json", ["human", "random"], exclusive=True)


def test_a_result_that_is_not_a_mapping_is_refused(finished: tuple[Game, Path]) -> None:
    _, path = finished
    edit(path, lambda d: d["hands"][0].__setitem__("result", [1, 2]))
    with pytest.raises(GameLogError, match="'result' must be a mapping"):
        load_game_log(path)


def test_nesting_too_deep_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(GameLogError, match="nested too deeply"):
        load_game_log(path)
