"""PettingZoo's own checks (api, seeding, rendering) and pickling, for every preset and player count."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import sniff_env
from sniff_env import PRESET_NAMES

TABLES = [(2, {}), (3, {}), (4, {}), (4, {"partnership": True})]
CASES = [
    pytest.param(preset, n, extra, id=f"{preset}-{n}p{'-partners' if extra else ''}")
    for preset in PRESET_NAMES
    for n, extra in TABLES
]


@pytest.mark.parametrize(("preset", "n", "extra"), CASES)
def test_pettingzoo_checks(preset: str, n: int, extra: dict[str, bool]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(sniff_env.env(preset, n, max_cycles=40, **extra), num_cycles=25)
        seed_test(lambda: sniff_env.env(preset, n, **extra), num_cycles=15)
        render_test(lambda render_mode=None: sniff_env.env(preset, n, render_mode=render_mode, **extra))


@pytest.mark.parametrize(("preset", "n", "extra"), CASES)
def test_pickle_round_trip(preset: str, n: int, extra: dict[str, bool]) -> None:
    env = sniff_env.raw_env(preset, n, reward="points", **extra)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.rules == env.rules and clone.reward_mode == "points"
    for e in (env, clone):
        e.reset(seed=7)
    for _ in range(20):
        if env.terminations[env.agent_selection]:
            break
        a, b = env.observe(env.agent_selection), clone.observe(clone.agent_selection)
        assert env.agent_selection == clone.agent_selection
        assert np.array_equal(a["observation"], b["observation"])
        action = int(np.flatnonzero(a["action_mask"])[0])
        env.step(action)
        clone.step(action)
    assert env.scores == clone.scores


def test_metadata_spaces_and_agents() -> None:
    env = sniff_env.raw_env("sniff", 3)
    assert env.metadata["name"] == "sniff_v0" and env.metadata["is_parallelizable"] is False
    assert env.metadata["render_modes"] == ["ansi", "human", "rgb_array"] and env.metadata["render_fps"] == 2
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.action_space("player_1").n == 176
    assert env.observation_space("player_0") is env.observation_space("player_0")
    env.reset(seed=1)
    state = env.state()
    assert env.state_space.contains(state)
    mover = env.agent_selection
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and (mask.any() == (agent == mover))
    assert all(info == {} for info in env.infos.values())  # stackable by any library
    assert env.info_state(mover).seat == env.agents.index(mover) and env.events(mover)[0].kind in ("lots", "deal")
    full = sniff_env.raw_env("sniff", 3, infos="full")
    full.reset(seed=1)
    assert full.infos[mover]["info_state"] == env.info_state(mover) and full.infos[mover]["events"] == env.events(mover)
    with pytest.raises(ValueError, match="infos="):
        sniff_env.raw_env(infos="some")


def test_module_docstring_is_the_documentation_page() -> None:
    doc = sniff_env.envs.aec.__doc__
    assert doc is not None
    for needle in ("# Sniff", "### Observation Space", "### Rewards", "### Version History", "hand_sizes"):
        assert needle in doc


def test_core_imports_without_rl_libraries() -> None:
    import subprocess
    import sys

    code = "import sys, sniff_env; assert not {'pettingzoo', 'gymnasium', 'torch'} & set(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)
