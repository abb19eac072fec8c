"""``sniff replay LOG``: step through a saved game move by move, every hand shown.

Enter shows the next move, ``q`` quits; ``--all`` prints the whole game without waiting.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..game import Game
from ..gamelog import GameLog, load_game_log
from ..tiles import mask_tiles
from . import screen
from .commands import main_for
from .session import HUMAN, SeatPlayer, Session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, help="a game log written by sniff play or the evaluation")
    parser.add_argument("--all", action="store_true", help="print the whole game at once")


def _viewer(log: GameLog, game: Game) -> Session:
    """A session over ``game`` for drawing only: names from the log, no agents, no human seat."""
    names = log.meta.get("names")
    if not (isinstance(names, list) and len(names) == len(log.players)):
        names = log.players
    seats = [SeatPlayer("human" if spec == HUMAN else str(n), spec) for n, spec in zip(names, log.players)]
    return Session(game, seats, human=-1, seed=log.seed)


def run(args: argparse.Namespace) -> int:
    log = load_game_log(args.log)
    console = Console(highlight=False, soft_wrap=True)
    game = Game(log.rules, log.seed, max_hands=log.max_hands)
    view = _viewer(log, game)
    console.print(f"[bold]{escape(str(args.log))}[/]: {log.rules.name}, {log.rules.num_players} players, "
                  f"seed {log.seed}; " + ", ".join(f"seat {s}: {p.name}" for s, p in enumerate(view.seats)))

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
            console.print(f"  seat {s} {escape(p.name)}: {tiles}")
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
                for line in screen.layout_picture(game):
                    console.print("    " + escape(line))
                console.print("    " + screen.ends_line(game))
        if game.results and len(game.results) == game.hand_index + 1:
            console.print(f"  [dim]hand {game.hand_index + 1} is over[/]")
            for s in range(game.n):
                tiles = " ".join(game.ts.name(t) for t in mask_tiles(game.hands[s])) or "(none)"
                console.print(f"  seat {s} {escape(view.seats[s].name)} holds {tiles}")
            for line in game.results[-1].lines:
                console.print(f"  {escape(line)}")
            console.print("  " + screen.scores_line(view))
    if log.finished:
        winner = "a draw" if game.winner is None else f"side {game.winner} wins"
        console.print(f"[bold]final scores: {' / '.join(map(str, game.scores))} — {winner}[/]")
    else:
        console.print(f"[bold]the log ends mid-game; scores: {' / '.join(map(str, game.scores))}[/]")
    return 0


def main(argv: list[str] | None = None) -> int:
    return main_for("sniff replay", add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())
