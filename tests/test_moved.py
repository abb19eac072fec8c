"""The old names of moved modules and of ``sniff bench`` still work for one release: each warns
with the new name and hands out the very module (or runs the very script) of the new name."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest
from house_metrics import ROOT

from sniff_env.cli.speed import SCRIPTS

MOVED = {
    "sniff_env.envs.vector": "sniff_env.envs.batch_env",
    "sniff_env.players.inference": "sniff_env.players.beliefs",
    "sniff_env.evaluation.report": "sniff_env.evaluation.tournament_report",
    "sniff_env.evaluation.speed.engine": "sniff_env.speed.rules",
    "sniff_env.evaluation.speed.vector": "sniff_env.speed.engine",
    "sniff_env.evaluation.speed.env": "sniff_env.speed.env",
    "sniff_env.evaluation.speed.players": "sniff_env.speed.players",
    "sniff_env.evaluation.speed.gym_vector": "sniff_env.speed.gym_vector",
    "training.benchmarks.training_speed": "training.speed.training_speed",
    "training.benchmarks.search_threads": "training.speed.search_threads",
    "training.benchmarks.rllib_compare": "training.speed.rllib_compare",
    "training.benchmarks.rllib_scaling": "training.speed.rllib_scaling",
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_name_warns_and_is_the_new_module(old: str) -> None:
    new = MOVED[old]
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    said = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert any(old in s and new in s for s in said), said


def test_an_old_script_runs_the_new_one() -> None:
    done = subprocess.run([sys.executable, "-m", "sniff_env.evaluation.speed.engine", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: sniff speed rules")
    assert "python -m sniff_env.speed.rules" in done.stderr


@pytest.mark.parametrize(("old", "new"), [("vector", "engine"), ("engine", "rules"), ("env", "env"), (None, None)])
def test_sniff_bench_runs_sniff_speed_under_the_old_names(old: str | None, new: str | None) -> None:
    argv = [sys.executable, "-m", "sniff_env", "bench", *([old, "--help"] if old else [])]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "sniff bench is deprecated" in done.stderr
    if new:
        assert done.stdout.startswith(f"usage: sniff speed {new}")
        assert f"use sniff speed {new}" in done.stderr
    else:
        assert "sniff speed NAME" in done.stdout


def test_sniff_speed_lists_every_script_and_refuses_an_unknown_one() -> None:
    listed = subprocess.run([sys.executable, "-m", "sniff_env", "speed"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120, check=True)
    assert all(f"  {name} " in listed.stdout for name in SCRIPTS)
    bad = subprocess.run([sys.executable, "-m", "sniff_env", "speed", "vector"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=False)
    assert bad.returncode == 2 and "invalid choice: 'vector'" in bad.stderr
