"""The registered ids: ``pettingzoo.make``, ``gymnasium.make`` and ``make_vec`` after ``import sniff_env``."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.env_registry.exceptions import NameNotFound, VersionNotFound

import sniff_env
from sniff_env import sniff_v0
from sniff_env.envs.single_agent import SniffSingleAgentEnv
from sniff_env.rules import RulesError


def test_the_versioned_module_matches_the_metadata_name() -> None:
    env = sniff_v0.raw_env("muggins", 3)
    assert env.metadata["name"] == sniff_v0.__name__.rsplit(".", 1)[1] == "sniff_v0"
    assert sniff_v0.env is sniff_env.env and sniff_v0.raw_env is sniff_env.raw_env


def test_pettingzoo_make_builds_the_wrapped_env_with_options() -> None:
    env = pettingzoo.make("aec", "sniff_env/sniff_v0", ruleset="muggins", num_players=3, reward="points")
    raw = env.unwrapped
    assert isinstance(raw, sniff_env.raw_env)
    assert (raw.rules.name, raw.rules.num_players, raw.reward_mode) == ("muggins", 3, "points")
    assert type(env).__name__ == type(sniff_v0.env()).__name__  # the same wrappers as env()
    with pytest.raises(VersionNotFound):
        pettingzoo.make("aec", "sniff_env/sniff_v1")
    with pytest.raises(NameNotFound):
        pettingzoo.make("aec", "sniff_env/snuff_v0")
    with pytest.raises(ValueError, match="unknown option"):
        pettingzoo.make("aec", "sniff_env/sniff_v0", nonsense=1)
    with pytest.raises(RulesError):
        pettingzoo.make("aec", "sniff_env/sniff_v0", ruleset="nonsense")


def test_gymnasium_make_is_the_single_agent_env_against_the_heuristic() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make("sniff_env/Sniff-v0", ruleset="sniff-us", num_players=3, learner=1)
        obs, info = env.reset(seed=0)
    inner = env.unwrapped
    assert isinstance(inner, SniffSingleAgentEnv) and inner.learner == 1 and inner.aec.rules.num_players == 3
    assert type(inner._policies[0]).__name__ == "HeuristicPlayer"
    assert env.observation_space.contains(obs) and info["action_mask"].any()
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), info["action_mask"].astype(bool))
    with pytest.raises(ValueError, match="unknown option"):
        gymnasium.make("sniff_env/Sniff-v0", nonsense=1)


def test_make_vec_gives_the_vector_env_over_the_batched_engine() -> None:
    from sniff_env.envs.gym_vector import SniffGymVectorEnv

    env = gymnasium.make_vec("sniff_env/Sniff-v0", num_envs=4, vectorization_mode="vector_entry_point")
    assert isinstance(env, gymnasium.vector.VectorEnv) and isinstance(env.unwrapped, SniffGymVectorEnv)
    assert env.num_envs == 4 and env.unwrapped._kinds.tolist() == [0]  # the heuristic, as for make
    assert env.unwrapped.mask_layout == "info"  # the mask where make puts it
    env.close()


def test_registration_waits_for_the_libraries_to_be_imported() -> None:
    code = (
        "import sys, sniff_env\n"
        "assert not {'gymnasium', 'pettingzoo'} & set(sys.modules)\n"
        "import pettingzoo, gymnasium\n"
        "print('sniff_env/Sniff-v0' in gymnasium.registry, 'sniff_env/sniff-v0' in pettingzoo.aec_registry)"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True,
                         timeout=120)
    assert out.stdout.split() == ["True", "True"], out.stderr
