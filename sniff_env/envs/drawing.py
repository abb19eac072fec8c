"""The table as an RGB picture, for ``render_mode="rgb_array"``: drawn with Pillow as the web table
draws it (:mod:`sniff_env.web`'s page): ivory tiles with their pips on the felt, the lead at the
centre, the west and east arms along the line, the north and south arms off the sniff, doubles
across the line (the stubby sniff and doubles laid in line along it), the sniff outlined in gold.
Above the layout a header names the rules, the hand and the count; below it every hand is shown
face up with its seat's score, the seat to play marked, as :func:`sniff_env.render.render_table`
shows them (rendering is for people watching, not for the players).

:func:`table_frame` draws a :class:`~sniff_env.game.Game`; :func:`engine_frame` draws one game of
the batched engine, which keeps the tiles played in order and each end but not where each tile
lies, so its layout is drawn as the played tiles in order and the four ends with their pips.
Every frame of a size has the same shape, ``(height, width, 3)`` uint8, as video recorders need.
Pillow is imported when the first frame is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from sniff_env.actions import END_NAMES, LEAD, NORTH, SOUTH, WEST
from sniff_env.game import Game, Phase
from sniff_env.rules import Rules, SniffKind
from sniff_env.tiles import mask_tiles, tile_set

if TYPE_CHECKING:
    from PIL import ImageDraw, ImageFont

    from sniff_env.vector.engine import VectorEngine

SIZE = (800, 480)
"""The default frame size, width by height, in pixels (both multiples of 16, as video codecs like)."""
GAP = 0.05
"""Space between two tiles of the layout, in tile widths (the web table's 2 units of 40)."""
MAX_UNIT = 40
"""The largest tile width in pixels (a tile is one unit by two)."""
FELT, PANEL, IVORY, INK, EDGE, BAR, RIVET, GOLD, TEXT, MUTED = (
    "#1f5e3b", "#1a2027", "#fbf7ec", "#1d2330", "#555555", "#8c8578", "#b08d4a", "#e2b23c", "#e8ecf1", "#8a93a3",
)
"""The web table's colours (``web/static/style.css``)."""
HEADER = 34
"""Height of the header band, in pixels."""

_C = (0.25, 0.5, 0.75)
PIPS: tuple[tuple[tuple[float, float], ...], ...] = (
    (),
    ((0.5, 0.5),),
    ((0.25, 0.25), (0.75, 0.75)),
    ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    ((0.25, 0.25), (0.25, 0.5), (0.25, 0.75), (0.75, 0.25), (0.75, 0.5), (0.75, 0.75)),
    ((0.25, 0.25), (0.25, 0.5), (0.25, 0.75), (0.5, 0.5), (0.75, 0.25), (0.75, 0.5), (0.75, 0.75)),
    tuple((x, y) for x in _C for y in _C if (x, y) != (0.5, 0.5)),
    tuple((x, y) for x in _C for y in _C),
    tuple(p for y in (0.2, 0.4, 0.6, 0.8) for p in ((0.22, y), (0.78, y))) + ((0.5, 0.35), (0.5, 0.65)),
    tuple(p for y in (0.2, 0.4, 0.6, 0.8) for p in ((0.22, y), (0.78, y))) + ((0.5, 0.25), (0.5, 0.5), (0.5, 0.75)),
    tuple(p for y in (0.2, 0.4, 0.6, 0.8) for p in ((0.22, y), (0.5, y), (0.78, y))),
)
"""Pip positions in a unit square, for 0 to 12 pips (the web table's)."""


@dataclass(frozen=True)
class Placed:
    """A tile of the layout: its top-left corner in tile widths (the lead's centre at 0, 0), its
    direction, its halves from left to right (or top to bottom) and whether it is the sniff."""

    x: float
    y: float
    vertical: bool
    first: int
    second: int
    sniff: bool


@dataclass(frozen=True)
class _Laid:
    lo: int
    hi: int
    inner: int
    outer: int
    inline: bool
    sniff: bool

    def crosswise(self, stubby: bool) -> bool:
        return self.lo == self.hi and not self.inline and not (self.sniff and stubby)


def layout_geometry(game: Game) -> list[Placed]:
    """Where each tile of ``game``'s layout lies, as the web table places it."""
    ts, codec = game.ts, game.codec
    inline = [a >= codec.inline_base for a, _ in game.hand_actions if a != codec.draw_action]
    arms: list[list[_Laid]] = [[], [], [], []]
    centre: _Laid | None = None
    pips = [0, 0, 0, 0]
    for order, (tile, _seat, slot) in enumerate(game.plays):
        lo, hi = ts.tiles[tile]
        sniff, flat = tile == game.sniff_tile, order < len(inline) and inline[order]
        if slot == LEAD:
            centre, pips = _Laid(lo, hi, lo, hi, flat, sniff), [lo, hi, lo, lo]
            continue
        inner = pips[slot]
        outer = hi if inner == lo else lo
        arms[slot].append(_Laid(lo, hi, inner, outer, flat, sniff))
        if lo == hi and sniff:
            pips[NORTH] = pips[SOUTH] = lo
        else:
            pips[slot] = outer
    if centre is None:
        return []
    stubby = game.rules.sniff is SniffKind.STUBBY
    out: list[Placed] = []
    cross = centre.crosswise(stubby)
    width = 1.0 if cross else 2.0
    out.append(Placed(-width / 2, -1.0 if cross else -0.5, cross, centre.lo, centre.hi, centre.sniff))
    sniff_at: tuple[float, float] | None = (0.0, 1.0 if cross else 0.5) if centre.sniff else None
    for slot, way in ((WEST, -1), (1, 1)):
        cursor = way * (width / 2 + GAP)
        for t in arms[slot]:
            c = t.crosswise(stubby)
            w = 1.0 if c else 2.0
            x = cursor - w if way < 0 else cursor
            first, second = (t.outer, t.inner) if way < 0 else (t.inner, t.outer)
            out.append(Placed(x, -1.0 if c else -0.5, c, first, second, t.sniff))
            if t.sniff:
                sniff_at = (x + w / 2, 1.0 if c else 0.5)
            cursor += way * (w + GAP)
    if sniff_at is not None:
        sx, half = sniff_at
        for slot, way in ((NORTH, -1), (SOUTH, 1)):
            cursor = way * (half + GAP)
            for t in arms[slot]:
                c = t.crosswise(stubby)
                h = 1.0 if c else 2.0
                y = cursor - h if way < 0 else cursor
                first, second = (t.outer, t.inner) if way < 0 else (t.inner, t.outer)
                out.append(Placed(sx - 1.0 if c else sx - 0.5, y, not c, first, second, t.sniff))
                cursor += way * (h + GAP)
    return out


@dataclass(frozen=True)
class _Scene:
    """What the header and the hands panel show."""

    rules: Rules
    title: str
    count: int
    hands: list[list[tuple[int, int]]]
    scores: Sequence[int]
    turn: int | None
    boneyard: str
    verdict: str


def table_frame(game: Game, size: tuple[int, int] = SIZE) -> np.ndarray:
    """``game``'s table as a ``(height, width, 3)`` uint8 picture (see the module docs)."""
    ts = game.ts
    over = game.phase is Phase.GAME_OVER
    scene = _Scene(
        game.rules, f"{game.rules.name} · {game.rules.num_players} players · hand {game.hand_index + 1}", game.count,
        [[ts.tiles[t] for t in mask_tiles(h)] for h in game.hands], game.scores,
        game.turn if game.phase is Phase.PLAY else None,
        f"boneyard {game.boneyard_size} ({max(game.drawable, 0)} drawable)",
        ("game over: " + ("a draw" if game.winner is None else f"side {game.winner} wins")) if over else "",
    )
    return _frame(scene, size, lambda draw, box: _draw_layout(draw, box, layout_geometry(game)))


def engine_frame(engine: VectorEngine, game: int, size: tuple[int, int] = SIZE) -> np.ndarray:
    """Game ``game`` of the batched ``engine`` as a picture: the header and hands as
    :func:`table_frame` draws them; for the layout, the tiles played this hand in order and the
    pip of each end (the engine keeps no more of the layout)."""
    from sniff_env.vector.engine import GAME_OVER, PLAY

    rules = engine.rules
    ts, n, T = tile_set(rules.max_pip), rules.num_players, engine.tables.num_tiles
    played = [ts.tiles[int(t)] for t in engine.plays(game)]
    pips, open_ = engine.end_pips[game], engine.end_open[game]
    ends = [(END_NAMES[e], int(pips[e]), bool(open_[e])) for e in range(4)
            if played and (e < NORTH or engine.sniff_tile[game] >= 0)]
    phase = int(engine.phase[game])
    winner = int(engine.winner[game])
    first, end = engine.boneyard_range(game)
    scene = _Scene(
        rules, f"{rules.name} · {n} players · game {game} · hand {int(engine.hand_index[game]) + 1}",
        int(engine.count[game]),
        [[ts.tiles[t] for t in np.flatnonzero(engine.hands[game, seat, :T])] for seat in range(n)],
        [int(v) for v in engine.scores[game]],
        int(engine.turn[game]) if phase == PLAY else None,
        f"boneyard {end - first}",
        ("game over: " + ("a draw" if winner < 0 else f"side {winner} wins")) if phase == GAME_OVER else "",
    )
    return _frame(scene, size, lambda draw, box: _draw_played(draw, box, played, ends))


# -- drawing ------------------------------------------------------------------------------------
Box = tuple[float, float, float, float]


@lru_cache(maxsize=8)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=px)
    except (OSError, TypeError):  # a Pillow without FreeType has one bitmap size only
        return ImageFont.load_default()


