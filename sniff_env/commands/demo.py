"""``sniff demo``: one seeded game played out between built-in players, printed move by move."""

from __future__ import annotations

import argparse
import random

from rich.console import Console

from ..game import Phase, new_game
from ..play.screen import describe_event
from .common import add_rules_arguments, positive_int, rules_from_args, seed_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser)
    parser.add_argument("--seed", type=seed_int, default=0, help="game seed (default: 0)")
    parser.add_argument("--hands", type=positive_int, default=1, help="hands to show (default: 1)")


def run(args: argparse.Namespace) -> int:
    console = Console()
    rules = rules_from_args(args)
    game = new_game(rules, seed=args.seed)
    rng = random.Random(args.seed)
    shown = 0
    while game.phase is not Phase.GAME_OVER and shown < args.hands:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
        while game.phase is Phase.PLAY:
            legal = game.legal_actions()
            game.step(legal[rng.randrange(len(legal))])
        shown += 1
    names = [f"seat {seat}" for seat in range(rules.num_players)]
    for e in game.events:
        console.print(describe_event(game, e, names))
    for result in game.results:
        for line in result.lines:
            console.print(f"  {line}")
    console.print(f"scores: {game.scores}")
    return 0
