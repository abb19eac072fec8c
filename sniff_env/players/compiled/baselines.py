"""The built-in greedy and heuristic players, compiled over the batched engine's arrays, and the
random player's twin.

Each kernel picks, for the seat to act in each listed game, exactly what
:class:`sniff_env.players.GreedyPlayer` or :class:`sniff_env.players.HeuristicPlayer` (any
weights, with ``counter`` at 0) picks from that seat's information state. They read only what
the seat may know: its own hand, the tiles played, the layout, the hand sizes, the pips each
seat is known to lack and how many tiles can still be drawn. Both value moves with the same
functions, :mod:`sniff_env.players.strategy`, compiled here. Training uses them as opponents on the
batched engine; the differential tests keep them equal to the reference players.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from sniff_env.players import strategy
from sniff_env.players.strategy import Holding, Layout, RuleCodes, Scratch, Weights, checked_tiebreak
from sniff_env.vector import compiled
from sniff_env.vector.arrays import Games, RuleTables
from sniff_env.vector.compiled_rules import side_of, with_compiled_rules
from sniff_env.vector.engine import VectorEngine
from sniff_env.vector.kernels import (
    BONE_LEN,
    BONE_POS,
    END_OPEN,
    END_PIP,
    END_VAL,
    HAND_COUNT,
    LACKING,
    NLEGAL,
    NPLAYS,
    NS,
    P_CHOICE,
    P_DIV5,
    P_DRAW_ACTION,
    P_INLINE_BASE,
    P_MAX_PIP,
    P_N,
    P_PARTNER,
    P_RESERVE,
    P_SIDES_NOW,
    P_SNIFF,
    P_T,
    SNIFF_PENDING,
    SNIFF_TILE,
    TURN,
)

_jit = compiled()
_inline = compiled(inline=True)  # small or hot helpers: a copy in each caller
_placement_points = with_compiled_rules(strategy.placement_points)
_greedy_key = with_compiled_rules(strategy.greedy_key)
_heuristic_value = with_compiled_rules(strategy.heuristic_value)
_holding_odds = with_compiled_rules(strategy.holding_odds)
_late_phase = with_compiled_rules(strategy.late_phase)
_draw_worth_it = with_compiled_rules(strategy.draw_worth_it)


def weight_vector(weights: Weights) -> np.ndarray:
    """``weights`` as the float64 vector ``W`` (in :data:`~sniff_env.players.strategy.WEIGHT_ORDER`) the
    kernels read; a nonzero ``counter`` (the second ply, which the compiled player does not run)
    raises :class:`ValueError`."""
    if weights.counter:
        raise ValueError(f"the compiled heuristic has no 'counter' term; got counter={weights.counter}")
    return np.array(weights.values(), np.float64)


@_inline
def num_legal(games: Games, b: int) -> int:
    """How many legal actions the seat to act in game ``b`` has (the first of ``games.legal[b]``)."""
    return int(games.S[b, NLEGAL])


@_inline
def side_to_act(games: Games, b: int, rules: RuleTables) -> int:
    """The side of the seat to act in game ``b``."""
    return int(side_of(games.S[b, TURN], rules.P[P_PARTNER]))


@_inline
def greedy_key(S: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, score_tab: np.ndarray,
               act_tile: np.ndarray, act_slot: np.ndarray, a: int) -> int:
    """Greedy's order of placement ``a`` in game ``b`` as one number (``strategy.greedy_key``)."""
    t = act_tile[a]
    points = _placement_points(S[b, END_PIP:END_PIP + 4], S[b, END_VAL:END_VAL + 4], S[b, SNIFF_TILE], lo[t], hi[t],
                               act_slot[a], a >= P[P_INLINE_BASE], P[P_SNIFF], score_tab, P[P_DIV5])
    return int(_greedy_key(points, lo[t], hi[t]))


