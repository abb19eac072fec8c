"""Determinized rollout search, compiled: the heuristic player improved by playing each move out.

For the seat to act, each sample deals the tiles it cannot see (the other hands, of their known
sizes and without the pips each seat is known to lack where the pool allows, and the boneyard in
a random order); every legal move is then played on that same deal and the hand is played out
by the heuristic player in every seat. A move's value is the mean, over the samples, of the
points its side gains to the end of the hand less what the other sides gain (the mean of them);
the search plays the best (ties: the lowest action). With ``value="win"`` (two sides) a playout is
worth instead the chance of winning the game from the scores it ended on
(:mod:`sniff_env.players.compiled.win_odds`). Given evidence (:mod:`sniff_env.players.beliefs`), a deal is kept
with the likelihood of the others' plays under it, so the deals follow the posterior of a model
of how they play. Only what the seat may know is read: its
own hand, the tiles played, the layout, the hand sizes, the known missing pips and the
boneyard's size; the hidden tiles of the real game are never looked at.

Randomness comes from an explicit 64-bit state (splitmix64) that the caller seeds.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from sniff_env.game import forced_lead
from sniff_env.infostate import InfoState
from sniff_env.players.beliefs import Evidence, no_evidence
from sniff_env.players.compiled.baselines import heuristic_choice, weight_vector
from sniff_env.players.compiled.win_odds import odds_at, win_odds
from sniff_env.players.specs import MAX_SAMPLES, MAX_THREADS
from sniff_env.players.strategy import Weights
from sniff_env.rules import Rules
from sniff_env.vector import compiled
from sniff_env.vector import kernels as K
from sniff_env.vector.checks import positive_int
from sniff_env.vector.compiled_rules import side_of
from sniff_env.vector.engine import VectorEngine
from sniff_env.vector.kernels import (
    BONE_LEN,
    BONE_POS,
    GAME_OVER,
    HAND_COUNT,
    LACKING,
    NLEGAL,
    NS,
    P_N,
    P_PARTNER,
    P_RESERVE,
    P_SIDES,
    P_T,
    P_TARGET,
    PHASE,
    PLAY,
    SCORES,
    TURN,
    WINNER,
    apply_action,
)

VALUES = ("margin", "win")
"""What a playout may be worth (see :class:`RolloutSearch`)."""
NO_ODDS = np.zeros((0, 0), np.float64)
NO_ODDS.flags.writeable = False  # read-only like every odds table, so that the search has one signature
"""The empty odds table: playouts are worth their margin (see :func:`rollout_value`)."""

_jit = compiled()
_inline = compiled(inline=True)  # small or hot helpers: a copy in each caller


def mix64(z: Any) -> Any:
    """splitmix64's finaliser: 64 well-mixed bits of ``z``, a ``uint64`` or an array of them
    (wrapping as unsigned arithmetic does; numpy warns of the overflow unless told not to)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


_mix64 = _inline(mix64)


