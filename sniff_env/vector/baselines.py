"""The built-in greedy and heuristic players, compiled over the batched engine's arrays.

Each kernel picks, for the seat to act in each listed game, exactly what
:class:`sniff_env.players.GreedyPlayer` or :class:`sniff_env.players.HeuristicPlayer` (any
weights, with ``counter`` at 0) picks from that seat's information state. They read only what
the seat may know: its own hand, the tiles played, the layout, the hand sizes, the pips each
seat is known to lack and how many tiles can still be drawn. Training uses them as opponents on
the batched engine; the differential tests keep them equal to the reference players.
"""

from __future__ import annotations

import numpy as np

from ..players.greedy import checked_tiebreak
from ..players.heuristic import Weights
from ._compile import compiled
from .engine import VectorEngine
from .kernels import (
    BONE_LEN,
    BONE_POS,
    END_OPEN,
    END_PIP,
    END_VAL,
    HAND_COUNT,
    LACKING,
    LEAD,
    NLEGAL,
    NO_SNIFF,
    NORTH,
    NPLAYS,
    NS,
    P_CHOICE,
    P_DRAW_ACTION,
    P_INLINE_BASE,
    P_MAX_PIP,
    P_N,
    P_RESERVE,
    P_SNIFF,
    P_T,
    SNIFF_TILE,
    SPINNER,
    TURN,
    _playable,
    _side,
    lay,
    points_for,
)

WEIGHT_ORDER = ("reply", "follow_up", "pip", "pip_late", "double", "variety", "playable", "draw_threshold", "block")
"""The :class:`Weights` fields, in the order of the kernels' weight vector (``counter`` is not
supported here: it must be 0)."""
(W_REPLY, W_FOLLOW_UP, W_PIP, W_PIP_LATE, W_DOUBLE, W_VARIETY, W_PLAYABLE, W_DRAW_THRESHOLD,
 W_BLOCK) = range(len(WEIGHT_ORDER))

_jit = compiled()
_inline = compiled(inline=True)


def weight_vector(weights: Weights) -> np.ndarray:
    """``weights`` as the float64 vector :func:`heuristic_actions` reads; a nonzero ``counter``
    (the second ply, which the compiled player does not run) raises :class:`ValueError`."""
    if weights.counter:
        raise ValueError(f"the compiled heuristic has no 'counter' term; got counter={weights.counter}")
    return np.array([getattr(weights, name) for name in WEIGHT_ORDER], np.float64)


@_inline
def _count_after(S: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, tile: int, slot: int,
                 inline: bool) -> int:
    """``layout.count_after``: the count that placing ``tile`` on ``slot`` would leave."""
    a, c = lo[tile], hi[tile]
    if slot == LEAD:
        return a + c
    pip = S[b, END_PIP + slot]
    if a == c and S[b, SNIFF_TILE] < 0 and P[P_SNIFF] != NO_SNIFF:  # the sniff: its sides take values
        spinner = P[P_SNIFF] == SPINNER
        side = pip if spinner else 0
        total = 0
        for e in range(4):
            v = (0 if spinner else pip) if e == slot else S[b, END_VAL + e]
            total += side if e >= NORTH else v
        return total
    total = S[b, END_VAL] + S[b, END_VAL + 1] + S[b, END_VAL + 2] + S[b, END_VAL + 3] - S[b, END_VAL + slot]
    if a == c:
        return total + (pip if inline else 2 * pip)
    return total + (c if a == pip else a)


@_inline
def greedy_key(S: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, score_tab: np.ndarray,
               act_tile: np.ndarray, act_slot: np.ndarray, a: int) -> int:
    """Greedy's order of placement ``a`` in game ``b`` as one number: points now, then the tile's pips."""
    t = act_tile[a]
    pts = points_for(P, score_tab, _count_after(S, b, P, lo, hi, t, act_slot[a], a >= P[P_INLINE_BASE]))
    return int(pts * 1024 + lo[t] + hi[t])


@_inline
def greedy_scan(S: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, score_tab: np.ndarray,
                act_tile: np.ndarray, act_slot: np.ndarray, legal: np.ndarray, keys: np.ndarray) -> tuple[int, int, int]:
    """Greedy's scan of the legal actions of game ``b`` (``legal[b]``): ``keys[j]`` the
    :func:`greedy_key` of ``legal[b, j]`` (-1 for the draw); returns the lowest action with the
    best key (-1 if there is no placement), that key, and how many placements share it."""
    best, best_key, ties = -1, -1, 0
    for j in range(S[b, NLEGAL]):
        a = legal[b, j]
        keys[j] = -1
        if a == P[P_DRAW_ACTION]:
            continue
        keys[j] = key = greedy_key(S, b, P, lo, hi, score_tab, act_tile, act_slot, a)
        if key > best_key:
            best, best_key, ties = a, key, 1
        elif key == best_key:
            best, ties = min(best, a), ties + 1
    return best, best_key, ties


