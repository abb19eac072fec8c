"""The compiled greedy and heuristic players against the reference players, decision by decision.

Both engines play the same seeded games; at every decision the compiled kernels must choose
what :class:`GreedyPlayer` and :class:`HeuristicPlayer` choose from the seat's information state.
The game itself moves on by a random legal action, so that the states cover the whole game.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from sniff_env.game import Game, Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.players.compiled import baselines as VB
from sniff_env.players.greedy import GreedyPlayer
from sniff_env.players.heuristic import HeuristicPlayer, Weights
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import Rules
from sniff_env.vector.engine import VectorEngine

GAMES = 4
CASES: list[tuple[str, int, dict[str, Any]]] = [(p, 2, {}) for p in PRESET_NAMES] + [
    ("sniff", 3, {}),
    ("sniff", 4, {"partnership": True}),
    ("muggins", 4, {}),
    ("sniff-digital", 3, {"scoring": "primes", "max_pip": 12}),
    ("sniff", 2, {"sniff_sides_open": "after_both_ends", "double_placement": "choice"}),
    ("sniff-english", 2, {"double_placement": "choice", "scoring": "threes"}),
    ("muggins-sniff", 3, {"voluntary_draw": True}),
]
TUNED = Weights(reply=1.3, follow_up=0.5, pip=0.2, pip_late=0.4, double=1.0, variety=0.8, playable=0.2,
                draw_threshold=-3.0, block=2.0)


def lockstep(rules: Rules, seeds: list[int], weights: Weights, rng: random.Random) -> int:
    B = len(seeds)
    eng = VectorEngine(rules, B, max_hands=6, threads=1)
    eng.deal(np.arange(B), True, seeds)
    games: list[Game] = [new_game(rules, seed=s, record=False, max_hands=6) for s in seeds]
    greedy_ref, heur_ref = GreedyPlayer(), HeuristicPlayer(weights=weights)
    tiebreak_ref = GreedyPlayer(tiebreak="heuristic")
    fast = VB.CompiledBaselines(eng, weights)
    fast_tb = VB.CompiledBaselines(eng, greedy_tiebreak="heuristic")
    done = [False] * B
    checked = 0
    while not all(done):
        live = np.array([b for b in range(B) if not done[b]], np.int64)
        greedy, heur, tiebreak = fast.greedy(live), fast.heuristic(live), fast_tb.greedy(live)
        actions = np.zeros(B, np.int64)
        for i, b in enumerate(live.tolist()):
            g = games[b]
            info = {"info_state": info_state(g, g.turn)}
            where = f"game {b} (seed {seeds[b]}), hand {g.hand_index}, play {len(g.plays)}"
            assert greedy[i] == greedy_ref.act(None, info), f"greedy, {where}"
            assert heur[i] == heur_ref.act(None, info), f"heuristic, {where}"
            assert tiebreak[i] == tiebreak_ref.act(None, info), f"greedy with the heuristic tiebreak, {where}"
            checked += 1
            actions[b] = rng.choice(g.legal_actions())
        eng.step(actions)
        next_hand = []
        for b in live.tolist():
            g = games[b]
            g.step(int(actions[b]))
            if g.phase is Phase.HAND_OVER:
                g.start_hand()
                next_hand.append(b)
            elif g.phase is Phase.GAME_OVER:
                done[b] = True
        if next_hand:
            eng.deal(np.array(next_hand), False)
    return checked


@pytest.mark.parametrize("preset,players,extra", CASES, ids=[f"{p}-{n}p-{'-'.join(e)}" for p, n, e in CASES])
def test_compiled_players_match_reference(preset: str, players: int, extra: dict[str, Any]) -> None:
    rules = make_rules(preset, players, **extra)
    base = random.Random(repr(rules)).randrange(10**9)
    seeds = [base + i for i in range(GAMES)]
    assert lockstep(rules, seeds, Weights(), random.Random(3)) > 50


def test_compiled_heuristic_takes_any_weights() -> None:
    rules = make_rules("sniff", 2)
    assert lockstep(rules, [11, 12, 13], TUNED, random.Random(4)) > 50


def test_counter_term_and_unknown_tiebreak_are_refused() -> None:
    with pytest.raises(ValueError, match="counter"):
        VB.weight_vector(Weights(counter=0.5))
    with pytest.raises(ValueError, match="tiebreak must be one of lowest, heuristic"):
        GreedyPlayer(tiebreak="best")
    eng = VectorEngine(make_rules("sniff", 2), 2)
    with pytest.raises(ValueError, match="tiebreak must be one of"):
        VB.CompiledBaselines(eng, greedy_tiebreak="best")


def test_tiebreak_changes_some_choices_and_only_among_ties() -> None:
    """The heuristic tiebreak picks a placement of the same points and tile weight as the plain
    greedy's, and differs from it somewhere (else the option would do nothing)."""
    from sniff_env.actions import action_codec
    from sniff_env.layout import points_after
    from sniff_env.tiles import tile_set

    rules = make_rules("sniff", 2)
    codec, pips = action_codec(rules.max_pip), tile_set(rules.max_pip).pips
    plain, tb = GreedyPlayer(), GreedyPlayer(tiebreak="heuristic")
    rng, differ = random.Random(8), 0
    for seed in range(6):
        g = new_game(rules, seed=seed, record=False, max_hands=1)
        while g.phase is Phase.PLAY:
            info = info_state(g, g.turn)
            a, b = plain.act(None, {"info_state": info}), tb.act(None, {"info_state": info})
            assert points_after(info, a) == points_after(info, b)
            assert pips[codec.decode(a)[0]] == pips[codec.decode(b)[0]]
            differ += a != b
            g.step(rng.choice(g.legal_actions()))
    assert differ > 0
