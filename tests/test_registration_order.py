"""The registered ids are there whatever the import order: after another library only asked
whether gymnasium or PettingZoo is installed (``importlib.util.find_spec``, as TorchRL does on
import), with TorchRL imported after ``sniff_env``, and through ``"sniff_env:..."`` with no import
of ours at all. Each case runs in a fresh process, where the import order is its own."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CASES = {
    "gymnasium after a find_spec": (
        "import sniff_env, importlib.util; importlib.util.find_spec('gymnasium'); import gymnasium; "
        "gymnasium.make('sniff_env/Sniff-v0').close()"),
    "pettingzoo after a find_spec": (
        "import sniff_env, importlib.util; importlib.util.find_spec('pettingzoo'); import pettingzoo; "
        "assert 'sniff_env/sniff-v0' in pettingzoo.aec_registry and 'sniff_env/sniff-v0' in pettingzoo.parallel_registry"),
    "module:id with no prior import": "import gymnasium; gymnasium.make('sniff_env:sniff_env/Sniff-v0').close()",
    "gymnasium already imported": "import gymnasium, sniff_env; gymnasium.make('sniff_env/Sniff-v0').close()",
}


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.mark.parametrize("case", list(CASES))
def test_the_ids_are_there_in_any_import_order(case: str) -> None:
    done = _run(CASES[case])
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.skipif(importlib.util.find_spec("torchrl") is None, reason="torchrl is not installed (integrations extra)")
def test_the_ids_survive_torchrl_imported_after_sniff_env() -> None:
    done = _run("import sniff_env; from torchrl.envs import GymEnv; import gymnasium, pettingzoo; "
                "gymnasium.make('sniff_env/Sniff-v0').close(); assert 'sniff_env/sniff-v0' in pettingzoo.aec_registry")
    assert done.returncode == 0, done.stderr[-2000:]
