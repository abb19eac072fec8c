"""Stable-Baselines3's ``VecEnv`` over the batched engine: ``MaskablePPO`` trains on it as it is.

    from sb3_contrib import MaskablePPO
    from sniff_env.integrations.sb3 import SniffSB3VecEnv

    venv = SniffSB3VecEnv(num_envs=256, ruleset="sniff", opponents="heuristic")
    MaskablePPO("MlpPolicy", venv, n_steps=64).learn(100_000)

It is :class:`sniff_env.envs.gym_vector.SniffGymVectorEnv` (same keywords) under SB3's
conventions: the observation is the flat vector (the masks come from ``env_method("action_masks")``,
where sb3-contrib asks for them), ``dones`` mark ended games, whose ``infos[i]`` hold
``terminal_observation``, ``winner`` and ``final_scores``; games reset themselves. With
``render_mode="rgb_array"``, ``get_images()`` draws every game and ``render()`` tiles them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from sniff_env.envs.gym_vector import SniffGymVectorEnv


class SniffSB3VecEnv(VecEnv):
    """``num_envs`` learner seats on the batched engine as an SB3 ``VecEnv`` (see the module docs)."""

    def __init__(self, num_envs: int = 256, **kwargs: Any) -> None:
        self.venv = SniffGymVectorEnv(num_envs, **kwargs)
        """The Gymnasium vector env underneath."""
        space = self.venv.single_observation_space["observation"]  # type: ignore[index]
        super().__init__(num_envs, space, self.venv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> VecEnvObs:
        seed = self._seeds[0]
        obs, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs["observation"]

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final, final_info = infos["final_obs"], infos["final_info"]
            for b in np.flatnonzero(dones).tolist():
                out[b] = {
                    "terminal_observation": final[b]["observation"],
                    "winner": int(final_info["winner"][b]),
                    "final_scores": final_info["final_scores"][b],
                    "TimeLimit.truncated": bool(truncated[b] and not terminated[b]),
                }
        return obs["observation"], rewards, dones, out

    def action_masks(self) -> np.ndarray:
        """``[num_envs, num_actions]`` booleans (what sb3-contrib's ``get_action_masks`` stacks)."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    # -- the per-environment calls SB3 makes ------------------------------------------------------
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"the games of {type(self).__name__} share one engine: cannot set {attr_name!r} per game")

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in rows]
        raise AttributeError(f"{type(self).__name__} runs no per-game method but 'action_masks'; got {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """One picture per game with ``render_mode="rgb_array"`` (SB3's ``render`` tiles them)."""
        if self.venv.render_mode != "rgb_array":
            return [None for _ in range(self.num_envs)]
        return list(self.venv.render() or ())
