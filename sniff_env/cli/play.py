"""``sniff play``: a game against the agents in the terminal, with hints, undo, logs and resume;
``--how-to-play`` says how to play the chosen rules in words, ``--stats`` shows the player's
record across finished games."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from rich.markup import escape

from sniff_env.atomic import clean_stale_temps
from sniff_env.errors import SniffError
from sniff_env.gamelog import load_game_log
from sniff_env.options import add_rules_arguments, check_output_file, rules_from_args
from sniff_env.play.howto import howto_lines
from sniff_env.play.levels import DEFAULT_LEVEL, LEVELS, prepare_searches
from sniff_env.play.session import Session, chosen_level, chosen_opponents
from sniff_env.play.stats import load_stats, stats_lines
from sniff_env.play.terminal import Terminal, terminal_console


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``sniff play``'s options: those of a game (:func:`add_game_arguments`), and two that only
    say something and stop."""
    add_game_arguments(parser)
    parser.add_argument("--how-to-play", action="store_true",
                        help="say how to play the chosen rules (--preset, --players, --rule) in plain words, and stop")
    parser.add_argument("--stats", action="store_true",
                        help="show your record across finished games (kept in $SNIFF_HOME, ~/.sniff by default), "
                             "and stop")


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a game against the agents (``sniff play``'s and ``sniff serve``'s)."""
    add_rules_arguments(parser)
    parser.add_argument(
        "--opponent", action="append", default=[], metavar="SPEC",
        help="an opponent: random, greedy, heuristic, search[:budget_s=0.5], rollouts[:samples=256], a shipped "
             "agent (sniff agents lists them) or a policy file; repeat for each seat in turn (the last repeats). "
             "Default: the player of --level. With --resume: a policy file the log may name (a log may name only built-in players "
             "and the shipped agents unless you allow a file here)",
    )
    parser.add_argument(
        "--level", choices=list(LEVELS), default=None,
        help="the opponent's level when no --opponent is named, weakest first: " + "; ".join(
            f"{name}: {level.about}" for name, level in LEVELS.items()) + f" (default: {DEFAULT_LEVEL})",
    )
    parser.add_argument("--partner", metavar="SPEC", help="your partner with --rule partnership=true")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 leads the list (default: 0)")
    parser.add_argument("--seed", type=int, help="game seed (default: random)")
    parser.add_argument("--save", type=Path, metavar="PATH",
                        help="the game log file, which must not exist yet (default: a new file in "
                             "$SNIFF_HOME/games, ~/.sniff by default)")
    parser.add_argument("--force", action="store_true", help="let --save replace an existing file")
    parser.add_argument("--resume", type=Path, metavar="PATH", help="continue a saved game")
    parser.add_argument("--rated", action="store_true", help="a rated game: undo is off")


def trusted_files(args: argparse.Namespace) -> list[str]:
    """The player specs named on the command line: the files a resumed log may name."""
    return [*args.opponent, *([args.partner] if args.partner else [])]


def run(args: argparse.Namespace) -> int:
    if args.how_to_play or args.stats:
        console = terminal_console()
        lines = (howto_lines(rules_from_args(args), console.width) if args.how_to_play
                 else stats_lines(load_stats(), console.width))
        for line in lines:
            console.print(escape(line), soft_wrap=True)
        return 0
    if args.save is not None:
        check_output_file(args.save, args.force)
    if args.resume is not None:
        log = load_game_log(args.resume)
        session = Session.resume(log, args.save or args.resume, trusted_files(args))
        if args.save is None:
            session.own(args.resume)
        if args.rated:
            session.rated = True
    else:
        rules = rules_from_args(args)
        opponents, note = chosen_opponents(args.opponent, rules, args.level)
        session = Session.start(
            rules, opponents, human=args.seat, partner=args.partner, seed=args.seed,
            rated=args.rated, save_path=args.save, level=chosen_level(args.opponent, args.level),
        )
        if note and note not in session.notes:
            session.notes.insert(0, note)
    session.overwrite = args.force
    session.warming = prepare_searches(session.seats)
    if session.warming is not None:
        about = f" (about {session.warming.estimate:.0f} s)" if session.warming.estimate else ""
        session.notes.append(f"the search gets ready in the background, once on this computer{about}: play "
                             "on; the computer's first move may wait for it")
    path = session.save()  # the log file exists from the start: a bad --save stops here, before any move
    clean_stale_temps(path.parent)  # what earlier games killed mid-write left in the folder
    try:
        return Terminal(session).run()
    finally:
        if session.warming is not None:
            session.warming.stop()


def main_for(
    prog: str, add: Callable[[argparse.ArgumentParser], None], run_fn: Callable[[argparse.Namespace], int],
    argv: list[str] | None = None,
) -> int:
    """Run one subcommand as a program of its own, reporting bad input as the ``sniff`` command does."""
    parser = argparse.ArgumentParser(prog=prog, description=sys.modules[run_fn.__module__].__doc__)
    add(parser)
    args = parser.parse_args(argv)
    try:
        return int(run_fn(args) or 0)
    except SniffError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    return main_for("sniff play", add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())