@_inline
def greedy_scan(games: Games, b: int, rules: RuleTables, keys: np.ndarray) -> tuple[int, int, int]:
    """Greedy's scan of the legal actions of game ``b``: ``keys[j]`` the :func:`greedy_key` of
    ``games.legal[b, j]`` (-1 for the draw); returns the lowest action with the best key (-1 if
    there is no placement), that key, and how many placements share it."""
    S, legal, P = games.S, games.legal, rules.P
    best, best_key, ties = -1, -1, 0
    for j in range(S[b, NLEGAL]):
        a = legal[b, j]
        keys[j] = -1
        if a == P[P_DRAW_ACTION]:
            continue
        keys[j] = key = greedy_key(S, b, P, rules.lo, rules.hi, rules.score_tab, rules.act_tile, rules.act_slot, a)
        if key > best_key:
            best, best_key, ties = a, key, 1
        elif key == best_key:
            best, ties = min(best, a), ties + 1
    return best, best_key, ties


class HeuristicSpace(NamedTuple):
    """The heuristic's work space (nothing compiled allocates): :func:`heuristic_space` makes one."""

    row: np.ndarray
    """``[1, 12]`` or wider, int64: the ends after a move."""
    scratch: np.ndarray
    """``[3, num_tiles]`` int64: the candidates, the tiles kept, the replies' points."""
    values: np.ndarray
    """float64, one per action: the value of each legal action."""


def heuristic_space(engine: VectorEngine) -> HeuristicSpace:
    """A :class:`HeuristicSpace` for games of ``engine``."""
    return HeuristicSpace(np.zeros((1, NS), np.int64), np.zeros((3, engine.tables.num_tiles), np.int64),
                          np.zeros(engine.num_actions, np.float64))


@_inline
def heuristic_values(games: Games, rules: RuleTables, b: int, W: np.ndarray, space: HeuristicSpace) -> None:
    """``HeuristicPlayer.evaluate`` of the placements of the seat to act in game ``b``
    (``strategy.heuristic_value`` of each): ``space.values[j]`` for ``games.legal[b, j]``
    (``-inf`` for the draw action, which :func:`heuristic_choice` decides)."""
    S, hands, played_by, legal = games.S, games.hands, games.played, games.legal
    P, lo, hi, act_tile, act_slot = rules.P, rules.lo, rules.hi, rules.act_tile, rules.act_slot
    row, values = space.row, space.values
    T, n = P[P_T], P[P_N]
    cand, rest, work = space.scratch[0], space.scratch[1], space.scratch[2]
    seat = S[b, TURN]
    nxt = (seat + 1) % n
    lack = S[b, LACKING + nxt]
    ncand = 0
    for t in range(T):
        if hands[b, seat, t] == 0 and played_by[b, t] < 0 and not ((lack >> lo[t]) & 1 or (lack >> hi[t]) & 1):
            cand[ncand] = t
            ncand += 1
    p_hold = _holding_odds(S[b, HAND_COUNT + nxt], ncand)
    me = side_of(seat, P[P_PARTNER])
    opp_min = 1 << 30
    for s in range(n):
        if side_of(s, P[P_PARTNER]) != me:
            opp_min = min(opp_min, S[b, HAND_COUNT + s])
    late = _late_phase(opp_min, S[b, HAND_COUNT + seat])
    scratch = Scratch(row[0, 0:4], row[0, 4:8], row[0, 8:12], work)
    layout = Layout(S[b, END_PIP:END_PIP + 4], S[b, END_VAL:END_VAL + 4], S[b, END_OPEN:END_OPEN + 4], S[b, SNIFF_TILE],
                    S[b, SNIFF_PENDING])
    codes = RuleCodes(P[P_SNIFF], P[P_SIDES_NOW] != 0, P[P_CHOICE] != 0, P[P_DIV5], rules.score_tab, lo, hi,
                      P[P_MAX_PIP])
    for j in range(S[b, NLEGAL]):
        a = legal[b, j]
        if a == P[P_DRAW_ACTION]:
            values[j] = -np.inf
            continue
        tile = act_tile[a]
        nrest = 0
        for t in range(T):
            if hands[b, seat, t] and t != tile:
                rest[nrest] = t
                nrest += 1
        values[j] = _heuristic_value(W, layout, tile, act_slot[a], a >= P[P_INLINE_BASE],
                                     Holding(rest, nrest, cand, ncand, p_hold, late, S[b, NPLAYS] > 0), codes, scratch)


