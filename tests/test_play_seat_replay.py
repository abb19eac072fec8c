"""A seat's record of a game in progress (``sniff-seat-log``), laid out again without the engine:
what it shows after every move is what the engine showed that seat (the layout, its own tiles,
the hand sizes, the boneyard, the scores), for every preset, player count, muggins and doubles
laid in line; a record that does not add up is refused with a message saying where."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from sniff_env.game import Game, Phase, new_game
from sniff_env.gamelog import GameLogError, seat_log
from sniff_env.infostate import info_state
from sniff_env.play.seat_replay import parse_log, parse_seat_log, seat_positions
from sniff_env.presets import PRESET_NAMES, make_rules


def random_steps(game: Game, seed: int, moves: int) -> Iterator[int]:
    """Random moves (claims now and then) in ``game``, ``moves`` long or to its end: the number of
    each move, once it is played."""
    rng = random.Random(seed)
    for step in range(moves):
        if game.phase is Phase.GAME_OVER:
            break
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        game.step(rng.choice(game.legal_actions()), claim=rng.random() < 0.7)
        yield step


def played(rules: Any, seed: int, moves: int) -> Game:
    """A game of random moves (claims now and then), ``moves`` long or to its end."""
    game = new_game(rules, seed=seed, max_hands=4)
    for _ in random_steps(game, seed, moves):
        pass
    return game


def check(game: Game, seat: int) -> None:
    """The last position of ``seat``'s record of ``game`` is what the engine shows that seat."""
    players = ["human", *["random"] * (game.n - 1)]
    log = parse_seat_log(json.loads(json.dumps(seat_log(game, seat, players))))
    positions = list(seat_positions(log))
    last, real = positions[-1].info, info_state(game, seat)
    assert (last.plays, last.end_pip, last.end_val, last.end_open, last.sniff_tile, last.count) == (
        real.plays, tuple(real.end_pip), tuple(real.end_val), tuple(real.end_open), real.sniff_tile, real.count)
    assert (last.hand, last.hand_sizes, last.boneyard_size, list(last.scores), last.phase) == (
        real.hand, tuple(real.hand_sizes), real.boneyard_size, game.scores, game.phase)
    assert all(p.sheet[-1].total == tuple(p.info.scores) for p in positions)
    assert positions[0].number == 0


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_position_is_what_the_seat_saw(name: str) -> None:
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        extra = {"muggins_claims": True, "double_placement": "choice"} if seed % 2 else {}
        game = new_game(make_rules(name, players, **extra), seed=seed, max_hands=3)
        for step in random_steps(game, seed, 90):
            if step % 6 == 5:
                check(game, step % players)


def test_a_finished_hand_and_the_game_end() -> None:
    game = played(make_rules("sniff", 2, target=30), 4, 400)
    assert game.phase is Phase.GAME_OVER
    log = parse_seat_log(seat_log(game, 1, ["human", "random"]))
    assert log.finished
    positions = list(seat_positions(log))
    ends = [p for p in positions if p.result is not None]
    assert len({p.hand_index for p in ends}) == len(game.results)
    assert positions[-1].info.phase is Phase.GAME_OVER and list(positions[-1].info.scores) == game.scores


def broken(data: dict[str, Any], **change: Any) -> dict[str, Any]:
    """``data`` with each ``a__0__b=value`` set (``data["a"][0]["b"] = value``)."""
    out = copy.deepcopy(data)
    for where, value in change.items():
        node: Any = out
        *path, leaf = where.split("__")
        for part in path:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(leaf) if leaf.isdigit() else leaf] = value
    return out


def test_a_record_that_does_not_add_up_is_refused() -> None:
    game = played(make_rules("sniff", 2, target=200), 9, 30)
    data = json.loads(json.dumps(seat_log(game, 0, ["human", "random"])))
    events = data["hands"][0]["events"]
    play = next(i for i, e in enumerate(events) if e["kind"] == "play" and e["end"] != "lead")
    other_draw = next((i for i, e in enumerate(events) if e["kind"] == "draw" and e["seat"] == 1), None)
    own_play = next(i for i, e in enumerate(events) if e["kind"] == "play" and e["seat"] == 0)
    cases = [
        (broken(data, hands__0__events__0__kind="shuffle"), "is not an event of a game"),
        (broken(data, **{f"hands__0__events__{play}__count": events[play]["count"] + 1}), "not the recorded"),
        (broken(data, **{f"hands__0__events__{play}__end": "north"}), "cannot be laid"),
        (broken(data, scores=[999, 0]), "add up to scores"),
        (broken(data, hands__0__your_tiles=data["hands"][0]["your_tiles"][:-1]), "different tiles"),
        (broken(data, seat=5), "'seat' must be a seat"),
        (broken(data, format="sniff-game-log"), "lacks 'seed'"),
        (broken(data, version=9), "version 9"),
    ]
    tile = events[own_play]["tile"]
    stranger = next(f"{a}-{b}" for a in range(7) for b in range(a, 7)
                    if [a, b] not in data["hands"][0]["your_tiles"] and f"{a}-{b}" != tile)
    cases.append((broken(data, **{f"hands__0__events__{own_play}__tile": stranger}), "which it does not hold"))
    if other_draw is not None:
        cases.append((broken(data, **{f"hands__0__events__{other_draw}__tile": "0-0"}), "never shows a tile"))
    for bad, says in cases:
        with pytest.raises(GameLogError, match=says):
            parse_log(bad, "the log")
