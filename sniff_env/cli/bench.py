"""``sniff bench NAME``: run one benchmark script of :mod:`sniff_env.evaluation.speed` (with no name:
the list of them)."""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS = {
    "compile": "sniff_env.play.compile_speed",
    "engine": "sniff_env.evaluation.speed.engine",
    "env": "sniff_env.evaluation.speed.env",
    "players": "sniff_env.evaluation.speed.players",
    "levels": "sniff_env.play.level_speed",
    "vector": "sniff_env.evaluation.speed.vector",
    "gym-vector": "sniff_env.evaluation.speed.gym_vector",
    "web-memory": "sniff_env.web.speed.memory",
    "web-load": "sniff_env.web.speed.load",
}
ABOUT = {
    "compile": "seconds the compiled functions take to compile, per group and in all",
    "engine": "decisions per second of random playouts, per preset",
    "env": "agent steps per second through the AEC loop",
    "players": "choices per second of the built-in players",
    "levels": "milliseconds per move of each level of sniff play's ladder",
    "vector": "decisions per second of the batched engine",
    "gym-vector": "learner steps per second of the Gymnasium vector env",
    "web-memory": "memory of the web server as games are started",
    "web-load": "requests per second of the web table under many players",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", choices=sorted(BENCHMARKS), metavar="NAME",
                        help=f"which benchmark: {', '.join(sorted(BENCHMARKS))} (none: list them)")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="options passed to the benchmark (NAME --help lists them)")


def run(args: argparse.Namespace) -> int:
    if args.name is None:
        print("sniff bench NAME [OPTIONS]: one benchmark (sniff bench NAME --help: its options)")
        for name in BENCHMARKS:
            print(f"  {name:<11} {ABOUT[name]}")
        return 0
    module = importlib.import_module(BENCHMARKS[args.name])
    return int(module.main(args.rest) or 0)
