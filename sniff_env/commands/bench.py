"""``sniff bench NAME``: run one benchmark script of :mod:`sniff_env.benchmarks`."""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS = {
    "engine": "sniff_env.benchmarks.engine",
    "env": "sniff_env.benchmarks.env",
    "players": "sniff_env.benchmarks.players",
    "vector": "sniff_env.benchmarks.vector",
    "gym-vector": "sniff_env.benchmarks.gym_vector",
    "web-memory": "sniff_env.benchmarks.web_memory",
    "web-load": "sniff_env.benchmarks.web_load",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="options passed to the benchmark")


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(BENCHMARKS[args.name])
    return int(module.main(args.rest) or 0)
