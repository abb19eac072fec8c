"""What a placement does to the public layout: the count after it and the points it scores.

A placement's count depends only on the public layout (end pips and values, the sniff), so
these helpers work alike on a :class:`~sniff_env.game.Game` and on an
:class:`~sniff_env.infostate.InfoState`. The rules are :func:`sniff_env.rulebook.count_after`
and :func:`sniff_env.rulebook.play_points`, which the engines run too.
"""

from __future__ import annotations

from typing import Protocol

from . import rulebook
from .actions import action_codec
from .rule_codes import SNIFF_CODE
from .rules import Points, Rules
from .scoring import scoring_table
from .tiles import tile_set


class Layout(Protocol):
    """The public layout fields shared by ``Game`` and ``InfoState``."""

    @property
    def rules(self) -> Rules: ...
    @property
    def end_pip(self) -> tuple[int, ...] | list[int]: ...
    @property
    def end_val(self) -> tuple[int, ...] | list[int]: ...
    @property
    def sniff_tile(self) -> int: ...


def count_after(layout: Layout, action: int) -> int:
    """The count after placement ``action`` (not the draw action) on ``layout``."""
    rules = layout.rules
    tile, slot, inline = action_codec(rules.max_pip).decode(action)
    lo, hi = tile_set(rules.max_pip).tiles[tile]
    return rulebook.count_after(layout.end_pip, layout.end_val, layout.sniff_tile, lo, hi, slot, inline,
                                SNIFF_CODE[rules.sniff])


def points_for(rules: Rules, count: int) -> int:
    """The points a placement leaving ``count`` scores."""
    return rulebook.play_points(count, scoring_table(rules.scoring), rules.points is Points.COUNT_DIV5)


def points_after(layout: Layout, action: int) -> int:
    """The points placement ``action`` scores now."""
    return points_for(layout.rules, count_after(layout, action))
