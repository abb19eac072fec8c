"""The forgiving move parser: ``5-0 west``, ``50w``, ``0-5 w``, ``5:0 W``, ``3`` (a number from
the list of legal moves), ``lead 6-6``, ``4-4 north inline``, ``draw``; ``!`` or ``claim``
anywhere claims the move's points (muggins). A tile that fits only one place needs no end.

A wrong entry raises :class:`MoveInputError` whose message says what was wrong and what would
be right (the tiles held, the open ends, the legal moves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sniff_env.actions import END_NAMES, LEAD, NORTH
from sniff_env.errors import SniffError
from sniff_env.game import Game
from sniff_env.tiles import mask_tiles

END_WORDS = {
    "w": 0, "west": 0, "l": 0, "left": 0,
    "e": 1, "east": 1, "r": 1, "right": 1,
    "n": 2, "north": 2, "u": 2, "up": 2, "top": 2,
    "s": 3, "south": 3, "d": 3, "down": 3, "bottom": 3,
}
INLINE_WORDS = {"inline", "line", "i", "straight"}
CLAIM_WORDS = {"claim", "c"}
FILLER_WORDS = {"on", "to", "at", "play", "the", "end", "in", "side"}

_TOKEN = re.compile(r"\d+|[a-z]+|[!]")


class MoveInputError(SniffError):
    """An entry that is not a legal move; the message explains and suggests."""


@dataclass(frozen=True)
class ParsedMove:
    action: int
    claim: bool


def move_text(game: Game, action: int) -> str:
    """A move as the player reads it: ``5-0 west``, ``6-6 lead``, ``4-4 north in line``, ``draw``."""
    return game.codec.describe(action)


def open_ends_text(game: Game) -> str:
    if not game.plays:
        return "the table is empty: lead any tile" if game.legal_actions() else "the table is empty"
    ends = [f"{END_NAMES[e]} {game.end_pip[e]}" for e in range(4) if game.end_open[e]]
    return "open ends: " + ", ".join(ends)


def hand_text(game: Game, seat: int) -> str:
    return " ".join(game.ts.name(t) for t in mask_tiles(game.hands[seat])) or "(none)"


def legal_text(game: Game) -> str:
    return "; ".join(f"{i}) {move_text(game, a)}" for i, a in enumerate(game.legal_actions(), 1))


def _fail(game: Game, message: str, seat: int) -> MoveInputError:
    return MoveInputError(
        f"{message}\n  your tiles: {hand_text(game, seat)}\n  {open_ends_text(game)}\n"
        f"  legal moves: {legal_text(game)}"
    )


def parse_move(game: Game, text: str, options: list[int] | None = None) -> ParsedMove:
    """The legal action that ``text`` names for the seat to move in ``game``.

    ``options`` is the numbered list shown to the player (default: the legal actions in order).
    """
    seat = game.turn
    legal = game.legal_actions()
    options = list(legal) if options is None else options
    raw = text.strip().lower()
    if re.match(r"-\s*\d", raw):
        raise _fail(game, f"There is no move number {raw}; the list runs 1 to {len(options)}.", seat)
    tokens = _TOKEN.findall(raw)
    claim = "!" in tokens or any(t in CLAIM_WORDS for t in tokens)
    tokens = [t for t in tokens if t != "!" and t not in CLAIM_WORDS and t not in FILLER_WORDS]
    if not tokens:
        raise _fail(game, f"I could not read a move in {text.strip()!r}.", seat)
    words = [t for t in tokens if not t.isdigit()]
    numbers = [t for t in tokens if t.isdigit()]
    end: int | None = None
    inline = False
    lead = False
    draw = False
    for w in words:
        if w in END_WORDS:
            if end is not None and end != END_WORDS[w]:
                raise _fail(game, f"{text.strip()!r} names two ends; give one.", seat)
            end = END_WORDS[w]
        elif w in INLINE_WORDS:
            inline = True
        elif w == "lead":
            lead = True
        elif w == "draw":
            draw = True
        else:
            raise _fail(game, f"I do not know the word {w!r}.", seat)
    if draw:
        if numbers or end is not None:
            raise _fail(game, "'draw' takes no tile or end.", seat)
        if game.codec.draw_action in legal:
            return ParsedMove(game.codec.draw_action, claim)
        raise _fail(game, "You cannot draw now: you hold a playable tile and the rules do not let you "
                          "draw instead (when you cannot play, drawing happens by itself).", seat)
    # a bare number from the list
    if len(numbers) == 1 and not words and (len(numbers[0]) == 1 or 1 <= int(numbers[0]) <= len(options)):
        k = int(numbers[0])
        if 1 <= k <= len(options):
            return ParsedMove(options[k - 1], claim)
        raise _fail(game, f"There is no move number {k}; the list runs 1 to {len(options)}.", seat)
    if len(numbers) == 1 and len(numbers[0]) == 2:
        halves = (int(numbers[0][0]), int(numbers[0][1]))
    elif len(numbers) == 2:
        halves = (int(numbers[0]), int(numbers[1]))
    else:
        raise _fail(game, f"I could not read a tile in {text.strip()!r}; write it like 5-0 or 50.", seat)
    try:
        tile = game.ts.index(halves)
    except ValueError as exc:
        raise _fail(game, f"{exc}.", seat) from None
    name = game.ts.name(tile)
    if not game.hands[seat] >> tile & 1:
        raise _fail(game, f"You do not hold {name}.", seat)
    candidates = []
    for a in legal:
        if a == game.codec.draw_action:
            continue
        t, slot, in_line = game.codec.decode(a)
        if t == tile:
            candidates.append((a, slot, in_line))
    if not candidates:
        if game.last_drawn >= 0 and game.rules.must_play_drawn and game.last_drawn != tile:
            why = f"You must play the tile you just drew, {game.ts.name(game.last_drawn)}."
        elif not game.plays:
            why = f"{name} cannot lead: the rules say which tile leads this hand."
        else:
            why = f"{name} does not fit any open end."
        raise _fail(game, why, seat)
    if lead and game.plays:
        raise _fail(game, "The lead has already been played; give an end instead.", seat)
    if not game.plays:
        matching = [c for c in candidates if c[1] == LEAD]
    elif end is not None:
        matching = [c for c in candidates if c[1] == end]
        if not matching:
            where = [END_NAMES[s] for s in sorted({c[1] for c in candidates})]
            shown = "closed" if not game.end_open[end] else f"{game.end_pip[end]}"
            if end >= NORTH and game.sniff_tile < 0:
                shown = "not there yet (no sniff)"
            raise _fail(game, f"{name} does not fit {END_NAMES[end]} ({END_NAMES[end]} end: {shown}); "
                              f"it fits {' or '.join(where)}.", seat)
    else:
        matching = candidates
    has_inline_choice = any(c[2] for c in matching)
    if has_inline_choice:
        matching = [c for c in matching if c[2] == inline]
    elif inline:
        raise _fail(game, f"{name} cannot be laid in line here.", seat)
    if len(matching) == 1:
        return ParsedMove(matching[0][0], claim)
    choices = ", ".join(f"'{move_text(game, c[0])}'" for c in matching)
    raise _fail(game, f"{name} can go more than one way: say which ({choices}).", seat)
