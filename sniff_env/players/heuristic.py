"""The heuristic player: what the strategy guides teach, as a one-ply evaluation.

Each placement is valued as: the points it scores now; minus what the next seat can expect to
score back (from the tiles it may hold: unseen, without a pip it is known to lack, each held
with probability hand size / candidate tiles; the expected best of them); plus a share of what
the seat itself could score next on the new layout (repeaters); plus shedding heavy tiles
(more as the hand nears its end), playing doubles while they still fit, and keeping variety
(distinct pips and tiles that stay playable). A voluntary draw, where the rules allow one, is
taken only when every placement looks clearly bad and tiles remain to draw.

The weights of these terms are a :class:`Weights`; each may also be given to the player as a
keyword (``HeuristicPlayer(reply=1.2)``, or the spec ``heuristic:reply=1.2,follow_up=0.5``).
Two optional terms are off (weight 0) in the stock player: ``block``, the chance that the next
seat cannot play at all, and ``counter``, what the seat can expect to score right after the
next seat's best reply (a second ply that refines ``follow_up``).
"""

from __future__ import annotations

import math
import random
import typing
from dataclasses import dataclass, fields, replace
from typing import Any

from ..actions import SLOTS, action_codec
from ..game import Game, Phase
from ..infostate import InfoState, determinize
from ..layout import points_after
from ..rules import DoublePlacement
from ..tiles import mask_tiles, tile_set
from ._base import info_of


