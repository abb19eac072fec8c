"""The greedy player: the placement that scores most now; ties go to the heaviest tile.

Placements still equal after that (the same tile on two ends, or two tiles of the same weight)
go to the lowest action; with ``tiebreak="heuristic"`` (spec ``greedy:tiebreak=heuristic``) to
the one the stock heuristic values most (what the next seat can score back, what the seat keeps),
which looks no further than that tie and only to break it.
"""

from __future__ import annotations

from typing import Any

from sniff_env.actions import action_codec
from sniff_env.infostate import InfoState
from sniff_env.layout import LayoutView
from sniff_env.players._base import info_of
from sniff_env.players.heuristic import HeuristicPlayer
from sniff_env.players.strategy import TIEBREAKS, checked_tiebreak, greedy_key, placement_points, rule_codes


def greedy_ties(layout: LayoutView, legal: list[int] | tuple[int, ...]) -> list[int]:
    """The placements among ``legal`` on ``layout`` (a Game or an InfoState) that score most now
    and, among those, place the heaviest tile, in the order of ``legal`` (empty if it holds only
    the draw)."""
    rules = layout.rules
    codec, c = action_codec(rules.max_pip), rule_codes(rules)
    end_pip, end_val, sniff_tile = layout.end_pip, layout.end_val, layout.sniff_tile
    ties: list[int] = []
    best_key = -1
    for a in legal:
        if a == codec.draw_action:
            continue
        tile, slot, inline = codec.decode(a)
        lo, hi = c.lo[tile], c.hi[tile]
        key = greedy_key(placement_points(end_pip, end_val, sniff_tile, lo, hi, slot, inline, c.sniff_kind,
                                          c.score_tab, c.div5), lo, hi)
        if key > best_key:
            ties, best_key = [a], key
        elif key == best_key:
            ties.append(a)
    return ties


def greedy_action(layout: LayoutView, legal: list[int] | tuple[int, ...]) -> int:
    """The greedy choice among ``legal`` on ``layout`` (a Game or an InfoState).

    Never draws voluntarily; among equal points the heaviest tile, then the lowest action.
    """
    ties = greedy_ties(layout, legal)
    return ties[0] if ties else legal[0]


__all__ = ["TIEBREAKS", "GreedyPlayer", "checked_tiebreak", "greedy_action", "greedy_heuristic_tiebreak", "greedy_ties"]


class GreedyPlayer:
    """Scores the most it can now (deterministic; ``seed`` is accepted and unused).

    ``tiebreak`` orders the placements still equal on points and tile weight: ``"lowest"``
    action (the default) or the stock ``"heuristic"`` value.
    """

    def __init__(self, seed: int | None = None, name: str = "greedy", tiebreak: str = "lowest") -> None:
        self.name = name
        self.tiebreak = checked_tiebreak(tiebreak)

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info, observation)
        if self.tiebreak == "lowest":
            return greedy_action(state, state.legal)
        return greedy_heuristic_tiebreak(state)


def greedy_heuristic_tiebreak(state: InfoState) -> int:
    """Most points now, then the heaviest tile, then the stock heuristic's value, then the lowest
    action."""
    tied = greedy_ties(state, state.legal)
    if len(tied) == 1:
        return tied[0]
    values = HeuristicPlayer().evaluate(state)
    return max(tied, key=lambda a: (values[a], -a))
