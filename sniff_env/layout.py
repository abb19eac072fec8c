"""The public layout as a value: its ends, the sniff and the count, and what a placement does to it.

:class:`Layout` is a frozen value built from a :class:`~sniff_env.game.Game` or an
:class:`~sniff_env.infostate.InfoState` (``game.layout``, ``info.layout``, or
:meth:`Layout.of`); :meth:`Layout.place` returns the layout after a placement and
:meth:`Layout.count_after` / :meth:`Layout.points_after` what it would count and score, without
playing it. The rules are :func:`sniff_env.rulebook.place`, :func:`~sniff_env.rulebook.count_after`
and :func:`~sniff_env.rulebook.play_points`, the functions both engines run on their own state,
so the value, the reference engine and the batched kernels cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sniff_env import rulebook
from sniff_env.actions import LEAD, action_codec
from sniff_env.errors import IllegalMoveError
from sniff_env.rule_codes import SNIFF_CODE
from sniff_env.rules import Points, Rules, SidesOpen
from sniff_env.scoring import scoring_table
from sniff_env.tiles import tile_set

Ends = tuple[int, int, int, int]


class LayoutView(Protocol):
    """The public layout fields shared by ``Game`` and ``InfoState`` (both built over a layout, so
    neither is named here)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def end_pip(self) -> tuple[int, ...] | list[int]: ...
    @property
    def end_val(self) -> tuple[int, ...] | list[int]: ...
    @property
    def end_open(self) -> tuple[bool, ...] | list[bool]: ...
    @property
    def sniff_tile(self) -> int: ...
    @property
    def sniff_pending(self) -> int: ...
    @property
    def count(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Layout:
    """The layout of a hand: per end (west, east, north, south) the pip it shows, what it adds to
    the count and whether it is open; the sniff's tile (-1: none yet) and the ends of the line
    still to be reached before its sides open (a bit per end); the count."""

    rules: Rules
    end_pip: Ends = (0, 0, 0, 0)
    end_val: Ends = (0, 0, 0, 0)
    end_open: tuple[bool, bool, bool, bool] = (False, False, False, False)
    sniff_tile: int = -1
    sniff_pending: int = 0
    count: int = 0

    @classmethod
    def of(cls, view: LayoutView) -> Layout:
        """The layout of a game or of a seat's information state (both show all of it)."""
        ep, ev, eo = view.end_pip, view.end_val, view.end_open
        return cls(view.rules, (ep[0], ep[1], ep[2], ep[3]), (ev[0], ev[1], ev[2], ev[3]),
                   (bool(eo[0]), bool(eo[1]), bool(eo[2]), bool(eo[3])), view.sniff_tile, view.sniff_pending,
                   view.count)

    @property
    def is_empty(self) -> bool:
        """No tile laid yet: the next placement is the lead."""
        return not any(self.end_open)

    def count_after(self, action: int) -> int:
        """The count after placement ``action``, without playing it."""
        return count_after(self, action)

    def points_after(self, action: int) -> int:
        """The points placement ``action`` scores now."""
        return points_after(self, action)

    def place(self, action: int) -> Layout:
        """The layout after placement ``action`` (a lead on an empty layout, else a tile matching
        an open end); anything else raises :class:`~sniff_env.errors.IllegalMoveError`. Which
        tiles a seat holds is not the layout's business: the engine checks that."""
        rules = self.rules
        codec = action_codec(rules.max_pip)
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < codec.draw_action:
            raise IllegalMoveError(
                f"{action!r} is not a placement; placements are 0..{codec.draw_action - 1}", action, ())
        tile, slot, inline = codec.decode(action)
        lo, hi = tile_set(rules.max_pip).tiles[tile]
        if (slot == LEAD) != self.is_empty or (
                slot != LEAD and not rulebook.fits(self.end_pip, self.end_open, slot, lo, hi)):
            where = "an empty layout takes only a lead" if self.is_empty else "the tile does not match that open end"
            raise IllegalMoveError(f"{codec.describe(action)} cannot be laid here: {where}", action, ())
        pip, val, opn = list(self.end_pip), list(self.end_val), list(self.end_open)
        count, sniff_tile, pending = rulebook.place(
            pip, val, opn, self.sniff_tile, self.sniff_pending, tile, lo, hi, slot, inline, SNIFF_CODE[rules.sniff],
            rules.sniff_sides_open is SidesOpen.IMMEDIATELY)
        return Layout(rules, (pip[0], pip[1], pip[2], pip[3]), (val[0], val[1], val[2], val[3]),
                      (bool(opn[0]), bool(opn[1]), bool(opn[2]), bool(opn[3])), sniff_tile, pending, count)


def count_after(layout: LayoutView, action: int) -> int:
    """The count after placement ``action`` (not the draw action) on ``layout``."""
    rules = layout.rules
    tile, slot, inline = action_codec(rules.max_pip).decode(action)
    lo, hi = tile_set(rules.max_pip).tiles[tile]
    return rulebook.count_after(layout.end_pip, layout.end_val, layout.sniff_tile, lo, hi, slot, inline,
                                SNIFF_CODE[rules.sniff])


def points_for(rules: Rules, count: int) -> int:
    """The points a placement leaving ``count`` scores."""
    return rulebook.play_points(count, scoring_table(rules.scoring), rules.points is Points.COUNT_DIV5)


def points_after(layout: LayoutView, action: int) -> int:
    """The points placement ``action`` scores now."""
    return points_for(layout.rules, count_after(layout, action))
