"""Text rendering of the table: the layout with its arms and the sniff, the count, hands, scores.

Doubles print as ``5=5``; the sniff is marked ``*``. Tiles print with their joined halves
touching, so the west-east line reads left to right; north and south arms read outwards.
"""

from __future__ import annotations

from .actions import END_NAMES, LEAD, NORTH, SOUTH, WEST
from .game import Game, Phase
from .tiles import mask_tiles


def _tile_text(lo: int, hi: int, inner: int, leftwards: bool) -> str:
    if lo == hi:
        return f"{lo}={hi}"
    outer = hi if inner == lo else lo
    return f"{outer}-{inner}" if leftwards else f"{inner}-{outer}"


def layout_arms(game: Game) -> tuple[str, list[list[str]]]:
    """The centre tile and the tiles of each arm (west, east, north, south), centre outwards."""
    ts = game.ts
    arms: list[list[str]] = [[], [], [], []]
    pips = [0, 0, 0, 0]
    centre = ""
    sniff = game.sniff_tile
    for tile, _seat, slot in game.plays:
        lo, hi = ts.tiles[tile]
        mark = "*" if tile == sniff else ""
        if slot == LEAD:
            centre = f"{lo}={hi}{mark}" if lo == hi else f"{lo}-{hi}"
            pips = [lo, hi, lo, lo]
            continue
        inner = pips[slot]
        arms[slot].append(_tile_text(lo, hi, inner, slot == WEST) + mark)
        if lo == hi and tile == sniff:
            pips[NORTH] = pips[SOUTH] = lo
        else:
            pips[slot] = hi if inner == lo else lo
    return centre, arms


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