@_jit
def heuristic_choice(games: Games, rules: RuleTables, b: int, W: np.ndarray, space: HeuristicSpace) -> int:
    """``HeuristicPlayer.act`` for the seat to act in game ``b`` (weights ``W``)."""
    S, legal, P, values = games.S, games.legal, rules.P, space.values
    draw = P[P_DRAW_ACTION]
    heuristic_values(games, rules, b, W, space)
    best_a, best_v, has_draw = -1, -np.inf, False
    for j in range(S[b, NLEGAL]):
        a = legal[b, j]
        if a == draw:
            has_draw = True
        elif values[j] > best_v or (values[j] == best_v and a < best_a):
            best_a, best_v = a, values[j]
    if has_draw:
        drawable = S[b, BONE_LEN] - S[b, BONE_POS] - P[P_RESERVE]
        if _draw_worth_it(best_v, drawable, W):
            best_a = draw
    return best_a


@_jit
def heuristic_actions(games: Games, rules: RuleTables, ids: np.ndarray, W: np.ndarray, space: HeuristicSpace,
                      out: np.ndarray) -> None:
    """``HeuristicPlayer.act`` (weights ``W``, see :func:`weight_vector`) for the seat to act in
    each game of ``ids``; ``out[i]`` for ``ids[i]``."""
    for i in range(ids.size):
        out[i] = heuristic_choice(games, rules, ids[i], W, space)


@_jit
def greedy_actions(games: Games, rules: RuleTables, ids: np.ndarray, W: np.ndarray, space: HeuristicSpace,
                   tied: np.ndarray, by_value: bool, out: np.ndarray) -> None:
    """The greedy player's action for the seat to act in each game of ``ids`` (``out[i]`` for
    ``ids[i]``): the placement that scores most now, ties to the heaviest tile, then (with
    ``by_value``) to the heuristic value with weights ``W`` (the stock ones), then to the lowest
    action. ``tied`` (int64, one per action) is work space."""
    S, legal, values = games.S, games.legal, space.values
    for i in range(ids.size):
        b = ids[i]
        k = S[b, NLEGAL]
        best, best_key, ties = greedy_scan(games, b, rules, tied)
        if by_value and ties > 1:
            heuristic_values(games, rules, b, W, space)
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
        self._space = heuristic_space(engine)
        self._tied = np.zeros(engine.num_actions, np.int64)
        self._stock = weight_vector(Weights())

    def greedy(self, games: np.ndarray) -> np.ndarray:
        """The greedy player's action in each of ``games`` (indices of games in play)."""
        eng = self.engine
        games = np.ascontiguousarray(games, np.int64)
        out = np.zeros(games.size, np.int64)
        greedy_actions(eng.games, eng.tables.arrays, games, self._stock, self._space, self._tied,
                       self.greedy_tiebreak == "heuristic", out)
        return out

    def heuristic(self, games: np.ndarray) -> np.ndarray:
        """The heuristic player's action in each of ``games`` (indices of games in play)."""
        eng = self.engine
        games = np.ascontiguousarray(games, np.int64)
        out = np.zeros(games.size, np.int64)
        heuristic_actions(eng.games, eng.tables.arrays, games, self._w, self._space, out)
        return out


def greedy_chooser(engine: VectorEngine, **options: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The compiled greedy player on ``engine``; its one option is ``tiebreak``."""
    if set(options) - {"tiebreak"}:
        raise ValueError(f"the compiled greedy player takes 'tiebreak' only; got {sorted(options)}")
    return CompiledBaselines(engine, greedy_tiebreak=str(options.get("tiebreak", "lowest"))).greedy


def heuristic_chooser(engine: VectorEngine, **options: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The compiled heuristic on ``engine``, with the weights ``options`` (any but ``counter``)."""
    return CompiledBaselines(engine, Weights.from_kwargs(**options)).heuristic


def random_chooser(engine: VectorEngine, **options: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The random player on ``engine``: in each listed game a move drawn uniformly from the legal
    list, from a generator of its own seeded by its one option ``seed`` (default 0, so that a run
    is repeatable). The same player in law as :class:`sniff_env.players.random.RandomPlayer`, not
    the same draws."""
    if set(options) - {"seed"}:
        raise ValueError(f"the compiled random player takes 'seed' only; got {sorted(options)}")
    seed = options.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"the compiled random player's seed must be a whole number from 0; got {seed!r}")
    rng = np.random.default_rng(0 if seed is None else seed)

    def choose(games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, np.int64)
        pick = rng.integers(0, engine.num_legal[games]) if games.size else games
        return engine.legal[games, pick].astype(np.int64)

    return choose
