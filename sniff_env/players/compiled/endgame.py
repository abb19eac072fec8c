"""The exact endgame, compiled: the end of a hand solved on one deal, every seat seeing it whole.

Where few tiles are still to play, a search may value a move on each deal by minimax with
alpha-beta pruning to the end of the hand (:func:`solved_value`) instead of a heuristic playout;
a deal sampled again is looked up in a small cache by its 64-bit key (:func:`deal_key`). Two
sides only: a hand solved exactly is a contest of two.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sniff_env.players.compiled.playouts import RolloutSpace, copy_into, load_game, value_at
from sniff_env.vector import compiled
from sniff_env.vector.arrays import Games, RuleTables
from sniff_env.vector.compiled_rules import side_of
from sniff_env.vector.engine import VectorEngine
from sniff_env.vector.kernels import (
    BONE_LEN,
    BONE_POS,
    HAND_COUNT,
    NLEGAL,
    P_N,
    P_PARTNER,
    P_RESERVE,
    P_T,
    PHASE,
    PLAY,
    TURN,
    apply_action,
    new_state,
)

_jit = compiled()
_inline = compiled(inline=True)  # small or hot helpers: a copy in each caller

SOLVE_MOST = 16
"""The most tiles still to play (held, and still to be drawn) at which a search may solve the
rest of the hand exactly on each deal (``solve``)."""
SOLVE_CACHE = 256
"""Distinct deals whose solved values a search keeps while it values one choice: a deal sampled
again is looked up by its 64-bit key (:func:`deal_key`), not solved again (late in a hand few
deals are possible)."""


class SolverSpace(NamedTuple):
    """Scratch arrays for the solver (:func:`solver_space`)."""

    S: np.ndarray
    """A stack of games (``S``, ``hands``, ``played``, ``bone``, ``legal``: as :attr:`games` holds them)."""
    hands: np.ndarray
    played: np.ndarray
    bone: np.ndarray
    legal: np.ndarray
    keys: np.ndarray
    """The keys and the values of the solved deals kept (:data:`SOLVE_CACHE`)."""
    cached: np.ndarray
    child: np.ndarray
    """Each game's next child, alpha-beta window and best value."""
    alpha: np.ndarray
    beta: np.ndarray
    best: np.ndarray
    games: Games
    """The stack of games as the kernels take it."""


def solver_space(engine: VectorEngine, solve: int) -> SolverSpace:
    """Scratch arrays for a search that solves hands of up to ``solve`` tiles still to play (0:
    none, and the arrays are of no size): a stack of ``2 * solve + 2`` games (state, hands, play
    record, boneyard, legal actions), the keys and values of up to :data:`SOLVE_CACHE` solved
    deals, then each game's next child and alpha-beta window and best value (:func:`solved_value`)."""
    n, T, A = engine.rules.num_players, engine.tables.num_tiles, engine.num_actions
    depth, cache = (2 * solve + 2, SOLVE_CACHE) if solve else (1, 0)
    games = new_state(depth, n, T, A)
    return SolverSpace(*games, np.zeros(cache, np.uint64), np.zeros((cache, A), np.float64), np.zeros(depth, np.int64),
                       np.zeros(depth, np.float64), np.zeros(depth, np.float64), np.zeros(depth, np.float64), games)


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


@_inline
def tiles_to_play(S: np.ndarray, b: int, P: np.ndarray) -> int:
    """The tiles in every hand of game ``b`` and those still to be drawn: no hand outlasts them."""
    total = 0
    for s in range(P[P_N]):
        total += S[b, HAND_COUNT + s]
    return int(total + max(0, S[b, BONE_LEN] - S[b, BONE_POS] - P[P_RESERVE]))


@_inline
def _push(stack: SolverSpace, d: int) -> None:
    """Copy game ``d`` of the solver's ``stack`` into game ``d + 1``."""
    copy_into(stack.S[d + 1], stack.S[d])
    copy_into(stack.hands[d + 1], stack.hands[d])
    copy_into(stack.played[d + 1], stack.played[d])
    copy_into(stack.bone[d + 1], stack.bone[d])


