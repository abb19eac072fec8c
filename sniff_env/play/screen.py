"""What the player sees, as lines of rich markup: the table, the moves, the end of a hand.

The layout is a text picture: the west arm, the lead and the sniff in the middle line, the east
arm, and the north and south arms stacked above and below the sniff, laid out for the terminal's
width (a long arm turns back on a row of its own). Doubles print as ``5=5`` and the sniff is
marked ``*``. The count is shown as the sum of every end's share, so it can be checked by eye.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.markup import escape

from .. import render
from ..actions import END_NAMES, LEAD
from ..game import Event, Game, Phase
from ..tiles import mask_tiles
from .session import MoveOption, Session, safe_name

COMMANDS_HELP = """\
[bold]moves[/]   a number from the list (1), or a tile and an end: 5-0 west, 50w, 0-5 w, 5:0 W
        lead 6-6 (the first tile), 4-4 north inline (a double in line, where allowed), draw
        a tile that fits only one place needs no end; add ! (or 'claim') to claim points
[bold]hint[/]    the search player's estimate of every move (points margin to the end of the hand)
[bold]undo[/]    take back your last move and the replies to it (not in a rated game)
[bold]save[/]    save the game now (save PATH: to another file); it is also saved after every move
[bold]quit[/]    save and leave; resume later with --resume
[bold]help[/]    this text"""


def layout_picture(game: Game, width: int | None = None) -> list[str]:
    """The layout as plain text lines, laid out for ``width`` columns (see :func:`render.layout_picture`)."""
    return render.layout_picture(game, width)


def ends_lines(game: Game) -> list[str]:
    """The open ends' pips, then the count as the sum of every end's share (rich markup)."""
    ends = [f"{END_NAMES[e]} {game.end_pip[e]}" for e in range(4) if game.end_open[e]]
    return [f"open ends: {', '.join(ends) or '-'}", f"[bold]{render.count_sum(game, game.count)}[/]"]


YOU = "You"
"""The name the human's seat goes by; sentences about it take the plural verb ("You play")."""
_SEAT_WORDS = re.compile(r"\bseat (\d+)( (?:has|gets|loses|takes)\b)?")


