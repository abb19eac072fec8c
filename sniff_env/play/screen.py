"""What the player sees, as lines of rich markup: the table, the moves, the end of a hand.

The layout is a text picture: the west arm, the lead and the sniff in the middle line, the east
arm, and the north and south arms stacked above and below the sniff. Doubles print as ``5=5``
and the sniff is marked ``*``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape

from ..actions import END_NAMES, LEAD, NORTH, SOUTH
from ..game import Event, Game, Phase
from ..render import layout_arms
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


def layout_picture(game: Game) -> list[str]:
    """The layout as plain text lines: north arm above the sniff, the line, south arm below."""
    centre, arms = layout_arms(game)
    if not centre:
        return ["(the table is empty)"]
    line = list(reversed(arms[0])) + [centre] + arms[1]
    sniff_at = next((i for i, t in enumerate(line) if "*" in t), -1)
    text = "  ".join(line)
    if sniff_at < 0:
        return [text]
    col = sum(len(t) + 2 for t in line[:sniff_at])
    pad = " " * col
    # north tiles are written outer half first, so the column reads downwards into the sniff
    above = [pad + "-".join(reversed(t.split("-"))) for t in reversed(arms[NORTH])]
    below = [pad + t for t in arms[SOUTH]]
    if game.end_open[NORTH] and not arms[NORTH]:
        above = [pad + " |"]
    if game.end_open[SOUTH] and not arms[SOUTH]:
        below = [pad + " |"]
    return above + [text] + below


def ends_line(game: Game) -> str:
    ends = [f"{END_NAMES[e]} {game.end_pip[e]}" for e in range(4) if game.end_open[e]]
    return f"open ends: {', '.join(ends) or '-'}    [bold]count {game.count}[/]"


def describe(session: Session, e: Event) -> str:
    """One event in words, with the players' names."""
    return describe_event(session.game, e, [seat.name for seat in session.seats], session.human)


def describe_event(game: Game, e: Event, names: Sequence[str], human: int = -1) -> str:
    """One event in words (rich markup; the names are escaped); ``names`` names each seat, and seat
    ``human`` is addressed as "You"."""
    who = escape(names[e.player]) if 0 <= e.player < len(names) else ""
    you = e.player == human

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
        return f"[bold red]muggins![/] {who} takes the {e.points} unclaimed points"
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
    parts = []
    for side, score in enumerate(session.game.scores):
        names = [p.name for s, p in enumerate(session.seats) if rules.side_of(s) == side]
        parts.append(f"{escape(' & '.join(names))} [bold]{score}[/]")
    return "scores: " + " · ".join(parts) + f"   (target {rules.target})"


def table_lines(session: Session) -> list[str]:
    """The table as the human sees it: scores, hand sizes, the layout, recent events, own hand."""
    game, rules = session.game, session.rules
    title = f"{safe_name(rules.name)} · {rules.num_players} players · hand {game.hand_index + 1}"
    lines = [f"[bold]── {escape(title)} ──[/]", scores_line(session)]
    others = ", ".join(
        f"{escape(p.name)} {game.hands[s].bit_count()}" for s, p in enumerate(session.seats) if s != session.human
    )
    lines.append(f"tiles in hand: {others}    boneyard: {game.boneyard_size} ({max(game.drawable, 0)} drawable)")
    lines.append("")
    lines += [escape(t) for t in layout_picture(game)]
    lines.append("")
    if game.plays:
        lines.append(ends_line(game))
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
            score += " (add ! to claim)"
        if o.domino:
            score += " domino!"
        lines.append(f"  {i:>2}) {o.text:<18} {score}".rstrip())
    lines.append("[dim]type a move (1, 5-0 west, 50w, draw) or hint, undo, save, help, quit[/]")
    return lines


def hint_lines(hints: list[tuple[MoveOption, float]], options: list[MoveOption]) -> list[str]:
    lines = ["hint (expected points margin to the end of the hand, search player):"]
    for o, value in hints:
        lines.append(f"  {options.index(o) + 1:>2}) {o.text:<18} {value:+.1f}")
    return lines


def hand_over_lines(session: Session) -> list[str]:
    """Every hand revealed and the end-of-hand scoring explained."""
    game = session.game
    result = game.results[-1]
    lines = [f"[bold]── hand {game.hand_index + 1} is over ──[/]"]
    recent = [e for e in session.recent_events() if e.kind not in ("hand_end", "game_end")]
    lines += [f"  {describe(session, e)}" for e in recent]
    for s, p in enumerate(session.seats):
        tiles = " ".join(game.ts.name(t) for t in mask_tiles(game.hands[s])) or "(none)"
        lines.append(f"  seat {s} {escape(p.name)}: {tiles}  ({result.pips[s]} pips)")
    lines += [f"  {escape(line)}" for line in result.lines]
    lines.append(scores_line(session))
    if game.phase is Phase.GAME_OVER:
        if game.winner is None:
            lines.append("[bold]the game is over: a draw[/]")
        else:
            names = [p.name for s, p in enumerate(session.seats) if session.rules.side_of(s) == game.winner]
            verb = "win" if names == ["You"] else "wins"
            lines.append(f"[bold]the game is over: {escape(' & '.join(names))} {verb}[/]")
    return lines