@_inline
def _fold(P: np.ndarray, me: int, stack: SolverSpace, d: int, v: float) -> None:
    """Take a child's value ``v`` into game ``d`` of the solver's ``stack``: its best so far and
    its alpha-beta window, for the side to act there."""
    RS, alpha, beta, best = stack.S, stack.alpha, stack.beta, stack.best
    if side_of(RS[d, TURN], P[P_PARTNER]) == me:
        best[d] = max(best[d], v)
        alpha[d] = max(alpha[d], best[d])
    else:
        best[d] = min(best[d], v)
        beta[d] = min(beta[d], best[d])


@_inline
def _enter(P: np.ndarray, me: int, stack: SolverSpace, d: int, alpha: float, beta: float) -> None:
    """Start searching game ``d`` of the solver's ``stack`` within the window ``(alpha, beta)``."""
    stack.child[d], stack.alpha[d], stack.beta[d] = 0, alpha, beta
    stack.best[d] = -np.inf if side_of(stack.S[d, TURN], P[P_PARTNER]) == me else np.inf


@_jit
def solved_value(S: np.ndarray, rules: RuleTables, b: int, me: int, stack: SolverSpace, root: int, odds: np.ndarray,
                 low: int) -> float:
    """The value (:func:`~sniff_env.players.compiled.playouts.value_at`) of game ``root`` of
    ``stack`` to side ``me`` (the side to act in game ``b`` of the state ``S``) with every seat
    seeing the whole deal and playing its best to the end of the hand: minimax with alpha-beta
    pruning, exact at ``root``. It walks the tree with the stack's games ``root + 1`` on as its
    path (a loop, not recursion, whose compiled code numba cannot cache): a hand of ``k`` tiles
    still to play ends within ``2k`` decisions, since a decision lays a tile or draws one that was
    still to be drawn."""
    P, RS, RL = rules.P, stack.S, stack.legal
    child, alpha, beta, best = stack.child, stack.alpha, stack.beta, stack.best
    if RS[root, PHASE] != PLAY:
        return value_at(S, P, b, RS, root, odds, low)
    _enter(P, me, stack, root, -np.inf, np.inf)
    d = root
    while True:
        if child[d] < RS[d, NLEGAL] and alpha[d] < beta[d]:
            a = RL[d, child[d]]
            child[d] += 1
            _push(stack, d)
            apply_action(stack.games, d + 1, rules, a)
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
def deal_key(S: np.ndarray, P: np.ndarray, b: int, work: RolloutSpace) -> np.uint64:
    """A 64-bit key of the deal in ``work.deal_hands`` and ``work.deal_bone`` as far as play can
    tell it apart: every hand, and the tiles still to be drawn in their order (the reserve's order
    never shows)."""
    DH, DB = work.deal_hands, work.deal_bone
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
def solve_each(games: Games, rules: RuleTables, b: int, work: RolloutSpace, stack: SolverSpace, totals: np.ndarray,
               odds: np.ndarray, low: int, stored: int) -> int:
    """Add to ``totals[j]`` the solved value (:func:`solved_value`) of ``games.legal[b, j]`` on the
    deal in ``work.deal_hands`` and ``work.deal_bone``; a deal among the ``stored`` ones of
    ``stack``'s cache is looked up instead. Return how many deals the cache then holds."""
    S, P = games.S, rules.P
    keys, cached = stack.keys, stack.cached
    k = S[b, NLEGAL]
    key = deal_key(S, P, b, work)
    for i in range(stored):
        if keys[i] == key:
            for j in range(k):
                totals[j] += cached[i, j]
            return stored
    load_game(games, b, work.deal_hands, work.deal_bone, stack.games, 0)
    me = side_of(S[b, TURN], P[P_PARTNER])
    keep = stored < keys.size
    for j in range(k):
        _push(stack, 0)
        apply_action(stack.games, 1, rules, games.legal[b, j])
        v = solved_value(S, rules, b, me, stack, 1, odds, low)
        totals[j] += v
        if keep:
            cached[stored, j] = v
    if keep:
        keys[stored] = key
        return stored + 1
    return stored
