"""The single-agent Gymnasium wrapper: Gymnasium's and SB3's checkers, opponents, MaskablePPO."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

from sniff_env import IllegalMoveError
from sniff_env.envs.single_agent import SniffSingleAgentEnv


def test_gymnasium_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(SniffSingleAgentEnv("sniff", 2), skip_render_check=True)
        gym_check_env(SniffSingleAgentEnv("sniff-digital", 3, learner="random", reward="points"), skip_render_check=True)


def test_sb3_check_env() -> None:
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(SniffSingleAgentEnv("muggins", 2, episode="hand"))


class FirstLegal:
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        assert info["info_state"].seat != 0
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_opponents_policies_and_terminal_reward() -> None:
    calls: list[int] = []

    def last_legal(observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        calls.append(1)
        return int(np.flatnonzero(observation["action_mask"])[-1])

    env = SniffSingleAgentEnv("sniff", 3, opponents=[FirstLegal(), last_legal], target=40, infos="full")
    obs, info = env.reset(seed=4)
    assert obs.shape == env.observation_space.shape and info["info_state"].seat == 0 and "events" in info
    total, done = 0.0, False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        obs, reward, term, trunc, info = env.step(action)
        total += reward
        done = term or trunc
    assert calls and total in (1.0, -0.5)
    assert np.flatnonzero(env.action_masks()).tolist() == [0]  # the placeholder of a finished episode


def test_seeding_and_illegal_actions() -> None:
    a, b = SniffSingleAgentEnv(learner="random"), SniffSingleAgentEnv(learner="random")
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert np.array_equal(oa, ob) and a.learner == b.learner
    illegal = int(np.flatnonzero(~a.action_masks())[0])
    _, reward, term, _, info = a.step(illegal)
    assert reward == -1.0 and term and info["illegal_action"] == illegal
    strict = SniffSingleAgentEnv(illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalMoveError):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"learner": 2}, "learner must be a seat"), ({"opponents": [None, None]}, "one opponent policy"),
     ({"opponents": 5}, "opponent is a player spec"), ({"opponents": "nobody"}, "unknown player"), ({"illegal": "ignore"}, "illegal='ignore'")],
)
def test_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        SniffSingleAgentEnv(**kwargs)


def test_maskable_ppo_short_run() -> None:
    from sb3_contrib import MaskablePPO

    env = SniffSingleAgentEnv("sniff", 2, reward="points", episode="hand")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_opponents_by_spec_are_reseeded_with_the_env() -> None:
    runs = []
    for _ in range(2):
        env = SniffSingleAgentEnv("sniff", 3, opponents=["random", "heuristic"], target=31)
        obs, info = env.reset(seed=8)
        assert set(info) == {"action_mask"}  # only what any library can stack
        seen = [obs]
        for _ in range(30):
            obs, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            seen.append(obs)
            if term or trunc:
                break
        runs.append(np.stack(seen))
    assert type(env._policies[1]).__name__ == "HeuristicPlayer"
    assert np.array_equal(runs[0], runs[1])
