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

import typing
from typing import Any

from sniff_env.actions import SLOTS, action_codec
from sniff_env.game import Game
from sniff_env.infostate import InfoState
from sniff_env.players import strategy
from sniff_env.players._base import info_of
from sniff_env.players.strategy import (
    Holding,
    Layout,
    RuleCodes,
    Scratch,
    Weights,
    draw_worth_it,
    expected_best,
    heuristic_value,
    holding_odds,
    late_phase,
    placement_points,
    playable,
    rule_codes,
)
from sniff_env.rulebook import fits, inline_offered, place
from sniff_env.tiles import mask_tiles

__all__ = ["HeuristicPlayer", "Weights", "best_points", "expected_best", "expected_counter", "public_layout"]


def public_layout(state: InfoState) -> Game:
    """A game holding the public layout and the seat's own hand only (other hands empty, no
    boneyard): placements can be stepped on it to see the layout they leave."""
    hands = [state.hand if s == state.seat else 0 for s in range(state.rules.num_players)]
    return Game.from_position(state, hands, (), seed=0, partial=True)


def best_points(layout: Game, tiles: list[int], allow_inline: bool) -> list[int]:
    """For each tile, the most it could score placed on ``layout`` now (0 if unplayable)."""
    c = rule_codes(layout.rules)
    return [strategy.best_points(layout.end_pip, layout.end_val, layout.end_open, layout.sniff_tile, c.lo[t], c.hi[t],
                                 allow_inline, c.sniff_kind, c.score_tab, c.div5) for t in tiles]


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
        self._w = self.weights.values()

    @classmethod
    def keyword_options(cls) -> dict[str, Any]:
        """The weight keywords the constructor takes, with their types (what a spec may give)."""
        return typing.get_type_hints(Weights)

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info, observation)
        values = self.evaluate(state)
        return max(values, key=lambda a: (values[a], -a))

    def evaluate(self, state: InfoState) -> dict[int, float]:
        """The value of every legal action (see :func:`sniff_env.players.strategy.heuristic_value`)."""
        rules, w, W = state.rules, self.weights, self._w
        c = rule_codes(rules)
        codec = action_codec(rules.max_pip)
        n = rules.num_players
        nxt = (state.seat + 1) % n  # always an opponent, partnership or not
        lack = state.lacking[nxt]
        cand = [t for t in mask_tiles(state.unseen_mask) if not (lack >> c.lo[t] & 1 or lack >> c.hi[t] & 1)]
        p_hold = holding_odds(state.hand_sizes[nxt], len(cand))
        opp_min = min(state.hand_sizes[s] for s in range(n) if rules.side_of(s) != rules.side_of(state.seat))
        late = late_phase(opp_min, state.hand_sizes[state.seat])
        held = mask_tiles(state.hand)
        after: tuple[list[int], list[int], list[bool]] = ([0] * 4, [0] * 4, [False] * 4)
        scratch = Scratch(*after, [0] * len(cand))
        layout = Layout(state.end_pip, state.end_val, state.end_open, state.sniff_tile, state.sniff_pending)
        values: dict[int, float] = {}
        for a in state.legal:
            if a == codec.draw_action:
                continue
            tile, slot, inline = codec.decode(a)
            rest = [t for t in held if t != tile]
            holding = Holding(rest, len(rest), cand, len(cand), p_hold, late, bool(state.plays))
            v = heuristic_value(W, layout, tile, slot, inline, holding, c, scratch)
            if w.counter and rest:
                v += w.counter * expected_counter(state, a, cand, rest, p_hold)
            values[a] = v
        if codec.draw_action in state.legal:
            best = max(values.values())
            values[codec.draw_action] = best + 1.0 if draw_worth_it(best, state.drawable, W) else best - 1e9
        return values


def expected_counter(state: InfoState, action: int, cand: list[int], rest: list[int], p_hold: float) -> float:
    """What the seat can expect to score right after the next seat's reply to ``action``: the
    next seat plays its best-scoring tile (each of ``cand`` held with probability ``p_hold``)
    and the seat answers with its best of ``rest``; what it could score next where the next
    seat has no scoring reply. Nothing follows where ``action`` ends the hand: it reaches the
    target during the hand, or no tile the seat keeps fits the layout it leaves."""
    c = rule_codes(state.rules)
    codec = action_codec(state.rules.max_pip)
    tile, slot, inline = codec.decode(action)
    ends: Ends = (list(state.end_pip), list(state.end_val), [int(o) for o in state.end_open])
    points = placement_points(ends[0], ends[1], state.sniff_tile, c.lo[tile], c.hi[tile], slot, inline, c.sniff_kind,
                              c.score_tab, c.div5)
    _, sniff, pending = place(ends[0], ends[1], ends[2], state.sniff_tile, state.sniff_pending, tile, c.lo[tile],
                              c.hi[tile], slot, inline, c.sniff_kind, c.sides_now)
    fallback = float(max(_best_of(c, ends, sniff, rest)))
    rules = state.rules
    side = rules.side_of(state.seat)
    reached = rules.win_during_hand and points and state.scores[side] + points >= rules.target
    if reached or not any(playable(ends[0], ends[2], c.lo[t], c.hi[t]) for t in rest) or not cand:
        return fallback
    best: dict[int, tuple[int, int]] = {}  # per tile, its best-scoring reply (the first in action order)
    with_inline = inline_offered(c.inline_ok, c.sniff_kind, sniff)
    for as_inline in (False, True) if with_inline else (False,):  # in-line actions follow the others
        for t in cand:
            lo, hi = c.lo[t], c.hi[t]
            for e in range(4):
                if (as_inline and lo != hi) or not fits(ends[0], ends[2], e, lo, hi):
                    continue
                pts = placement_points(ends[0], ends[1], sniff, lo, hi, e, as_inline, c.sniff_kind, c.score_tab,
                                       c.div5)
                b = codec.inline_base + lo * SLOTS + e if as_inline else t * SLOTS + e
                if pts > 0 and (t not in best or pts > best[t][0]):
                    best[t] = (pts, b)
    total, miss = 0.0, 1.0
    for _, b in sorted(best.values(), reverse=True):
        t, e, as_inline = codec.decode(b)
        reply: Ends = (list(ends[0]), list(ends[1]), list(ends[2]))
        after = place(reply[0], reply[1], reply[2], sniff, pending, t, c.lo[t], c.hi[t], e, as_inline, c.sniff_kind,
                      c.sides_now)[1]
        total += p_hold * miss * max(_best_of(c, reply, after, rest))
        miss *= 1.0 - p_hold
    return total + miss * fallback


Ends = tuple[list[int], list[int], list[int]]
"""A layout's ends: their pips, values and open flags."""


def _best_of(c: RuleCodes, ends: Ends, sniff_tile: int, tiles: list[int]) -> list[int]:
    return [strategy.best_points(ends[0], ends[1], ends[2], sniff_tile, c.lo[t], c.hi[t], c.inline_ok, c.sniff_kind,
                                 c.score_tab, c.div5) for t in tiles]
