"""How the built-in players value a move, written once: greedy's key and the heuristic's terms.

The functions here are plain functions over ints, floats and int sequences, in the subset of
Python that numba compiles, on top of the rules of :mod:`sniff_env.rulebook`. The reference
players (:mod:`sniff_env.players.greedy`, :mod:`sniff_env.players.heuristic`) call them as
Python; the batched players (:mod:`sniff_env.players.compiled.baselines`) compile them, so both choose
alike by construction. A layout is its ends' pips, values and open flags and the sniff (see
:func:`sniff_env.rulebook.place`); tiles are indices into the ``lo``/``hi`` tables.

:class:`Weights` holds the heuristic's weights; :data:`WEIGHT_ORDER` is the order of the plain
vector ``W`` the functions read.
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, fields, replace
from functools import lru_cache
from typing import Any, NamedTuple

from sniff_env.players.specs import MAX_WEIGHT
from sniff_env.rule_codes import SNIFF_CODE
from sniff_env.rulebook import count_after, fits, place, play_points
from sniff_env.rules import DoublePlacement, Points, Rules, SidesOpen
from sniff_env.scoring import scoring_table
from sniff_env.tiles import tile_set

Ints = Any
"""An int sequence (list, tuple or numpy array)."""


@dataclass(frozen=True)
class Weights:
    """The weights of the heuristic's evaluation, in points."""

    reply: float = 1.0
    follow_up: float = 0.3
    pip: float = 0.15
    pip_late: float = 0.6
    double: float = 1.5
    variety: float = 0.6
    playable: float = 0.4
    draw_threshold: float = -8.0
    block: float = 0.0
    """Per unit of the chance that the next seat holds no tile that fits the new layout."""
    counter: float = 0.0
    """Per point the seat can expect to score right after the next seat's best reply (a second
    ply: a refinement of ``follow_up``; slower, and played by the reference player only)."""

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_kwargs(cls, base: Weights | None = None, **values: Any) -> Weights:
        """``base`` (the defaults if None) with the given fields replaced; unknown names or
        non-numbers raise :class:`TypeError`, numbers that are not finite or larger than
        :data:`~sniff_env.players.specs.MAX_WEIGHT` :class:`ValueError`."""
        allowed = cls.field_names()
        unknown = sorted(set(values) - set(allowed))
        if unknown:
            raise TypeError(f"unknown heuristic weight(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")
        for key, v in values.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"heuristic weight {key} must be a number; got {v!r}")
            if not math.isfinite(v) or abs(v) > MAX_WEIGHT:
                raise ValueError(f"heuristic weight {key} must be a finite number from {-MAX_WEIGHT:.10g} to "
                                 f"{MAX_WEIGHT:.10g}; got {v!r}")
        return replace(base or cls(), **{k: float(v) for k, v in values.items()})

    def values(self) -> tuple[float, ...]:
        """The weights as the vector ``W`` (in :data:`WEIGHT_ORDER`, ``counter`` last)."""
        return astuple(self)


WEIGHT_ORDER = Weights.field_names()
"""The :class:`Weights` fields in the order of the vector ``W``."""
(W_REPLY, W_FOLLOW_UP, W_PIP, W_PIP_LATE, W_DOUBLE, W_VARIETY, W_PLAYABLE, W_DRAW_THRESHOLD, W_BLOCK,
 W_COUNTER) = range(len(WEIGHT_ORDER))

TIEBREAKS = ("lowest", "heuristic")
"""How greedy orders placements equal on points and tile weight: lowest action, or heuristic value."""


def checked_tiebreak(tiebreak: str) -> str:
    """``tiebreak`` if it is one of :data:`TIEBREAKS`, else :class:`ValueError`."""
    if tiebreak not in TIEBREAKS:
        raise ValueError(f"greedy tiebreak must be one of {', '.join(TIEBREAKS)}; got {tiebreak!r}")
    return tiebreak


