"""The greedy player: the placement that scores most now; ties go to the heaviest tile."""

from __future__ import annotations

from typing import Any

from ..actions import action_codec
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


class GreedyPlayer:
    """Scores the most it can now (deterministic; ``seed`` is accepted and unused)."""

    def __init__(self, seed: int | None = None, name: str = "greedy") -> None:
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info)
        return greedy_action(state, state.legal)
