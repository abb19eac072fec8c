"""Imports of project modules inside functions are kept for what is slow to import or optional,
and each is listed here with the reason: the module it imports loads that (numba's start-up,
torch, an optional extra) where the importing module does not. Any other import goes at the top
of its module; a listed import that is gone fails too, so that the list stays true."""

from __future__ import annotations

import subprocess
import sys

from house_metrics import ROOT
from import_graph import function_level, loads, module_of_file

REASONS: dict[str, tuple[str, ...]] = {
    "numba": ("numba",),
    "torch": ("torch",),
    "onnxruntime": ("onnxruntime",),
    "gymnasium": ("gymnasium", "pettingzoo"),
    "extra: web": ("fastapi", "uvicorn"),
    "extra: sb3": ("stable_baselines3", "sb3_contrib"),
    "extra: rllib": ("ray",),
    "extra: tianshou": ("tianshou",),
    "extra: torchrl": ("torchrl", "tensordict"),
    "extra: benchmarl": ("benchmarl",),
    "extra: openspiel": ("pyspiel", "open_spiel", "shimmy"),
    "extra: supersuit": ("supersuit",),
    "extra: matplotlib": ("matplotlib",),
    "extra: tensorboard": ("tensorboard",),
}
"""Each reason, and the packages of which a module imported for it must load one."""
HEAVY = frozenset(p for packages in REASONS.values() for p in packages)

ALLOWED: dict[tuple[str, str], str] = {
    ("sniff_env/cli/serve.py", "sniff_env.web.app"): "extra: web",
    ("sniff_env/cli/serve.py", "sniff_env.web.server"): "extra: web",
    ("sniff_env/cli/warmup.py", "sniff_env.vector"): "numba",
    ("sniff_env/envs/drawing.py", "sniff_env.vector.engine"): "numba",
    ("sniff_env/evaluation/batched.py", "sniff_env.vector.engine"): "numba",
    ("sniff_env/play/levels.py", "sniff_env.players.compiled.win_odds"): "numba",
    ("sniff_env/play/warm.py", "sniff_env.envs.batch_env"): "numba",
    ("sniff_env/play/warm.py", "sniff_env.envs.gym_vector"): "numba",
    ("sniff_env/play/warm.py", "sniff_env.envs.record_encoder"): "numba",
    ("sniff_env/play/warm.py", "sniff_env.players.compiled.baselines"): "numba",
    ("sniff_env/play/warm.py", "sniff_env.players.compiled.rollouts"): "numba",
    ("sniff_env/play/warm.py", "sniff_env.vector"): "numba",
    ("sniff_env/play/warm.py", "sniff_env.vector.engine"): "numba",
    ("sniff_env/play/warm.py", "sniff_env.vector.notices"): "numba",
    ("sniff_env/players/guided.py", "sniff_env.players.compiled.rollouts"): "numba",
    ("sniff_env/players/guided.py", "sniff_env.players.compiled.win_odds"): "numba",
    ("sniff_env/players/guided.py", "sniff_env.players.net_playouts"): "numba",
    ("sniff_env/players/guided.py", "sniff_env.vector.engine"): "numba",
    ("sniff_env/players/rollouts.py", "sniff_env.players.compiled.rollouts"): "numba",
    ("sniff_env/players/rollouts.py", "sniff_env.vector.engine"): "numba",
    ("sniff_env/speed/engine.py", "sniff_env.envs.batch_env"): "numba",
    ("sniff_env/speed/env.py", "sniff_env.envs.aec"): "numba",
    ("sniff_env/speed/gym_vector.py", "sniff_env.integrations.sb3"): "extra: sb3",
    ("sniff_env/speed/players.py", "sniff_env.players.compiled.baselines"): "numba",
    ("sniff_env/speed/players.py", "sniff_env.vector.engine"): "numba",
    ("sniff_env/speed/web_memory.py", "sniff_env.web.app"): "extra: web",
    ("training/curves.py", "training.lib.evaluate"): "torch",
    ("training/exploit.py", "sniff_env.vector.engine"): "numba",
    ("training/exploit.py", "training.lib.device"): "torch",
    ("training/exploit.py", "training.lib.evaluate"): "torch",
    ("training/exploit.py", "training.lib.network"): "torch",
    ("training/exploit.py", "training.ppo"): "torch",
    ("training/lib/evaluate.py", "sniff_env.vector.engine"): "numba",
    ("training/lib/experience.py", "sniff_env.envs.batch_env"): "numba",
    ("training/lib/experience.py", "sniff_env.vector.checks"): "numba",
    ("training/lib/imitation_record.py", "sniff_env.players.compiled.rollouts"): "numba",
    ("training/lib/imitation_record.py", "sniff_env.vector.engine"): "numba",
    ("training/libraries/benchmarl_mappo.py", "training.libraries.benchmarl_models"): "extra: benchmarl",
    ("training/libraries/rllib_selfplay.py", "sniff_env.integrations.rllib"): "extra: rllib",
    ("training/libraries/rllib_vector.py", "sniff_env.envs.gym_vector"): "numba",
    ("training/libraries/rllib_vector.py", "sniff_env.integrations.rllib"): "extra: rllib",
    ("training/libraries/sb3_maskable.py", "sniff_env.envs.single_agent"): "gymnasium",
    ("training/libraries/sb3_maskable.py", "sniff_env.integrations.sb3"): "extra: sb3",
    ("training/libraries/tianshou_dqn.py", "sniff_env.envs.gym_vector"): "gymnasium",
    ("training/libraries/torchrl_mappo.py", "sniff_env.sniff_v0"): "gymnasium",
    ("training/make_agent.py", "training.lib.device"): "torch",
    ("training/speed/rllib_compare.py", "training.ppo"): "torch",
    ("training/studies/information_value.py", "sniff_env.players.compiled.rollouts"): "numba",
    ("training/studies/information_value.py", "sniff_env.vector.engine"): "numba",
}
"""``(file, imported module)``: why the import is made inside a function."""

