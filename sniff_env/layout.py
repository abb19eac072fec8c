"""What a placement does to the public layout: the count after it and the points it scores.

A placement's count depends only on the public layout (end pips and values, the sniff), so
these helpers work alike on a :class:`~sniff_env.game.Game` and on an
:class:`~sniff_env.infostate.InfoState`. They mirror ``Game._place`` for the count alone and
are tested against the engine move by move for every preset.
"""

from __future__ import annotations

from typing import Protocol

from .actions import LEAD, NORTH, SOUTH, action_codec
from .rules import Points, Rules, SniffKind
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
    ts = tile_set(rules.max_pip)
    tile, slot, inline = action_codec(rules.max_pip).decode(action)
    lo, hi = ts.tiles[tile]
    if slot == LEAD:
        return lo + hi
    vals = list(layout.end_val)
    pip = layout.end_pip[slot]
    if lo == hi:
        if layout.sniff_tile < 0 and rules.sniff is not SniffKind.NONE:
            spinner = rules.sniff is SniffKind.SPINNER
            vals[slot] = 0 if spinner else pip
            vals[NORTH] = vals[SOUTH] = pip if spinner else 0
        else:
            vals[slot] = pip if inline else 2 * pip
    else:
        vals[slot] = hi if lo == pip else lo
    return vals[0] + vals[1] + vals[2] + vals[3]


def points_for(rules: Rules, count: int) -> int:
    """The points a placement leaving ``count`` scores."""
    if not scoring_table(rules.scoring)[count]:
        return 0
    return count // 5 if rules.points is Points.COUNT_DIV5 else count


def points_after(layout: Layout, action: int) -> int:
    """The points placement ``action`` scores now."""
    return points_for(layout.rules, count_after(layout, action))
