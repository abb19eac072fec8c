"""Every library's entry point tried the way its tutorial does, each in a fresh Python process
(so that import order counts), printed as a Markdown table: library, version, call, pass or fail
with the error's last line. ``python -m tests.entry_points [--out FILE.json]``; run from a
checkout of any version of the project to compare (the integrations README holds the table)."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBES: list[tuple[str, str, str]] = [
    ("pettingzoo", "api_test(sniff_env.env())", """
import sniff_env
from pettingzoo.test import api_test
api_test(sniff_env.env(), num_cycles=200)"""),
    ("pettingzoo", "parallel_api_test(sniff_v0.parallel_env())", """
from pettingzoo.test import parallel_api_test
from sniff_env import sniff_v0
parallel_api_test(sniff_v0.parallel_env(), num_cycles=200)"""),
    ("pettingzoo", 'pettingzoo.make("aec", "sniff_env/sniff_v0")', """
import pettingzoo, sniff_env
env = pettingzoo.make("aec", "sniff_env/sniff_v0"); env.reset(seed=0)"""),
    ("gymnasium", 'gymnasium.make("sniff_env/Sniff-v0") + check_env', """
import gymnasium, sniff_env
from gymnasium.utils.env_checker import check_env
check_env(gymnasium.make("sniff_env/Sniff-v0").unwrapped)"""),
    ("gymnasium", 'gymnasium.make("sniff_env:sniff_env/Sniff-v0"), no prior import', """
import gymnasium
gymnasium.make("sniff_env:sniff_env/Sniff-v0").reset(seed=0)"""),
    ("gymnasium", "import sniff_env; find_spec('gymnasium'); gymnasium.make(...)", """
import sniff_env, importlib.util
importlib.util.find_spec("gymnasium")
import gymnasium
gymnasium.make("sniff_env/Sniff-v0").reset(seed=0)"""),
    ("gymnasium", "import sniff_env, then torchrl; gymnasium.make and pettingzoo.make", """
import sniff_env
from torchrl.envs import GymEnv
import gymnasium, pettingzoo
gymnasium.make("sniff_env/Sniff-v0").reset(seed=0)
gymnasium.make("sniff_env:sniff_env/Sniff-v0").reset(seed=0)
pettingzoo.make("aec", "sniff_env/sniff_v0").reset(seed=0)"""),
    ("gymnasium", "make and make_vec (sync, async, vector_entry_point): one observation layout", """
import gymnasium, sniff_env
single = gymnasium.make("sniff_env/Sniff-v0").observation_space
for mode in ("sync", "async", "vector_entry_point"):
    venv = gymnasium.make_vec("sniff_env/Sniff-v0", 2, vectorization_mode=mode)
    obs, info = venv.reset(seed=0)
    assert venv.single_observation_space == single, (mode, venv.single_observation_space, single)
    venv.close()"""),
    ("gymnasium", "FlattenObservation, FrameStackObservation, NormalizeObservation, DtypeObservation", """
import gymnasium, numpy as np, sniff_env
from gymnasium.wrappers import FlattenObservation, FrameStackObservation, NormalizeObservation, DtypeObservation
for wrap in (FlattenObservation, lambda e: FrameStackObservation(e, 2),
             lambda e: NormalizeObservation(FlattenObservation(e)), lambda e: DtypeObservation(e, np.float64)):
    env = wrap(gymnasium.make("sniff_env/Sniff-v0"))
    env.reset(seed=0)"""),
    ("supersuit", "dtype, flatten, normalize, frame_stack, pad_observations, black_death (parallel)", """
import numpy as np, supersuit as ss
from sniff_env import sniff_v0
for wrap in (lambda e: ss.dtype_v0(e, np.float64), ss.flatten_v0, lambda e: ss.normalize_obs_v0(e),
             lambda e: ss.frame_stack_v1(e, 2), ss.pad_observations_v0, ss.black_death_v3):
    try:
        env = wrap(sniff_v0.parallel_env()); env.reset(seed=0)
    except (AttributeError, AssertionError) as exc:  # a refusal must say why: a Box is needed
        assert "Box" in str(exc), repr(exc)"""),
    ("supersuit", "pettingzoo_env_to_vec_env_v1 + concat_vec_envs_v1", """
import supersuit as ss
from sniff_env import sniff_v0
venv = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(sniff_v0.parallel_env()), 2, num_cpus=0, base_class="gymnasium")
venv.reset(seed=0)"""),
    ("stable-baselines3", 'make_vec_env("sniff_env/Sniff-v0") + MaskablePPO.learn', """
