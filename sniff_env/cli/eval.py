"""``sniff eval``: a duplicate-deal tournament among players, with ratings, JSON and a chart."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from sniff_env.atomic import clean_stale_temps
from sniff_env.errors import OutputPathError
from sniff_env.evaluation.tournament import (
    ENGINES,
    MAX_HANDS,
    cached_player,
    choose_engine,
    run_tournament,
    saved_game_logs,
)
from sniff_env.evaluation.tournament_report import print_table, to_json, write_chart, write_json
from sniff_env.options import (
    add_rules_arguments,
    check_output_files,
    check_output_folder,
    positive_int,
    rules_from_args,
    seed_int,
    worker_count,
)
from sniff_env.play.warm import warm_in_background
from sniff_env.players.compat import policy_fit
from sniff_env.rules import Rules
from sniff_env.workers import max_workers


def policy_notice(spec: str, rules: Rules) -> str | None:
    """The one-line notice of a policy that plays rules it can read but was not trained for."""
    fit = policy_fit(cached_player(spec, rules), rules)
    return fit.notice(spec) if fit else None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "specs", nargs="+", metavar="PLAYER",
        help="players: random, greedy, heuristic, search, rollouts, guided (options after a colon, e.g. "
        "search:simulations=600 or rollouts:samples=256), a shipped agent (sniff agents lists them) "
        "or the path of an exported policy file",
    )
    add_rules_arguments(parser)
    parser.add_argument("--games", type=positive_int, default=200,
                        help="games per pair, rounded up to whole deals (default: 200)")
    parser.add_argument("--seed", type=seed_int, default=0, help="tournament seed (default: 0)")
    parser.add_argument("--workers", type=worker_count, default=1,
                        help=f"worker processes, at most {max_workers()} here (default: 1)")
    parser.add_argument(
        "--engine", choices=ENGINES, default="auto",
        help="auto (default): the batched engine when every player is greedy, heuristic or a policy "
        "(the same games, much faster), else the reference engine; or insist on one",
    )
    parser.add_argument("--max-hands", type=positive_int, default=MAX_HANDS,
                        help=f"safety bound on hands per game (default: {MAX_HANDS})")
    parser.add_argument("--out", default=None, help="write OUT.json and OUT.png (e.g. checkpoints/results/sniff-2p-baselines)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--save-games", metavar="DIR", default=None,
        help="save every game as a JSON game log in DIR (replay one with: sniff replay FILE)",
    )
    parser.add_argument("--force", action="store_true",
                        help="overwrite the files of --out and the game logs in --save-games if they exist")


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    json_path, png_path = check_destinations(args)  # before playing: a tournament can take hours
    written = [*([Path(json_path).parent] if args.out else []), *([Path(args.save_games)] if args.save_games else [])]
    for folder in written:
        clean_stale_temps(folder)  # what runs killed mid-write left there
    for spec in args.specs:
        notice = policy_notice(spec, rules)
        if notice:
            print(notice)
    engine, why = choose_engine(args.specs, rules, args.engine, save_games=args.save_games)
    print(f"playing on the {engine} engine" + (f" ({why})" if why else ""))
    if engine == "batched":
        compile_ahead(["engine", "players"])
    result = run_tournament(
        args.specs, rules, args.games, seed=args.seed, workers=args.workers,
        max_hands=args.max_hands, progress=not args.no_progress, save_games=args.save_games, engine=engine,
    )
    print_table(result)
    if args.out:
        argv = getattr(args, "argv", None)
        command = "sniff " + " ".join(shlex.quote(a) for a in argv) if argv else None
        write_json(to_json(result, command), json_path)
        write_chart(result, png_path)
        print(f"wrote {json_path} and {png_path}")
    return 0


def compile_ahead(keys: list[str]) -> None:
    """Compile the groups ``keys`` that the cache lacks, each in a process of its own, before the
    games: side by side they take about half the time that every worker compiling all of them
    one after another would (a first run), and the workers then load them."""
    pending = [w for w in (warm_in_background([key]) for key in keys) if w is not None]
    for warming in pending:
        warming.wait(lambda line: print(f"sniff-env: {line}, before the games", flush=True), every_s=10.0)


def check_destinations(args: argparse.Namespace) -> tuple[str, str]:
    """The JSON and PNG paths of ``--out`` after checking that they, and ``--save-games``, can be
    written and hold nothing that would be overwritten without ``--force``."""
    json_path, png_path = f"{args.out}.json", f"{args.out}.png"
    if args.out is not None:
        if args.out.endswith(("/", os.sep)) or Path(args.out).name in ("", ".", ".."):
            raise OutputPathError(f"--out {args.out!r} names a folder; give a file name without extension, "
                                  f"e.g. results/run1")
        check_output_files((json_path, png_path), args.force)
    if args.save_games is not None:
        check_output_folder(args.save_games)
        if saved_game_logs(args.save_games) and not args.force:
            raise OutputPathError(
                f"{args.save_games} already holds tournament game logs; give another folder, or --force to overwrite them"
            )
    return json_path, png_path
