"""GAE over interleaved chains, checked against hand computation."""

from __future__ import annotations

import numpy as np
import pytest

from training.lib.advantages import chain_advantages, points_returns


def test_interleaved_chains_and_episode_ends() -> None:
    # chain 0: records 0, 2 (done); chain 1: records 1, 3 (unfinished, bootstrapped at 0.5)
    rewards = np.array([1.0, 0.0, 2.0, 1.0])
    values = np.array([0.5, 0.2, 1.0, 0.4])
    dones = np.array([False, False, True, False])
    slots = np.array([0, 1, 0, 1])
    g, lam = 0.9, 0.8
    adv = chain_advantages(rewards, values, dones, slots, g, lam, bootstrap={1: 0.5})
    a2 = 2.0 - 1.0
    a0 = (1.0 + g * 1.0 - 0.5) + g * lam * a2
    a3 = 1.0 + g * 0.5 - 0.4
    a1 = (0.0 + g * 0.4 - 0.2) + g * lam * a3
    assert adv == pytest.approx([a0, a1, a2, a3])


def test_without_bootstrap_a_chain_continues_from_its_own_value() -> None:
    adv = chain_advantages(np.array([1.0]), np.array([2.0]), np.array([False]), np.array([7]), 0.5, 0.9)
    assert adv == pytest.approx([1.0 + 0.5 * 2.0 - 2.0])


def test_points_returns_discount_each_game_separately() -> None:
    games = np.array([0, 0, 1])
    margin = np.array([0.0, 10.0, 5.0])
    end = np.array([30.0, -5.0])
    out = points_returns(games, margin, end, gamma=0.5, scale=0.1)
    # game 0: the last decision earns (30 - 10) * 0.1 = 2; the first (10 - 0) * 0.1 + 0.5 * 2 = 2
    # game 1: (-5 - 5) * 0.1 = -1, with nothing carried over from game 0
    np.testing.assert_allclose(out, [2.0, 2.0, -1.0], rtol=1e-6)
