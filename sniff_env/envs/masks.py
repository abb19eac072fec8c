"""The action mask a single-learner environment hands out once its episode is over.

A finished episode has no legal action, but a library that samples an action from the last mask
it was given, before it resets, fails on a mask of zeros. So the single-agent Gymnasium
environment and the vector environments end each episode with a mask that marks one
placeholder, action :data:`PLACEHOLDER_ACTION`: it is never played (the episode is over; the next
call is a reset). The AEC environment keeps PettingZoo's convention, zeros for every agent that
is not to act; its parallel form marks a no-op for them instead (:mod:`sniff_env.envs.parallel`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

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


BOX_ONLY = ("low", "high")
"""What a wrapper of Box observations reads first (SuperSuit's ``dtype``, ``flatten``, ``normalize_obs``)."""


class MaskedObservationSpace(spaces.Dict):  # type: ignore[misc]
    """The observation space of the PettingZoo forms: a ``Dict`` whose ``"action_mask"`` travels
    with the ``"observation"``. A wrapper that transforms a ``Box`` observation, and asks this space
    for a Box's bounds, is told why it cannot take it and what to use instead; every other use is
    Gymnasium's ``Dict`` (``hasattr(space, "low")`` is still false)."""

    def __getattr__(self, name: str) -> Any:
        if name in BOX_ONLY:
            keys = ", ".join(self.spaces)
            raise AttributeError(
                f"the observation space is Dict({keys}), not a Box, so it has no {name!r}: the action mask "
                "travels with the observation, and a wrapper that transforms Box observations (SuperSuit's "
                "dtype, flatten, normalize_obs, frame_stack, pad_observations, black_death) would lose it. "
                "Transform observation['observation'] yourself, or use gymnasium.make('sniff_env/Sniff-v0'), "
                "whose observation is the flat vector (a Box) with the mask in info['action_mask']")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