def _frame(scene: _Scene, size: tuple[int, int], layout: Any) -> np.ndarray:
    from PIL import Image, ImageDraw

    width, height = size
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    n = scene.rules.num_players
    row = max(24, min(44, (height // 3) // n))
    hands_top = height - n * row - 8
    draw.rectangle((0, 0, width, HEADER), fill=PANEL)
    draw.text((12, HEADER / 2), scene.title, fill=TEXT, font=_font(16), anchor="lm")
    draw.text((width - 12, HEADER / 2), f"count {scene.count}", fill=GOLD, font=_font(18), anchor="rm")
    if scene.verdict:
        draw.text((width / 2, HEADER + 16), scene.verdict, fill=GOLD, font=_font(18), anchor="mm")
    layout(draw, (12.0, HEADER + 30.0, width - 12.0, hands_top - 8.0))
    draw.rectangle((0, hands_top - 4, width, height), fill=PANEL)
    for seat, hand in enumerate(scene.hands):
        y = hands_top + seat * row
        side = scene.rules.side_of(seat)
        mark = "> " if seat == scene.turn else "  "
        draw.text((12, y + row / 2), f"{mark}player_{seat}  {scene.scores[side]}", font=_font(14), anchor="lm",
                  fill=GOLD if seat == scene.turn else TEXT)
        unit = min((row - 6) / 2, (width - 190) / max(1, len(hand)) - 3)
        for i, (lo, hi) in enumerate(hand):
            _tile(draw, 170 + i * (unit + 3), y + (row - 2 * unit) / 2, lo, hi, True, unit, False)
    target = f"target {scene.rules.target} · {scene.boneyard}"
    draw.text((width - 12, hands_top - 14), target, fill=MUTED, font=_font(13), anchor="rm")
    return np.asarray(image, dtype=np.uint8)


def _tile(draw: ImageDraw.ImageDraw, x: float, y: float, first: int, second: int, vertical: bool, unit: float,
          sniff: bool) -> None:
    """A tile with ``first`` on the left (or top), as the web table's ``tile``."""
    w, h = (unit, 2 * unit) if vertical else (2 * unit, unit)
    draw.rounded_rectangle((x + 0.5, y + 0.5, x + w - 1, y + h - 1), radius=max(1.0, unit * 0.14), fill=IVORY,
                           outline=GOLD if sniff else EDGE, width=3 if sniff else 1)
    if vertical:
        draw.line((x + unit * 0.12, y + unit, x + unit * 0.88, y + unit), fill=BAR, width=max(1, round(unit / 28)))
        halves = ((first, x, y), (second, x, y + unit))
    else:
        draw.line((x + unit, y + unit * 0.12, x + unit, y + unit * 0.88), fill=BAR, width=max(1, round(unit / 28)))
        halves = ((first, x, y), (second, x + unit, y))
    for pips, hx, hy in halves:
        r = unit * (0.075 if pips > 9 else 0.085 if pips > 6 else 0.1)
        for px, py in PIPS[pips]:
            cx, cy = hx + px * unit, hy + py * unit
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=INK)
    r = unit * 0.05
    draw.ellipse((x + w / 2 - r, y + h / 2 - r, x + w / 2 + r, y + h / 2 + r), fill=RIVET)


def _draw_layout(draw: ImageDraw.ImageDraw, box: Box, placed: list[Placed]) -> None:
    left, top, right, bottom = box
    if not placed:
        draw.text(((left + right) / 2, (top + bottom) / 2), "the lead is to be played", fill=MUTED, font=_font(16),
                  anchor="mm")
        return
    x0 = min(p.x for p in placed)
    y0 = min(p.y for p in placed)
    x1 = max(p.x + (1 if p.vertical else 2) for p in placed)
    y1 = max(p.y + (2 if p.vertical else 1) for p in placed)
    unit = min(MAX_UNIT, (right - left) / (x1 - x0), (bottom - top) / (y1 - y0))
    ox = (left + right) / 2 - (x0 + x1) / 2 * unit
    oy = (top + bottom) / 2 - (y0 + y1) / 2 * unit
    for p in placed:
        _tile(draw, ox + p.x * unit, oy + p.y * unit, p.first, p.second, p.vertical, unit, p.sniff)


def _draw_played(draw: ImageDraw.ImageDraw, box: Box, played: list[tuple[int, int]],
                 ends: list[tuple[str, int, bool]]) -> None:
    left, top, right, bottom = box
    ends_text = "   ".join(f"{name} {pip}" + ("" if is_open else " (closed)") for name, pip, is_open in ends)
    draw.text(((left + right) / 2, bottom - 10), "ends: " + (ends_text or "-"), fill=TEXT, font=_font(15),
              anchor="mm")
    if not played:
        draw.text(((left + right) / 2, (top + bottom) / 2), "the lead is to be played", fill=MUTED, font=_font(16),
                  anchor="mm")
        return
    draw.text((left, top), "played this hand, in order:", fill=MUTED, font=_font(13), anchor="lt")
    space = bottom - top - 52
    per_row = 14
    rows = -(-len(played) // per_row)
    unit = min(MAX_UNIT * 0.75, (right - left) / (per_row * 2.2), space / (rows * 1.3))
    for i, (lo, hi) in enumerate(played):
        r, c = divmod(i, per_row)
        _tile(draw, left + c * unit * 2.2, top + 22 + r * unit * 1.3, lo, hi, False, unit, False)
