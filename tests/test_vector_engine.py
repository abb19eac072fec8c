"""Differential tests: the batched engine against the reference engine, step by step.

Every preset, with 2, 3 and 4 players and the 4-player partnership, plus overrides that reach
the remaining rule paths: both engines play the same seeded games with the same random legal
actions and must show the same seat, observation, mask, phase, scores, leader and winner at
every decision. ``SNIFF_SLOW=1`` runs a much larger sample.
"""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np
import pytest

from sniff_env.errors import IllegalMoveError
from sniff_env.game import Game, Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import Rules
from sniff_env.vector import kernels as K
from sniff_env.vector.engine import VectorEngine

SLOW = bool(os.environ.get("SNIFF_SLOW"))
GAMES = 100 if SLOW else 6
SEATINGS: list[tuple[int, dict[str, Any]]] = [(2, {}), (3, {}), (4, {}), (4, {"partnership": True})]
OVERRIDES: list[tuple[str, int, dict[str, Any]]] = [
    ("sniff", 2, {"scoring": "threes"}),
    ("sniff-digital", 3, {"scoring": "primes", "max_pip": 12}),
    ("sniff-us", 2, {"scoring": "fibonacci", "max_pip": 9}),
    ("sniff-english", 4, {"scoring": "threes_and_fives", "sniff_sides_open": "after_both_ends"}),
    ("sniff", 2, {"sniff_sides_open": "after_both_ends", "double_placement": "choice"}),
    ("sniff-english", 2, {"double_placement": "choice", "lead_tile": "highest_double"}),
    ("muggins", 4, {"partnership": True, "muggins_claims": True, "max_pip": 9, "hand_size": 9}),
    ("muggins-digital", 2, {"draw": "max_two", "must_play_drawn": True, "boneyard_reserve": 3}),
    ("sniff-cribbage", 3, {"next_hand_lead": "winner", "voluntary_draw": True, "must_play_drawn": True}),
]


def play_lockstep(
    rules: Rules, seeds: list[int], rng: random.Random, max_hands: int = 25,
    deals: list[dict[str, Any] | None] | None = None,
) -> int:
    """Play one game per seed in both engines with the same random legal actions, comparing
    everything at every decision; returns the number of decisions."""
    B = len(seeds)
    eng = VectorEngine(rules, B, max_hands=max_hands, threads=2 if B >= 512 else 1)
    eng.deal(np.arange(B), True, seeds, deals)
    games: list[Game] = [
        new_game(rules, seed=s, record=False, max_hands=max_hands, deal=deals[i] if deals else None)
        for i, s in enumerate(seeds)
    ]
    observer = Observer(rules)
    done = [False] * B
    decisions = 0
    while not all(done):
        actions = np.zeros(B, np.int64)
        for b, g in enumerate(games):
            if done[b]:
                continue
            info = info_state(g, g.turn)
            where = f"game {b} (seed {seeds[b]}), hand {g.hand_index}, play {len(g.plays)}"
            assert eng.turn[b] == g.turn, where
            assert eng.S[b, K.LEADER] == g.leader, where
            np.testing.assert_array_equal(eng.obs[b], observer.encode(info), err_msg=where)
            np.testing.assert_array_equal(eng.mask[b], observer.mask(info), err_msg=where)
            actions[b] = rng.choice(g.legal_actions())
        eng.step(actions)
        next_hand = []
        for b, g in enumerate(games):
            if done[b]:
                continue
            g.step(int(actions[b]))
            decisions += 1
            assert eng.phase[b] == int(g.phase), f"game {b}: phase"
            assert eng.scores[b].tolist() == g.scores, f"game {b}: scores"
            if g.phase is Phase.HAND_OVER:
                g.start_hand()
                next_hand.append(b)
            elif g.phase is Phase.GAME_OVER:
                done[b] = True
                assert eng.winner[b] == (-1 if g.winner is None else g.winner)
                assert eng.hand_index[b] == g.hand_index
        if next_hand:
            eng.deal(np.array(next_hand), False)
    return decisions


