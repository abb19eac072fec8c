"""``sniff replay LOG``: step through a saved game move by move, every hand shown.

Enter shows the next move, ``n`` jumps to the next hand's deal, ``e`` to the end of the game,
``b`` goes back one, ``q`` quits; every step shows the board and the running scores. ``--all`` prints the whole game without waiting. A log is checked before it is
shown; the names in it are printed as text (no markup, no control characters), so a log cannot
restyle or take over the terminal.

A seat's record of a game in progress (what the web table's "Save log" gives before the game is
over) replays from that seat: its own tiles, every other hand by its size only, the boneyard by
its size (see :mod:`.seat_replay`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from sniff_env.cli.play import main_for
from sniff_env.game import Game, Phase
from sniff_env.gamelog import GameLog
from sniff_env.play import screen
from sniff_env.play.seat_replay import SeatLog, SeatPosition, read_log, record_note, seat_positions
from sniff_env.play.session import SeatPlayer, Session, safe_name
from sniff_env.play.sheet import hand_end_note
from sniff_env.play.terminal import terminal_console
from sniff_env.render import count_sum, layout_picture
from sniff_env.tiles import mask_tiles

INDENT = "    "
STEP_PROMPT = "[Enter: next move, n: next hand, e: the end, b: back, q: quit] "


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, help="a game log written by sniff play or the evaluation")
    parser.add_argument("--all", action="store_true", help="print the whole game at once")


class Pages:
    """The positions of a replay, each printed once as the game is stepped to it and kept as
    recorded output, so going back shows a position again without copying the game (each step
    costs the size of what it shows)."""

    def __init__(self, console: Console, steps: Iterator[None]) -> None:
        self.console, self.steps = console, steps
        self.pages: list[str] = []

    def show(self, i: int) -> None:
        if i < len(self.pages):
            self.console.file.write(self.pages[i])
            self.console.file.flush()
            return
        while len(self.pages) <= i:
            self.console.begin_capture()
            try:
                next(self.steps)
            finally:
                page = self.console.end_capture()
            self.pages.append(page)
        self.console.file.write(self.pages[i])
        self.console.file.flush()


def step_through(count: int, show: Callable[[int], None], say: Callable[[str], None],
                 starts: Sequence[int] = ()) -> bool:
    """Show position 0, then the next at each Enter (``n``: the next of the hands' first
    positions ``starts``, else the last; ``e``: the last; ``b``: the one before; ``q``: stop);
    False where the player quit before the last position."""
    i, shown = 0, -1
    while i < count:
        if i != shown:
            show(i)
            shown = i
        if i == count - 1:
            break
        try:
            answer = input(STEP_PROMPT).strip().lower()
        except EOFError:
            answer = "q"
        if answer.startswith("q"):
            return False
        if answer.startswith("n"):
            i = next((start for start in starts if start > i), count - 1)
            continue
        if answer.startswith("e"):
            i = count - 1
            continue
        if answer.startswith(("b", "p")):
            if i == 0:
                say("[dim]this is the first position[/]")
            i = max(i - 1, 0)
            if i == shown:
                shown = -1
            continue
        i += 1
    return True


def run(args: argparse.Namespace) -> int:
    log = read_log(args.log)
    console = terminal_console()
    if isinstance(log, SeatLog):
        return run_seat(args, log, console)
    return run_game(args, log, console)


def run_seat(args: argparse.Namespace, log: SeatLog, console: Console) -> int:
    """Replay a seat's record from that seat: its own tiles, the others' by their number."""
    rules, seat = log.rules, log.seat
    view = Session(Game(rules, 0), [SeatPlayer(n, p) for n, p in zip(log.names, log.players)], human=seat)
    names = list(log.names)
    width = console.width - len(INDENT)

    def say(line: str) -> None:
        console.print(line, soft_wrap=False, overflow="fold")

    seats = ", ".join(f"seat {s}: {escape(name)}" for s, name in enumerate(names))
    say(f"[bold]{escape(safe_name(args.log, 200))}[/]: {escape(safe_name(rules.name))}, {rules.num_players} players; "
        f"{seats}")
    say(f"[dim]{escape(record_note(log))}[/]")

    def scores(pos: SeatPosition) -> str:
        parts = [escape(p) for p in screen.score_parts(view, pos.info.scores)]
        return "scores: " + screen.SEP.join(parts) + f" (target {rules.target})"

    def board(pos: SeatPosition) -> None:
        info = pos.info
        for line in layout_picture(info, width, labels=True, last=True):
            console.print(INDENT + escape(line), soft_wrap=True)
        if info.plays:
            ends = [f"{name} {info.end_pip[e]}" for e, name in enumerate(("west", "east", "north", "south"))
                    if info.end_open[e]]
            say(f"{INDENT}open ends: {', '.join(ends) or '-'} · [ ] last played, by {escape(names[info.plays[-1][1]])}")
            say(INDENT + count_sum(info, info.count))

    def held(pos: SeatPosition) -> str:
        info = pos.info
        own = " ".join(view.game.ts.name(t) for t in mask_tiles(info.hand)) or "(none)"
        others = [f"{escape(names[s])} {info.hand_sizes[s]}" for s in range(rules.num_players) if s != seat]
        return (f"{escape(names[seat])}: {own} · tiles held: " + screen.SEP.join(others)
                + f" · boneyard {info.boneyard_size}")

    def show(pos: SeatPosition) -> None:
        events = screen.event_lines(view.game, pos.fresh, names, seat)
        if pos.number == 0:
            say(f"[bold]── hand {pos.hand_index + 1} ──[/]")
        else:
            say(f"[dim]hand {pos.hand_index + 1}, move {pos.number} of {pos.moves}[/]")
        for line in events:
            say("  " + line)
        if pos.result is None:
            if pos.number:
                board(pos)
            say(INDENT + held(pos))
            say(INDENT + scores(pos))
            return
        say(f"  [dim]hand {pos.hand_index + 1} is over[/]")
        board(pos)
        for s, name in enumerate(names):
            holds = "hold" if name == screen.YOU else "holds"
            tiles = (" ".join(view.game.ts.name(t) for t in mask_tiles(pos.info.hand)) or "(none)" if s == seat
                     else f"{pos.info.hand_sizes[s]} tiles")
            say(f"  {escape(name)} {holds} {tiles} ({pos.result.pips[s]} pips)")
        for line in pos.result.lines:
            say(f"  {escape(screen.with_names(line, names))}")
        note = hand_end_note(rules)
        if note and any("round5" in line for line in pos.result.lines):
            say(f"  [dim]{escape(note)}[/]")
        say("  " + scores(pos))

    positions = list(seat_positions(log))
    if args.all:
        for pos in positions:
            show(pos)
    elif not step_through(len(positions), lambda i: show(positions[i]), say,
                          [i for i, pos in enumerate(positions) if pos.number == 0]):
        return 0
    final = " / ".join(map(str, log.scores))
    say(f"[bold]{'final scores' if log.finished else 'the record ends mid-game; scores'}: {final}[/]")
    return 0


def run_game(args: argparse.Namespace, log: GameLog, console: Console) -> int:
    """Replay a full game log, every hand face up."""
    game = Game(log.rules, log.seed, max_hands=log.max_hands)
    view = Session.viewer(log, game, human_name=screen.YOU)
    names = [p.name for p in view.seats]
    width = console.width - len(INDENT)

    def say(line: str) -> None:
        console.print(line, soft_wrap=False, overflow="fold")

    seats = ", ".join(f"seat {s}: {escape(p.name)}" for s, p in enumerate(view.seats))
    say(f"[bold]{escape(safe_name(args.log, 200))}[/]: {escape(safe_name(log.rules.name))}, "
        f"{log.rules.num_players} players, seed {log.seed}; {seats}")

    def events(g: Game, start: int) -> None:
        for line in screen.event_lines(g, g.events[start:], names):
            say("  " + line)

    def board(g: Game) -> None:
        view.game = g
        for line in screen.board_lines(view, width):
            console.print(INDENT + line, soft_wrap=True)
        say(INDENT + screen.scores_line(view))

    def hand_start(g: Game, start: int) -> None:
        say(f"[bold]── hand {g.hand_index + 1} ──[/]")
        for s in range(g.n):
            tiles = " ".join(g.ts.name(t) for t in mask_tiles(g.hands[s]))
            say(f"  {escape(names[s])}: {tiles}")
        events(g, start)

    def hand_over(g: Game) -> None:
        view.game = g
        say(f"  [dim]hand {g.hand_index + 1} is over[/]")
        for line in screen.board_lines(view, width):
            console.print(INDENT + line, soft_wrap=True)
        for s in range(g.n):
            tiles = " ".join(g.ts.name(t) for t in mask_tiles(g.hands[s])) or "(none)"
            holds = "hold" if names[s] == screen.YOU else "holds"
            say(f"  {escape(names[s])} {holds} {tiles}")
        for line in g.results[-1].lines:
            say(f"  {escape(screen.with_names(line, names))}")
        note = hand_end_note(g.rules)
        if note and any("round5" in line for line in g.results[-1].lines):
            say(f"  [dim]{escape(note)}[/]")
        say("  " + screen.scores_line(view))

    def positions() -> Iterator[None]:
        """Step the game through the log, showing each position as it is reached."""
        for rec in log.records:
            start = len(game.events)
            game.start_hand(rec.deal)
            hand_start(game, start)
            yield
            for k, (action, claim) in enumerate(rec.actions, 1):
                start = len(game.events)
                game.step(action, claim)
                if not args.all:
                    say(f"[dim]hand {game.hand_index + 1}, move {k} of {len(rec.actions)}[/]")
                events(game, start)
                if not args.all and game.phase is Phase.PLAY:
                    board(game)
                elif game.results and len(game.results) == game.hand_index + 1:
                    hand_over(game)
                yield

    if args.all:
        for _ in positions():
            pass
    else:
        sizes = [1 + len(rec.actions) for rec in log.records]
        starts = [sum(sizes[:k]) for k in range(len(sizes))]
        if not step_through(sum(sizes), Pages(console, positions()).show, say, starts):
            return 0
    view.game = game
    if log.finished:
        say(f"[bold]final scores: {' / '.join(map(str, game.scores))} — {escape(screen.winner_text(view))}[/]")
    else:
        say(f"[bold]the log ends mid-game; scores: {' / '.join(map(str, game.scores))}[/]")
    return 0


def main(argv: list[str] | None = None) -> int:
    return main_for("sniff replay", add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())