@dataclass(frozen=True)
class Weights:
    """The weights of the evaluation, in points."""

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
    ply: a refinement of ``follow_up``; slower, as it steps every scoring reply)."""

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_kwargs(cls, base: Weights | None = None, **values: Any) -> Weights:
        """``base`` (the defaults if None) with the given fields replaced; unknown names or
        non-numbers raise :class:`TypeError`."""
        allowed = cls.field_names()
        unknown = sorted(set(values) - set(allowed))
        if unknown:
            raise TypeError(f"unknown heuristic weight(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")
        for key, v in values.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"heuristic weight {key} must be a number; got {v!r}")
            if not math.isfinite(v):
                raise ValueError(f"heuristic weight {key} must be a finite number; got {v!r}")
        return replace(base or cls(), **{k: float(v) for k, v in values.items()})


def public_layout(state: InfoState) -> Game:
    """A game holding the public layout and the seat's own hand only (other hands empty, no
    boneyard): placements can be stepped on it to see the layout they leave."""
    g = determinize(state, random.Random(0))
    g.hands = [state.hand if s == state.seat else 0 for s in range(state.rules.num_players)]
    g.boneyard = ()
    g.bone_pos = 0
    g._legal = None
    return g


def best_points(layout: Game, tiles: list[int], allow_inline: bool) -> list[int]:
    """For each tile, the most it could score placed on ``layout`` now (0 if unplayable)."""
    ts = tile_set(layout.rules.max_pip)
    codec = action_codec(layout.rules.max_pip)
    out = []
    ends = [(e, layout.end_pip[e]) for e in range(4) if layout.end_open[e]]
    for t in tiles:
        lo, hi = ts.tiles[t]
        best = 0
        for e, pip in ends:
            if pip == lo or pip == hi:
                best = max(best, points_after(layout, t * SLOTS + e))
                if allow_inline and lo == hi:
                    best = max(best, points_after(layout, codec.inline_base + pip * SLOTS + e))
        out.append(best)
    return out


def expected_best(points: list[int], p: float) -> float:
    """Expected maximum when each of ``points`` is available independently with probability p."""
    total, miss = 0.0, 1.0
    for v in sorted(points, reverse=True):
        if v <= 0:
            break
        total += v * p * miss
        miss *= 1.0 - p
    return total


class HeuristicPlayer:
    """A one-ply expert evaluation (deterministic; ``seed`` is accepted and unused).

    Its weights are ``weights``, or the defaults with any :class:`Weights` field given as a
    keyword (not both).
    """

    def __init__(
        self, seed: int | None = None, name: str = "heuristic", weights: Weights | None = None, **overrides: Any
    ) -> None:
        if weights is not None and overrides:
            raise TypeError(f"give either weights= or weight keywords ({', '.join(sorted(overrides))}), not both")
        self.name = name
        self.weights = weights if weights is not None else Weights.from_kwargs(**overrides)

    @classmethod
    def keyword_options(cls) -> dict[str, Any]:
        """The weight keywords the constructor takes, with their types (what a spec may give)."""
        return typing.get_type_hints(Weights)

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info)
        values = self.evaluate(state)
        return max(values, key=lambda a: (values[a], -a))

    def evaluate(self, state: InfoState) -> dict[int, float]:
        """The value of every legal action."""
        rules, w = state.rules, self.weights
        ts = tile_set(rules.max_pip)
        codec = action_codec(rules.max_pip)
        n = rules.num_players
        inline_ok = rules.double_placement is DoublePlacement.CHOICE
        nxt = (state.seat + 1) % n  # always an opponent, partnership or not
        unseen = state.unseen_mask
        lack = state.lacking[nxt]
        cand = [t for t in mask_tiles(unseen) if not any(lack >> p & 1 for p in ts.tiles[t])]
        p_hold = min(1.0, state.hand_sizes[nxt] / len(cand)) if cand else 0.0
        opp_min = min(state.hand_sizes[s] for s in range(n) if rules.side_of(s) != rules.side_of(state.seat))
        late = 1.0 if opp_min <= 2 or state.hand_sizes[state.seat] <= 2 else 0.0
        base = public_layout(state)
        values: dict[int, float] = {}
        for a in state.legal:
            if a == codec.draw_action:
                continue
            tile = codec.decode(a)[0]
            v = float(points_after(state, a))
            g = base.copy()
            g.step(a)
            rest = mask_tiles(state.hand & ~(1 << tile))
            if rest:
                threat = expected_best(best_points(g, cand, inline_ok), p_hold)
                v -= w.reply * threat
                mine = best_points(g, rest, inline_ok)
                v += w.follow_up * max(mine)
                if w.counter:
                    v += w.counter * expected_counter(g, nxt, cand, rest, p_hold, max(mine), inline_ok)
                v += w.playable * sum(1 for t in rest if _fits(g, ts.tiles[t]))
                v += w.variety * len({p for t in rest for p in ts.tiles[t]})
                if w.block:
                    fits = sum(1 for t in cand if _fits(g, ts.tiles[t]))
                    v += w.block * (1.0 - p_hold) ** fits
            v += (w.pip + w.pip_late * late) * ts.pips[tile]
            if ts.is_double[tile] and state.plays:
                v += w.double
            values[a] = v
        if codec.draw_action in state.legal:
            best = max(values.values())
            worth_it = best < w.draw_threshold and state.drawable > 2
            values[codec.draw_action] = best + 1.0 if worth_it else best - 1e9
        return values


def expected_counter(
    layout: Game, nxt: int, cand: list[int], rest: list[int], p_hold: float, fallback: float, allow_inline: bool
) -> float:
    """What the seat can expect to score right after the next seat's reply on ``layout``: the
    next seat plays its best-scoring tile (each of ``cand`` held with probability ``p_hold``)
    and the seat answers with its best of ``rest``; ``fallback`` where it has no scoring reply."""
    if layout.phase is not Phase.PLAY or not cand:
        return fallback
    opp = layout.copy()
    opp.turn, opp.drawn_this_turn, opp._legal = nxt, 0, None
    opp.hands[nxt] = sum(1 << t for t in cand)
    codec = action_codec(layout.rules.max_pip)
    best: dict[int, tuple[int, int]] = {}
    for b in opp.legal_actions():
        if b == codec.draw_action:
            continue
        pts = points_after(opp, b)
        t = codec.decode(b)[0]
        if pts > 0 and (t not in best or pts > best[t][0]):
            best[t] = (pts, b)
    total, miss = 0.0, 1.0
    for pts, b in sorted(best.values(), reverse=True):
        after = opp.copy()
        after.step(b)
        total += p_hold * miss * max(best_points(after, rest, allow_inline))
        miss *= 1.0 - p_hold
    return total + miss * fallback


def _fits(layout: Game, tile: tuple[int, int]) -> bool:
    return any(layout.end_open[e] and layout.end_pip[e] in tile for e in range(4))
