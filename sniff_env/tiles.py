"""Tiles of the double-three, double-six, double-nine and double-twelve sets, as precomputed tables.

The double-three set (10 tiles) is no table game of its own: it is the small variant for exact
evaluation (a game tree that a best response can walk).

A tile is an ``int`` index into the canonical order 0-0, 0-1, ..., 0-N, 1-1, ..., N-N.
A set of tiles (a hand) is an ``int`` bit mask: bit ``t`` set means tile ``t`` is held.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from sniff_env import rulebook

SUPPORTED_MAX_PIPS = (3, 4, 5, 6, 9, 12)

Tile = tuple[int, int]


@dataclass(frozen=True)
class TileSet:
    """Lookup tables for one set size. Build with :func:`tile_set`."""

    max_pip: int
    tiles: tuple[Tile, ...]
    """``tiles[t] == (low, high)``."""
    lo: tuple[int, ...]
    """``lo[t]``, ``hi[t]``: the halves of tile ``t``, as the rulebook's functions take them."""
    hi: tuple[int, ...]
    pips: tuple[int, ...]
    """Sum of both halves of each tile."""
    is_double: tuple[bool, ...]
    pip_mask: tuple[int, ...]
    """``pip_mask[p]``: bit mask of the tiles that can be laid on an end showing ``p``
    (:func:`sniff_env.rulebook.matches`: a half equal to ``p``)."""
    double_of: tuple[int, ...]
    """``double_of[p]``: the tile index of double ``p``."""
    all_mask: int

    @property
    def size(self) -> int:
        return len(self.tiles)

    def index(self, tile: Tile | list[int]) -> int:
        """The index of a tile given as a pair in either order; ``ValueError`` if not in the set."""
        try:
            a, b = (int(tile[0]), int(tile[1]))
        except (TypeError, IndexError, ValueError):
            raise ValueError(f"a tile is a pair of pips like (3, 5); got {tile!r}") from None
        if len(tile) != 2:
            raise ValueError(f"a tile is a pair of pips like (3, 5); got {tile!r}")
        lo, hi = (a, b) if a <= b else (b, a)
        if lo < 0 or hi > self.max_pip:
            raise ValueError(
                f"tile {a}-{b} is not in the double-{self.max_pip} set (pips run 0..{self.max_pip})"
            )
        return lo * (2 * self.max_pip + 3 - lo) // 2 + (hi - lo)

    def other_half(self, tile: int, pip: int) -> int:
        lo, hi = self.tiles[tile]
        return hi if lo == pip else lo

    def mask_pips(self, mask: int) -> int:
        """Pip total of the tiles in ``mask``."""
        total = 0
        while mask:
            low = mask & -mask
            total += self.pips[low.bit_length() - 1]
            mask ^= low
        return total

    def name(self, tile: int) -> str:
        lo, hi = self.tiles[tile]
        return f"{lo}-{hi}"


def mask_tiles(mask: int) -> list[int]:
    """The tile indices set in ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@cache
def tile_set(max_pip: int) -> TileSet:
    """The tables for the double-``max_pip`` set (3, 4, 5, 6, 9 or 12)."""
    if max_pip not in SUPPORTED_MAX_PIPS:
        raise ValueError(f"max_pip must be one of {SUPPORTED_MAX_PIPS}; got {max_pip!r}")
    tiles = tuple((a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1))
    pip_mask = tuple(sum(1 << t for t, (a, b) in enumerate(tiles) if rulebook.matches(p, a, b))
                     for p in range(max_pip + 1))
    double_of = [0] * (max_pip + 1)
    for t, (a, b) in enumerate(tiles):
        if a == b:
            double_of[a] = t
    return TileSet(
        max_pip=max_pip,
        tiles=tiles,
        lo=tuple(a for a, _ in tiles),
        hi=tuple(b for _, b in tiles),
        pips=tuple(a + b for a, b in tiles),
        is_double=tuple(a == b for a, b in tiles),
        pip_mask=pip_mask,
        double_of=tuple(double_of),
        all_mask=(1 << len(tiles)) - 1,
    )