def with_names(line: str, names: Sequence[str]) -> str:
    """An engine line about seats ("seat 1 dominoed", "seat 0 loses …") with the players' names."""

    def name(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        if seat >= len(names):
            return m.group(0)
        verb = m.group(2) or ""
        if names[seat] == YOU and verb:
            verb = " have" if verb == " has" else verb[:-1]
        return names[seat] + verb

    return _SEAT_WORDS.sub(name, line)


def side_names(session: Session, side: int) -> str:
    return " & ".join(p.name for s, p in enumerate(session.seats) if session.rules.side_of(s) == side)


def describe(session: Session, e: Event) -> str:
    """One event in words, with the players' names."""
    return describe_event(session.game, e, [seat.name for seat in session.seats], session.human)


def describe_event(game: Game, e: Event, names: Sequence[str], human: int = -1) -> str:
    """One event in words (rich markup; the names are escaped); ``names`` names each seat, and seat
    ``human`` (or a seat named "You") is addressed as "You"."""
    who = escape(names[e.player]) if 0 <= e.player < len(names) else ""
    you = e.player == human or (0 <= e.player < len(names) and names[e.player] == YOU)

    def verb(base: str) -> str:
        return base if you else base + ("es" if base.endswith("ss") else "s")

    name = game.ts.name(e.tile) if e.tile >= 0 else "a tile"
    if e.kind == "play":
        where = verb("lead") if e.end == LEAD else f"{verb('play')} on {END_NAMES[e.end]}:"
        scored = f"  [bold green]+{e.points}[/]" if e.points else ""
        return f"{who} {where} {name}  (count {e.total}){scored}"
    if e.kind == "draw":
        return f"{who} {verb('draw')} {name}"
    if e.kind == "pass":
        return f"{who} {verb('pass')}"
    if e.kind == "muggins":
        return f"[bold red]muggins![/] {who} {verb('take')} the {e.points} unclaimed points"
    if e.kind == "deal":
        return f"hand {e.total + 1} dealt; {who} {verb('lead')}"
    if e.kind == "lots":
        return "lots drawn for the lead"
    if e.kind == "hand_end":
        return "the hand is over"
    if e.kind == "game_end":
        return "the game is over"
    return e.kind


def scores_line(session: Session) -> str:
    rules = session.rules
    parts = [f"{escape(side_names(session, side))} [bold]{score}[/]" for side, score in enumerate(session.game.scores)]
    return "scores: " + " · ".join(parts) + f"   (target {rules.target})"


def target_note(session: Session) -> str | None:
    """While a hand goes on past the target (the rules finish the hand), who has reached it."""
    game, rules = session.game, session.rules
    if game.phase is not Phase.PLAY or rules.win_during_hand:
        return None
    reached = [side for side, score in enumerate(game.scores) if score >= rules.target]
    if not reached:
        return None
    who = " and ".join(side_names(session, side) for side in reached)
    return (f"{who} reached the target of {rules.target}; the hand is played out and then the "
            f"higher score wins")


def board_lines(session: Session, width: int | None = None) -> list[str]:
    """The layout for ``width`` columns and, once anything is played, its ends and count."""
    game = session.game
    lines = [escape(t) for t in layout_picture(game, width)]
    if game.plays:
        lines += ["", *ends_lines(game)]
    return lines


def table_lines(session: Session, width: int | None = None) -> list[str]:
    """The table as the human sees it: scores, hand sizes, the layout, recent events, own hand."""
    game, rules = session.game, session.rules
    title = f"{safe_name(rules.name)} · {rules.num_players} players · hand {game.hand_index + 1}"
    lines = [f"[bold]── {escape(title)} ──[/]", scores_line(session)]
    note = target_note(session)
    if note:
        lines.append(f"[yellow]{escape(note)}[/]")
    others = ", ".join(
        f"{escape(p.name)} {game.hands[s].bit_count()}" for s, p in enumerate(session.seats) if s != session.human
    )
    lines.append(f"tiles in hand: {others}    boneyard: {game.boneyard_size} ({max(game.drawable, 0)} drawable)")
    lines.append("")
    lines += board_lines(session, width)
    recent = session.recent_events()
    if recent:
        lines.append("[dim]what happened:[/]")
        lines += [f"  {describe(session, e)}" for e in recent if e.kind not in ("hand_end", "game_end")]
    hand = " ".join(game.ts.name(t) for t in mask_tiles(game.hands[session.human]))
    lines.append(f"your tiles: [bold]{hand or '(none)'}[/]")
    return lines


def options_lines(session: Session, options: list[MoveOption]) -> list[str]:
    claims = session.rules.muggins_claims
    lines = ["your moves:"]
    for i, o in enumerate(options, 1):
        score = f"+{o.points}" if o.points else ""
        if o.points and claims:
            score += " (add ! to claim; unclaimed, they go to the next player)"
        if o.domino:
            score += " domino!"
        lines.append(f"  {i:>2}) {o.text:<18} {score}".rstrip())
    lines.append("[dim]type a move (1, 5-0 west, 50w, draw) or hint, undo, save, help, quit[/]")
    return lines


def hint_lines(hints: list[tuple[MoveOption, float]], options: list[MoveOption]) -> list[str]:
    lines = ["hint (search player): points now, and the expected points margin to the end of the hand"]
    for o, value in hints:
        lines.append(f"  {options.index(o) + 1:>2}) {o.text:<18} now +{o.points:<3} margin {value:+.1f}")
    return lines


def hand_over_lines(session: Session, width: int | None = None) -> list[str]:
    """The final layout, every hand revealed and the end-of-hand scoring explained, with names."""
    game = session.game
    result = game.results[-1]
    names = [p.name for p in session.seats]
    lines = [f"[bold]── hand {game.hand_index + 1} is over ──[/]"]
    recent = [e for e in session.recent_events() if e.kind not in ("hand_end", "game_end")]
    lines += [f"  {describe(session, e)}" for e in recent]
    lines += ["", *board_lines(session, width), ""]
    for s, p in enumerate(session.seats):
        tiles = " ".join(game.ts.name(t) for t in mask_tiles(game.hands[s])) or "(none)"
        lines.append(f"  {escape(p.name)}: {tiles}  ({result.pips[s]} pips)")
    lines += [f"  {escape(with_names(line, names))}" for line in result.lines]
    lines.append(scores_line(session))
    if game.phase is Phase.GAME_OVER:
        lines.append(f"[bold]the game is over: {escape(winner_text(session))}[/]")
    return lines


def winner_text(session: Session) -> str:
    """``You win``, ``heuristic wins``, ``You & greedy (partner) win`` or ``a draw``."""
    game = session.game
    if game.winner is None:
        return "a draw"
    names = [p.name for s, p in enumerate(session.seats) if session.rules.side_of(s) == game.winner]
    return f"{' & '.join(names)} {'win' if names == [YOU] or len(names) > 1 else 'wins'}"