@_inline
def _next(state: np.ndarray) -> np.uint64:
    """splitmix64: advance ``state[0]`` and return the next 64 random bits."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    bits: np.uint64 = _mix64(state[0])
    return bits


@_inline
def below(state: np.ndarray, n: int) -> int:
    """A random whole number from 0 to ``n - 1`` from the splitmix64 state ``state[0]``."""
    return int(_next(state) % np.uint64(n))


@_inline
def uniform(state: np.ndarray) -> float:
    """A random number in [0, 1) from the splitmix64 state ``state[0]``."""
    return float(_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


MAX_TRIES = 64
"""Deals tried for one sample before the last is kept whatever its likelihood (see :func:`likelihood`)."""


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


@_inline
def shuffle(a: np.ndarray, first: int, end: int, rng: np.ndarray) -> None:
    """Shuffle ``a[first:end]`` in place (Fisher-Yates, from its end)."""
    for i in range(end - 1, first, -1):
        j = first + below(rng, i - first + 1)
        a[i], a[j] = a[j], a[i]


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
def plausible_deal(S: np.ndarray, hands: np.ndarray, played: np.ndarray, P: np.ndarray, lo: np.ndarray,
                   hi: np.ndarray, b: int, rng: np.ndarray, work: tuple[np.ndarray, ...],
                   seen: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    """Deal into ``work``'s first two arrays (:func:`determinize`), keeping a deal with the
    :func:`likelihood` of the evidence ``seen`` under it; of :data:`MAX_TRIES` deals, the last."""
    DH, DB, pool, taken = work[0], work[1], work[10], work[11]
    for attempt in range(MAX_TRIES):
        determinize(S, hands, played, P, lo, hi, b, rng, DH, DB, pool, taken)
        if seen[0].size == 0 or attempt == MAX_TRIES - 1 or uniform(rng) < likelihood(DH, seen[0], seen[1], seen[2]):
            return


@_jit
def sample_deals(S: np.ndarray, hands: np.ndarray, played: np.ndarray, P: np.ndarray, lo: np.ndarray,
                 hi: np.ndarray, b: int, rng: np.ndarray, work: tuple[np.ndarray, ...],
                 seen: tuple[np.ndarray, np.ndarray, np.ndarray], out: np.ndarray) -> None:
    """``out[i]``: the hands of the ``i``-th deal the search of game ``b`` would play on."""
    DH = work[0]
    for i in range(out.shape[0]):
        plausible_deal(S, hands, played, P, lo, hi, b, rng, work, seen)
        for s in range(DH.shape[1]):
            for t in range(DH.shape[2]):
                out[i, s, t] = DH[0, s, t]


@_inline
def load_game(S: np.ndarray, played: np.ndarray, b: int, DH: np.ndarray, DB: np.ndarray, RS: np.ndarray,
              RH: np.ndarray, RP: np.ndarray, RB: np.ndarray, r: int) -> None:
    """Set game ``r`` of the arrays ``RS, RH, RP, RB`` (state, hands, play record, boneyard) to
    game ``b`` with the deal ``DH[0], DB[0]`` (every hand, and the boneyard)."""
    for c in range(RS.shape[1]):
        RS[r, c] = S[b, c]
    for c in range(RP.shape[1]):
        RP[r, c] = played[b, c]
    for s in range(RH.shape[1]):
        for t in range(RH.shape[2]):
            RH[r, s, t] = DH[0, s, t]
    for t in range(RB.shape[1]):
        RB[r, t] = DB[0, t]


@_inline
def load_deal(S: np.ndarray, played: np.ndarray, b: int, work: tuple[np.ndarray, ...]) -> None:
    """Set the rollout game of ``work`` to game ``b`` with the deal in ``work``'s first two arrays
    (every hand, and the boneyard)."""
    load_game(S, played, b, work[0], work[1], work[2], work[3], work[4], work[5], 0)


@_inline
def apply_move(P: np.ndarray, lo: np.ndarray, hi: np.ndarray, pip_tiles: np.ndarray, score_tab: np.ndarray,
               act_tile: np.ndarray, act_slot: np.ndarray, work: tuple[np.ndarray, ...], a: int) -> bool:
    """Play action ``a`` in the rollout game of ``work`` and the forced draws and passes after it;
    whether the hand goes on (the next decision's legal actions are then in ``work``'s ``RL``)."""
    RS, RH, RP, RB, RL = work[2], work[3], work[4], work[5], work[6]
    apply_action(RS, RH, RP, RB, 0, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, a, RL)
    return bool(RS[0, PHASE] == PLAY)


@_inline
def margin_at(S: np.ndarray, P: np.ndarray, b: int, RS: np.ndarray, r: int) -> float:
    """What the side to act in game ``b`` gained in game ``r`` of ``RS`` (a game played on from
    it) less the mean of what the other sides gained."""
    sides = P[P_SIDES]
    me = side_of(S[b, TURN], P[P_PARTNER])
    mine, others = 0.0, 0.0
    for s in range(sides):
        gain = RS[r, SCORES + s] - S[b, SCORES + s]
        if s == me:
            mine = gain
        else:
            others += gain
    return mine - others / (sides - 1)


@_inline
def rollout_margin(S: np.ndarray, P: np.ndarray, b: int, work: tuple[np.ndarray, ...]) -> float:
    """:func:`margin_at` of the rollout game of ``work``."""
    return margin_at(S, P, b, work[2], 0)


MARGIN_WEIGHT = 1e-5
"""With win odds, a playout's value also holds this much per point of margin, which only breaks
ties (the odds of every move alike, e.g. when the game is settled either way)."""


@_inline
def value_at(S: np.ndarray, P: np.ndarray, b: int, RS: np.ndarray, r: int, odds: np.ndarray, low: int) -> float:
    """The value of game ``r`` of ``RS`` (a game played on from game ``b``) to the side to act in
    game ``b``: its margin (:func:`margin_at`) when ``odds`` is empty, else its chance of winning
    the game from the scores it ended on (``odds`` of
    :func:`sniff_env.players.compiled.win_odds.win_odds`, for two sides; 1, 0 or one half where
    the game ended) plus :data:`MARGIN_WEIGHT` times the margin."""
    margin = margin_at(S, P, b, RS, r)
    if odds.shape[0] == 0:
        return margin
    me = side_of(S[b, TURN], P[P_PARTNER])
    if RS[r, PHASE] == GAME_OVER:
        winner = RS[r, WINNER]
        chance = 0.5 if winner < 0 else 1.0 if winner == me else 0.0
    else:
        chance = odds_at(odds, low, P[P_TARGET], RS[r, SCORES + me], RS[r, SCORES + 1 - me])
    return chance + MARGIN_WEIGHT * margin


def value_odds(rules: Rules, value: str) -> tuple[np.ndarray, int]:
    """The ``odds`` and ``low`` that :func:`value_at` reads for ``value``: the win odds of
    :func:`~sniff_env.players.compiled.win_odds.win_odds` for ``"win"``, else none (the margin)."""
    return win_odds(rules) if value == "win" else (NO_ODDS, 0)


@_jit
def values_at(S: np.ndarray, P: np.ndarray, b: int, RS: np.ndarray, odds: np.ndarray, low: int,
              out: np.ndarray) -> None:
    """:func:`value_at` of every game of ``RS`` into ``out``: playouts made elsewhere (by a
    network, :mod:`sniff_env.players.net_playouts`) valued as the search values its own."""
    for r in range(RS.shape[0]):
        out[r] = value_at(S, P, b, RS, r, odds, low)


@_inline
def rollout_value(S: np.ndarray, P: np.ndarray, b: int, work: tuple[np.ndarray, ...], odds: np.ndarray,
                  low: int) -> float:
    """:func:`value_at` of the rollout game of ``work``."""
    return value_at(S, P, b, work[2], 0, odds, low)


@_jit
def play_on(P: np.ndarray, lo: np.ndarray, hi: np.ndarray, pip_tiles: np.ndarray, score_tab: np.ndarray,
            act_tile: np.ndarray, act_slot: np.ndarray, W: np.ndarray, work: tuple[np.ndarray, ...]) -> None:
    """Play the rollout game of ``work`` to the end of the hand, the heuristic in every seat."""
    RS, RH, RP, RL, row, scratch, values = work[2], work[3], work[4], work[6], work[7], work[8], work[9]
    while RS[0, PHASE] == PLAY:
        a = heuristic_choice(RS, RH, RP, P, lo, hi, score_tab, act_tile, act_slot, RL, 0, W, row, scratch, values)
        apply_move(P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, work, a)


@_jit
def _play_each(S: np.ndarray, played: np.ndarray, P: np.ndarray, lo: np.ndarray, hi: np.ndarray,
               pip_tiles: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
               legal: np.ndarray, b: int, W: np.ndarray, work: tuple[np.ndarray, ...], totals: np.ndarray,
               odds: np.ndarray, low: int) -> None:
    """Add to ``totals[j]`` the value (:func:`rollout_value`) of ``legal[b, j]`` played on the deal
    in ``work``'s first two arrays (every hand, and the boneyard) and the hand played out by the
    heuristic (:func:`play_on`)."""
    for j in range(S[b, NLEGAL]):
        load_deal(S, played, b, work)
        apply_move(P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, work, legal[b, j])
        play_on(P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, W, work)
        totals[j] += rollout_value(S, P, b, work, odds, low)


@_inline
def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    """Copy ``src`` into ``dst`` (of one shape) element by element; compiled code allocates nothing."""
    flat_d, flat_s = dst.reshape(-1), src.reshape(-1)
    for i in range(flat_d.size):
        flat_d[i] = flat_s[i]


@_inline
def keep_rollout(work: tuple[np.ndarray, ...], back: bool) -> None:
    """Copy the rollout game of ``work`` aside (``back`` false) or back from that copy."""
    if back:
        _copy(work[2], work[12])
        _copy(work[3], work[13])
        _copy(work[4], work[14])
        _copy(work[5], work[15])
    else:
        _copy(work[12], work[2])
        _copy(work[13], work[3])
        _copy(work[14], work[4])
        _copy(work[15], work[5])


@_jit
def _play_each_reply(S: np.ndarray, played: np.ndarray, P: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                     pip_tiles: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
                     legal: np.ndarray, b: int, W: np.ndarray, work: tuple[np.ndarray, ...], totals: np.ndarray,
                     odds: np.ndarray, low: int) -> None:
    """:func:`_play_each` one ply deeper: where the next decision after the move is another
    side's, each of that seat's legal replies is played out (the heuristic from there on) and the
    move is worth the least of their values (with two sides, the reply that side likes best on
    this deal, which it sees whole)."""
    RS, RL, replies = work[2], work[6], work[16]
    me = side_of(S[b, TURN], P[P_PARTNER])
    for j in range(S[b, NLEGAL]):
        load_deal(S, played, b, work)
        if apply_move(P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, work, legal[b, j]) \
                and side_of(RS[0, TURN], P[P_PARTNER]) != me and RS[0, NLEGAL] > 1:
            k = RS[0, NLEGAL]
            for r in range(k):
                replies[r] = RL[0, r]
            keep_rollout(work, False)
            worst = np.inf
            for r in range(k):
                if r:
                    keep_rollout(work, True)
                apply_move(P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, work, replies[r])
                play_on(P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, W, work)
                worst = min(worst, rollout_value(S, P, b, work, odds, low))
            totals[j] += worst
            continue
        play_on(P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, W, work)
        totals[j] += rollout_value(S, P, b, work, odds, low)


SOLVE_MOST = 16
"""The most tiles still to play (held, and still to be drawn) at which a search may solve the
rest of the hand exactly on each deal (``solve``)."""
SOLVE_CACHE = 256
"""Distinct deals whose solved values a search keeps while it values one choice: a deal sampled
again is looked up by its 64-bit key (:func:`deal_key`), not solved again (late in a hand few
deals are possible)."""


@_inline
def tiles_to_play(S: np.ndarray, b: int, P: np.ndarray) -> int:
    """The tiles in every hand of game ``b`` and those still to be drawn: no hand outlasts them."""
    total = 0
    for s in range(P[P_N]):
        total += S[b, HAND_COUNT + s]
    return int(total + max(0, S[b, BONE_LEN] - S[b, BONE_POS] - P[P_RESERVE]))


@_inline
def _push(stack: tuple[np.ndarray, ...], d: int) -> None:
    """Copy game ``d`` of the solver's ``stack`` into game ``d + 1``."""
    _copy(stack[0][d + 1], stack[0][d])
    _copy(stack[1][d + 1], stack[1][d])
    _copy(stack[2][d + 1], stack[2][d])
    _copy(stack[3][d + 1], stack[3][d])


