"""The action encoding shared by the engine, the environments and the players.

One integer per decision, fixed for a set size (176 actions for double-six):

* ``tile * 5 + slot`` places ``tile`` on an end: slot 0..3 are ``west``, ``east``, ``north``,
  ``south``; slot 4 is the lead (the first tile, on no end: its lower half faces west).
* ``5 * T + pip * 5 + slot`` is the same for the double ``pip-pip`` laid **in line** (counting
  one half) where the rules let the player choose (``double_placement="choice"``).
* ``5 * T + 5 * (N + 1)`` draws a tile (voluntary drawing, where the rules allow it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from sniff_env.tiles import TileSet, tile_set

WEST, EAST, NORTH, SOUTH, LEAD = 0, 1, 2, 3, 4
END_NAMES = ("west", "east", "north", "south")
SLOTS = 5


class Move(NamedTuple):
    """A decoded action. ``tile`` is ``None`` for the draw action; ``end`` is ``None`` for the lead."""

    tile: tuple[int, int] | None
    end: str | None
    inline: bool = False
    draw: bool = False

    def __str__(self) -> str:
        if self.draw:
            return "draw"
        assert self.tile is not None
        name = f"{self.tile[0]}-{self.tile[1]}"
        where = "lead" if self.end is None else self.end
        return f"{name} {where}{' in line' if self.inline else ''}"


@dataclass(frozen=True)
class ActionCodec:
    """Encode and decode actions for one set size."""

    tiles: TileSet
    inline_base: int
    draw_action: int
    num_actions: int

    def encode(self, tile: int, slot: int, inline: bool = False) -> int:
        if inline:
            lo, hi = self.tiles.tiles[tile]
            if lo != hi:
                raise ValueError(f"only a double can be laid in line; {lo}-{hi} is not a double")
            return self.inline_base + lo * SLOTS + slot
        return tile * SLOTS + slot

    def decode(self, action: int) -> tuple[int, int, bool]:
        """``(tile, slot, inline)``; tile is -1 for the draw action."""
        if action == self.draw_action:
            return -1, -1, False
        if action >= self.inline_base:
            pip, slot = divmod(action - self.inline_base, SLOTS)
            return self.tiles.double_of[pip], slot, True
        tile, slot = divmod(action, SLOTS)
        return tile, slot, False

    def move(self, action: int) -> Move:
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is out of range 0..{self.num_actions - 1}")
        tile, slot, inline = self.decode(action)
        if tile < 0:
            return Move(None, None, draw=True)
        return Move(self.tiles.tiles[tile], None if slot == LEAD else END_NAMES[slot], inline)

    def describe(self, action: int) -> str:
        return str(self.move(action))


@cache
def action_codec(max_pip: int) -> ActionCodec:
    ts = tile_set(max_pip)
    inline_base = ts.size * SLOTS
    draw = inline_base + (max_pip + 1) * SLOTS
    return ActionCodec(ts, inline_base, draw, draw + 1)
