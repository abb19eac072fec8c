"""``copy.deepcopy`` and pickle of the raw env: an independent env at the same state."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sniff_env

COPIERS: dict[str, Callable[[Any], Any]] = {"deepcopy": copy.deepcopy, "pickle": lambda e: pickle.loads(pickle.dumps(e))}


def _snapshot(env: sniff_env.raw_env) -> tuple[Any, ...]:
    agent = env.agent_selection
    return (agent, env.scores, env.count, dict(env.rewards), dict(env.terminations), env.observe(agent)["observation"].tobytes(),
            len(env.game.events), env.state().tobytes())


def _play(env: sniff_env.raw_env, steps: int, pick: int) -> list[tuple[Any, ...]]:
    """``steps`` decisions (the ``pick``-th legal action, modulo), resetting finished games; the snapshots."""
    seen = []
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset()
        else:
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(legal[pick % len(legal)]))
        seen.append(_snapshot(env))
    return seen


@pytest.mark.parametrize("copier", list(COPIERS))
@pytest.mark.parametrize("infos", ["empty", "full"])
def test_a_copy_is_independent_and_goes_on_identically(copier: str, infos: str) -> None:
    env = sniff_env.raw_env("muggins", 3, reward="points", target=61, infos=infos)
    env.reset(seed=3)
    _play(env, 40, pick=1)
    before = _snapshot(env)
    clone = COPIERS[copier](env)
    assert _snapshot(clone) == before and clone.infos.keys() == env.infos.keys()
    _play(clone, 30, pick=2)  # another line of play on the copy
    assert _snapshot(env) == before  # the original has not moved
    twin = COPIERS[copier](env)
    assert _play(env, 200, pick=0) == _play(twin, 200, pick=0)  # through game ends and fresh resets
    agent = env.agent_selection
    assert env.events(agent) == twin.events(agent) and env.info_state(agent) == twin.info_state(agent)
    if infos == "full":
        assert dict(env.infos[agent]) == dict(twin.infos[agent])


def test_a_copy_of_an_env_never_reset_is_a_fresh_env() -> None:
    env = sniff_env.raw_env("sniff", 2, max_hands=2)
    clone = copy.deepcopy(env)
    assert clone.max_hands == 2 and not hasattr(clone, "agent_selection")
    for e in (env, clone):
        e.reset(seed=1)
    assert _snapshot(env) == _snapshot(clone)


def test_the_wrapped_env_copies_too() -> None:
    env = sniff_env.env("sniff", 2)
    env.reset(seed=4)
    _play(env.unwrapped, 10, pick=0)
    clone = copy.deepcopy(env)
    agent = env.agent_selection
    clone.step(int(np.flatnonzero(clone.observe(agent)["action_mask"])[0]))
    assert env.agent_selection == agent and clone.unwrapped._decisions == env.unwrapped._decisions + 1


@pytest.mark.parametrize("how", sorted(COPIERS))
def test_a_copied_observation_has_its_own_arrays_and_the_same_information_state(how: str) -> None:
    env = sniff_env.raw_env()
    env.reset(seed=5)
    obs = env.observe(env.agent_selection).with_entries(acting=np.ones(1, np.int8))
    twin = COPIERS[how](obs)
    assert set(twin) == {"observation", "action_mask", "acting"} and twin.info_state == obs.info_state
    twin["action_mask"][:] = 0
    twin["acting"][:] = 0
    assert obs["action_mask"].any() and obs["acting"][0] == 1
