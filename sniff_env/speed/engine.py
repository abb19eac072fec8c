"""Batched engine speed: decisions per second, observations and masks included.

The reference is one game at a time: ``new_game`` + random legal play + ``Observer.encode(
info_state(game, seat))`` and ``Observer.mask`` for every decision. The batched engine steps
``B`` games at once through :class:`sniff_env.envs.batch_env.SniffVectorEnv` (automatic resets, rewards,
observations and masks for every game), with random legal actions drawn vectorized: ``legal``
picks uniformly from each game's legal list, ``argmax`` takes the argmax of random noise over
the mask. Both are measured in the same run; each figure is the median of ``--repeats``
wall-clock windows of ``--seconds`` each (the first kernel compile is not timed). Beside the
wall-clock rate, "per CPU s" divides by the CPU time of all this process's threads: on a machine
shared with other work, it shows what the code does with the cores it actually got.

    sniff speed engine [--preset sniff] [--players 2] [--batch 1 64 1024 8192] [--threads N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.options import (
    add_rules_arguments,
    positive_float,
    positive_int,
    rules_from_args,
    seed_int,
)
from sniff_env.rules import Rules

GOAL = 1_000_000
"""Decisions per second the batched engine is meant to reach at its best batch size."""


Rate = tuple[float, float]
"""Decisions per wall-clock second and per CPU second."""


def reference_rate(rules: Rules, seconds: float, seed: int) -> Rate:
    """Decisions per second of the reference engine, one game after another."""
    observer = Observer(rules)
    rng = random.Random(seed)
    decisions, game_seed = 0, seed
    cpu = time.process_time()
    start = time.perf_counter()
    end = start + seconds
    while True:
        game = new_game(rules, seed=game_seed, record=False)
        game_seed += 1
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            info = info_state(game, game.turn)
            observer.encode(info)
            observer.mask(info)
            acts = game.legal_actions()
            game.step(acts[int(rng.random() * len(acts))])
            decisions += 1
        now = time.perf_counter()
        if now >= end:
            return decisions / (now - start), decisions / (time.process_time() - cpu)


def vector_rate(rules: Rules, batch: int, seconds: float, seed: int, sampler: str, threads: int | None) -> Rate:
    """Decisions per second of :class:`SniffVectorEnv` with ``batch`` games."""
    from sniff_env.envs.batch_env import SniffVectorEnv

    env = SniffVectorEnv(rules, batch, seed=seed, threads=threads)
    rng = np.random.default_rng(seed)
    _, mask, _ = env.reset()
    steps = 0
    cpu = time.process_time()
    start = time.perf_counter()
    end = start + seconds
    while True:
        for _ in range(8):
            if sampler == "legal":
                actions = env.random_actions(rng)
            else:
                noise = rng.random(mask.shape, dtype=np.float32)
                actions = np.argmax(np.where(mask == 1, noise, -1.0), axis=1)
            _, mask, _, _, _, _ = env.step(actions)
            steps += 1
        now = time.perf_counter()
        if now >= end:
            cpu = time.process_time() - cpu
            env.close()
            return steps * batch / (now - start), steps * batch / cpu


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="sniff speed engine", description=__doc__.splitlines()[0])
    add_rules_arguments(parser)
    parser.add_argument("--batch", type=positive_int, nargs="+", default=[1, 64, 1024, 8192], help="batch sizes")
    parser.add_argument("--seconds", type=positive_float, default=1.0, help="length of one timed window")
    parser.add_argument("--repeats", type=positive_int, default=5, help="windows per figure (median shown)")
    parser.add_argument("--sampler", choices=["legal", "argmax", "both"], default="both",
                        help="vectorized random legal actions: from the legal lists, or argmax of noise")
    parser.add_argument("--threads", type=positive_int, default=None, help="threads per batched call (default: cores)")
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args(argv)
    rules = rules_from_args(args)

    from rich.console import Console
    from rich.table import Table

    from sniff_env.envs.batch_env import SniffVectorEnv

    console = Console(width=max(Console().width, 110))
    with console.status("compiling the kernels (cached after the first run)"):
        warm = SniffVectorEnv(rules, 2, threads=1)
        warm.reset()
        warm.step(warm.random_actions(np.random.default_rng(0)))
    samplers = ["legal", "argmax"] if args.sampler == "both" else [args.sampler]
    rows: list[tuple[str, int, str, list[Rate]]] = []
    ref = [reference_rate(rules, args.seconds, args.seed + r) for r in range(args.repeats)]
    rows.append(("reference", 1, "-", ref))
    for batch in args.batch:
        for sampler in samplers:
            vector_rate(rules, batch, min(0.2, args.seconds), args.seed, sampler, args.threads)  # warm-up
            rates = [vector_rate(rules, batch, args.seconds, args.seed + r, sampler, args.threads)
                     for r in range(args.repeats)]
            rows.append(("vector", batch, sampler, rates))
    ref_median = statistics.median(r[0] for r in ref)
    table = Table(title=f"decisions/s with observations and masks: {rules.name}, {rules.num_players} players")
    for col in ("engine", "batch", "actions", "median /s", "min - max /s", "per CPU s", "x reference"):
        table.add_column(col, justify="left" if col in ("engine", "actions") else "right")
    for engine, batch, sampler, rates in rows:
        wall = [r[0] for r in rates]
        med = statistics.median(wall)
        table.add_row(engine, str(batch), sampler, f"{med:,.0f}", f"{min(wall):,.0f} - {max(wall):,.0f}",
                      f"{statistics.median(r[1] for r in rates):,.0f}", f"{med / ref_median:,.1f}")
    console.print(table)
    best = max(statistics.median(r[0] for r in rates) for e, _, _, rates in rows if e == "vector")
    console.print(f"best batched rate {best:,.0f}/s; goal {GOAL:,}/s: {'reached' if best >= GOAL else 'not reached'}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
