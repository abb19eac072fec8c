"""Learner decisions per second of ``training/libraries/rllib_selfplay.py`` with 1, 2, ... env runners, on
each of its engines (one game per env, or the batched engine with many games per env runner),
beside ``training/ppo.py`` (reference and batched engines) on the same rules.

Each figure is the median over ``--repeats`` timed stretches of ``--iterations`` training
iterations, after one warm-up iteration (actors started, kernels loaded), sampling and learning
included; ``training/ppo.py`` is timed over whole runs of the same number of learner decisions.
Each RLlib row also times its env runners alone (``sampling``): the same stretches of
``EnvRunner.sample`` calls of one train batch, all runners at once, no learning. No snapshot is
taken in so few iterations, so every step sampled is a learner decision on both engines.

    python -m training.speed.rllib_scaling --runners 1,2 --out checkpoints/results/rllib-scaling.json
    python -m training.speed.rllib_scaling --runners 1,4,8,14 --num-cpus 16   # a 16-core machine
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sniff_env.atomic import write_json_atomic
from training import ppo
from training.lib.network import load_checkpoint
from training.libraries import rllib_selfplay


def envs_per_runner(engine: str, opts: argparse.Namespace) -> int:
    return int(opts.vector_envs_per_runner if engine == "vector" else opts.envs_per_runner)


def sampled(runner: Any, steps: int) -> int:
    """Steps one env runner samples when asked for ``steps`` (no learning)."""
    return sum(len(episode) for episode in runner.sample(num_timesteps=steps))


def rllib_rate(engine: str, runners: int, opts: argparse.Namespace) -> tuple[list[float], list[float]]:
    """Learner decisions/s of ``repeats`` stretches with ``runners`` env runners on ``engine``:
    training, then sampling alone."""
    args = rllib_selfplay.Args(
        preset=opts.preset, num_players=opts.players, engine=engine, num_env_runners=runners,
        num_envs_per_env_runner=envs_per_runner(engine, opts), train_batch_size=opts.batch,
        minibatch_size=opts.batch // 4, eval_every=0, tensorboard=False, num_cpus=max(opts.num_cpus, runners),
        seed=opts.seed, share_trunk=opts.share_trunk,
    )
    module = rllib_selfplay.learner_module(args)
    started = rllib_selfplay.start_ray(args)
    algo = None
    try:
        algo = rllib_selfplay.build_config(args).build_algo()
        steps = rllib_selfplay.learner_steps(algo.train(), module)  # warm-up
        rates = []
        for _ in range(opts.repeats):
            t0 = time.perf_counter()
            for _ in range(opts.iterations):
                result = algo.train()
            now = rllib_selfplay.learner_steps(result, module)
            rates.append((now - steps) / (time.perf_counter() - t0))
            steps = now
        sampling = []
        ask = functools.partial(sampled, steps=max(1, opts.batch // max(runners, 1)))
        for _ in range(opts.repeats):
            t0 = time.perf_counter()
            count = sum(sum(algo.env_runner_group.foreach_env_runner(ask, local_env_runner=runners == 0))
                        for _ in range(opts.iterations))
            sampling.append(count / (time.perf_counter() - t0))
        return rates, sampling
    finally:
        if algo is not None:
            algo.stop()
        if started:
            import ray

            ray.shutdown()


def ppo_rate(engine: str, opts: argparse.Namespace) -> list[float]:
    """Learner decisions/s of whole ``training/ppo.py`` runs as long as one RLlib stretch."""
    rates = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(opts.repeats + 1):  # the first run loads the kernels
            args = ppo.Args(
                preset=opts.preset, num_players=opts.players, engine=engine, num_envs=64, num_steps=64,
                total_steps=opts.batch * opts.iterations // 2, eval_every=0, checkpoint_every=0,
                tensorboard=False, progress=False, out_dir=tmp, exp_name=f"{engine}-{r}", seed=opts.seed + r,
            )
            t0 = time.perf_counter()
            path = ppo.train(args)
            if r:
                rates.append(load_checkpoint(path)["global_step"] / (time.perf_counter() - t0))
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runners", default="1,2", help="env runner counts to time, comma-separated")
    parser.add_argument("--preset", default="sniff")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=3, help="training iterations per timed stretch")
    parser.add_argument("--repeats", type=int, default=3, help="timed stretches (the median is reported)")
    parser.add_argument("--batch", type=int, default=4000, help="env steps per RLlib training iteration")
    parser.add_argument("--engines", default="python,vector", help="rllib_selfplay.py engines to time, comma-separated")
    parser.add_argument("--envs-per-runner", type=int, default=4, help="games per env runner, one-game engine")
    parser.add_argument("--vector-envs-per-runner", type=int, default=128, help="games per env runner, batched engine")
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the Ray started here")
    parser.add_argument("--share-trunk", action="store_true",
                        help="the critic shares the actor's layers (PolicyNet's shape, half the learner's work)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ppo-engines", default="python,vector", help="training/ppo.py engines to time ('' none)")
    parser.add_argument("--out", type=Path, help="write the figures to this JSON file")
    opts = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for engine in filter(None, opts.engines.split(",")):
        for runners in [int(x) for x in opts.runners.split(",") if x.strip()]:
            rates, sampling = rllib_rate(engine, runners, opts)
            rows.append({"trainer": "rllib", "engine": engine, "env_runners": runners,
                         "envs_per_runner": envs_per_runner(engine, opts), "median": statistics.median(rates),
                         "runs": rates, "sampling_median": statistics.median(sampling), "sampling_runs": sampling})
            print(f"rllib --engine {engine:<6} {runners:>2} env runners x {envs_per_runner(engine, opts):>4} games: "
                  f"{statistics.median(rates):8,.0f} learner decisions/s training, "
                  f"{statistics.median(sampling):8,.0f} sampling alone", flush=True)
    for engine in filter(None, opts.ppo_engines.split(",")):
        rates = ppo_rate(engine, opts)
        rows.append({"trainer": f"ppo.py --engine {engine}", "median": statistics.median(rates), "runs": rates})
        print(f"ppo.py --engine {engine}: {statistics.median(rates):8,.0f} learner decisions/s", flush=True)
    if opts.out:
        opts.out.parent.mkdir(parents=True, exist_ok=True)
        command = "python -m training.speed.rllib_scaling " + " ".join(argv if argv is not None else sys.argv[1:])
        write_json_atomic(opts.out, {"command": command, "options": vars(opts) | {"out": str(opts.out)},
                                     "load_average": os.getloadavg(), "cpus": os.cpu_count(), "rows": rows}, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
