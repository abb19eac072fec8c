"""The action mask a single-learner environment hands out once its episode is over.

A finished episode has no legal action, but a library that samples an action from the last mask
it was given, before it resets, fails on a mask of zeros. So the single-agent Gymnasium
environment and the vector environments end each episode with a mask that marks one
placeholder, action :data:`PLACEHOLDER_ACTION`: it is never played (the episode is over; the next
call is a reset). The AEC environment keeps PettingZoo's convention, zeros for every agent that
is not to act; its parallel form marks a no-op for them instead (:mod:`sniff_env.envs.parallel`).
"""

from __future__ import annotations

import numpy as np

MASK_LAYOUTS = ("info", "obs")
"""Where a Gymnasium env hands out the learner's action mask (its ``mask`` option):
``info["action_mask"]`` beside a flat observation, or the observation dict's ``"action_mask"``."""

PLACEHOLDER_ACTION = 0
"""The one action marked in the mask of a finished episode."""


def episode_over_mask(num_actions: int) -> np.ndarray:
    """The int8 mask of a finished episode: :data:`PLACEHOLDER_ACTION` alone."""
    mask = np.zeros(num_actions, np.int8)
    mask[PLACEHOLDER_ACTION] = 1
    return mask
