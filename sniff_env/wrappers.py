"""A Gymnasium single-agent view of the AEC environment: one seat learns, the others are played.

:class:`SniffSingleAgentEnv` steps the learner's decision, then plays every other seat with
its policy until the learner must act again or the episode ends. The learner sees only its
own observation (the flat vector; the mask through :meth:`~SniffSingleAgentEnv.action_masks`,
as sb3-contrib's ``MaskablePPO`` wants) and its own rewards, the terminal one included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Union

import gymnasium
import numpy as np

from .aec import raw_env
from .errors import IllegalMoveError

PolicyFn = Callable[[dict[str, np.ndarray], dict[str, Any]], int]
Policy = Union[PolicyFn, Any]
"""A callable ``f(observation_dict, info) -> action`` or an object with ``.act(observation, info)``."""

ILLEGAL_MODES = ("penalty", "raise")


class SniffSingleAgentEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One learning seat against given policies (uniform random legal play by default).

    ``learner`` is a seat number or ``"random"`` (drawn at every reset); ``opponents`` is one
    policy for every other seat or a list with one per other seat, in seat order. ``illegal``:
    ``"penalty"`` ends the episode with -1 for an illegal learner action (as ``env()`` does),
    ``"raise"`` raises :class:`~sniff_env.errors.IllegalMoveError`. Other keywords go to
    :class:`~sniff_env.aec.raw_env` (rules fields, ``reward``, ``episode``, ``max_cycles``...).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        ruleset: str = "sniff",
        num_players: int = 2,
        learner: int | str = 0,
        opponents: Policy | Sequence[Policy] | None = None,
        illegal: str = "penalty",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.aec = raw_env(ruleset, num_players, render_mode=render_mode, **options)
        n = num_players
        if learner != "random" and not (isinstance(learner, int) and not isinstance(learner, bool) and 0 <= learner < n):
            raise ValueError(f"learner must be a seat 0..{n - 1} or 'random'; got {learner!r}")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal={illegal!r} is not allowed; choose one of {ILLEGAL_MODES}")
        if opponents is None or not isinstance(opponents, Sequence):
            policies: list[Policy | None] = [opponents] * (n - 1)
        else:
            policies = list(opponents)
            if len(policies) != n - 1:
                raise ValueError(f"give one opponent policy for each of the {n - 1} other seats; got {len(policies)}")
        for pol in policies:
            if pol is not None and not callable(pol) and not callable(getattr(pol, "act", None)):
                raise TypeError(f"an opponent is a callable f(observation, info) or has .act(observation, info); got {pol!r}")
        self._policies = policies
        self._learner_choice = learner
        self.learner = 0 if learner == "random" else int(learner)
        self.illegal = illegal
        self.render_mode = render_mode
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]  # type: ignore[index]
        self.action_space = self.aec.action_space(agent0)  # type: ignore[assignment]

    @property
    def agent(self) -> str:
        return self.aec.possible_agents[self.learner]

    def _policy_of(self, seat: int) -> Policy | None:
        return self._policies[seat if seat < self.learner else seat - 1]

    def _random_action(self, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.np_random.integers(len(legal))])

    def _play_others(self) -> None:
        aec = self.aec
        while not (aec.terminations[self.agent] or aec.truncations[self.agent]) and aec.agent_selection != self.agent:
            agent = aec.agent_selection
            obs = aec.observe(agent)
            policy = self._policy_of(aec._seat_of[agent])
            if policy is None:
                action = self._random_action(obs["action_mask"])
            elif callable(getattr(policy, "act", None)):
                action = policy.act(obs, aec.infos[agent])
            else:
                action = policy(obs, aec.infos[agent])
            aec.step(int(action))

    def _result(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        aec, agent = self.aec, self.agent
        reward = float(aec._cumulative_rewards[agent])
        aec._cumulative_rewards[agent] = 0.0
        obs = aec.observe(agent)
        raw_info = aec.infos[agent]
        info = dict(raw_info)
        if "info_state" in raw_info and not (aec.terminations[agent] or aec.truncations[agent]):
            info["info_state"] = raw_info["info_state"]
        info["action_mask"] = obs["action_mask"].copy()  # the env caches its observations
        return obs["observation"].copy(), reward, bool(aec.terminations[agent]), bool(aec.truncations[agent]), info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        while True:  # a deal in which the learner never gets to act is skipped
            if self._learner_choice == "random":
                self.learner = int(self.np_random.integers(self.aec.rules.num_players))
            self.aec.reset(seed=int(self.np_random.integers(2**31)), options=options)
            self._play_others()
            if self.aec.agent_selection == self.agent and not self.aec.terminations[self.agent]:
                break
            options = None
        obs, _, _, _, info = self._result()
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        aec, agent = self.aec, self.agent
        try:
            aec.step(int(action))
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            obs = aec.observe(agent)["observation"].copy()
            for a in aec.agents:
                aec.terminations[a] = True
            return obs, -1.0, True, False, {"illegal_action": int(action)}
        self._play_others()
        return self._result()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (all False when the episode is over)."""
        return self.aec.observe(self.agent)["action_mask"].astype(bool)

    def render(self) -> str | None:  # type: ignore[override]
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