@_inline
def _fold(P: np.ndarray, me: int, stack: tuple[np.ndarray, ...], d: int, v: float) -> None:
    """Take a child's value ``v`` into game ``d`` of the solver's ``stack``: its best so far and
    its alpha-beta window, for the side to act there."""
    RS, alpha, beta, best = stack[0], stack[8], stack[9], stack[10]
    if side_of(RS[d, TURN], P[P_PARTNER]) == me:
        best[d] = max(best[d], v)
        alpha[d] = max(alpha[d], best[d])
    else:
        best[d] = min(best[d], v)
        beta[d] = min(beta[d], best[d])


@_inline
def _enter(P: np.ndarray, me: int, stack: tuple[np.ndarray, ...], d: int, alpha: float, beta: float) -> None:
    """Start searching game ``d`` of the solver's ``stack`` within the window ``(alpha, beta)``."""
    RS, child, low_end, high_end, best = stack[0], stack[7], stack[8], stack[9], stack[10]
    child[d], low_end[d], high_end[d] = 0, alpha, beta
    best[d] = -np.inf if side_of(RS[d, TURN], P[P_PARTNER]) == me else np.inf


@_jit
def solved_value(S: np.ndarray, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, pip_tiles: np.ndarray,
                 score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray, b: int, me: int,
                 stack: tuple[np.ndarray, ...], root: int, odds: np.ndarray, low: int) -> float:
    """The value (:func:`value_at`) of game ``root`` of ``stack`` to side ``me`` (the side to act
    in game ``b``) with every seat seeing the whole deal and playing its best to the end of the
    hand: minimax with alpha-beta pruning, exact at ``root``. It walks the tree with the stack's
    games ``root + 1`` on as its path (a loop, not recursion, whose compiled code numba cannot
    cache): a hand of ``k`` tiles still to play ends within ``2k`` decisions, since a decision
    lays a tile or draws one that was still to be drawn."""
    RS, RH, RP, RB, RL = stack[0], stack[1], stack[2], stack[3], stack[4]
    child, alpha, beta, best = stack[7], stack[8], stack[9], stack[10]
    if RS[root, PHASE] != PLAY:
        return value_at(S, P, b, RS, root, odds, low)
    _enter(P, me, stack, root, -np.inf, np.inf)
    d = root
    while True:
        if child[d] < RS[d, NLEGAL] and alpha[d] < beta[d]:
            a = RL[d, child[d]]
            child[d] += 1
            _push(stack, d)
            apply_action(RS, RH, RP, RB, d + 1, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, a, RL)
            if RS[d + 1, PHASE] != PLAY:
                _fold(P, me, stack, d, value_at(S, P, b, RS, d + 1, odds, low))
            else:
                _enter(P, me, stack, d + 1, alpha[d], beta[d])
                d += 1
            continue
        if d == root:
            return float(best[d])
        d -= 1
        _fold(P, me, stack, d, best[d + 1])


