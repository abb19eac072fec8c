"""What the player sees, as lines of rich markup: the table, the moves, the end of a hand.

The layout is a text picture: the west arm, the lead and the sniff in the middle line, the east
arm, and the north and south arms stacked above and below the sniff, laid out for the terminal's
width (a long arm turns back on a row of its own). Doubles print as ``5=5`` and the sniff is
marked ``*``; the open ends are labelled ``(W)``, ``(E)``, ``(N)``, ``(S)`` where they are, and
the last tile played is in brackets. The count is shown as the sum of every end's share, so it
can be checked by eye.

A turn's screen fits the terminal (:func:`turn_lines`): the scores, the target and the tiles in
every hand sit just above the moves and the prompt, folded between names, never inside one; what
happened since the human's last move is cut to its latest lines where the screen is short, and
a run of draws by one player reads as one line (:func:`event_lines`). Rules that score a point per
five show each side's pegs on a text cribbage board under the scores (:func:`pegging`); the
hint lists the moves again, best first, and marks its tile in the hand, ``>5-0<``. The end of a
hand fits the screen too (:class:`HandOver`), its title, last plays, layout and scores kept.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence

from rich.markup import escape
from rich.text import Text

from sniff_env import render
from sniff_env.actions import END_NAMES, LEAD
from sniff_env.game import Event, Game, Phase
from sniff_env.play.session import MoveOption, Session, safe_name
from sniff_env.play.sheet import hand_end_note, pegging_lines, pegs, score_sheet
from sniff_env.tiles import mask_tiles

COMMANDS_HELP = """\
[bold]moves[/]    a number from the list (1), or a tile and an end: 5-0 west, 50w,
         0-5 w; lead 6-6 (the first tile); 4-4 north inline (a double laid in
         line, where allowed); draw. A tile that fits one place needs no end
[bold]claim[/]    with muggins, add ! to a move (1!, 50w!) to claim its points;
         autoclaim: claim every scoring move without ! (autoclaim again: stop)
[bold]hint[/]     your moves again, best first, each with its value to the search
         player: the expected points margin to the end of the hand; >5-0<
         marks the best move's tile in your hand (not in a rated game)
[bold]undo[/]     take back your last move and the replies to it (not in a rated game)
[bold]scores[/]   the score sheet, hand by hand      [bold]log[/]   every move of this hand
[bold]rules[/]    how to play these rules, in words  [bold]stats[/] your record across games
[bold]save[/]     what you have seen so far, to watch with sniff replay (save PATH:
         in that file); the game itself is saved after every move
[bold]quit[/]     save and leave (sniff play --resume LOG goes on later)
[bold]board[/]    the table again: (W) (E) (N) (S) label the open ends; [3-5] is the
         last tile played; 5=5 is a double, * the sniff; | joins a row to the
         row it turns from"""
PROMPT_HELP = "type a move (1, 5-0 west, 50w, draw) or hint, undo, scores, board, help, quit"
RATED_PROMPT_HELP = "type a move (1, 5-0 west, 50w, draw) or scores, board, help, quit (rated)"
HINTED = "your moves, best first by the hint (the expected points margin this hand):"
SEP = " · "


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


def describe_draws(game: Game, e: Event, count: int, tiles: Sequence[int], names: Sequence[str],
                   human: int = -1) -> str:
    """``count`` draws in a row by one seat as one line: ``heuristic draws 11 tiles``, or the
    tiles where they are known: ``You draw 2 tiles: 1-2, 4-4``."""
    if count == 1:
        return describe_event(game, e, names, human)
    who = escape(names[e.player]) if 0 <= e.player < len(names) else ""
    you = e.player == human or (0 <= e.player < len(names) and names[e.player] == YOU)
    known = [game.ts.name(t) for t in tiles if t >= 0]
    shown = f": {', '.join(known)}" if len(known) == count else ""
    return f"{who} {'draw' if you else 'draws'} {count} tiles{shown}"


def event_lines(game: Game, events: Sequence[Event], names: Sequence[str], human: int = -1) -> list[str]:
    """The events in words (rich markup), a run of draws by one seat in one line, the hand's
    and the game's end left out (their results are shown apart)."""
    lines: list[str] = []
    i = 0
    while i < len(events):
        e = events[i]
        if e.kind in ("hand_end", "game_end"):
            i += 1
            continue
        j = i + 1
        if e.kind == "draw":
            while j < len(events) and events[j].kind == "draw" and events[j].player == e.player:
                j += 1
            lines.append(describe_draws(game, e, j - i, [d.tile for d in events[i:j]], names, human))
        else:
            lines.append(describe_event(game, e, names, human))
        i = j
    return lines