class RuleCodes(NamedTuple):
    """What the functions here read of a :class:`~sniff_env.rules.Rules`, as plain values."""

    sniff_kind: int
    sides_now: bool
    inline_ok: bool
    """Doubles may be laid in line (``double_placement="choice"``)."""
    div5: bool
    score_tab: tuple[bool, ...]
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    max_pip: int


@lru_cache(maxsize=64)
def rule_codes(rules: Rules) -> RuleCodes:
    """``rules`` as the plain values the functions here take."""
    ts = tile_set(rules.max_pip)
    return RuleCodes(
        SNIFF_CODE[rules.sniff], rules.sniff_sides_open is SidesOpen.IMMEDIATELY,
        rules.double_placement is DoublePlacement.CHOICE, rules.points is Points.COUNT_DIV5,
        scoring_table(rules.scoring), ts.lo, ts.hi, rules.max_pip,
    )


# -- greedy ------------------------------------------------------------------------------------
def placement_points(end_pip: Ints, end_val: Ints, sniff_tile: int, lo: int, hi: int, slot: int, inline: bool,
                     sniff_kind: int, score_tab: Ints, div5: bool) -> int:
    """The points laying tile ``(lo, hi)`` on ``slot`` scores now."""
    return play_points(count_after(end_pip, end_val, sniff_tile, lo, hi, slot, inline, sniff_kind), score_tab, div5)


def greedy_key(points: int, lo: int, hi: int) -> int:
    """Greedy's order of a placement as one number: the points it scores, then the tile's pips."""
    return points * 1024 + lo + hi


# -- the heuristic ------------------------------------------------------------------------------
class Layout(NamedTuple):
    """A layout as the functions here read it (see :func:`sniff_env.rulebook.place`)."""

    end_pip: Ints
    end_val: Ints
    end_open: Ints
    sniff_tile: int
    sniff_pending: int


class Holding(NamedTuple):
    """What the seat keeps after a move, and what the next seat may hold (:func:`heuristic_value`)."""

    rest: Ints
    """``rest[:nrest]``: the tiles the seat keeps."""
    nrest: int
    cand: Ints
    """``cand[:ncand]``: the tiles the next seat may hold, each with probability ``p_hold``."""
    ncand: int
    p_hold: float
    late: float
    """:func:`late_phase`."""
    has_plays: bool
    """Whether a tile was played this hand before the move."""


class Scratch(NamedTuple):
    """Work space of :func:`heuristic_value`: the ends after the move (4 each) and ``ncand`` numbers."""

    after_pip: Ints
    after_val: Ints
    after_open: Ints
    work: Ints


def playable(end_pip: Ints, end_open: Ints, lo: int, hi: int) -> int:
    """1 if tile ``(lo, hi)`` fits an open end, else 0."""
    for e in range(4):
        if fits(end_pip, end_open, e, lo, hi):
            return 1
    return 0


def best_points(end_pip: Ints, end_val: Ints, end_open: Ints, sniff_tile: int, lo: int, hi: int, inline_ok: bool,
                sniff_kind: int, score_tab: Ints, div5: bool) -> int:
    """The most tile ``(lo, hi)`` could score on the layout now (0 if it fits nowhere)."""
    best = 0
    for e in range(4):
        if fits(end_pip, end_open, e, lo, hi):
            best = max(best, placement_points(end_pip, end_val, sniff_tile, lo, hi, e, False, sniff_kind, score_tab,
                                              div5))
            if inline_ok and lo == hi:
                best = max(best, placement_points(end_pip, end_val, sniff_tile, lo, hi, e, True, sniff_kind,
                                                  score_tab, div5))
    return best


def expected_best(points: Ints, size: int, p: float) -> float:
    """Expected maximum of ``points[:size]`` when each is available independently with
    probability ``p`` (sorts ``points[:size]``, largest first, in place)."""
    for i in range(1, size):  # insertion sort: a few dozen entries at most
        v = points[i]
        j = i - 1
        while j >= 0 and points[j] < v:
            points[j + 1] = points[j]
            j -= 1
        points[j + 1] = v
    total, miss = 0.0, 1.0
    for i in range(size):
        if points[i] <= 0:
            break
        total += points[i] * p * miss
        miss *= 1.0 - p
    return total


