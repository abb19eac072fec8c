"""Deprecated: PPO's experience is :mod:`training.lib.experience` and the earlier collectors are
:mod:`training.lib.reference_collector`; this module re-exports their names under the old ones
for one release ("rollouts" names the search player)."""

from __future__ import annotations

import warnings

from training.lib.experience import INPUT, LEARNER, Batch, VectorSelfPlay, reward_scale, sample
from training.lib.experience import ExperienceSettings as RolloutSettings
from training.lib.reference_collector import (
           SelfPlay,
           TablePlayer,
           collect,
           collect_vector,
           ppo_batch,
           side_rewards,
)

__all__ = ["INPUT", "LEARNER", "Batch", "RolloutSettings", "SelfPlay", "TablePlayer", "VectorSelfPlay", "collect",
           "collect_vector", "ppo_batch", "reward_scale", "sample", "side_rewards"]

warnings.warn("training.lib.ppo_rollout is deprecated and goes in the next release: import from "
              "training.lib.experience (RolloutSettings is ExperienceSettings there) and "
              "training.lib.reference_collector (SelfPlay, collect, collect_vector, ppo_batch)",
              DeprecationWarning, stacklevel=2)
