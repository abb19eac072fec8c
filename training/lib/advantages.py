"""Generalised advantage estimation over interleaved decision chains.

In a turn-based game every (game, seat) is its own chain of decisions. The records may come in
any order as long as each chain's records are in time order; ``done`` marks a chain's last
decision of an episode.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def points_returns(games: np.ndarray, margin: np.ndarray, end: np.ndarray, gamma: float, scale: float) -> np.ndarray:
    """The discounted ``points`` return of each decision of one side: ``margin[i]`` is the side's
    score margin when decision ``i`` was taken, ``end[g]`` the margin at the end of game ``g``;
    ``games`` holds each decision's game, each game's decisions contiguous and in time order."""
    out = np.zeros(len(games), np.float32)
    acc = 0.0
    for i in range(len(games) - 1, -1, -1):
        last = i + 1 == len(games) or games[i + 1] != games[i]
        nxt = end[games[i]] if last else margin[i + 1]
        acc = (nxt - margin[i]) * scale + (0.0 if last else gamma * acc)
        out[i] = acc
    return out


def chain_advantages(
    rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, slots: np.ndarray,
    gamma: float, lam: float, bootstrap: Mapping[int, float] | None = None,
) -> np.ndarray:
    """GAE per chain (``slots`` names each record's chain). A chain whose newest record is not
    ``done`` continues from ``bootstrap[slot]``, or from that record's own value if absent."""
    boot = bootstrap or {}
    adv = np.zeros(len(rewards), np.float64)
    next_value: dict[int, float] = {}
    next_gae: dict[int, float] = {}
    for i in range(len(rewards) - 1, -1, -1):
        slot, value = int(slots[i]), float(values[i])
        if dones[i]:
            nv, g_next, nonterminal = 0.0, 0.0, 0.0
        elif slot in next_value:
            nv, g_next, nonterminal = next_value[slot], next_gae[slot], 1.0
        else:
            nv, g_next, nonterminal = boot.get(slot, value), 0.0, 1.0
        delta = float(rewards[i]) + gamma * nv * nonterminal - value
        adv[i] = delta + gamma * lam * nonterminal * g_next
        next_value[slot], next_gae[slot] = value, adv[i]
    return adv