@_inline
def _best_points(S: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, score_tab: np.ndarray,
                 tile: int, inline_ok: bool) -> int:
    """``heuristic.best_points`` for one tile: the most it could score on game ``b``'s layout now."""
    best = 0
    for e in range(4):
        if S[b, END_OPEN + e]:
            pip = S[b, END_PIP + e]
            if pip == lo[tile] or pip == hi[tile]:
                best = max(best, points_for(P, score_tab, _count_after(S, b, P, lo, hi, tile, e, False)))
                if inline_ok and lo[tile] == hi[tile]:
                    best = max(best, points_for(P, score_tab, _count_after(S, b, P, lo, hi, tile, e, True)))
    return best


@_inline
def _sort_descending(x: np.ndarray, size: int) -> None:
    """Insertion sort of ``x[:size]``, largest first (a few dozen entries at most)."""
    for i in range(1, size):
        v = x[i]
        j = i - 1
        while j >= 0 and x[j] < v:
            x[j + 1] = x[j]
            j -= 1
        x[j + 1] = v


@_inline
def heuristic_values(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, P: np.ndarray, lo: np.ndarray,
                     hi: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
                     legal: np.ndarray, b: int, W: np.ndarray, row: np.ndarray, scratch: np.ndarray,
                     values: np.ndarray) -> None:
    """``HeuristicPlayer.evaluate`` of the placements of the seat to act in game ``b``: ``values[j]``
    for ``legal[b, j]`` (``-inf`` for the draw action, which :func:`heuristic_actions` decides)."""
    T, n = P[P_T], P[P_N]
    draw = P[P_DRAW_ACTION]
    inline_base = P[P_INLINE_BASE]
    inline_ok = P[P_CHOICE] != 0
    cand, rest, threat_pts = scratch[0], scratch[1], scratch[2]
    seat = S[b, TURN]
    nxt = (seat + 1) % n
    lack = S[b, LACKING + nxt]
    ncand = 0
    for t in range(T):
        if hands[b, seat, t] == 0 and played_by[b, t] < 0 and not ((lack >> lo[t]) & 1 or (lack >> hi[t]) & 1):
            cand[ncand] = t
            ncand += 1
    p_hold = min(1.0, S[b, HAND_COUNT + nxt] / ncand) if ncand else 0.0
    me = _side(P, seat)
    opp_min = 1 << 30
    for s in range(n):
        if _side(P, s) != me:
            opp_min = min(opp_min, S[b, HAND_COUNT + s])
    late = 1.0 if opp_min <= 2 or S[b, HAND_COUNT + seat] <= 2 else 0.0
    for j in range(S[b, NLEGAL]):
        a = legal[b, j]
        if a == draw:
            values[j] = -np.inf
            continue
        tile, slot, inline = act_tile[a], act_slot[a], a >= inline_base
        v = float(points_for(P, score_tab, _count_after(S, b, P, lo, hi, tile, slot, inline)))
        nrest = 0
        for t in range(T):
            if hands[b, seat, t] and t != tile:
                rest[nrest] = t
                nrest += 1
        if nrest:
            for col in range(NS):
                row[0, col] = S[b, col]
            lay(row, 0, P, lo, hi, tile, slot, inline)
            for c in range(ncand):
                threat_pts[c] = _best_points(row, 0, P, lo, hi, score_tab, cand[c], inline_ok)
            _sort_descending(threat_pts, ncand)
            threat, miss = 0.0, 1.0
            for c in range(ncand):
                if threat_pts[c] <= 0:
                    break
                threat += threat_pts[c] * p_hold * miss
                miss *= 1.0 - p_hold
            v -= W[W_REPLY] * threat
            mine, playable, pips_seen = 0, 0, 0
            for r in range(nrest):
                t = rest[r]
                mine = max(mine, _best_points(row, 0, P, lo, hi, score_tab, t, inline_ok))
                playable += _playable(row, 0, P, lo, hi, t)
                pips_seen |= (1 << lo[t]) | (1 << hi[t])
            v += W[W_FOLLOW_UP] * mine
            v += W[W_PLAYABLE] * playable
            distinct = 0
            for p in range(P[P_MAX_PIP] + 1):
                distinct += (pips_seen >> p) & 1
            v += W[W_VARIETY] * distinct
            if W[W_BLOCK] != 0.0:
                fits = 0
                for c in range(ncand):
                    fits += _playable(row, 0, P, lo, hi, cand[c])
                v += W[W_BLOCK] * (1.0 - p_hold) ** fits
        v += (W[W_PIP] + W[W_PIP_LATE] * late) * (lo[tile] + hi[tile])
        if lo[tile] == hi[tile] and S[b, NPLAYS] > 0:
            v += W[W_DOUBLE]
        values[j] = v