@_inline
def _mix(h: np.uint64, x: int) -> np.uint64:
    """``h`` and ``x`` mixed into 64 bits (the splitmix64 finalizer), order-sensitive."""
    z = (h ^ np.uint64(x)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@_inline
def deal_key(S: np.ndarray, P: np.ndarray, b: int, work: tuple[np.ndarray, ...]) -> np.uint64:
    """A 64-bit key of the deal in ``work``'s first two arrays as far as play can tell it apart:
    every hand, and the tiles still to be drawn in their order (the reserve's order never shows)."""
    DH, DB = work[0], work[1]
    T = P[P_T]
    h = np.uint64(0)
    for s in range(P[P_N]):
        for t in range(T):
            if DH[0, s, t]:
                h = _mix(h, s * T + t + 1)
    for k in range(S[b, BONE_POS], S[b, BONE_LEN] - P[P_RESERVE]):
        h = _mix(h, (P[P_N] + 1) * T + DB[0, k])
    return h


@_jit
def _solve_each(S: np.ndarray, played: np.ndarray, P: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                pip_tiles: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
                legal: np.ndarray, b: int, work: tuple[np.ndarray, ...], stack: tuple[np.ndarray, ...],
                totals: np.ndarray, odds: np.ndarray, low: int, stored: int) -> int:
    """Add to ``totals[j]`` the solved value (:func:`solved_value`) of ``legal[b, j]`` on the deal
    in ``work``'s first two arrays; a deal among the ``stored`` ones of ``stack``'s cache is
    looked up instead. Return how many deals the cache then holds."""
    DH, DB = work[0], work[1]
    RS, RH, RP, RB, keys, cached = stack[0], stack[1], stack[2], stack[3], stack[5], stack[6]
    k = S[b, NLEGAL]
    key = deal_key(S, P, b, work)
    for i in range(stored):
        if keys[i] == key:
            for j in range(k):
                totals[j] += cached[i, j]
            return stored
    load_game(S, played, b, DH, DB, RS, RH, RP, RB, 0)
    me = side_of(S[b, TURN], P[P_PARTNER])
    keep = stored < keys.size
    for j in range(k):
        _push(stack, 0)
        apply_action(RS, RH, RP, RB, 1, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, legal[b, j], stack[4])
        v = solved_value(S, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, b, me, stack, 1, odds, low)
        totals[j] += v
        if keep:
            cached[stored, j] = v
    if keep:
        keys[stored] = key
        return stored + 1
    return stored


@_jit
def rollout_values(S: np.ndarray, hands: np.ndarray, played: np.ndarray, P: np.ndarray, lo: np.ndarray,
                   hi: np.ndarray, pip_tiles: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray,
                   act_slot: np.ndarray, legal: np.ndarray, b: int, W: np.ndarray, samples: int, rng: np.ndarray,
                   work: tuple[np.ndarray, ...], totals: np.ndarray, odds: np.ndarray, low: int,
                   seen: tuple[np.ndarray, np.ndarray, np.ndarray], depth: int, solve: int,
                   stack: tuple[np.ndarray, ...]) -> None:
    """``totals[j]``: the summed value of ``legal[b, j]`` over ``samples`` deals (see the module).
    ``played`` is the engine's whole ``[B, 2T]`` play record; ``work`` is :func:`workspace`'s;
    ``seen`` the :class:`~sniff_env.players.beliefs.Evidence` each deal is kept with the likelihood of
    (of up to :data:`MAX_TRIES` deals, the last is kept). Where at most ``solve`` tiles are still
    to play, each deal's hand is solved (:func:`_solve_each`, ``stack`` of :func:`solver_space`)
    instead of played out."""
    for j in range(S[b, NLEGAL]):
        totals[j] = 0.0
    solving = solve > 0 and tiles_to_play(S, b, P) <= solve
    stored = 0
    for _ in range(samples):
        plausible_deal(S, hands, played, P, lo, hi, b, rng, work, seen)
        if solving:
            stored = _solve_each(S, played, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, legal, b, work, stack,
                                 totals, odds, low, stored)
        elif depth == 2:
            _play_each_reply(S, played, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, legal, b, W, work, totals,
                             odds, low)
        else:
            _play_each(S, played, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, legal, b, W, work, totals,
                       odds, low)


@_jit
def hindsight_values(S: np.ndarray, hands: np.ndarray, bone: np.ndarray, played: np.ndarray, P: np.ndarray,
                     lo: np.ndarray, hi: np.ndarray, pip_tiles: np.ndarray, score_tab: np.ndarray,
                     act_tile: np.ndarray, act_slot: np.ndarray, legal: np.ndarray, games: np.ndarray,
                     W: np.ndarray, work: tuple[np.ndarray, ...], totals: np.ndarray, no_odds: np.ndarray,
                     shuffles: int, rng: np.ndarray, q: np.ndarray) -> None:
    """``q[i, a]``: the margin of action ``a`` in game ``games[i]`` played on the game's real deal
    (every hand and the boneyard as they are) with the hand played out by the heuristic; ``-inf``
    where illegal (``no_odds`` is :data:`NO_ODDS`). With ``shuffles`` above 0, the mean margin
    over that many deals of the real hands and the boneyard's tiles in a random order. It reads
    the hidden tiles: a training target or a yardstick, never a player."""
    DH, DB = work[0], work[1]
    T, n = P[P_T], P[P_N]
    for i in range(games.size):
        b = games[i]
        for a in range(q.shape[1]):
            q[i, a] = -np.inf
        for j in range(S[b, NLEGAL]):
            totals[j] = 0.0
        for s in range(n):  # the playouts read the deal, never write it
            for t in range(T):
                DH[0, s, t] = hands[b, s, t]
        first, end = S[b, BONE_POS], S[b, BONE_LEN]
        for _ in range(max(shuffles, 1)):
            for t in range(T):
                DB[0, t] = bone[b, t]
            if shuffles:  # the tiles still to draw in tile order, then shuffled: blind to the real order
                for k in range(first + 1, end):
                    v, j = DB[0, k], k - 1
                    while j >= first and DB[0, j] > v:
                        DB[0, j + 1] = DB[0, j]
                        j -= 1
                    DB[0, j + 1] = v
                shuffle(DB[0], first, end, rng)
            _play_each(S, played, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, legal, b, W, work, totals,
                       no_odds, 0)
        for j in range(S[b, NLEGAL]):
            q[i, legal[b, j]] = totals[j] / max(shuffles, 1)


def best_action(legal: np.ndarray, totals: np.ndarray) -> int:
    """The legal action of the highest total (``totals[j]`` for ``legal[j]``), the lowest action among ties."""
    return int(legal[totals == totals.max()].min())


def workspace(engine: VectorEngine) -> tuple[np.ndarray, ...]:
    """Scratch arrays for one thread searching games of ``engine``."""
    n, T, A = engine.rules.num_players, engine.tables.num_tiles, engine.num_actions
    return (
        np.zeros((1, n, T), np.uint8),  # the sampled hands
        np.zeros((1, T), np.int64),  # the sampled boneyard
        np.zeros((1, NS), np.int64),  # the rollout's game
        np.zeros((1, n, T), np.uint8),
        np.zeros((1, 2 * T), np.int8),
        np.zeros((1, T), np.int64),
        np.zeros((1, A), np.int16),
        np.zeros((1, NS), np.int64),  # the heuristic's work space
        np.zeros((3, T), np.int64),
        np.zeros(A, np.float64),
        np.zeros(T, np.int64),  # the unseen tiles
        np.zeros(T, np.int64),
        np.zeros((1, NS), np.int64),  # the rollout's game kept aside (depth 2)
        np.zeros((1, n, T), np.uint8),
        np.zeros((1, 2 * T), np.int8),
        np.zeros((1, T), np.int64),
        np.zeros(A, np.int64),  # the replies to a move (depth 2)
    )


def solver_space(engine: VectorEngine, solve: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays for a search that solves hands of up to ``solve`` tiles still to play (0:
    none, and the arrays are of no size): a stack of ``2 * solve + 2`` games (state, hands, play
    record, boneyard, legal actions), the keys and values of up to :data:`SOLVE_CACHE` solved
    deals, then each game's next child and alpha-beta window and best value (:func:`solved_value`)."""
    n, T, A = engine.rules.num_players, engine.tables.num_tiles, engine.num_actions
    depth, cache = (2 * solve + 2, SOLVE_CACHE) if solve else (1, 0)
    return (
        np.zeros((depth, NS), np.int64),
        np.zeros((depth, n, T), np.uint8),
        np.zeros((depth, 2 * T), np.int8),
        np.zeros((depth, T), np.int64),
        np.zeros((depth, A), np.int16),
        np.zeros(cache, np.uint64),
        np.zeros((cache, A), np.float64),
        np.zeros(depth, np.int64),
        np.zeros(depth, np.float64),
        np.zeros(depth, np.float64),
        np.zeros(depth, np.float64),
    )


def checked_solve(solve: object, sides: int) -> int:
    """``solve`` if it is a whole number from 0 to :data:`SOLVE_MOST` (and 0 unless the rules
    have two sides), else a ValueError saying what is allowed."""
    if isinstance(solve, bool) or not isinstance(solve, int) or not 0 <= solve <= SOLVE_MOST:
        raise ValueError(f"solve must be 0 (play every hand out) or a whole number of tiles still to play up to "
                         f"{SOLVE_MOST}, below which each deal's hand is solved exactly; got {solve!r}")
    if solve and sides != 2:
        raise ValueError(f"solve needs two sides (two players, or four in partnerships), where a hand solved "
                         f"exactly is a contest of two; these rules have {sides} sides")
    return solve


def checked_value(value: object) -> str:
    """``value`` if it is one of :data:`VALUES`, else a ValueError listing them."""
    if value not in VALUES:
        raise ValueError(f"value must be one of {', '.join(map(repr, VALUES))}; got {value!r}")
    return str(value)


DEPTHS = (1, 2)
"""How many plies a search weighs before the heuristic plays on (see :class:`RolloutSearch`)."""


def checked_depth(depth: object) -> int:
    """``depth`` if it is one of :data:`DEPTHS`, else a ValueError listing them."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth not in DEPTHS:
        raise ValueError(f"depth must be one of {', '.join(map(str, DEPTHS))}; got {depth!r}")
    return depth


NO_SEEDS = np.zeros(0, np.uint64)
"""No streams of the games' own: :func:`search_actions` draws every game's deals from one stream."""
def checked_threads(threads: object) -> int:
    """``threads`` if it is a whole number from 0 to :data:`MAX_THREADS`, else a ValueError saying what is allowed."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= MAX_THREADS:
        raise ValueError(f"threads must be 0 (one stream of draws for all the games, on the calling thread) or a "
                         f"whole number of threads up to {MAX_THREADS} (each game its own stream of draws); "
                         f"got {threads!r}")
    return threads


def stream_seeds(seed: int, call: int, games: np.ndarray) -> np.ndarray:
    """The first state of each game's stream of draws at a search's ``call``-th choice
    (splitmix64's finaliser of the seed, the call and the game's index): what a game draws
    depends on neither the other games searched with it nor the threads searching them."""
    with np.errstate(over="ignore"):
        z = (np.uint64(seed & (2**64 - 1)) + np.uint64(call) * np.uint64(0xD1B54A32D192ED03)
             + np.asarray(games, np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        return np.ascontiguousarray(mix64(z), np.uint64)


class RolloutSearch:
    """Search choices for games of one :class:`VectorEngine` (see the module)."""

    def __init__(self, engine: VectorEngine, samples: int = 32, seed: int = 0, weights: Weights | None = None,
                 value: str = "margin", depth: int = 1, solve: int = 0, threads: int = 0) -> None:
        """``value``: what a playout is worth, ``"margin"`` (the hand's points, the side's less the
        others') or ``"win"`` (the chance of winning the game from the scores it ends on, see
        :func:`rollout_value`; two sides only). ``depth``: 1, the heuristic plays from the move on;
        2, every reply of the next seat, where it is another side's, is played out on each deal
        and the move is worth its least (:func:`_play_each_reply`). ``solve``: where at most that
        many tiles are still to play (held, and still to be drawn), each deal's hand is solved
        exactly instead of played out, every seat seeing the deal and playing its best
        (:func:`solved_value`; two sides only, at most :data:`SOLVE_MOST`). ``threads``: 0, the
        games of a call to :meth:`actions` draw their deals in turn from one stream, on the calling
        thread; N, each game draws from a stream of its own (:func:`stream_seeds`) and the games
        are spread over N threads, so the moves are the same for any N."""
        self.engine, self.samples, self.value = engine, positive_int("samples", samples, most=MAX_SAMPLES), checked_value(value)
        self.threads, self._seed, self._calls = checked_threads(threads), seed, 0
        self._pool = ThreadPoolExecutor(threads - 1) if threads > 1 else None
        self.depth, self.solve = checked_depth(depth), checked_solve(solve, engine.rules.num_sides)
        self._stack = solver_space(engine, self.solve)
        self._odds, self._low = value_odds(engine.rules, value)
        self._w = weight_vector(weights or Weights())
        self._rng = np.array([seed & (2**64 - 1)], np.uint64)
        self._work = workspace(engine)
        self._totals = np.zeros(engine.num_actions, np.float64)
        nothing = no_evidence(engine.tables.num_tiles)
        self._nothing = (nothing.seats, nothing.known, nothing.odds)
        # each thread's own generator, scratch space, totals and solver stack; the first the calling thread's
        self._lanes = [(self._rng, self._work, self._totals, self._stack)] + [
            (np.zeros(1, np.uint64), workspace(engine), np.zeros(engine.num_actions, np.float64),
             solver_space(engine, self.solve)) for _ in range(max(0, threads - 1))]

    def actions(self, games: np.ndarray, evidence: Evidence | None = None) -> np.ndarray:
        """The search's action in each of ``games`` (indices of games in play); ``evidence``
        (:func:`sniff_env.players.beliefs.evidence`, one game only) weighs the deals it samples."""
        games = np.ascontiguousarray(games, np.int64)
        out = np.zeros(games.size, np.int64)
        seen = self._seen(evidence, games.size)
        if not self.threads:
            self._search(games, NO_SEEDS, seen, self._lanes[0], out)
            return out
        seeds = stream_seeds(self._seed, self._calls, games)
        self._calls += 1
        lanes = self._lanes[: max(1, min(self.threads, games.size))]
        k = len(lanes)  # every k-th game to a thread, so that long and short searches mix
        parts = [(np.ascontiguousarray(games[i::k]), np.ascontiguousarray(seeds[i::k])) for i in range(k)]
        outs = [np.zeros(part.size, np.int64) for part, _ in parts]
        futures = [self._pool.submit(self._search, part, own, seen, lane, o)  # type: ignore[union-attr]
                   for (part, own), lane, o in zip(parts[1:], lanes[1:], outs[1:], strict=True)]
        self._search(*parts[0], seen, lanes[0], outs[0])
        for f in futures:
            f.result()
        for i, o in enumerate(outs):
            out[i::k] = o
        return out

    def _search(self, games: np.ndarray, seeds: np.ndarray, seen: tuple[np.ndarray, np.ndarray, np.ndarray],
                lane: tuple[Any, ...], out: np.ndarray) -> None:
        """The search's action for each of ``games`` into ``out``, with one thread's generator,
        scratch, totals and stack: a single legal action is played without searching; with
        ``seeds`` (one per game; empty: none), game ``i``'s deals come from a stream of its own
        that starts at ``seeds[i]``, else the games draw in turn from the lane's generator. A
        loop over :func:`rollout_values`, which releases the GIL: one compiled search serves
        every way of calling it."""
        rng, work, totals, stack = lane
        eng = self.engine
        for i, b in enumerate(games.tolist()):
            k = int(eng.S[b, NLEGAL])
            if k == 1:
                out[i] = eng.legal[b, 0]
                continue
            if seeds.size:
                rng[0] = seeds[i]
            self._values(b, seen, rng, work, totals, stack)
            out[i] = best_action(eng.legal[b, :k], totals[:k])

    def _values(self, b: int, seen: tuple[np.ndarray, np.ndarray, np.ndarray], rng: np.ndarray,
                work: tuple[np.ndarray, ...], totals: np.ndarray, stack: tuple[np.ndarray, ...]) -> None:
        """:func:`rollout_values` of game ``b`` into ``totals`` (the summed value of each legal action)."""
        t, eng = self.engine.tables, self.engine
        rollout_values(eng.S, eng.hands, eng.play_record, t.params, t.lo, t.hi, t.pip_tiles, t.score_tab, t.act_tile,
                       t.act_slot, eng.legal, b, self._w, self.samples, rng, work, totals, self._odds, self._low,
                       seen, self.depth, self.solve, stack)

    def q_values(self, games: np.ndarray, evidence: Evidence | None = None) -> np.ndarray:
        """``[len(games), num_actions]``: the mean value (``value``) of every action in each game, ``-inf``
        where illegal (a single legal action is searched too). Its argmax, lowest action first,
        is :meth:`actions`' choice where there is more than one legal action. ``evidence`` as
        for :meth:`actions`."""
        eng = self.engine
        games = np.ascontiguousarray(games, np.int64)
        q = np.full((games.size, eng.num_actions), -np.inf)
        seen = self._seen(evidence, games.size)
        for i, b in enumerate(games.tolist()):
            self._values(b, seen, self._rng, self._work, self._totals, self._stack)
            k = int(eng.S[b, NLEGAL])
            q[i, eng.legal[b, :k]] = self._totals[:k] / self.samples
        return q

    def values(self, game: int, evidence: Evidence | None = None) -> dict[int, float]:
        """The mean value (``value``) of every legal action in ``game``; ``evidence`` as for :meth:`actions`."""
        eng = self.engine
        self._values(game, self._seen(evidence, 1), self._rng, self._work, self._totals, self._stack)
        k = int(eng.S[game, NLEGAL])
        return {int(eng.legal[game, j]): float(self._totals[j]) / self.samples for j in range(k)}

    def deals(self, game: int, count: int, evidence: Evidence | None = None) -> np.ndarray:
        """``[count, num_players, num_tiles]`` uint8: the hands of ``count`` deals as the search of
        ``game`` samples them (every hand; the seat's own as it is), to inspect its beliefs."""
        t, eng = self.engine.tables, self.engine
        out = np.zeros((count, eng.rules.num_players, t.num_tiles), np.uint8)
        sample_deals(eng.S, eng.hands, eng.play_record, t.params, t.lo, t.hi, game, self._rng, self._work,
                     self._seen(evidence, 1), out)
        return out

    def _seen(self, evidence: Evidence | None, games: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``evidence`` as the compiled search takes it; a ValueError for several games."""
        if evidence is None:
            return self._nothing
        if games != 1:
            raise ValueError(f"evidence is one seat's, of one game; got {games} games to search")
        T = self.engine.tables.num_tiles
        if evidence.odds.shape[1:] != (T,) or not evidence.seats.size == evidence.known.size == len(evidence.odds):
            raise ValueError(f"evidence must hold K seats, K known odds and K rows of {T} tile odds; got "
                             f"{evidence.seats.shape}, {evidence.known.shape} and {evidence.odds.shape}")
        return (np.ascontiguousarray(evidence.seats, np.int64), np.ascontiguousarray(evidence.known, np.float64),
                np.ascontiguousarray(evidence.odds, np.float64))


class HindsightValues:
    """Every legal move's margin on the real deal, the hand played out by the heuristic, for games
    of one :class:`VectorEngine`: one unbiased sample of the move's value to the heuristic, as
    training targets. ``shuffles`` above 0: the mean over that many deals of the real hands and
    the boneyard in a random order (seeded by ``seed``), the search of a seat that sees every
    hand but not the order of the draws. It reads the hidden tiles, so it is never a player."""

    def __init__(self, engine: VectorEngine, weights: Weights | None = None, shuffles: int = 0,
                 seed: int = 0) -> None:
        self.engine = engine
        if isinstance(shuffles, bool) or not isinstance(shuffles, int) or shuffles < 0:
            raise ValueError(f"shuffles must be a whole number of 0 (the real boneyard) or more; got {shuffles!r}")
        self.shuffles = shuffles
        self._rng = np.array([seed & (2**64 - 1)], np.uint64)
        self._w = weight_vector(weights or Weights())
        self._work = workspace(engine)
        self._totals = np.zeros(engine.num_actions, np.float64)

    def q_values(self, games: np.ndarray) -> np.ndarray:
        """``[len(games), num_actions]``: each legal action's margin, ``-inf`` where illegal."""
        t, eng = self.engine.tables, self.engine
        games = np.ascontiguousarray(games, np.int64)
        q = np.zeros((games.size, eng.num_actions), np.float64)
        hindsight_values(eng.S, eng.hands, eng.bone, eng.play_record, t.params, t.lo, t.hi, t.pip_tiles, t.score_tab,
                         t.act_tile, t.act_slot, eng.legal, games, self._w, self._work, self._totals, NO_ODDS,
                         self.shuffles, self._rng, q)
        return q


def load_info_state(engine: VectorEngine, state: InfoState) -> None:
    """Write ``state`` into game 0 of ``engine``: the public layout, the seat's own hand, hand
    sizes, known missing pips, scores and legal actions; other hands empty, and a boneyard of the
    right size whose tiles are unknown (the search deals them, see :class:`RolloutSearch`)."""
    rules, T = state.rules, engine.tables.num_tiles
    S = engine.S[0]
    S[:] = 0
    S[K.TURN], S[K.LEADER], S[K.COUNT], S[K.PASSES] = state.turn, state.leader, state.count, state.passes
    S[K.DRAWN], S[K.LAST_DRAWN] = state.drawn_this_turn, state.last_drawn
    S[K.SNIFF_TILE], S[K.SNIFF_PENDING] = state.sniff_tile, state.sniff_pending
    S[K.BONE_POS], S[K.BONE_LEN] = 0, state.boneyard_size
    S[K.NPLAYS], S[K.HAND_INDEX], S[K.PHASE] = len(state.plays), state.hand_index, K.PLAY
    S[K.FORCED_LEAD] = int(forced_lead(rules, state.hand_index))
    S[K.LAST_DOMINO], S[K.WINNER] = -1, -1
    S[K.NLEGAL] = len(state.legal)
    for e in range(4):
        S[K.END_PIP + e], S[K.END_VAL + e], S[K.END_OPEN + e] = state.end_pip[e], state.end_val[e], state.end_open[e]
    for s in range(rules.num_players):
        S[K.LACKING + s], S[K.HAND_COUNT + s] = state.lacking[s], state.hand_sizes[s]
    for side in range(rules.num_sides):
        S[K.SCORES + side] = state.scores[side]
    engine.hands[0] = 0
    engine.hands[0, state.seat] = [(state.hand >> t) & 1 for t in range(T)]
    played = engine.play_record[0]
    played[:] = -1
    for i, (tile, seat, _slot) in enumerate(state.plays):
        played[tile] = seat
        played[T + i] = tile
    engine.bone[0] = 0
    engine.legal[0, : len(state.legal)] = state.legal
