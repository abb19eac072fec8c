"""``sniff speed NAME``: run one speed script of :mod:`sniff_env.speed` (with no name: the list of
them). Speed scripts print figures and assert nothing; "benchmark" names the rating tasks."""

from __future__ import annotations

import argparse
import importlib

SCRIPTS = {
    "compile": "sniff_env.speed.compile",
    "rules": "sniff_env.speed.rules",
    "env": "sniff_env.speed.env",
    "players": "sniff_env.speed.players",
    "levels": "sniff_env.speed.levels",
    "engine": "sniff_env.speed.engine",
    "gym-vector": "sniff_env.speed.gym_vector",
    "web-memory": "sniff_env.speed.web_memory",
    "web-load": "sniff_env.speed.web_load",
}
ABOUT = {
    "compile": "seconds the compiled functions take to compile, per group and in all",
    "rules": "decisions per second of random playouts on the rules (one game at a time), per preset",
    "env": "agent steps per second through the AEC loop",
    "players": "choices per second of the built-in players",
    "levels": "milliseconds per move of each level of sniff play's ladder",
    "engine": "decisions per second of the batched engine, observations and masks included",
    "gym-vector": "learner steps per second of the Gymnasium vector env",
    "web-memory": "memory of the web server as games are started",
    "web-load": "requests per second of the web table under many players",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", choices=sorted(SCRIPTS), metavar="NAME",
                        help=f"which measure: {', '.join(sorted(SCRIPTS))} (none: list them)")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="options passed to the script (NAME --help lists them)")


def run_script(name: str | None, rest: list[str], command: str = "sniff speed") -> int:
    """Run the speed script ``name`` with the options ``rest`` (None: list the scripts)."""
    if name is None:
        print(f"{command} NAME [OPTIONS]: one speed measure ({command} NAME --help: its options)")
        for key in SCRIPTS:
            print(f"  {key:<11} {ABOUT[key]}")
        return 0
    module = importlib.import_module(SCRIPTS[name])
    return int(module.main(rest) or 0)


def run(args: argparse.Namespace) -> int:
    return run_script(args.name, args.rest)