def session_event_lines(session: Session, events: Sequence[Event]) -> list[str]:
    return event_lines(session.game, events, [p.name for p in session.seats], session.human)


def fold(parts: Sequence[str], width: int | None, sep: str = SEP, indent: str = "  ") -> list[str]:
    """``parts`` joined by ``sep`` into lines no wider than ``width`` (plain text; a line breaks
    between parts only, never inside one: a part wider than the width has a line of its own)."""
    lines: list[str] = []
    for part in parts:
        if lines and (width is None or len(lines[-1]) + len(sep) + len(part) <= width):
            lines[-1] += sep + part
        else:
            lines.append((indent if lines else "") + part)
    return lines


def rows(line: str, width: int | None) -> int:
    """Terminal rows a line of rich markup takes at ``width`` columns (words are not broken)."""
    plain = Text.from_markup(line).plain
    if not width or len(plain) <= width:
        return 1
    return len(textwrap.wrap(plain, width, break_on_hyphens=False, drop_whitespace=False)) or 1


def score_parts(session: Session, scores: Sequence[int] | None = None) -> list[str]:
    """``You 40``, ``heuristic 25`` …: each side's name and score."""
    scores = session.game.scores if scores is None else scores
    return [f"{side_names(session, side)} {score}" for side, score in enumerate(scores)]


def scores_line(session: Session) -> str:
    """``scores: You 40 · heuristic 25 (target 100)``, as rich markup (the names escaped)."""
    parts = [escape(p) for p in score_parts(session)]
    return "scores: " + SEP.join(parts) + f" (target {session.rules.target})"


def status_lines(session: Session, width: int | None = None) -> list[str]:
    """The hand, the scores, the target and the tiles each player holds, folded to ``width``
    (never inside a name and its number): what a player must not lose from sight."""
    game, rules = session.game, session.rules
    prefix = f"hand {game.hand_index + 1}{SEP}scores: "
    lines = fold([*score_parts(session), f"target {rules.target}"], width and width - len(prefix))
    lines[0] = prefix + lines[0]
    counts = [f"{p.name} {game.hands[s].bit_count()}" for s, p in enumerate(session.seats) if s != session.human]
    counts.append(f"boneyard {game.boneyard_size}" + (f" ({max(game.drawable, 0)} drawable)"
                                                      if max(game.drawable, 0) != game.boneyard_size else ""))
    tiles = fold(counts, width and width - len("tiles in hand: "))
    tiles[0] = "tiles in hand: " + tiles[0]
    return [escape(line) for line in lines + tiles + pegging(session, width)]


def pegging(session: Session, width: int | None = None) -> list[str]:
    """The cribbage board as text (rules that score a point per five; none otherwise)."""
    game, rules = session.game, session.rules
    names = [side_names(session, side) for side in range(rules.num_sides)]
    return pegging_lines(rules, names, pegs(rules, game.events, game.results), width)


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
    """The layout for ``width`` columns, its open ends labelled and the last tile played in
    brackets, and, once anything is played, its ends and count."""
    game = session.game
    lines = [escape(t) for t in render.layout_picture(game, width, labels=True, last=True)]
    if game.plays:
        ends = ends_lines(game)
        last_seat = game.plays[-1][1]
        last = f"[ ] last played, by {session.seats[last_seat].name}"
        first = fold([ends[0], last], width)
        lines += ["", *[escape(line) for line in first], ends[1]]
    return lines


def title_line(session: Session) -> str:
    rules, game = session.rules, session.game
    title = f"{safe_name(rules.name)} · {rules.num_players} players · hand {game.hand_index + 1}"
    return f"[bold]── {escape(title)} ──[/]"


