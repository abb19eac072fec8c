"""A player acts on what the default environment hands it: ``players.load(spec).act(obs, info)``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from sniff_env import players, sniff_v0
from sniff_env.envs.aec import SeatObservation


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", "search:simulations=8", "rollouts:samples=4",
                                  "sniff-2p"])
def test_every_kind_of_player_plays_a_game_on_the_default_envs_obs_and_info(spec: str) -> None:
    env = sniff_v0.env(max_hands=2)
    env.reset(seed=3)
    player = players.load(spec)
    moves = 0
    for agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        assert info == {}  # the default env hands out no info
        if termination or truncation:
            env.step(None)
            continue
        action = player.act(obs, info)
        assert obs["action_mask"][action] == 1
        env.step(action)
        moves += 1
    assert moves > 10


def test_the_info_state_rides_on_the_observation_without_changing_what_libraries_see() -> None:
    env = sniff_v0.raw_env(infos="full")
    env.reset(seed=5)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert isinstance(obs, SeatObservation) and isinstance(obs, dict)
    assert set(obs) == {"observation", "action_mask"}  # the spaces' keys, nothing else
    assert env.observation_space(agent).contains(obs)
    assert obs.info_state == env.infos[agent]["info_state"] == env.info_state(agent)
    other = next(a for a in env.agents if a != agent)
    assert env.observe(other).info_state is None  # only the seat to act has a decision to make
    back = pickle.loads(pickle.dumps(obs))
    assert back.info_state == obs.info_state and np.array_equal(back["observation"], obs["observation"])
    # the same choice from the attribute as from infos="full"
    heuristic = players.load("heuristic")
    assert heuristic.act(obs, {}) == heuristic.act(dict(obs), env.infos[agent])


def test_a_plain_dict_without_an_info_state_gets_a_clear_error() -> None:
    env = sniff_v0.env()
    env.reset(seed=1)
    obs, *_ = env.last()
    with pytest.raises(ValueError, match=r"needs the acting seat's InfoState: pass the observation dict"):
        players.load("heuristic").act(dict(obs), {})
