"""A seat's record whose events could not have happened is refused, naming the hand and the
event; a record's check and its positions take time linear in its size, in ``sniff replay`` as
in the web table's replay (forged passes once made a replay quadratic)."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import pytest
from hostile import deadline  # noqa: F401  (a time limit for every test)

from sniff_env.cli import main
from sniff_env.game import Game, Phase, new_game
from sniff_env.gamelog import GameLogError, game_log, seat_log
from sniff_env.play.seat_replay import max_events, parse_seat_log, seat_positions
from sniff_env.presets import make_rules


def in_play(moves: int = 4, **rules: Any) -> Game:
    """A 2-player game some first-legal moves in."""
    game = new_game(make_rules("sniff", 2, target=200, **rules), seed=5)
    while game.phase is Phase.PLAY and len(game.hand_actions) < moves:
        game.step(game.legal_actions()[0])
    assert game.phase is Phase.PLAY
    return game


def record(game: Game, seat: int) -> dict[str, Any]:
    """``seat``'s record of ``game`` (JSON data)."""
    return json.loads(json.dumps(seat_log(game, seat, ["human", "random"])))


def appended(data: dict[str, Any], *events: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    out["hands"][-1]["events"].extend(events)
    return out


def test_forged_events_are_refused_saying_where() -> None:
    game = in_play()
    to_move, other = game.turn, 1 - game.turn
    mine, theirs = record(game, to_move), record(game, other)  # the mover's draws are hidden in theirs
    blocked = in_play(draw="none")
    block_mine = record(blocked, blocked.turn)  # it holds a tile that fits: it is to move, and may not draw
    own_events = len(mine["hands"][-1]["events"])
    first = mine["hands"][0]["events"]
    lead = next(i for i, e in enumerate(first) if e["kind"] == "deal") + 1
    cases = [
        ("a pass out of turn", appended(mine, {"kind": "pass", "seat": other}),
         f"event {own_events + 1}: seat {other} moves (pass) when it is seat {to_move}'s turn"),
        ("a pass while the seat may draw", appended(mine, {"kind": "pass", "seat": to_move}),
         "passes while it may still draw"),
        ("a pass on the lead", {**mine, "hands": [{**mine["hands"][0], "events": [
            *first[:lead], {"kind": "pass", "seat": first[lead - 1]["seat"]}, *first[lead:]]}]},
         f"event {lead + 1}: a pass on the lead"),
        ("three draws in a turn of draw-two rules",
         appended(theirs, *[{"kind": "draw", "seat": to_move, "tile": None}] * 3), "draws more than the rules' max_two"),
        ("the recording seat passes holding a tile that fits",
         appended(block_mine, {"kind": "pass", "seat": blocked.turn}), "which fits an open end"),
        ("passes beyond what a hand can hold",
         appended(mine, *[{"kind": "pass", "seat": s % 2} for s in range(20_000)]),
         f"at most {max_events(game.rules):,} events"),
    ]
    for what, data, says in cases:
        with pytest.raises(GameLogError, match="the log, hand 1, event ") as refused:
            parse_seat_log(data, "the log")
        assert says in str(refused.value), (what, str(refused.value))


def test_sniff_replay_refuses_a_log_of_forged_passes_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = in_play()
    data = record(game, 0)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(appended(data, *[{"kind": "pass", "seat": s % 2} for s in range(40_000)])))
    assert path.stat().st_size > 900_000
    started = time.perf_counter()
    assert main(["replay", str(path), "--all"]) == 2
    assert time.perf_counter() - started < 5.0
    assert f"hand 1, event {max_events(game.rules) + 1}: a hand of these rules" in capsys.readouterr().err


def long_record(hands: int) -> dict[str, Any]:
    """A legal record of ``hands`` short hands (the double-3 set, a target out of reach)."""
    game = new_game(make_rules("sniff", 2, target=10**18, max_pip=3, hand_size=3, boneyard_reserve=0), seed=1)
    for _ in range(hands):
        if game.phase is not Phase.PLAY:
            game.start_hand()
        while game.phase is Phase.PLAY:
            game.step(game.legal_actions()[0])
    return json.loads(json.dumps(seat_log(game, 0, ["human", "random"])))


def replay_seconds(data: dict[str, Any]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in seat_positions(parse_seat_log(data)):
            pass
        best = min(best, time.perf_counter() - started)
    return best


def test_a_records_positions_take_time_linear_in_its_hands() -> None:
    small, large = long_record(400), long_record(1600)
    ratio = replay_seconds(large) / replay_seconds(small)
    assert ratio < 4 * 2, f"4 times the hands took {ratio:.1f} times as long"  # quadratic: about 16


def test_the_positions_share_the_hand_and_the_sheet() -> None:
    positions = list(seat_positions(parse_seat_log(long_record(30))))
    assert len({id(p.done) for p in positions}) == 1
    for p in positions:
        assert p.hand_events is positions[0].hand_events or p.hand_index > 0
        assert p.sheet[-1] == p.row and len(p.sheet) == p.hand_index + 1
        assert p.fresh == p.events[p.new:]


def test_stepping_through_a_full_log_copies_no_game_per_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    game = new_game(make_rules("sniff", 2, target=10**18, max_pip=3, hand_size=3, boneyard_reserve=0), seed=1)
    for _ in range(40):
        if game.phase is not Phase.PLAY:
            game.start_hand()
        while game.phase is Phase.PLAY:
            game.step(game.legal_actions()[0])
    path = tmp_path / "long.json"
    path.write_text(json.dumps(game_log(game, ["human", "random"], {"human_seat": 0})))
    steps = sum(1 + len(r.actions) for r in game.records)
    answers = iter(["", "b", "", ""] + [""] * steps)
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(answers))
    copies = 0
    real = Game.copy

    def counted(self: Game) -> Game:
        nonlocal copies
        copies += 1
        return real(self)

    monkeypatch.setattr(Game, "copy", counted)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert copies <= 2 * len(game.records) + 2, f"{copies} copies for {steps} steps"  # a hand's start copies once
    assert out.count("── hand 1 ──") == 2 and "final scores" not in out and "the log ends mid-game" in out