def hand_line(session: Session, best: int | None = None) -> str:
    """``your tiles: 1-2 5-0 …``; with ``best`` (the hint's move), its tile marked ``>5-0<``."""
    game = session.game
    tile = game.codec.decode(best)[0] if best is not None else -1
    names = [f">{game.ts.name(t)}<" if t == tile else game.ts.name(t) for t in mask_tiles(game.hands[session.human])]
    line = f"your tiles: [bold]{escape(' '.join(names)) or '(none)'}[/]"
    if best is not None:
        text = game.codec.describe(best)
        why = f"the hint: {text}" if tile < 0 else f"the hint's tile, to play {text}"
        line += f"  ({escape(why)})"
    return line


def table_lines(session: Session, width: int | None = None, height: int | None = None,
                below: int = 0, best: int | None = None) -> list[str]:
    """The table as the human sees it: the layout, what happened since the human's last move,
    the scores and tile counts, the human's tiles (``best``: the hint's move, its tile marked).
    With ``height``, what happened is cut to its latest events so that the whole screen, with
    ``below`` more lines under it, fits."""
    top = [title_line(session), *board_lines(session, width)]
    bottom = status_lines(session, width)
    note = target_note(session)
    if note:
        bottom.append(f"[yellow]{escape(note)}[/]")
    bottom.append(hand_line(session, best))
    recent = session_event_lines(session, session.recent_events(limit=40))[-12:]
    if height is not None and recent:
        used = sum(rows(line, width) for line in top + bottom) + below + 1
        room = max(height - used - 1, 1)
        if len(recent) > room:
            recent = recent[-room:]
    middle = (["[dim]what happened:[/]", *[f"  {line}" for line in recent]] if recent else [])
    return top + middle + bottom


def option_text(o: MoveOption, number: int, claims: bool, autoclaim: bool, hint: float | None = None) -> str:
    score = f"+{o.points}" if o.points else ""
    if o.points and claims:
        score += " (claimed)" if autoclaim else f" (claim: {number}!)"
    if o.domino:
        score += " domino!"
    if hint is not None:
        return f"{number:>2}) {o.text:<12} hint {hint:+5.1f}  {score}".rstrip()
    return f"{number:>2}) {o.text:<12} {score}".rstrip()


