"""The worked examples of the rules text, move by move (counts, points, end-of-hand results)."""

from __future__ import annotations

import pytest
from conftest import play_moves

from sniff_env import make_rules, new_game
from sniff_env.scoring import round5, score_hand_end

# Spinner sniff, fives, two players alternating; drawing off so no forced draw interferes.
SPINNER = make_rules("sniff", 2, draw="none", boneyard_reserve=0, target=500)


def test_example_a_spinner_sniff_as_lead() -> None:
    p0 = [(5, 5), (3, 5), (5, 4), (2, 5), (1, 1), (6, 6), (0, 0)]
    p1 = [(5, 0), (0, 2), (2, 2), (3, 3), (1, 2), (4, 4), (6, 1)]
    game = new_game(SPINNER, seed=1, deal={"hands": [p0, p1], "leader": 0})
    moves = [
        ((5, 5), None), ((5, 0), "west"), ((3, 5), "east"), ((0, 2), "west"),
        ((5, 4), "north"), ((2, 2), "west"), ((2, 5), "west"), ((3, 3), "east"),
    ]
    counts = [10, 10, 13, 15, 14, 16, 17, 20]
    points = [10, 10, 0, 15, 0, 0, 0, 20]
    before = [0, 0]
    for (count, scores), want_count, want_points, mover in zip(
        play_moves(game, moves), counts, points, [0, 1] * 4, strict=True
    ):
        assert count == want_count
        assert scores[mover] - before[mover] == want_points
        before = scores


def test_example_b_sniff_ends_count_while_exposed() -> None:
    p0 = [(4, 4), (1, 4), (0, 0), (0, 1), (0, 2), (0, 3), (1, 1)]
    p1 = [(6, 4), (2, 2), (3, 3), (5, 5), (6, 6), (1, 2), (1, 3)]
    game = new_game(SPINNER, seed=1, deal={"hands": [p0, p1], "leader": 0})
    out = play_moves(game, [((4, 4), None), ((6, 4), "west"), ((1, 4), "east")])
    assert [c for c, _ in out] == [8, 14, 15]
    assert out[-1][1] == [15, 0]


def test_example_c_first_double_not_lead_is_the_sniff() -> None:
    p0 = [(3, 6), (1, 3), (0, 0), (0, 1), (0, 2), (5, 5), (1, 1)]
    p1 = [(3, 3), (2, 2), (4, 4), (0, 4), (6, 6), (1, 2), (2, 4)]
    game = new_game(SPINNER, seed=1, deal={"hands": [p0, p1], "leader": 0})
    out = play_moves(game, [((6, 3), None), ((3, 3), "west"), ((3, 1), "west")])
    assert [c for c, _ in out] == [9, 12, 13]
    assert out[-1][1] == [0, 0]
    assert game.sniff_tile == game.ts.index((3, 3))
    assert game.end_open[2] and game.end_open[3], "north and south of the sniff are open"


def test_example_d_muggins_double_crosswise() -> None:
    rules = make_rules("muggins", 2, draw="none")
    p0 = [(6, 4), (0, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2)]
    p1 = [(4, 4), (5, 5), (3, 3), (2, 2), (6, 6), (1, 3), (2, 3)]
    game = new_game(rules, seed=1, deal={"hands": [p0, p1], "leader": 0})
    out = play_moves(game, [((6, 4), None), ((4, 4), "west")])
    assert [c for c, _ in out] == [10, 14]
    assert out[-1][1] == [10, 0]
    assert not game.end_open[2], "muggins has no north/south ends"


@pytest.mark.parametrize(("inline", "count", "points"), [(False, 14, 0), (True, 10, 10)])
def test_example_e_double_choice(inline: bool, count: int, points: int) -> None:
    rules = make_rules("muggins-sniff", 2, draw="none")
    p0 = [(6, 1), (4, 4), (0, 0), (0, 2), (0, 3), (2, 2), (2, 3)]
    p1 = [(4, 1), (5, 5), (3, 3), (0, 5), (6, 6), (3, 5), (2, 5)]
    game = new_game(rules, seed=1, deal={"hands": [p0, p1], "leader": 0})
    out = play_moves(game, [((6, 1), None), ((4, 1), "west"), ((4, 4), "west", inline)])
    assert [c for c, _ in out] == [7, 10, count]
    assert out[-1][1][0] == points


@pytest.mark.parametrize(("x", "want"), [(3, 5), (2, 0), (26, 25), (14, 15), (0, 0), (-3, -5), (-2, 0)])
def test_round5(x: int, want: int) -> None:
    assert round5(x) == want


def test_hand_end_bonus_div5_example_000() -> None:
    rules = make_rules("sniff", 4)
    result = score_hand_end(rules, (3, 5, 11, 13), (1, 2, 3, 3), None)
    assert result.winner == 0 and result.side_points == (5, 0, 0, 0)


@pytest.mark.parametrize(("pips", "loss"), [(3, -5), (2, 0)])
def test_hand_end_subtract_own_example_001(pips: int, loss: int) -> None:
    rules = make_rules("sniff-us", 2)
    result = score_hand_end(rules, (pips, 0), (1, 0), 1)
    assert result.side_points == (loss, 0)


def test_hand_end_subtract_own_example_003() -> None:
    rules = make_rules("muggins", 2)
    result = score_hand_end(rules, (3 + 7 + 4, 0), (3, 0), 1)  # 1-2, 3-4, 2-2
    assert result.side_points == (-15, 0)


def test_hand_end_fewest_tiles_example_003_variation() -> None:
    rules = make_rules("muggins-sleepers", 2)
    result = score_hand_end(rules, (0, 26), (0, 5), 0)
    assert result.side_points == (5, 0)
    blocked = score_hand_end(rules, (10, 26), (2, 5), None)
    assert blocked.winner == 0 and blocked.side_points == (5, 0)


def test_hand_end_domino_takes_pips() -> None:
    rules = make_rules("sniff-digital", 3)
    assert score_hand_end(rules, (0, 12, 7), (0, 3, 2), 0).side_points == (19, 0, 0)
    blocked = score_hand_end(rules, (4, 12, 7), (1, 3, 2), None)
    # seat 0 takes 8 from seat 1 and 3 from seat 2; seat 2 takes 5 from seat 1
    assert blocked.side_points == (11, 0, 5)


def test_partnership_hand_end_scores_the_side() -> None:
    rules = make_rules("sniff-us", 4, partnership=True)
    result = score_hand_end(rules, (0, 8, 3, 12), (0, 2, 1, 3), 0)
    assert result.side_points == (-5, -20)
