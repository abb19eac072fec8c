"""``sniff replay LOG``: step through a saved game move by move, every hand shown.

Enter shows the next move, ``q`` quits; ``--all`` prints the whole game without waiting. A log
is checked before it is shown; the names in it are printed as text (no markup, no control
characters), so a log cannot restyle or take over the terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..game import Game
from ..gamelog import load_game_log
from ..tiles import mask_tiles
from . import screen
from .commands import main_for
from .session import Session, safe_name

INDENT = "    "


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, help="a game log written by sniff play or the evaluation")
    parser.add_argument("--all", action="store_true", help="print the whole game at once")


def run(args: argparse.Namespace) -> int:
    log = load_game_log(args.log)
    console = Console(highlight=False, soft_wrap=True)
    game = Game(log.rules, log.seed, max_hands=log.max_hands)
    view = Session.viewer(log, game, human_name=screen.YOU)
    names = [p.name for p in view.seats]
    width = console.width - len(INDENT)
    seats = ", ".join(f"seat {s}: {escape(p.name)}" for s, p in enumerate(view.seats))
    console.print(f"[bold]{escape(safe_name(args.log, 200))}[/]: {escape(safe_name(log.rules.name))}, "
                  f"{log.rules.num_players} players, seed {log.seed}; {seats}")

    def show(start: int) -> None:
        for e in game.events[start:]:
            if e.kind not in ("hand_end", "game_end"):
                console.print("  " + screen.describe(view, e))

    for rec in log.records:
        start = len(game.events)
        game.start_hand(rec.deal)
        console.print(f"[bold]── hand {game.hand_index + 1} ──[/]")
        for s, p in enumerate(view.seats):
            tiles = " ".join(game.ts.name(t) for t in mask_tiles(game.hands[s]))
            console.print(f"  {escape(p.name)}: {tiles}")
        show(start)
        for action, claim in rec.actions:
            if not args.all:
                try:
                    answer = input("[Enter: next move, q: quit] ").strip().lower()
                except EOFError:
                    answer = "q"
                if answer.startswith("q"):
                    return 0
            start = len(game.events)
            game.step(action, claim)
            show(start)
            if not args.all:
                for line in screen.board_lines(view, width):
                    console.print(INDENT + line)
        if game.results and len(game.results) == game.hand_index + 1:
            console.print(f"  [dim]hand {game.hand_index + 1} is over[/]")
            for line in screen.board_lines(view, width):
                console.print(INDENT + line)
            for s in range(game.n):
                tiles = " ".join(game.ts.name(t) for t in mask_tiles(game.hands[s])) or "(none)"
                holds = "hold" if names[s] == screen.YOU else "holds"
                console.print(f"  {escape(names[s])} {holds} {tiles}")
            for line in game.results[-1].lines:
                console.print(f"  {escape(screen.with_names(line, names))}")
            console.print("  " + screen.scores_line(view))
    if log.finished:
        console.print(f"[bold]final scores: {' / '.join(map(str, game.scores))} — {escape(screen.winner_text(view))}[/]")
    else:
        console.print(f"[bold]the log ends mid-game; scores: {' / '.join(map(str, game.scores))}[/]")
    return 0


def main(argv: list[str] | None = None) -> int:
    return main_for("sniff replay", add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())
