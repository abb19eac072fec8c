"""Learner decisions per second of ``training/rllib_selfplay.py`` with 1, 2, ... env runners,
beside ``training/ppo.py`` (reference and batched engines) on the same rules.

Each figure is the median over ``--repeats`` timed stretches of ``--iterations`` training
iterations, after one warm-up iteration (actors started, kernels loaded), sampling and learning
included; ``training/ppo.py`` is timed over whole runs of the same number of learner decisions.

    python training/benchmarks/rllib_scaling.py --runners 1,2 --out checkpoints/results/rllib-scaling.json
    python training/benchmarks/rllib_scaling.py --runners 1,4,8,14 --num-cpus 16   # a 16-core machine
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from training import ppo, rllib_selfplay


def rllib_rate(runners: int, opts: argparse.Namespace) -> list[float]:
    """Learner decisions/s of ``repeats`` stretches with ``runners`` env runners."""
    args = rllib_selfplay.Args(
        preset=opts.preset, num_players=opts.players, num_env_runners=runners,
        num_envs_per_env_runner=opts.envs_per_runner, train_batch_size=opts.batch, minibatch_size=opts.batch // 4,
        eval_every=0, tensorboard=False, num_cpus=max(opts.num_cpus, runners), seed=opts.seed,
    )
    started = rllib_selfplay.start_ray(args)
    algo = None
    try:
        algo = rllib_selfplay.build_config(args).build_algo()
        steps = rllib_selfplay.learner_steps(algo.train())  # warm-up
        rates = []
        for _ in range(opts.repeats):
            t0 = time.perf_counter()
            for _ in range(opts.iterations):
                result = algo.train()
            now = rllib_selfplay.learner_steps(result)
            rates.append((now - steps) / (time.perf_counter() - t0))
            steps = now
        return rates
    finally:
        if algo is not None:
            algo.stop()
        if started:
            import ray

            ray.shutdown()


def ppo_rate(engine: str, opts: argparse.Namespace) -> list[float]:
    """Learner decisions/s of whole ``training/ppo.py`` runs as long as one RLlib stretch."""
    from training.network import load_checkpoint

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
    parser.add_argument("--envs-per-runner", type=int, default=4)
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the Ray started here")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ppo-engines", default="python,vector", help="training/ppo.py engines to time ('' none)")
    parser.add_argument("--out", type=Path, help="write the figures to this JSON file")
    opts = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for runners in [int(x) for x in opts.runners.split(",") if x.strip()]:
        rates = rllib_rate(runners, opts)
        rows.append({"trainer": "rllib", "env_runners": runners, "median": statistics.median(rates), "runs": rates})
        print(f"rllib  {runners:>2} env runners: {statistics.median(rates):8,.0f} learner decisions/s", flush=True)
    for engine in filter(None, opts.ppo_engines.split(",")):
        rates = ppo_rate(engine, opts)
        rows.append({"trainer": f"ppo.py --engine {engine}", "median": statistics.median(rates), "runs": rates})
        print(f"ppo.py --engine {engine}: {statistics.median(rates):8,.0f} learner decisions/s", flush=True)
    if opts.out:
        opts.out.parent.mkdir(parents=True, exist_ok=True)
        command = "python training/benchmarks/rllib_scaling.py " + " ".join(argv if argv is not None else sys.argv[1:])
        opts.out.write_text(json.dumps({"command": command, "options": vars(opts) | {"out": str(opts.out)},
                                        "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
