"""The chance of winning the game from a score: what a hand's result is worth, for two sides.

A search that values a move by its hand margin treats 10 points as 10 points at any score; the
game, though, is won by reaching the target first. :func:`win_odds` turns scores into the
chance that the side on the first axis wins: ``odds[a - low, b - low]`` for a side on ``a`` and
the other on ``b`` at the start of a hand. It is computed, for the rules at hand, from the hands
the heuristic plays against itself: the points each side gained in ``hands`` hands (each also
counted with the sides swapped, so neither side is favoured) give the law of one hand's result,
and value iteration over every pair of scores from ``low`` to ``target - 1`` solves the game to
the target under that law. A hand that ends with a side on the target or above is won by the
higher score, a tie counting half. Where hands can lose points, ``low`` is four of the worst
hands seen below 0, but no lower than half the target below 0, and lower scores read as ``low``.
Tables are cached per rule set.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sniff_env.players.compiled.baselines import CompiledBaselines
from sniff_env.rules import Rules
from sniff_env.vector import compiled
from sniff_env.vector import kernels as K
from sniff_env.vector.checks import BatchError
from sniff_env.vector.engine import VectorEngine

MAX_TARGET = 1000
"""The highest target a table is made for (a table holds ``(target - low)**2`` scores)."""
HANDS = 8000
"""Hands played to learn the law of one hand's result."""
SEED = 20261124
"""Seed of the games those hands start (a fixed one: the same rules always give the same table)."""
TOLERANCE = 1e-7
"""Value iteration stops when no entry moves by more than this."""


def hand_outcomes(rules: Rules, hands: int = HANDS, seed: int = SEED) -> np.ndarray:
    """``[hands, 2]`` int64: the points sides 0 and 1 gained in the first hand of ``hands``
    games of ``rules`` (seeds ``seed``, ``seed + 1``...) played by the heuristic in every seat."""
    engine = VectorEngine(rules, hands, threads=1)
    try:
        engine.deal(np.arange(hands), True, seeds=seed + np.arange(hands))
        bots = CompiledBaselines(engine)
        while (games := np.flatnonzero(engine.phase == K.PLAY)).size:
            actions = np.zeros(hands, np.int64)
            actions[games] = bots.heuristic(games)
            engine.step(actions)
        return engine.scores[:, :2].astype(np.int64)
    finally:
        engine.close()


@compiled()
def _iterate(odds: np.ndarray, gains: np.ndarray, weights: np.ndarray, low: int, target: int,
             tolerance: float) -> int:
    """Value iteration of ``odds`` in place (see the module); returns the sweeps it took."""
    size = target - low
    sweeps = 0
    while True:
        sweeps += 1
        change = 0.0
        for i in range(size - 1, -1, -1):  # from the top: most hands add points, so most reads are fresh
            for j in range(size - 1, -1, -1):
                a, b = i + low, j + low
                total = 0.0
                for k in range(gains.shape[0]):
                    na, nb = a + gains[k, 0], b + gains[k, 1]
                    if na >= target or nb >= target:
                        total += weights[k] * (1.0 if na > nb else 0.0 if na < nb else 0.5)
                    else:
                        total += weights[k] * odds[max(na, low) - low, max(nb, low) - low]
                change = max(change, abs(total - odds[i, j]))
                odds[i, j] = total  # Gauss-Seidel: later cells read the new value
        if change <= tolerance or sweeps >= 10_000:
            return sweeps


@compiled(inline=True)
def odds_at(odds: np.ndarray, low: int, target: int, mine: int, theirs: int) -> float:
    """The chance in ``odds`` (with its ``low``) of a side on ``mine`` against one on ``theirs``,
    each score held within the table (from ``low`` to ``target - 1``)."""
    top = target - 1
    return float(odds[min(max(mine, low), top) - low, min(max(theirs, low), top) - low])


@lru_cache(maxsize=16)
def win_odds(rules: Rules) -> tuple[np.ndarray, int]:
    """``(odds, low)`` for ``rules`` (see the module); :class:`BatchError` for rules with more
    than two sides or a target above :data:`MAX_TARGET`. The array is read-only."""
    if rules.num_sides != 2:
        raise BatchError(f"the chance of winning is tabled for two sides (2 players, or 4 in partnership); "
                         f"these rules have {rules.num_sides}")
    if rules.target > MAX_TARGET:
        raise BatchError(f"the chance of winning is tabled for targets up to {MAX_TARGET}; got target {rules.target}")
    results = hand_outcomes(rules)
    both = np.concatenate([results, results[:, ::-1]])
    gains, counts = np.unique(both, axis=0, return_counts=True)
    low = max(4 * min(0, int(gains.min())), -(rules.target // 2))  # room for a few losing hands
    odds = np.full((rules.target - low, rules.target - low), 0.5)
    _iterate(odds, np.ascontiguousarray(gains, np.int64), counts / counts.sum(), low, rules.target, TOLERANCE)
    odds.flags.writeable = False
    return odds, low
