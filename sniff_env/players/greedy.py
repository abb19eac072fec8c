"""The greedy player: the placement that scores most now; ties go to the heaviest tile.

Placements still equal after that (the same tile on two ends, or two tiles of the same weight)
go to the lowest action; with ``tiebreak="heuristic"`` (spec ``greedy:tiebreak=heuristic``) to
the one the stock heuristic values most (what the next seat can score back, what the seat keeps),
which looks no further than that tie and only to break it.
"""

from __future__ import annotations

from typing import Any

from ..actions import action_codec
from ..infostate import InfoState
from ..layout import Layout, points_after
from ..tiles import tile_set
from ._base import info_of


def greedy_action(layout: Layout, legal: list[int] | tuple[int, ...]) -> int:
    """The greedy choice among ``legal`` on ``layout`` (a Game or an InfoState).

    Never draws voluntarily; among equal points the heaviest tile, then the lowest action.
    """
    rules = layout.rules
    codec = action_codec(rules.max_pip)
    pips = tile_set(rules.max_pip).pips
    best, best_key = legal[0], (-1, -1)
    for a in legal:
        if a == codec.draw_action:
            continue
        tile = codec.decode(a)[0]
        key = (points_after(layout, a), pips[tile])
        if key > best_key:
            best, best_key = a, key
    return best


TIEBREAKS = ("lowest", "heuristic")


class GreedyPlayer:
    """Scores the most it can now (deterministic; ``seed`` is accepted and unused).

    ``tiebreak`` orders the placements still equal on points and tile weight: ``"lowest"``
    action (the default) or the stock ``"heuristic"`` value.
    """

    def __init__(self, seed: int | None = None, name: str = "greedy", tiebreak: str = "lowest") -> None:
        if tiebreak not in TIEBREAKS:
            raise ValueError(f"greedy tiebreak must be one of {', '.join(TIEBREAKS)}; got {tiebreak!r}")
        self.name = name
        self.tiebreak = tiebreak

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info)
        if self.tiebreak == "lowest":
            return greedy_action(state, state.legal)
        return greedy_heuristic_tiebreak(state)


def greedy_heuristic_tiebreak(state: InfoState) -> int:
    """Most points now, then the heaviest tile, then the stock heuristic's value, then the lowest
    action."""
    from .heuristic import HeuristicPlayer

    codec = action_codec(state.rules.max_pip)
    pips = tile_set(state.rules.max_pip).pips
    keys = {a: (points_after(state, a), pips[codec.decode(a)[0]]) for a in state.legal if a != codec.draw_action}
    top = max(keys.values())
    tied = [a for a, k in keys.items() if k == top]
    if len(tied) == 1:
        return tied[0]
    values = HeuristicPlayer().evaluate(state)
    return max(tied, key=lambda a: (values[a], -a))
