"""The forgiving move parser: every accepted spelling, and the explanations of wrong entries."""

from __future__ import annotations

import pytest
from conftest import action_for

from sniff_env.game import Game, new_game
from sniff_env.play.moves import MoveInputError, parse_move
from sniff_env.presets import make_rules

HANDS = [
    [(5, 5), (5, 0), (3, 2), (6, 6), (1, 4), (0, 0), (2, 4)],
    [(5, 3), (5, 1), (6, 1), (6, 2), (6, 3), (6, 4), (6, 5)],
]


def fresh() -> Game:
    return new_game(make_rules("sniff", 2), seed=1, deal={"hands": HANDS, "leader": 0})


@pytest.fixture()
def game() -> Game:
    """Seat 0 led 5-5 (the sniff), seat 1 put 5-3 on west: ends west 3, east/north/south 5."""
    g = fresh()
    g.step(action_for(g, (5, 5), None))
    g.step(action_for(g, (5, 3), "west"))
    assert g.turn == 0
    return g


@pytest.mark.parametrize(
    ("text", "tile", "end"),
    [
        ("5-0 east", (5, 0), "east"),
        ("50e", (5, 0), "east"),
        ("0-5 e", (5, 0), "east"),
        ("5:0 E", (5, 0), "east"),
        ("  5 0   North ", (5, 0), "north"),
        ("play 5-0 on the south end", (5, 0), "south"),
        ("3-2", (3, 2), "west"),
        ("32", (3, 2), "west"),
        ("2:3 W", (3, 2), "west"),
        ("23 left", (3, 2), "west"),
    ],
)
def test_spellings(game: Game, text: str, tile: tuple[int, int], end: str) -> None:
    move = parse_move(game, text)
    assert move.action == action_for(game, tile, end)
    assert move.claim is False


def test_list_number_and_claim(game: Game) -> None:
    legal = game.legal_actions()
    assert parse_move(game, "1").action == legal[0]
    assert parse_move(game, str(len(legal))).action == legal[-1]
    assert parse_move(game, "50e!").claim is True
    assert parse_move(game, "2 claim").claim is True
    options = list(reversed(legal))
    assert parse_move(game, "1", options).action == legal[-1]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "could not read"),
        ("garbage", "do not know the word 'garbage'"),
        ("9", "no move number 9"),
        ("4-5", "do not hold 4-5"),
        ("6-6", "6-6 does not fit any open end"),
        ("3-2 east", "2-3 does not fit east (east end: 5); it fits west"),
        ("5-0", "0-5 can go more than one way"),
        ("9-9 w", "not in the double-6 set"),
        ("5-0-3", "could not read a tile"),
        ("draw", "cannot draw now"),
        ("lead 5-0", "lead has already been played"),
        ("5-0 west east", "two ends"),
    ],
)
def test_wrong_entries_explain(game: Game, text: str, says: str) -> None:
    with pytest.raises(MoveInputError) as err:
        parse_move(game, text)
    message = str(err.value)
    assert says in message
    assert "your tiles: 0-0 0-5 1-4 2-3 2-4 6-6" in message
    assert "open ends: west 3, east 5, north 5, south 5" in message
    assert "legal moves: 1) " in message


def test_the_lead_needs_no_end() -> None:
    g = fresh()
    lead = action_for(g, (6, 6), None)
    for text in ("6-6", "lead 6-6", "66", "6-6 west"):
        assert parse_move(g, text).action == lead



@pytest.mark.parametrize("text", ["-1", "- 2", "-10"])
def test_a_negative_number_is_not_a_move(game: Game, text: str) -> None:
    with pytest.raises(MoveInputError, match="There is no move number -"):
        parse_move(game, text)