@_inline
def heuristic_choice(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, P: np.ndarray, lo: np.ndarray,
                     hi: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
                     legal: np.ndarray, b: int, W: np.ndarray, row: np.ndarray, scratch: np.ndarray,
                     values: np.ndarray) -> int:
    """``HeuristicPlayer.act`` for the seat to act in game ``b`` (work space as below)."""
    draw = P[P_DRAW_ACTION]
    heuristic_values(S, hands, played_by, P, lo, hi, score_tab, act_tile, act_slot, legal, b, W, row, scratch,
                     values)
    best_a, best_v, has_draw = -1, -np.inf, False
    for j in range(S[b, NLEGAL]):
        a = legal[b, j]
        if a == draw:
            has_draw = True
        elif values[j] > best_v or (values[j] == best_v and a < best_a):
            best_a, best_v = a, values[j]
    if has_draw:
        drawable = S[b, BONE_LEN] - S[b, BONE_POS] - P[P_RESERVE]
        if best_v < W[W_DRAW_THRESHOLD] and drawable > 2:
            best_a = draw
    return best_a


@_jit
def heuristic_actions(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, P: np.ndarray, lo: np.ndarray,
                      hi: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
                      legal: np.ndarray, games: np.ndarray, W: np.ndarray, row: np.ndarray, scratch: np.ndarray,
                      values: np.ndarray, out: np.ndarray) -> None:
    """``HeuristicPlayer.act`` (weights ``W``, see :func:`weight_vector`) for the seat to act in
    each game of ``games``; ``out[i]`` for ``games[i]``. ``row`` (``[1, NS]``), ``scratch``
    (``[3, num_tiles]``, int64) and ``values`` (float64, one per action) are work space (nothing
    compiled allocates)."""
    for i in range(games.size):
        out[i] = heuristic_choice(S, hands, played_by, P, lo, hi, score_tab, act_tile, act_slot, legal, games[i], W,
                                  row, scratch, values)


@_jit
def greedy_actions(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, P: np.ndarray, lo: np.ndarray,
                   hi: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
                   legal: np.ndarray, games: np.ndarray, W: np.ndarray, row: np.ndarray, scratch: np.ndarray,
                   values: np.ndarray, tied: np.ndarray, by_value: bool, out: np.ndarray) -> None:
    """The greedy player's action for the seat to act in each game of ``games`` (``out[i]`` for
    ``games[i]``): the placement that scores most now, ties to the heaviest tile, then (with
    ``by_value``) to the heuristic value with weights ``W`` (the stock ones), then to the lowest
    action. Work space as for :func:`heuristic_actions`, plus ``tied`` (int64, one per action)."""
    for i in range(games.size):
        b = games[i]
        k = S[b, NLEGAL]
        best, best_key, ties = greedy_scan(S, b, P, lo, hi, score_tab, act_tile, act_slot, legal, tied)
        if by_value and ties > 1:
            heuristic_values(S, hands, played_by, P, lo, hi, score_tab, act_tile, act_slot, legal, b, W, row,
                             scratch, values)
            best, best_v = -1, -np.inf
            for j in range(k):
                a = legal[b, j]
                if tied[j] == best_key and (values[j] > best_v or (values[j] == best_v and a < best)):
                    best, best_v = a, values[j]
        out[i] = best if best >= 0 else legal[b, 0]


class CompiledBaselines:
    """Greedy and heuristic choices for many games of one :class:`VectorEngine` at once."""

    def __init__(self, engine: VectorEngine, weights: Weights | None = None, greedy_tiebreak: str = "lowest") -> None:
        """``weights``: the heuristic's (default: stock); ``greedy_tiebreak`` as :class:`GreedyPlayer`'s."""
        self.engine = engine
        self.greedy_tiebreak = checked_tiebreak(greedy_tiebreak)
        self.weights = weights or Weights()
        self._w = weight_vector(self.weights)
        self._row = np.zeros((1, NS), np.int64)
        self._scratch = np.zeros((3, engine.tables.num_tiles), np.int64)
        self._values = np.zeros(engine.num_actions, np.float64)
        self._tied = np.zeros(engine.num_actions, np.int64)
        self._stock = weight_vector(Weights())

    def greedy(self, games: np.ndarray) -> np.ndarray:
        """The greedy player's action in each of ``games`` (indices of games in play)."""
        t, eng = self.engine.tables, self.engine
        games = np.ascontiguousarray(games, np.int64)
        out = np.zeros(games.size, np.int64)
        greedy_actions(eng.S, eng.hands, eng.played_by, t.params, t.lo, t.hi, t.score_tab, t.act_tile, t.act_slot,
                       eng.legal, games, self._stock, self._row, self._scratch, self._values, self._tied,
                       self.greedy_tiebreak == "heuristic", out)
        return out

    def heuristic(self, games: np.ndarray) -> np.ndarray:
        """The heuristic player's action in each of ``games`` (indices of games in play)."""
        t, eng = self.engine.tables, self.engine
        games = np.ascontiguousarray(games, np.int64)
        out = np.zeros(games.size, np.int64)
        heuristic_actions(eng.S, eng.hands, eng.played_by, t.params, t.lo, t.hi, t.score_tab, t.act_tile,
                          t.act_slot, eng.legal, games, self._w, self._row, self._scratch, self._values, out)
        return out
