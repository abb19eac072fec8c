"""Determinization, compiled: deals of what the seat to act cannot see, for the search to play on.

A deal gives the other hands, of their known sizes and without the pips each seat is known to
lack where the pool allows, and the boneyard in a random order (:func:`determinize`). Given
evidence (:mod:`sniff_env.players.beliefs`), a deal is kept with the likelihood of the others'
plays under it (:func:`plausible_deal`), so the deals follow the posterior of a model of how they
play. Only what the seat may know is read: its own hand, the tiles played, the hand sizes and the
known missing pips; the hidden tiles of the real game are never looked at.
"""

from __future__ import annotations

import numpy as np

from sniff_env.players.compiled.playouts import RolloutSpace
from sniff_env.players.compiled.splitmix import shuffle, uniform
from sniff_env.vector import compiled
from sniff_env.vector.arrays import Games, RuleTables
from sniff_env.vector.kernels import BONE_POS, HAND_COUNT, LACKING, P_N, P_T, TURN

_jit = compiled()
_inline = compiled(inline=True)  # small or hot helpers: a copy in each caller

MAX_TRIES = 64
"""Deals tried for one sample before the last is kept whatever its likelihood (see :func:`likelihood`)."""
Seen = tuple[np.ndarray, np.ndarray, np.ndarray]
"""The :class:`~sniff_env.players.beliefs.Evidence` as the compiled search takes it: seats, known odds, tile odds."""


@_inline
def likelihood(DH: np.ndarray, seats: np.ndarray, known: np.ndarray, odds: np.ndarray) -> float:
    """How likely the others' plays are under the deal in ``DH``, over their largest value (the
    product of :mod:`sniff_env.players.beliefs`; 1 without evidence)."""
    p = 1.0
    for k in range(seats.size):
        total = known[k]
        for t in range(odds.shape[1]):
            if DH[0, seats[k], t]:
                total += odds[k, t]
        p *= known[k] / total
    return p


@_jit
def determinize(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, P: np.ndarray, lo: np.ndarray,
                hi: np.ndarray, b: int, rng: np.ndarray, RH: np.ndarray, RB: np.ndarray, pool: np.ndarray,
                taken: np.ndarray) -> None:
    """Deal what the seat to act in game ``b`` cannot see into ``RH[0]`` (every hand; its own as
    it is) and ``RB[0]`` (the boneyard from ``BONE_POS`` on): other seats in order of how many
    pips they are known to lack, each taking tiles without those pips first."""
    T, n = P[P_T], P[P_N]
    seat = S[b, TURN]
    size = 0
    for t in range(T):
        RH[0, seat, t] = hands[b, seat, t]
        if hands[b, seat, t] == 0 and played_by[b, t] < 0:
            pool[size] = t
            size += 1
    shuffle(pool, 0, size, rng)
    for i in range(size):
        taken[i] = 0
    done = 0
    for _ in range(n - 1):
        pick, most = -1, -1  # the seat left with the most known missing pips
        for s in range(n):
            if s != seat and not (done >> s) & 1:
                lack = S[b, LACKING + s]
                count = 0
                while lack:
                    count += lack & 1
                    lack >>= 1
                if count > most:
                    pick, most = s, count
        done |= 1 << pick
        for t in range(T):
            RH[0, pick, t] = 0
        need = S[b, HAND_COUNT + pick]
        lack = S[b, LACKING + pick]
        for strict in (True, False):
            for i in range(size):
                if need == 0:
                    break
                t = pool[i]
                if taken[i] or (strict and ((lack >> lo[t]) & 1 or (lack >> hi[t]) & 1)):
                    continue
                taken[i] = 1
                RH[0, pick, t] = 1
                need -= 1
    pos = S[b, BONE_POS]
    for i in range(size):
        if not taken[i]:
            RB[0, pos] = pool[i]
            pos += 1


@_inline
def plausible_deal(games: Games, rules: RuleTables, b: int, rng: np.ndarray, work: RolloutSpace,
                   seen: Seen) -> None:
    """Deal into ``work.deal_hands`` and ``work.deal_bone`` (:func:`determinize`), keeping a deal
    with the :func:`likelihood` of the evidence ``seen`` under it; of :data:`MAX_TRIES` deals, the last."""
    DH = work.deal_hands
    for attempt in range(MAX_TRIES):
        determinize(games.S, games.hands, games.played, rules.P, rules.lo, rules.hi, b, rng, DH, work.deal_bone,
                    work.pool, work.taken)
        if seen[0].size == 0 or attempt == MAX_TRIES - 1 or uniform(rng) < likelihood(DH, seen[0], seen[1], seen[2]):
            return


@_jit
def sample_deals(games: Games, rules: RuleTables, b: int, rng: np.ndarray, work: RolloutSpace, seen: Seen,
                 out: np.ndarray) -> None:
    """``out[i]``: the hands of the ``i``-th deal the search of game ``b`` would play on."""
    DH = work.deal_hands
    for i in range(out.shape[0]):
        plausible_deal(games, rules, b, rng, work, seen)
        for s in range(DH.shape[1]):
            for t in range(DH.shape[2]):
                out[i, s, t] = DH[0, s, t]
