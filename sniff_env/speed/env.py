"""``sniff speed env``: agent steps per second of random legal play through the AEC loop.

Each agent step reads the observation and mask (``last()``), picks a uniformly random legal
action from the mask and steps. Each environment first plays 200 untimed steps, so that imports
and first calls are not counted. PettingZoo's ``connect_four_v3`` runs the same loop in the same
process as the yardstick; the figures are medians over several repeats. Last, one more run of
each raw env times the loop's parts: ``last()``, the random pick and ``step()``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from sniff_env.options import add_rules_arguments, parse_overrides, positive_int, rules_from_args, seed_int


def agent_steps_per_second(make: Callable[[], Any], steps: int, seed: int) -> float:
    """Random legal play for ``steps`` agent steps (resetting at the end of each game)."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            done += 1
            if done >= steps:
                break
        else:
            env.reset()
    return done / (time.perf_counter() - start)


def step_breakdown(make: Callable[[], Any], steps: int, seed: int) -> dict[str, float]:
    """Microseconds per agent step of the loop of :func:`agent_steps_per_second`, in its three
    parts: ``last()`` (observation and mask), the random pick from the mask, and ``step``. It is
    that loop again with clocks read between the parts, kept apart so that the clocks do not
    slow the headline figure."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    clock = time.perf_counter
    spent = {"last()": 0.0, "pick": 0.0, "step()": 0.0}
    done = 0
    while done < steps:
        for _agent in env.agent_iter():
            t0 = clock()
            obs, _reward, term, trunc, _info = env.last()
            t1 = clock()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            t2 = clock()
            env.step(action)
            spent["last()"] += t1 - t0
            spent["pick"] += t2 - t1
            spent["step()"] += clock() - t2
            done += 1
            if done >= steps:
                break
        else:
            env.reset()
    return {part: 1e6 * seconds / done for part, seconds in spent.items()}


def _import_connect_four() -> Any:
    """``connect_four_v3``; its module imports pygame only to draw, so a stub stands in when absent."""
    import importlib.util
    import sys
    import types

    if importlib.util.find_spec("pygame") is None:
        sys.modules.setdefault("pygame", types.ModuleType("pygame"))
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="sniff speed env", description=__doc__)
    add_rules_arguments(parser)
    parser.add_argument("--steps", type=positive_int, default=20_000, help="agent steps per repeat (default: 20000)")
    parser.add_argument("--repeats", type=positive_int, default=5, help="repeats; the median is reported (default: 5)")
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args(argv)
    rules_from_args(args)  # refuse bad rules before any work
    overrides = parse_overrides(args.rule)

    connect_four_v3 = _import_connect_four()
    from sniff_env.envs.aec import env, raw_env

    makers: dict[str, Callable[[], Any]] = {
        "sniff raw_env": lambda: raw_env(args.preset, args.players, **overrides),
        "sniff env()": lambda: env(args.preset, args.players, **overrides),
        "connect_four_v3 raw_env": connect_four_v3.raw_env,
        "connect_four_v3 env()": connect_four_v3.env,
    }
    for make in makers.values():  # warm-up, not timed
        agent_steps_per_second(make, 200, args.seed)
    runs: dict[str, list[float]] = {name: [] for name in makers}
    for r in range(args.repeats):  # interleaved, so that noise on a shared machine hits all alike
        for name, make in makers.items():
            runs[name].append(agent_steps_per_second(make, args.steps, args.seed + r))
    med = {name: statistics.median(v) for name, v in runs.items()}
    print(f"random legal play, {args.preset} {args.players}p, {args.steps} agent steps x {args.repeats} repeats")
    for name, value in med.items():
        spread = f"{min(runs[name]):,.0f}..{max(runs[name]):,.0f}"
        print(f"  {name:<24} {value:>10,.0f} agent steps/s (median; range {spread})")
    print(f"  ratio raw_env / connect_four raw_env: {med['sniff raw_env'] / med['connect_four_v3 raw_env']:.2f}")
    print(f"  ratio env() / connect_four env():     {med['sniff env()'] / med['connect_four_v3 env()']:.2f}")
    print("where a raw agent step goes (microseconds, one timed run each):")
    for name in ("sniff raw_env", "connect_four_v3 raw_env"):
        parts = step_breakdown(makers[name], args.steps, args.seed)
        print(f"  {name:<24} " + ", ".join(f"{part} {us:.1f}" for part, us in parts.items()))
    return 0
