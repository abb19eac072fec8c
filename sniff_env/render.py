"""Text rendering of the table: the layout with its arms and the sniff, the count, hands, scores.

Doubles print as ``5=5``; the sniff is marked ``*``. Tiles print with their joined halves
touching, so the west-east line reads left to right; north and south arms read outwards.
:func:`layout_picture` lays the layout out for a given width, turning a long arm back on a row of
its own the way players lay a long line around the table (a ``|`` joins a turned row to the row
it comes from, and means nothing else); asked to, it labels every open end where it is, ``(W)``,
``(E)``, ``(N)``, ``(S)``, and puts the last tile played in brackets, ``[3-5]``. :func:`end_terms`
gives each end's share of the count from the engine's own end values, so the count can be checked
by eye.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from sniff_env.actions import EAST, END_NAMES, LEAD, NORTH, SOUTH, WEST
from sniff_env.game import Game, Phase
from sniff_env.rules import Rules
from sniff_env.tiles import mask_tiles, tile_set

GAP = 2
"""Spaces between two tiles of a row."""
MIN_WIDTH = 24
"""The narrowest picture :func:`layout_picture` lays out (a row must hold a few tiles)."""
ARM_ROWS = 4
"""Tiles a north or south arm runs up or down, in a picture laid out for a width, before it turns."""


class Table(Protocol):
    """The public layout fields shared by ``Game`` and ``InfoState``."""

    @property
    def rules(self) -> Rules: ...
    @property
    def plays(self) -> Sequence[tuple[int, int, int]]: ...
    @property
    def end_pip(self) -> Sequence[int]: ...
    @property
    def end_val(self) -> Sequence[int]: ...
    @property
    def end_open(self) -> Sequence[bool]: ...
    @property
    def sniff_tile(self) -> int: ...


def _tile_text(lo: int, hi: int, inner: int, leftwards: bool) -> str:
    if lo == hi:
        return f"{lo}={hi}"
    outer = hi if inner == lo else lo
    return f"{outer}-{inner}" if leftwards else f"{inner}-{outer}"


END_LABELS = ("(W)", "(E)", "(N)", "(S)")
"""The labels :func:`layout_picture` puts at the open ends, asked to."""


def layout_arms(table: Table, last: bool = False) -> tuple[str, list[list[str]]]:
    """The centre tile and the tiles of each arm (west, east, north, south), centre outwards;
    with ``last``, the last tile played is in brackets."""
    ts = tile_set(table.rules.max_pip)
    arms: list[list[str]] = [[], [], [], []]
    pips = [0, 0, 0, 0]
    centre = ""
    sniff = table.sniff_tile
    final = len(table.plays) - 1 if last else -1
    for order, (tile, _seat, slot) in enumerate(table.plays):
        lo, hi = ts.tiles[tile]
        mark = "*" if tile == sniff else ""
        if slot == LEAD:
            centre = f"{lo}={hi}{mark}" if lo == hi else f"{lo}-{hi}"
            centre = f"[{centre}]" if order == final else centre
            pips = [lo, hi, lo, lo]
            continue
        inner = pips[slot]
        text = _tile_text(lo, hi, inner, slot == WEST) + mark
        arms[slot].append(f"[{text}]" if order == final else text)
        if lo == hi and tile == sniff:
            pips[NORTH] = pips[SOUTH] = lo
        else:
            pips[slot] = hi if inner == lo else lo
    return centre, arms


def _flip(text: str) -> str:
    """A tile's text read the other way round (``3-5`` -> ``5-3``, ``[3-5]`` -> ``[5-3]``; a
    double or a label stays)."""
    if text.startswith("[") and text.endswith("]"):
        return f"[{_flip(text[1:-1])}]"
    mark = "*" if text.endswith("*") else ""
    first, sep, second = text.rstrip("*").partition("-")
    return f"{second}-{first}{mark}" if sep else text


class _Grid:
    """Rows of characters indexed by (row, column); rows may be negative (above the line)."""

    def __init__(self) -> None:
        self.rows: dict[int, dict[int, str]] = {}

    def put(self, row: int, col: int, text: str) -> None:
        cells = self.rows.setdefault(row, {})
        for i, ch in enumerate(text):
            cells[col + i] = ch

    def lines(self) -> list[str]:
        out = []
        for row in range(min(self.rows), max(self.rows) + 1):
            cells = self.rows.get(row, {})
            width = max(cells, default=-1) + 1
            out.append("".join(cells.get(c, " ") for c in range(width)).rstrip())
        return out


def _snake(grid: _Grid, tiles: list[str], first: int, last: int, start: int, outwards: int, down: int,
           row: int = 0) -> None:
    """Lay ``tiles`` (written to be read in direction ``outwards``, +1 rightwards or -1 leftwards)
    from column ``start`` along ``row``, keeping within columns ``first``..``last``: a tile that
    would cross the edge turns the arm onto the row two below (``down`` = 1) or above (-1),
    running back the other way, joined to the row before by a ``|`` under (or over) its last tile."""
    direction, x = outwards, start
    placed_on_row = 0
    for text in tiles:
        shown = text if direction == outwards else _flip(text)
        left = x if direction > 0 else x - len(shown) + 1
        if placed_on_row and (left < first or left + len(shown) - 1 > last):
            # turn: the new row starts under the joined half of the tile just laid
            turn_col = x - GAP - 1 if direction > 0 else x + GAP + 1
            grid.put(row + down, turn_col, "|")
            row += 2 * down
            direction = -direction
            shown = text if direction == outwards else _flip(text)
            left = turn_col if direction > 0 else turn_col - len(shown) + 1
            placed_on_row = 0
        grid.put(row, left, shown)
        placed_on_row += 1
        x = left + len(shown) + GAP if direction > 0 else left - GAP - 1


def layout_picture(table: Table, width: int | None = None, labels: bool = False, last: bool = False) -> list[str]:
    """The layout as plain text lines: north arm above the sniff, the line, south arm below.

    With ``width``, no line is longer than ``width`` (at least :data:`MIN_WIDTH`) where the tiles
    allow: a line too long for it has its arms turned back on rows of their own, the west arm
    upwards and the east arm downwards, clear of the north and south arms; and a north or south
    arm longer than :data:`ARM_ROWS` tiles turns after them, the north one rightwards on the row
    above and the south one leftwards on the row below, where those quarters are free, so that
    the picture stays low enough for a terminal's screen. With ``labels``, each
    open end is labelled where it is (:data:`END_LABELS`); without, an open side of the sniff
    with no tile yet is drawn `` |``. With ``last``, the last tile played is in brackets.
    """
    centre, arms = layout_arms(table, last)
    if not centre:
        return ["(the table is empty)"]
    tag = [END_LABELS[e] if labels and table.end_open[e] else "" for e in range(4)]
    line = list(reversed(arms[WEST])) + [centre] + arms[1]
    sniff_at = next((i for i, t in enumerate(line) if "*" in t), -1)
    pivot = sniff_at if sniff_at >= 0 else len(arms[WEST])
    # north tiles are written outer half first, so the column reads downwards into the sniff
    north = [_flip(t) for t in arms[NORTH]]
    south = list(arms[SOUTH])
    if sniff_at >= 0 and labels:
        north += [tag[NORTH]] if tag[NORTH] else []
        south += [tag[SOUTH]] if tag[SOUTH] else []
    elif sniff_at >= 0:
        north = north or ([" |"] if table.end_open[NORTH] else [])
        south = south or ([" |"] if table.end_open[SOUTH] else [])
    else:
        north = south = []
    line = ([tag[WEST]] if tag[WEST] else []) + line + ([tag[EAST]] if tag[EAST] else [])
    pivot += 1 if tag[WEST] else 0
    left, right = line[:pivot], line[pivot + 1:]
    left_w = sum(len(t) + GAP for t in left)
    right_w = sum(len(t) + GAP for t in right)
    column = max(len(t) for t in [line[pivot], *north, *south])
    grid = _Grid()
    fits = width is None or left_w + len(line[pivot]) + right_w - GAP <= width
    if fits:
        col = left_w
    else:
        width = max(int(width or 0), MIN_WIDTH)
        room = width - column
        col = min(left_w, max(room // 2, room - right_w))
    # a turned row keeps 2 * GAP clear of the north and south arms, so it never seems to join them
    _snake(grid, list(reversed(left)), 0, col - 2 * GAP - 1, col - GAP - 1, -1, -1)
    grid.put(0, col, line[pivot])
    right_start = col + (len(line[pivot]) if fits else column) + GAP
    _snake(grid, right, right_start + GAP, (width or right_start + right_w) - 1, right_start, 1, 1)
    limit = ARM_ROWS if width is not None else None
    north, north_run = _turned(north, limit, (width or 0) - col)
    south, south_run = _turned(south, limit, col + len(south[-1]) if south else 0)
    for i, t in enumerate(reversed(north)):
        grid.put(-len(north) + i, col, t)
    for i, t in enumerate(south, 1):
        grid.put(i, col, t)
    if north_run:  # on the row above, rightwards, its first tile's joined half over the last one's (the upper right is free)
        _snake(grid, north_run, col, (width or 0) - 1, col, 1, -1, row=-len(north) - 1)
    if south_run:  # on the row below, leftwards, its first tile's joined half under the last one's (the lower left is free)
        end = col + len(south[-1]) - 1
        _snake(grid, south_run, 0, end, end, -1, 1, row=len(south) + 1)
    return grid.lines()


def _turned(column: list[str], limit: int | None, room: int) -> tuple[list[str], list[str]]:
    """A north or south arm's column cut after ``limit`` tiles, and the rest to lay across, each
    tile's text turned to read across; all of it in the column when it is short enough, or when
    the ``room`` beside it would not hold two tiles."""
    if limit is None or len(column) <= limit or room < 2 * (max(len(t) for t in column) + GAP):
        return column, []
    return column[:limit], [_flip(t) for t in column[limit:]]


class EndTerm(NamedTuple):
    """One share of the count: the end it comes from (``LEAD`` for a double alone on the table),
    the pip it shows, whether it is open, what it adds to the count (the engine's end value) and
    why that differs from the pip, if it does."""

    end: int
    pip: int
    open: bool
    value: int
    note: str

    @property
    def name(self) -> str:
        """``west`` … ``south``, or ``lead`` for a double alone on the table."""
        return END_NAMES[self.end] if self.end < len(END_NAMES) else "lead"


LONE_DOUBLE = "a double alone counts both halves, once"
"""Why a double led alone, no sniff, counts as one share (its two ends are the same tile)."""
SNIFF_SIDE = "sniff's side"
"""Why an end on the sniff's own long side adds nothing: a spinner counts by its two pip ends."""


def end_terms(table: Table) -> list[EndTerm]:
    """The ends that are open or add to the count, each with its share (they add up to the count).
    A double led alone (no sniff) is both ends of the line: it is one share, both halves once."""
    if not table.plays:
        return []
    if len(table.plays) == 1 and table.sniff_tile < 0:
        tile = table.plays[0][0]
        lo, hi = tile_set(table.rules.max_pip).tiles[tile]
        if lo == hi:
            return [EndTerm(LEAD, lo, True, lo + hi, LONE_DOUBLE)]
    out = []
    for e in range(4):
        if e >= NORTH and table.sniff_tile < 0:
            continue
        pip, val, is_open = table.end_pip[e], table.end_val[e], table.end_open[e]
        if not is_open and not val:
            continue
        if val == 2 * pip and pip:
            note = "double"
        elif val == 0 and pip:
            note = "bare" if e >= NORTH else SNIFF_SIDE
        elif not is_open:
            note = "closed" if len([p for p in table.plays if p[2] == e]) else "not open"
        else:
            note = ""
        out.append(EndTerm(e, pip, is_open, val, note))
    return out


def count_sum(table: Table, count: int) -> str:
    """``count 15 = west 10 (double) + east 5 + north 0 (bare) + south 0 (bare)``; a double led
    alone: ``count 12 = lead 12 (a double alone counts both halves, once)``."""
    terms = [f"{t.name} {t.value}" + (f" ({t.note})" if t.note else "") for t in end_terms(table)]
    return f"count {count}" + (" = " + " + ".join(terms) if terms else "")


def render_table(game: Game) -> str:
    """The whole table as text (all hands shown: rendering is for people watching, not players)."""
    ts, rules = game.ts, game.rules
    lines = [f"{rules.name} ({rules.num_players} players) - hand {game.hand_index + 1}, phase {game.phase.name}"]
    centre, arms = layout_arms(game)
    if not centre:
        lines.append("layout: empty (the lead is to be played)")
    else:
        lines.append(f"layout: {' '.join(reversed(arms[0]))} [{centre}] {' '.join(arms[1])}".replace("  ", " "))
        for e in (NORTH, SOUTH):
            if arms[e] or game.end_open[e]:
                lines.append(f"  {END_NAMES[e]}: {' '.join(arms[e]) or '-'}")
    ends = ", ".join(
        f"{END_NAMES[e]} {game.end_pip[e]}{'' if game.end_open[e] else ' (closed)'}"
        for e in range(4)
        if game.plays and (e < NORTH or game.sniff_tile >= 0)
    )
    lines.append(f"ends: {ends or '-'}   count: {game.count}")
    for seat, hand in enumerate(game.hands):
        turn = " <- to play" if game.phase is Phase.PLAY and seat == game.turn else ""
        tiles = " ".join(ts.name(t) for t in mask_tiles(hand))
        lines.append(f"player_{seat}: {tiles or '(empty)'}{turn}")
    lines.append(f"boneyard: {game.boneyard_size} tiles ({max(game.drawable, 0)} drawable)")
    sides = " / ".join(str(s) for s in game.scores)
    lines.append(f"scores: {sides} (target {rules.target})")
    if game.phase is Phase.GAME_OVER:
        lines.append("game over: " + ("a draw" if game.winner is None else f"side {game.winner} wins"))
    return "\n".join(lines)