def options_lines(session: Session, options: list[MoveOption], width: int | None = None,
                  height: int | None = None, autoclaim: bool = False,
                  hints: dict[int, float] | None = None) -> list[str]:
    """The numbered moves (in columns when a list would not fit ``height`` rows), what ! does
    with muggins, and what may be typed. With ``hints`` (each move's value to the search player),
    the moves are listed best first, each with its value, under their own numbers."""
    claims = session.rules.muggins_claims
    numbered = list(enumerate(options, 1))
    if hints:
        numbered.sort(key=lambda item: -hints.get(item[1].action, float("-inf")))
    texts = [option_text(o, i, claims, autoclaim, hints.get(o.action) if hints else None) for i, o in numbered]
    lines = [HINTED if hints else "your moves:"]
    cell = max((len(t) for t in texts), default=0) + 3
    across = max(1, ((width or 80) - 2) // cell) if height is not None and len(texts) > height else 1
    for r in range(0, len(texts), across):
        lines.append("  " + "".join(t.ljust(cell) for t in texts[r:r + across]).rstrip())
    scoring = next((i for i, o in enumerate(options, 1) if o.points), 0)
    if claims and scoring:
        lines.append("[dim]autoclaim is on: a scoring move claims its points[/]" if autoclaim else
                     f"[dim]add ! to claim the points ({scoring}!); unclaimed, the next player takes them[/]")
    lines.append(f"[dim]{RATED_PROMPT_HELP if session.rated else PROMPT_HELP}[/]")
    return lines


def turn_lines(session: Session, options: list[MoveOption], width: int | None = None,
               height: int | None = None, autoclaim: bool = False,
               hints: dict[int, float] | None = None) -> list[str]:
    """The whole screen of a turn, to fit ``height`` rows with the prompt under it: the moves
    in columns where one column would not leave room, and what happened cut to its latest.
    With ``hints`` (each move's value to the search player), the moves best first, each with its
    value, and the best move's tile marked in the hand."""
    moves = options_lines(session, options, width, None, autoclaim, hints)
    if height is not None:
        top = [title_line(session), *board_lines(session, width), *status_lines(session, width), ""]
        room = height - sum(rows(line, width) for line in top) - 3
        if len(moves) > room:
            moves = options_lines(session, options, width, max(room - 3, 1), autoclaim, hints)
    below = sum(rows(line, width) for line in moves)
    best = max(hints, key=lambda a: hints[a]) if hints else None
    return table_lines(session, width, height, below, best) + moves


def hand_summary(session: Session, width: int | None = None) -> list[str]:
    """What the hand just over gave each side, in play and at its end, folded to ``width``."""
    sheet = score_sheet(session.game)
    if not sheet or not sheet[-1].over:
        return []
    row = sheet[-1]
    assert row.end is not None
    prefix = "this hand (in play, at the end): "
    parts = [f"{side_names(session, side)} {row.play[side]:+d} {row.end[side]:+d} = {row.gained[side]:+d}"
             for side in range(len(row.play))]
    lines = fold(parts, width and width - len(prefix))
    lines[0] = prefix + lines[0]
    return [escape(line) for line in lines]


def sheet_lines(session: Session) -> list[str]:
    """The score sheet: per hand, each side's points in play and at the end, and the total."""
    sheet = score_sheet(session.game)
    names = [side_names(session, side) for side in range(session.rules.num_sides)]
    cells = [[f"{'hand':>4}", *names]]
    for row in sheet:
        line = [f"{row.hand:>4}"]
        for side in range(len(names)):
            end = "" if row.end is None else f" {row.end[side]:+d}"
            line.append(f"{row.play[side]:+d}{end} = {row.total[side]}")
        cells.append(line)
    width = [max(len(c[i]) for c in cells) for i in range(len(names) + 1)]
    title = f"[bold]score sheet[/] (target {session.rules.target}): per hand, points in play, at the end of the hand"
    lines = [f"{title}, and the total"]
    for c in cells:
        lines.append("  " + "   ".join(escape(text.ljust(w)) for text, w in zip(c, width)).rstrip())
    if sheet and not sheet[-1].over:
        lines.append(f"  [dim]hand {sheet[-1].hand} is in play[/]")
    return lines


class HandOver:
    """The end of a hand as parts of a screen: its title, the last plays, the final layout, every
    hand revealed, the end-of-hand scoring explained with names, what the hand gave each side,
    the new scores (and the pegs) and, once the game is over, who won.

    :meth:`fit` makes them fit a number of rows, dropping what helps least one step at a time
    (older plays, blank lines, the open ends, the note on rounding, the ends' labels, the count,
    what the hand gave, the pegs), never the title, the last play, the layout, the hands left or
    the scores; :meth:`pages` splits them in two screens where even that does not fit."""

    def __init__(self, session: Session, width: int | None = None) -> None:
        game = session.game
        result = game.results[-1]
        self.width = width
        names = [p.name for p in session.seats]
        self.over = game.phase is Phase.GAME_OVER
        self.title = f"hand {game.hand_index + 1} is over"
        self.won = f"the game is over: {winner_text(session)}" if self.over else ""
        recent = [f"  {line}" for line in session_event_lines(session, session.recent_events(limit=60))]
        self.bare = [escape(t) for t in render.layout_picture(game, width, labels=False, last=True)]
        ends: list[str] = []
        count: list[str] = []
        if game.plays:
            first, count_line = ends_lines(game)
            last = f"[ ] last played, by {session.seats[game.plays[-1][1]].name}"
            ends = [escape(line) for line in fold([first, last], width)]
            count = [count_line]
        held = [f"{p.name} {' '.join(game.ts.name(t) for t in mask_tiles(game.hands[s])) or 'none'} ({result.pips[s]})"
                for s, p in enumerate(session.seats)]
        held_lines = fold(held, width and width - 2 - len("left in hand: "))
        held_lines[0] = "left in hand: " + held_lines[0]
        said = [with_names(line, names) for line in result.lines if not line.startswith("pips left:")]
        self.kept = ([f"  {escape(line)}" for line in held_lines]
                     + [f"  {escape(line)}" for line in fold(said, width and width - 2)])
        note = hand_end_note(session.rules)
        notes = [f"  [dim]{escape(note)}[/]"] if note and any("round5" in line for line in result.lines) else []
        self.scores = scores_line(session)
        self.recent = recent
        self.parts: dict[str, list[str]] = {
            "recent": recent, "gap": [""],
            "board": [escape(t) for t in render.layout_picture(game, width, labels=True, last=True)],
            "ends": ends, "count": count, "gap2": [""], "notes": notes, "summary": hand_summary(session, width),
            "pegs": [escape(line) for line in pegging(session, width)], "won": [f"[bold]{escape(self.won)}[/]"] if self.won else [],
            "title": [f"[bold]── {escape(self.title)} ──[/]"],
        }
        self.full = dict(self.parts)

    def top(self) -> list[str]:
        """The title, the last plays and the layout."""
        p = self.parts
        return [*p["title"], *p["recent"], *p["gap"], *p["board"], *p["ends"], *p["count"]]

    def bottom(self) -> list[str]:
        """The hands left, the scoring, the scores and who won."""
        p = self.parts
        return [*p["gap2"], *self.kept, *p["notes"], *p["summary"], self.scores, *p["pegs"], *p["won"]]

    def rows(self, lines: list[str]) -> int:
        return sum(rows(line, self.width) for line in lines)

    def _latest(self, keep: int) -> None:
        self.parts["recent"] = self.recent[-keep:] if keep else []

    def _won_in_title(self) -> None:
        if self.won:
            self.parts.update(title=[f"[bold]── {escape(self.title)} · {escape(self.won)} ──[/]"], won=[])

    def fit(self, height: int) -> bool:
        """Drop what helps least until the whole takes ``height`` rows at most; whether it does."""
        p = self.parts
        self._latest(max(height - self.rows(self.top() + self.bottom()) + self.rows(p["recent"]), 3))
        steps: list[Callable[[], object]] = [lambda: self._latest(3), lambda: p.update(gap=[], gap2=[]), lambda: p.update(ends=[]),
                 lambda: p.update(notes=[]), lambda: p.update(board=self.bare), lambda: self._latest(2),
                 lambda: p.update(count=[]), lambda: p.update(summary=[]), self._won_in_title,
                 lambda: p.update(pegs=[]), lambda: self._latest(1)]
        for step in steps:
            if self.rows(self.top() + self.bottom()) <= height:
                break
            step()
        while len(p["recent"]) < len(self.recent) and self.rows(self.top() + self.bottom()) < height:
            self._latest(len(p["recent"]) + 1)  # the room a later step made goes to the plays
        if self.rows(self.top() + self.bottom()) > height and len(p["recent"]) > 1:
            self._latest(len(p["recent"]) - 1)
        return self.rows(self.top() + self.bottom()) <= height

    def pages(self, height: int, last: int | None = None) -> list[list[str]]:
        """One screen of at most ``last`` rows (default ``height``), or, where the layout is too
        tall for that, two: the title, the last plays and the layout in ``height`` rows, then the
        rest, under the title again, in ``last``."""
        last = height if last is None else last
        if self.fit(last):
            return [self.top() + self.bottom()]
        p = self.parts
        p.update({**self.full, "board": self.bare})
        for drop in ("gap", "ends", "count"):
            if self.rows(self.top()) <= height:
                break
            p[drop] = []
        while self.rows(self.top()) > height and len(p["recent"]) > 1:
            self._latest(len(p["recent"]) - 1)
        first = self.top()
        title = [f"[bold]── {escape(self.title)}: the scores ──[/]"]
        for drop in ("gap2", "notes", "summary", "pegs"):
            if self.rows(title + self.bottom()) <= last:
                break
            p[drop] = []
        return [first, title + self.bottom()]


def winner_text(session: Session) -> str:
    """``You win``, ``heuristic wins``, ``You & greedy (partner) win`` or ``a draw``."""
    game = session.game
    if game.winner is None:
        return "a draw"
    names = [p.name for s, p in enumerate(session.seats) if session.rules.side_of(s) == game.winner]
    return f"{' & '.join(names)} {'win' if names == [YOU] or len(names) > 1 else 'wins'}"