def holding_odds(hand_size: int, candidates: int) -> float:
    """The chance that a seat of ``hand_size`` tiles holds a given one of ``candidates`` tiles."""
    return min(1.0, hand_size / candidates) if candidates else 0.0


def late_phase(opponents_fewest: int, own: int) -> float:
    """1.0 once a hand nears its end (an opponent or the seat holds two tiles or fewer), else 0.0."""
    return 1.0 if opponents_fewest <= 2 or own <= 2 else 0.0


def heuristic_value(W: Ints, layout: Layout, tile: int, slot: int, inline: bool, holding: Holding, codes: RuleCodes,
                    scratch: Scratch) -> float:
    """The heuristic's value of laying ``tile`` on ``slot`` of ``layout`` (the ``counter`` term aside).

    ``holding`` says what the seat keeps and what the next seat may hold; ``codes`` are the
    rules (:func:`rule_codes`). The value is the points now, less ``reply`` times what the next
    seat can expect to score back, plus ``follow_up`` times the most the seat could score next,
    ``playable`` per kept tile that still fits, ``variety`` per distinct pip kept, ``block``
    times the chance that the next seat cannot play, the tile's pips (more when ``late``) and
    ``double`` for a double after the lead."""
    end_pip, end_val, end_open, sniff_tile, sniff_pending = layout
    rest, nrest, cand, ncand, p_hold, late, has_plays = holding
    sniff_kind, sides_now, inline_ok, div5, score_tab, lo, hi, max_pip = codes
    after_pip, after_val, after_open, work = scratch
    tlo, thi = lo[tile], hi[tile]
    v = float(placement_points(end_pip, end_val, sniff_tile, tlo, thi, slot, inline, sniff_kind, score_tab, div5))
    if nrest:
        for e in range(4):
            after_pip[e], after_val[e], after_open[e] = end_pip[e], end_val[e], end_open[e]
        sniff = place(after_pip, after_val, after_open, sniff_tile, sniff_pending, tile, tlo, thi, slot, inline,
                      sniff_kind, sides_now)[1]
        for c in range(ncand):
            t = cand[c]
            work[c] = best_points(after_pip, after_val, after_open, sniff, lo[t], hi[t], inline_ok, sniff_kind,
                                  score_tab, div5)
        v -= W[W_REPLY] * expected_best(work, ncand, p_hold)
        mine, fitting, pips_kept = 0, 0, 0
        for r in range(nrest):
            t = rest[r]
            mine = max(mine, best_points(after_pip, after_val, after_open, sniff, lo[t], hi[t], inline_ok,
                                         sniff_kind, score_tab, div5))
            fitting += playable(after_pip, after_open, lo[t], hi[t])
            pips_kept |= (1 << lo[t]) | (1 << hi[t])
        v += W[W_FOLLOW_UP] * mine
        v += W[W_PLAYABLE] * fitting
        distinct = 0
        for p in range(max_pip + 1):
            distinct += (pips_kept >> p) & 1
        v += W[W_VARIETY] * distinct
        if W[W_BLOCK] != 0.0:
            threats = 0
            for c in range(ncand):
                threats += playable(after_pip, after_open, lo[cand[c]], hi[cand[c]])
            v += W[W_BLOCK] * (1.0 - p_hold) ** threats
    v += (W[W_PIP] + W[W_PIP_LATE] * late) * (tlo + thi)
    if tlo == thi and has_plays:
        v += W[W_DOUBLE]
    return float(v)


def draw_worth_it(best: float, drawable: int, W: Ints) -> bool:
    """Whether the heuristic draws instead: every placement looks clearly bad (``best`` below
    ``draw_threshold``) and more than two tiles can be drawn."""
    return bool(best < W[W_DRAW_THRESHOLD] and drawable > 2)
