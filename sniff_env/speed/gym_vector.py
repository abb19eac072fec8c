"""Learner steps per second of the Gymnasium vector env over the batched engine, beside the usual
paths: Gymnasium's ``SyncVectorEnv`` over the single-agent env, and for SB3 the adapter against
``SubprocVecEnv`` of the single-agent env (env steps alone, then ``MaskablePPO.learn``).

Every path plays the same rules against the same opponents (``--opponents``, heuristic by
default); the learner's actions are uniform random legal ones, drawn outside the timed calls.
Each figure is the median of ``--repeats`` runs, in wall-clock time (the vector env's threads
work in parallel); a busy machine lowers every figure.

    python -m sniff_env.speed.gym_vector [--num-envs 1024] [--steps 200] [--repeats 5] [--sb3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import sniff_env  # noqa: F401  (registers the ids)

ENV_ID = "sniff_env/Sniff-v0"
TARGET = 100_000
"""Learner steps per second the vector env is meant to reach at 1,024 games with the default opponents."""


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform random legal action per row of ``masks``."""
    return np.asarray((rng.random(masks.shape) * masks).argmax(axis=1))


def timed_steps(step: Callable[[np.ndarray], Any], masks: Callable[[], np.ndarray], steps: int,
                rng: np.random.Generator) -> float:
    """Seconds spent inside ``step`` over ``steps`` calls (the actions are drawn outside)."""
    spent = 0.0
    for _ in range(steps):
        actions = random_legal(masks(), rng)
        start = time.perf_counter()
        step(actions)
        spent += time.perf_counter() - start
    return spent


def vector_rate(args: argparse.Namespace, rng: np.random.Generator) -> float:
    env = gymnasium.make_vec(ENV_ID, num_envs=args.num_envs, vectorization_mode="vector_entry_point",
                             ruleset=args.ruleset, num_players=args.players, opponents=args.opponents)
    env.reset(seed=0)
    unwrapped: Any = env.unwrapped
    timed_steps(env.step, unwrapped.action_masks, 20, rng)  # compiles or loads the kernels
    rate = args.num_envs * args.steps / timed_steps(env.step, unwrapped.action_masks, args.steps, rng)
    env.close()
    return rate


def sync_rate(args: argparse.Namespace, rng: np.random.Generator) -> float:
    env = gymnasium.make_vec(ENV_ID, num_envs=args.sync_envs, vectorization_mode="sync",
                             ruleset=args.ruleset, num_players=args.players, opponents=args.opponents)
    _, info = env.reset(seed=0)
    state = {"info": info}

    def step(actions: np.ndarray) -> None:
        state["info"] = env.step(actions)[4]

    def masks() -> np.ndarray:
        info = state["info"]
        return np.asarray(info["action_mask"]) if "action_mask" in info else np.stack(env.call("action_masks"))

    rate = args.sync_envs * args.sync_steps / timed_steps(step, masks, args.sync_steps, rng)
    env.close()
    return rate


def sb3_rates(args: argparse.Namespace, rng: np.random.Generator) -> dict[str, float]:
    """Env steps alone and ``MaskablePPO.learn`` steps per second, on the adapter and on
    ``SubprocVecEnv`` (2 workers) of ``gymnasium.make``, torch on ``--torch-threads`` threads
    (torch's default, one per core, spins against the env's own threads on a small machine)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from sniff_env.integrations.sb3 import SniffSB3VecEnv

    torch.set_num_threads(args.torch_threads)
    kwargs = {"ruleset": args.ruleset, "num_players": args.players, "opponents": args.opponents}
    out: dict[str, float] = {}
    adapter = SniffSB3VecEnv(args.sb3_envs, **kwargs)
    subproc = SubprocVecEnv([lambda: gymnasium.make(ENV_ID, **kwargs) for _ in range(args.subproc_envs)])
    for name, venv in (("adapter", adapter), ("SubprocVecEnv", subproc)):
        venv.reset()

        def masks(v: Any = venv) -> np.ndarray:
            return np.stack(v.env_method("action_masks"))

        steps = max(20, args.sb3_steps // venv.num_envs)
        out[f"SB3 {name} env steps"] = venv.num_envs * steps / timed_steps(venv.step, masks, steps, rng)
        model = MaskablePPO("MlpPolicy", venv, n_steps=max(8, 2048 // venv.num_envs), batch_size=256, n_epochs=1,
                            seed=0, verbose=0)
        start = time.perf_counter()
        model.learn(args.sb3_steps)
        out[f"SB3 {name} MaskablePPO.learn"] = model.num_timesteps / (time.perf_counter() - start)
        venv.close()
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="sniff")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200, help="vector env steps per repeat")
    parser.add_argument("--sync-envs", type=int, default=8)
    parser.add_argument("--sync-steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sb3", action="store_true", help="also SB3: the adapter against SubprocVecEnv")
    parser.add_argument("--sb3-envs", type=int, default=256)
    parser.add_argument("--subproc-envs", type=int, default=2)
    parser.add_argument("--sb3-steps", type=int, default=20_000)
    parser.add_argument("--torch-threads", type=int, default=1)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    rows: dict[str, list[float]] = {
        f"vector env, {args.num_envs} games": [vector_rate(args, rng) for _ in range(args.repeats)],
        f"SyncVectorEnv, {args.sync_envs} single-agent envs": [sync_rate(args, rng) for _ in range(args.repeats)],
    }
    if args.sb3:
        for result in (sb3_rates(args, rng) for _ in range(max(1, args.repeats // 2))):
            for key, value in result.items():
                rows.setdefault(key, []).append(value)
    print(f"{args.ruleset}, {args.players} players, opponents {args.opponents}: learner steps per second (median)")
    for name, values in rows.items():
        print(f"  {name:<45} {statistics.median(values):>12,.0f}")
    print(f"  (target for the vector env: {TARGET:,})")


if __name__ == "__main__":
    main()
