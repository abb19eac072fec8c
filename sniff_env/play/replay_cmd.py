"""``sniff replay LOG``: step through a saved game move by move, every hand shown.

Enter shows the next move, ``b`` goes back one, ``q`` quits; every step shows the board and the
running scores. ``--all`` prints the whole game without waiting. A log is checked before it is
shown; the names in it are printed as text (no markup, no control characters), so a log cannot
restyle or take over the terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.markup import escape

from ..game import Game, Phase
from ..gamelog import load_game_log
from ..tiles import mask_tiles
from . import screen
from .commands import main_for
from .session import Session, safe_name
from .sheet import hand_end_note
from .terminal import terminal_console

INDENT = "    "
STEP_PROMPT = "[Enter: next move, b: back, q: quit] "


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, help="a game log written by sniff play or the evaluation")
    parser.add_argument("--all", action="store_true", help="print the whole game at once")


class Step:
    """One position of the replay: the game after a decision (a copy), the events it made."""

    def __init__(self, game: Game, start: int, hand: int, number: int, moves: int) -> None:
        self.game, self.start, self.hand, self.number, self.moves = game, start, hand, number, moves


def run(args: argparse.Namespace) -> int:
    log = load_game_log(args.log)
    console = terminal_console()
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

    if args.all:
        for rec in log.records:
            start = len(game.events)
            game.start_hand(rec.deal)
            hand_start(game, start)
            for action, claim in rec.actions:
                start = len(game.events)
                game.step(action, claim)
                events(game, start)
            if game.results and len(game.results) == game.hand_index + 1:
                hand_over(game)
    else:
        steps: list[Step] = []
        for rec in log.records:
            start = len(game.events)
            game.start_hand(rec.deal)
            steps.append(Step(game.copy(), start, game.hand_index + 1, 0, len(rec.actions)))
            for k, (action, claim) in enumerate(rec.actions, 1):
                start = len(game.events)
                game.step(action, claim)
                steps.append(Step(game.copy(), start, game.hand_index + 1, k, len(rec.actions)))
        i = 0
        shown = -1
        while i < len(steps):
            step = steps[i]
            if i != shown:
                if step.number == 0:
                    hand_start(step.game, step.start)
                else:
                    say(f"[dim]hand {step.hand}, move {step.number} of {step.moves}[/]")
                    events(step.game, step.start)
                    if step.game.phase is Phase.PLAY:
                        board(step.game)
                    else:
                        hand_over(step.game)
                shown = i
            if i == len(steps) - 1:
                break
            try:
                answer = input(STEP_PROMPT).strip().lower()
            except EOFError:
                answer = "q"
            if answer.startswith("q"):
                return 0
            if answer.startswith(("b", "p")):
                if i == 0:
                    say("[dim]this is the first position[/]")
                i = max(i - 1, 0)
                if i == shown:
                    shown = -1
                continue
            i += 1
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
