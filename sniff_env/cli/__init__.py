"""The ``sniff`` command. Each subcommand lives in its own module, imported only when used:
the parser declares every subcommand from :data:`SUBCOMMANDS` (a name and a one-line help) and
imports the module of the one the command line names, so ``sniff --help`` loads none of them.

A subcommand module provides ``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from sniff_env import __version__
from sniff_env.workers import WorkerLost

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "rules": ("sniff_env.cli.rules", "list the presets and the rules fields"),
    "demo": ("sniff_env.cli.demo", "play one seeded game between built-in players and print it"),
    "speed": ("sniff_env.cli.speed", "how fast the engine, the envs, the players, the compile and the web table run"),
    "bench": ("sniff_env.cli.bench", "the old name of sniff speed (deprecated)"),
    "agents": ("sniff_env.cli.agents", "list the shipped agents with their rules, training and strength"),
    "benchmark": ("sniff_env.cli.benchmark", "named benchmark tasks: rate an agent on one, compare the reports"),
    "solve": ("sniff_env.cli.solve", "solve a small variant exactly: CFR+, NashConv of players, best responses"),
    "eval": ("sniff_env.cli.eval", "tournament with duplicate deals, ratings and charts"),
    "exploit": ("sniff_env.cli.exploit", "train a best response to a frozen player: how much it loses (a checkout)"),
    "play": ("sniff_env.cli.play", "play against the agents in the terminal, with hints, undo and saved games"),
    "replay": ("sniff_env.cli.replay", "step through a saved game log, or print it with --all"),
    "serve": ("sniff_env.cli.serve", "play in the browser: a local web table with hints, undo, saved games and replays"),
    "docs": ("sniff_env.cli.docs", "build the API reference (HTML pages from the docstrings, by pdoc)"),
    "warmup": ("sniff_env.cli.warmup", "compile every kernel ahead (under a minute on two cores, once per install)"),
}


EXTRAS = {"fastapi": "web", "uvicorn": "web", "torch": "train", "stable_baselines3": "train", "sb3_contrib": "train",
          "tensorboard": "train", "matplotlib": "train", "pyspiel": "openspiel", "ray": "rllib", "pdoc": "dev"}
"""The optional dependencies a command may need, and the extra of the package that installs each."""



def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """One line naming the extra that installs the module ``exc`` did not find, None if no extra does."""
    top = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(top)
    if extra is None:
        return None
    return f"this needs the {extra!r} extra ({top} is not installed): pip install 'sniff-env[{extra}]'"


def command_in(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option, since no option of
    ``sniff`` itself takes a value (None when there is none; a word that names no subcommand is
    left to the parser to refuse)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of ``sniff``. Every subcommand is declared; the options are added of the one
    ``argv`` names only (its module imported), or of every subcommand when ``argv`` is None."""
    parser = argparse.ArgumentParser(prog="sniff", description="Sniff and the Fives family of dominoes.")
    parser.add_argument("--version", action="version", version=f"sniff-env {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = None if argv is None else command_in(argv)
    for name, (module, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if argv is None or name == wanted:
            add_subcommand(p, module)
    return parser


def add_subcommand(parser: argparse.ArgumentParser, module: str) -> None:
    """Import a subcommand's module and give ``parser`` its options and its ``run``; a module
    missing from this installation leaves instead the line that says so."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if not exc.name or not module.startswith(exc.name):
            raise
        parser.set_defaults(_missing=missing_extra(exc) or "not available in this installation")
        return
    mod.add_arguments(parser)
    parser.set_defaults(_run=mod.run)


def main(argv: list[str] | None = None) -> int:
    """Run ``sniff`` with ``argv`` (default: the process's arguments). Bad input of any kind
    (options, rules, player specs, paths) ends with one line on stderr and exit status 2."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    args.argv = argv
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "_missing", None):
        print(f"sniff {args.command}: {args._missing}", file=sys.stderr)
        return 2
    try:
        return int(args._run(args) or 0)
    except ModuleNotFoundError as exc:
        line = missing_extra(exc)
        if line is None:
            raise
        print(f"sniff {args.command}: {line}", file=sys.stderr)
        return 2
    except ValueError as exc:  # every bad-input error of the package is a ValueError
        print(f"sniff {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path or address the user gave cannot be read or written
        where = f" {exc.filename}" if exc.filename else ""
        print(f"sniff {args.command}: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except WorkerLost as exc:
        print(f"sniff {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


