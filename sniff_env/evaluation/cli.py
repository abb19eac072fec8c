"""``sniff eval``: a duplicate-deal tournament among players, with ratings, JSON and a chart."""

from __future__ import annotations

import argparse
import shlex
import sys

from ..commands.common import add_rules_arguments, rules_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "specs", nargs="+", metavar="PLAYER",
        help="players: random, greedy, heuristic, search, rollouts (options after a colon, e.g. "
        "search:simulations=600 or rollouts:samples=256) or the path of an exported policy file",
    )
    add_rules_arguments(parser)
    parser.add_argument("--games", type=int, default=200, help="games per pair, rounded up to whole deals (default: 200)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default: 0)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default: 1)")
    parser.add_argument("--max-hands", type=int, default=None, help="safety bound on hands per game (default: 200)")
    parser.add_argument("--out", default=None, help="write OUT.json and OUT.png (e.g. checkpoints/results/sniff-2p-baselines)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--save-games", metavar="DIR", default=None,
        help="save every game as a JSON game log in DIR (replay one with: sniff replay FILE)",
    )


def run(args: argparse.Namespace) -> int:
    from .report import print_table, to_json, write_chart, write_json
    from .tournament import MAX_HANDS, run_tournament

    rules = rules_from_args(args)
    result = run_tournament(
        args.specs, rules, args.games, seed=args.seed, workers=args.workers,
        max_hands=args.max_hands or MAX_HANDS, progress=not args.no_progress, save_games=args.save_games,
    )
    print_table(result)
    if args.out:
        command = "sniff eval " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if len(sys.argv) > 2 else None
        write_json(to_json(result, command), f"{args.out}.json")
        write_chart(result, f"{args.out}.png")
        print(f"wrote {args.out}.json and {args.out}.png")
    return 0