def heavy(module: str) -> set[str]:
    """The slow or optional packages importing ``module`` loads."""
    return set(loads(module) & HEAVY)


def test_every_function_level_import_is_listed_and_every_listed_one_is_there() -> None:
    found = function_level()
    listed = set(ALLOWED)
    unlisted = [f"{f}:{min(found[f, m])} {m}" for f, m in sorted(set(found) - listed)]
    assert not unlisted, ("import these at the top of their modules (or list them in tests/test_imports.py "
                          "with the slow or optional package they load):\n  " + "\n  ".join(unlisted))
    gone = sorted(listed - set(found))
    assert not gone, f"listed in tests/test_imports.py but no longer imported inside a function: {gone}"


def test_every_listed_reason_is_real() -> None:
    """The imported module loads a package of its reason that the importing module does not."""
    assert set(ALLOWED.values()) <= set(REASONS)
    false = [f"{f} -> {m} ({reason}: it adds {sorted(heavy(m) - heavy(module_of_file(f))) or 'nothing'})"
             for (f, m), reason in sorted(ALLOWED.items())
             if not set(REASONS[reason]) & (heavy(m) - heavy(module_of_file(f)))]
    assert not false, "these imports load nothing slow that their modules lack: import them at the top\n  " + \
        "\n  ".join(false)


def test_the_modules_that_defer_a_heavy_import_load_none_when_imported() -> None:
    """Importing every module that, read from its source, loads no slow or optional package
    loads none indeed (what the reading above relies on)."""
    light = sorted({module_of_file(f) for f, _ in ALLOWED if not heavy(module_of_file(f))})
    code = "import sys\n" + "".join(f"import {m}\n" for m in light) + \
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                          timeout=120)
    assert done.stdout.strip() == "[]", (light, done.stdout)
