"""The rules through the environment: worked example A, rewards, episodes, the fast encoder."""

from __future__ import annotations

import random

import numpy as np
import pytest

import sniff_env
from sniff_env import PRESET_NAMES
from sniff_env.game import Phase
from sniff_env.infostate import info_state
from sniff_env.observation import Observer

P0 = [(5, 5), (3, 5), (5, 4), (2, 5), (1, 1), (6, 6), (0, 0)]
P1 = [(5, 0), (0, 2), (2, 2), (3, 3), (1, 2), (4, 4), (6, 1)]


def test_worked_example_a_through_the_env() -> None:
    env = sniff_env.raw_env("sniff", 2, draw="none", boneyard_reserve=0, target=500, reward="points")
    env.reset(seed=1, options={"deal": {"hands": [P0, P1], "leader": 0}})
    moves = [((5, 5), None), ((5, 0), "west"), ((3, 5), "east"), ((0, 2), "west"),
             ((5, 4), "north"), ((2, 2), "west"), ((2, 5), "west"), ((3, 3), "east")]
    counts = [10, 10, 13, 15, 14, 16, 17, 20]
    points = [10, 10, 0, 15, 0, 0, 0, 20]
    want = {"player_0": 0, "player_1": 0}
    for i, ((tile, end), count, pts) in enumerate(zip(moves, counts, points, strict=True)):
        mover = f"player_{i % 2}"
        assert env.agent_selection == mover
        env.step(env.action_id(tile, end))
        want[mover] += pts
        assert env.count == count
        assert env.scores == want
        assert env.rewards[mover] == pts and env.rewards[f"player_{1 - i % 2}"] == -pts
        play = [e for e in env.events(env.agent_selection) if e.kind == "play"][-1]
        assert play.kind == "play" and play.total == count and play.points == pts


def _random_episode(env: sniff_env.envs.aec.raw_env, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    env.reset(seed=seed)
    total = dict.fromkeys(env.agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        env.step(None if term or trunc else rng.choice(list(np.flatnonzero(obs["action_mask"]))))
    return total


@pytest.mark.parametrize(("n", "extra"), [(2, {}), (3, {}), (4, {"partnership": True})])
def test_game_reward_zero_sum_and_shared_by_partners(n: int, extra: dict[str, bool]) -> None:
    env = sniff_env.raw_env("sniff", n, target=30, **extra)
    total = _random_episode(env, seed=n)
    assert sum(total.values()) == pytest.approx(0.0)
    assert max(total.values()) == 1.0 and min(total.values()) == (-1.0 if extra else -1.0 / (n - 1))
    if extra:
        assert total["player_0"] == total["player_2"] and total["player_1"] == total["player_3"]
    assert env.game.phase is Phase.GAME_OVER


def test_points_reward_is_zero_sum_every_step() -> None:
    env = sniff_env.raw_env("sniff-digital", 3, reward="points", max_hands=2)
    rng = random.Random(0)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else rng.choice(list(np.flatnonzero(obs["action_mask"]))))
        assert sum(env.rewards.values()) == pytest.approx(0.0)


def test_episode_hand_ends_after_one_hand() -> None:
    env = sniff_env.raw_env("sniff-us", 2, episode="hand")
    _random_episode(env, seed=5)
    assert env.game.phase is Phase.HAND_OVER and len(env.game.results) == 1


def test_max_cycles_truncates() -> None:
    env = sniff_env.raw_env("sniff-english", 4, max_cycles=3)
    env.reset(seed=2)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 12


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_env_observation_is_the_observers_encoding(preset: str, n: int) -> None:
    env = sniff_env.raw_env(preset, n, max_hands=3)
    env.reset(seed=n)
    observer = Observer(env.rules)
    rng = random.Random(n)
    for _ in range(60):
        if any(env.terminations.values()) or any(env.truncations.values()):
            break
        for agent in env.agents:
            seat = int(agent.split("_")[1])
            want = observer.encode(info_state(env.game, seat))
            assert np.array_equal(env.observe(agent)["observation"], want)
        legal = env.game.legal_actions()
        env.step(legal[rng.randrange(len(legal))])


def test_render_ansi_shows_the_table() -> None:
    env = sniff_env.raw_env("sniff", 2, render_mode="ansi", draw="none", boneyard_reserve=0)
    env.reset(seed=1, options={"deal": {"hands": [P0, P1], "leader": 0}})
    for tile, end in [((5, 5), None), ((5, 0), "west"), ((3, 5), "east"), ((0, 2), "west"), ((5, 4), "north")]:
        env.step(env.action_id(tile, end))
    text = env.render()
    assert isinstance(text, str)
    assert "layout: 2-0 0-5 [5=5*] 5-3" in text and "north: 5-4" in text
    assert "count: 14" in text and "scores: 10 / 25" in text