def _seeds(rules: Rules) -> list[int]:
    base = random.Random(repr(rules)).randrange(10**9)
    return [base + i for i in range(GAMES)]


@pytest.mark.parametrize("players,extra", SEATINGS, ids=["2p", "3p", "4p", "4p-partners"])
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_presets_match_reference(preset: str, players: int, extra: dict[str, Any]) -> None:
    rules = make_rules(preset, players, **extra)
    assert play_lockstep(rules, _seeds(rules), random.Random(1)) > 0


@pytest.mark.parametrize("preset,players,extra", OVERRIDES, ids=[f"{p}-{n}p-{'-'.join(e)}" for p, n, e in OVERRIDES])
def test_overrides_match_reference(preset: str, players: int, extra: dict[str, Any]) -> None:
    rules = make_rules(preset, players, **extra)
    assert play_lockstep(rules, _seeds(rules), random.Random(2)) > 0


def test_scripted_deals_match_reference() -> None:
    rules = make_rules("sniff", 2)
    hands = [[(6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1), (0, 0)],
             [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 2)]]
    deals: list[dict[str, Any] | None] = [{"hands": hands, "leader": 1}, {"hands": hands}, None]
    play_lockstep(rules, [3, 4, 5], random.Random(3), deals=deals)


def test_illegal_action_is_refused_and_state_kept() -> None:
    rules = make_rules("sniff", 2)
    eng = VectorEngine(rules, 4)
    eng.deal(np.arange(4), True, [0, 1, 2, 3])
    before = eng.S.copy()
    actions = eng.sample_actions(np.random.default_rng(0))
    actions[2] = eng.tables.observer.codec.draw_action
    with pytest.raises(IllegalMoveError, match="game 2"):
        eng.step(actions)
    np.testing.assert_array_equal(eng.S, before)


def test_random_actions_are_legal_and_uniform() -> None:
    eng = VectorEngine(make_rules("sniff", 2), 1)
    eng.deal(np.arange(1), True, [0])
    rng = np.random.default_rng(0)
    picks = [int(eng.sample_actions(rng)[0]) for _ in range(2000)]
    legal = np.flatnonzero(eng.mask[0])
    assert set(picks) == set(legal.tolist())


def test_deals_over_games_in_play_match_a_fresh_engine() -> None:
    """Observations are updated in place; a deal over games that are mid-hand (a new game with
    new seeds, or a scripted one) must leave no trace of the old hand."""
    rules = make_rules("sniff-cribbage", 3)
    B = 5
    eng = VectorEngine(rules, B, threads=1)
    eng.deal(np.arange(B), True, [1, 2, 3, 4, 5])
    rng = np.random.default_rng(4)
    for _ in range(9):
        eng.step(eng.sample_actions(rng))
        ended = np.flatnonzero(eng.phase != K.PLAY)
        if ended.size:
            eng.deal(ended, eng.phase[ended] == K.GAME_OVER, ended + 100)
    hands = [[(6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1)],
             [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6)],
             [(1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (2, 3)]]
    deals: list[dict[str, Any] | None] = [None, {"hands": hands, "leader": 2}, None, None, None]
    seeds = [10**12, 7, -5, 2**62, 31]  # keys of several lengths
    eng.deal(np.arange(B), True, seeds, deals)
    fresh = VectorEngine(rules, B, threads=1)
    fresh.deal(np.arange(B), True, seeds, deals)
    np.testing.assert_array_equal(eng.obs, fresh.obs)
    np.testing.assert_array_equal(eng.mask, fresh.mask)
    np.testing.assert_array_equal(eng.S, fresh.S)


def test_observations_are_read_only() -> None:
    eng = VectorEngine(make_rules("sniff", 2), 2)
    eng.deal(np.arange(2), True, [0, 1])
    for view in (eng.obs, eng.mask):
        with pytest.raises(ValueError, match="read-only"):
            view[0, 0] = 1
