"""The chance of winning from a score, and the search that values playouts by it: the table is a
fair, monotone game solved from the heuristic's hands; a playout's value reads it exactly; bad
requests are refused; the players built on it play on their seat's information only."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

from sniff_env import make_rules, new_game
from sniff_env.game import Phase
from sniff_env.infostate import InfoState, determinize, info_state
from sniff_env.players import PlayerSpecError, load
from sniff_env.players.compiled.rollouts import MARGIN_WEIGHT, RolloutSearch, rollout_value, workspace
from sniff_env.players.compiled.win_odds import MAX_TARGET, hand_outcomes, win_odds
from sniff_env.players.guided import points_to_chance
from sniff_env.vector import kernels as K
from sniff_env.vector.checks import BatchError
from sniff_env.vector.engine import VectorEngine

RULES = make_rules("sniff", 2)


def test_the_table_is_a_fair_game_that_rewards_points() -> None:
    odds, low = win_odds(RULES)
    size = RULES.target - low
    assert odds.shape == (size, size) and low == 0 and not odds.flags.writeable
    assert np.allclose(odds + odds.T, 1.0, atol=1e-5)  # the sides are alike: a at b is 1 - b at a
    assert odds[0, 0] == pytest.approx(0.5, abs=1e-6)
    assert (np.diff(odds, axis=0) >= -1e-6).all() and (np.diff(odds, axis=1) <= 1e-6).all()
    assert odds[95, 0] > 0.9 and odds[0, 95] < 0.1 and odds[60, 40] > odds[40, 20] > 0.5


def test_hands_that_lose_points_get_room_below_zero() -> None:
    rules = make_rules("sniff-us", 2)
    odds, low = win_odds(rules)
    assert -rules.target // 2 <= low < 0 and odds.shape == (rules.target - low,) * 2
    assert np.allclose(odds + odds.T, 1.0, atol=1e-4)


def test_the_law_of_a_hand_depends_on_the_seed_only() -> None:
    first = hand_outcomes(RULES, 64, seed=5)
    assert first.shape == (64, 2) and (first >= 0).all() and first.sum() > 0
    assert np.array_equal(hand_outcomes(RULES, 64, seed=5), first)
    assert not np.array_equal(hand_outcomes(RULES, 64, seed=6), first)


@pytest.mark.parametrize("rules,message", [
    (make_rules("sniff", 3), "two sides .* these rules have 3"),
    (make_rules("sniff", 2, target=MAX_TARGET + 1), f"targets up to {MAX_TARGET}; got target {MAX_TARGET + 1}"),
])
def test_rules_without_a_table_are_refused(rules: object, message: str) -> None:
    with pytest.raises(BatchError, match=message):
        win_odds(rules)  # type: ignore[arg-type]


def _ended(scores: tuple[int, int], phase: int, winner: int) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    """A game with seat 0 to act at 30 - 40, and a rollout of it that ended on ``scores``."""
    engine = VectorEngine(RULES, 1, threads=1)
    engine.deal(np.arange(1), True, [3])
    S = engine.S.copy()
    S[0, K.TURN], S[0, K.SCORES], S[0, K.SCORES + 1] = 0, 30, 40
    work = workspace(engine)
    RS = work[2]
    RS[0] = S[0]
    RS[0, K.SCORES], RS[0, K.SCORES + 1], RS[0, K.PHASE], RS[0, K.WINNER] = *scores, phase, winner
    return S, work, engine.tables.params


@pytest.mark.parametrize("scores,phase,winner,chance", [
    ((55, 45), K.HAND_OVER, -1, None),  # the table at the scores the hand ended on
    ((105, 45), K.GAME_OVER, 0, 1.0),
    ((45, 105), K.GAME_OVER, 1, 0.0),
    ((105, 105), K.GAME_OVER, -1, 0.5),
])
def test_a_playout_is_worth_its_chance_of_winning(scores: tuple[int, int], phase: int, winner: int,
                                                   chance: float | None) -> None:
    odds, low = win_odds(RULES)
    S, work, P = _ended(scores, phase, winner)
    margin = (scores[0] - 30) - (scores[1] - 40)
    expected = odds[scores[0] - low, scores[1] - low] if chance is None else chance
    assert rollout_value(S, P, 0, work, odds, low) == pytest.approx(expected + MARGIN_WEIGHT * margin, abs=1e-12)
    assert rollout_value(S, P, 0, work, np.zeros((0, 0)), 0) == margin  # no table: the margin


def test_search_values_are_chances_and_options_are_checked() -> None:
    engine = VectorEngine(RULES, 1, threads=1)
    engine.deal(np.arange(1), True, [8])
    q = RolloutSearch(engine, samples=8, seed=1, value="win").q_values(np.zeros(1, np.int64))[0]
    legal = q[np.isfinite(q)]
    assert legal.size == engine.S[0, K.NLEGAL] and (legal > -0.01).all() and (legal < 1.01).all()
    with pytest.raises(ValueError, match="value must be one of 'margin', 'win'; got 'points'"):
        RolloutSearch(engine, samples=8, value="points")


@pytest.mark.parametrize("spec", ["rollouts:value=points", "guided:value=chance"])
def test_an_unknown_value_is_refused_by_the_spec(spec: str) -> None:
    with pytest.raises((PlayerSpecError, ValueError), match="value must be one of 'margin', 'win'"):
        load(spec)


def test_three_sides_are_refused_at_the_first_move() -> None:
    game = new_game(make_rules("sniff", 3), seed=1, record=False)
    while len(game.legal_actions()) < 2:
        game.step(game.legal_actions()[0])
    with pytest.raises(BatchError, match="two sides"):
        load("rollouts:samples=2,value=win").act({}, {"info_state": info_state(game, game.turn)})


@pytest.mark.parametrize("spec", ["rollouts:samples=6,value=win", "guided:samples=4,value=win"])
def test_choice_ignores_hidden_tiles(spec: str) -> None:
    assert_choices_ignore_hidden_tiles(spec, 21)


def assert_choices_ignore_hidden_tiles(spec: str, seed: int, wanted: Callable[[InfoState], bool] | None = None) -> None:
    """At 4 decisions of a random 2-player game (with a choice, and ``wanted`` where given), a twin
    with the same public history and own hand but other hidden tiles gets the same choice."""
    game, rng, compared = new_game(RULES, seed=seed, record=False), random.Random(seed), 0
    while game.phase is not Phase.GAME_OVER and compared < 4:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        state = info_state(game, game.turn)
        if len(state.legal) > 1 and (wanted is None or wanted(state)):
            twin = determinize(state, random.Random(compared))
            if twin.hands != game.hands:
                assert info_state(twin, state.seat) == state
                assert load(spec, seed=3).act({}, {"info_state": state}) == load(spec, seed=3).act(
                    {}, {"info_state": info_state(twin, state.seat)})
                compared += 1
        game.step(rng.choice(game.legal_actions()))
    assert compared == 4


def test_a_point_is_worth_more_near_the_target() -> None:
    game = new_game(RULES, seed=4, record=False)
    state = info_state(game, game.turn)
    early = points_to_chance(state)
    assert 0 < early < 0.05
    late = points_to_chance(state._replace(scores=(85, 85)))
    assert late > early