import sniff_env
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
venv = make_vec_env("sniff_env/Sniff-v0", n_envs=2)
MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, verbose=0).learn(64)"""),
    ("torchrl", "import sniff_env, then GymEnv('sniff_env/Sniff-v0') + check_env_specs", """
import sniff_env
from torchrl.envs import GymEnv
from torchrl.envs.utils import check_env_specs
check_env_specs(GymEnv("sniff_env/Sniff-v0"))"""),
    ("torchrl", "PettingZooWrapper(parallel_env(), use_mask=True).rollout(100)", """
import sniff_env
from torchrl.envs import PettingZooWrapper
env = PettingZooWrapper(env=sniff_env.sniff_v0.parallel_env(), use_mask=True, seed=0)
env.rollout(100, break_when_any_done=False)"""),
    ("tianshou", "PettingZooEnv(sniff_env.env()) + DummyVectorEnv", """
import sniff_env
from tianshou.env import DummyVectorEnv, PettingZooEnv
venv = DummyVectorEnv([lambda: PettingZooEnv(sniff_env.env()) for _ in range(2)])
venv.reset()"""),
    ("open_spiel", "pyspiel.load_game('python_sniff') + random_sim_test", """
import pyspiel, sniff_env.integrations.openspiel
from open_spiel.python.algorithms.get_all_states import get_all_states
from open_spiel.python.algorithms import random_agent
game = pyspiel.load_game("python_sniff", {"episode": "hand"})
pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)"""),
    ("shimmy", "OpenSpielCompatibilityV0(python_sniff)", """
import pyspiel, sniff_env.integrations.openspiel
from shimmy import OpenSpielCompatibilityV0
env = OpenSpielCompatibilityV0(game_name="python_sniff", config={"episode": "hand"})
env.reset(seed=0)"""),
    ("ray", "RLlib PettingZooEnv(sniff_env.env()) reset and step", """
import sniff_env
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
env = PettingZooEnv(sniff_env.env())
obs, info = env.reset(seed=0)
agent = next(iter(obs))
import numpy as np
env.step({agent: int(np.flatnonzero(obs[agent]["action_mask"])[0])})"""),
    ("benchmarl", "Experiment(task=SniffTask(...), MappoConfig).run(), 200 frames", """
from sniff_env.integrations.benchmarl import SniffTask
from benchmarl.algorithms import MappoConfig
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.models import MlpConfig
c = ExperimentConfig.get_from_yaml()
c.max_n_frames, c.on_policy_collected_frames_per_batch, c.on_policy_n_envs_per_worker = 200, 100, 2
c.on_policy_n_minibatch_iters, c.on_policy_minibatch_size = 1, 50
c.loggers, c.evaluation, c.render, c.checkpoint_at_end = [], False, False, False
import tempfile; c.save_folder = tempfile.mkdtemp()
Experiment(task=SniffTask(max_hands=2), algorithm_config=MappoConfig.get_from_yaml(), model_config=MlpConfig.get_from_yaml(),
           critic_model_config=MlpConfig.get_from_yaml(), seed=0, config=c).run()"""),
]
"""(library, the call as a person writes it, the code that makes it) for every entry point."""


def version(library: str) -> str:
    dist = {"open_spiel": "open-spiel", "ray": "ray", "stable-baselines3": "stable-baselines3"}.get(library, library)
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def run(code: str, timeout: float) -> tuple[bool, str, float]:
    """Whether ``code`` ran in a fresh interpreter from ``ROOT``, the last line of its error, its seconds."""
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return False, f"no answer in {timeout:.0f} s", time.perf_counter() - start
    lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
    return done.returncode == 0, ("" if done.returncode == 0 else (lines[-1] if lines else f"exit {done.returncode}")), \
        time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--out", type=Path, help="also write the rows as JSON")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per entry point")
    args = parser.parse_args(argv)
    rows = []
    print("| library | version | call | result |\n|---|---|---|---|")
    for library, call, code in PROBES:
        ok, error, seconds = run(code, args.timeout)
        rows.append({"library": library, "version": version(library), "call": call, "pass": ok, "error": error,
                     "seconds": round(seconds, 1)})
        print(f"| {library} | {version(library)} | `{call}` | {'pass' if ok else 'FAIL: ' + error[:160]} |", flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if all(r["pass"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
