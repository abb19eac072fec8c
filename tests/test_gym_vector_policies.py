"""Opponents given to the batched gym env as policy objects (no spec to load)."""

from __future__ import annotations

import numpy as np
import pytest

from sniff_env.envs.gym_vector import SniffGymVectorEnv
from sniff_env.players import load
from sniff_env.presets import make_rules


class Counting:
    """Wraps a batched policy and counts the rows it is asked about."""

    def __init__(self, inner: object) -> None:
        self.inner, self.rows = inner, 0

    def actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.rows += len(obs)
        return self.inner.actions(obs, mask)  # type: ignore[attr-defined]


def test_a_policy_object_plays_as_the_spec_that_loads_it() -> None:
    rules = make_rules("sniff", 2, target=31)
    network = Counting(load("sniff-2p", rules=rules).network)  # type: ignore[attr-defined]
    by_spec = SniffGymVectorEnv(4, "sniff", 2, target=31, opponents="sniff-2p")
    by_object = SniffGymVectorEnv(4, "sniff", 2, target=31, opponents=network)
    a, _ = by_spec.reset(seed=8)
    b, _ = by_object.reset(seed=8)
    for _ in range(30):
        assert np.array_equal(a["observation"], b["observation"])
        act = a["action_mask"].argmax(axis=1)
        a, ra, *_ = by_spec.step(act)
        b, rb, *_ = by_object.step(act)
        assert np.array_equal(ra, rb)
    assert network.rows > 0


def test_an_object_without_actions_is_refused() -> None:
    with pytest.raises(ValueError, match="batched policy"):
        SniffGymVectorEnv(2, opponents=object())
