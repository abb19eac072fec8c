"""The study of what the hidden tiles are worth: its clairvoyant yardsticks and belief measure."""

from __future__ import annotations

import pytest

from training.studies import information_value
from training.studies.self_play import self_play, self_play_games


def test_a_search_that_sees_every_tile_beats_one_that_does_not() -> None:
    """On the same deals, seats swapped, the clairvoyant search wins most games against the
    honest one with the same playouts, and reports a time per decision."""
    wins, games, per_move = information_value.match(("sees-all", 16, 4, 5, tuple(range(10))))
    assert games == 20
    assert wins >= 15
    assert per_move > 0


def test_beliefs_are_shares_of_the_real_hand() -> None:
    """Every belief measured is a share between 0 and 1, one per decision after the first three
    plays, for no inference and each sharpness asked."""
    shares = information_value.beliefs(("heuristic", 4, (0.5,)))
    assert set(shares) == {"0.0", "0.5"}
    assert len(shares["0.0"]) == len(shares["0.5"]) > 10
    assert all(0.0 <= s <= 1.0 for values in shares.values() for s in values)
    assert 0.1 < sum(shares["0.0"]) / len(shares["0.0"]) < 0.6


def test_self_play_games_shows_the_game_behind_each_state() -> None:
    """The game beside each state is the one the state was read from (the seat's own hand), and
    the plain self-play yields the same decisions."""
    pairs = list(self_play("heuristic", 9))
    triples = [(game.hands[state.seat], state, action) for game, state, action in self_play_games("heuristic", 9)]
    assert [(s, a) for _, s, a in triples] == pairs
    assert all(hand == state.hand for hand, state, _ in triples)


@pytest.mark.parametrize("argv", [["--players", "oracle"], ["--games", "3"], ["--infer", "x"], ["--shuffles", "0"]])
def test_the_study_refuses_bad_arguments(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        information_value.main(argv)
    assert exc.value.code == 2
