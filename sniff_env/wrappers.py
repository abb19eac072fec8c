"""A Gymnasium single-agent view of the AEC environment: one seat learns, the others are played.

:class:`SniffSingleAgentEnv` steps the learner's decision, then plays every other seat with
its policy until the learner must act again or the episode ends. The learner sees only its
own observation (the flat vector; the mask through :meth:`~SniffSingleAgentEnv.action_masks`,
as sb3-contrib's ``MaskablePPO`` wants, and in ``info["action_mask"]``) and its own rewards, the
terminal one included. With ``infos="full"`` the info also holds the learner's ``events`` and,
while it is to act, its ``info_state``; ``env.unwrapped.aec`` is the AEC environment.

Registered with Gymnasium as ``sniff_env/Sniff-v0`` (opponents ``"heuristic"`` there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from .aec import checked_action, raw_env
from .errors import IllegalMoveError

PolicyFn = Callable[[dict[str, np.ndarray], dict[str, Any]], int]
Policy = PolicyFn | str | Any
"""A player spec (``"heuristic"``, ``"greedy"``, ``"random"``, ``"search:simulations=50"``, the path
of an exported policy: see :func:`sniff_env.players.load`), a callable
``f(observation_dict, info) -> action`` or an object with ``.act(observation, info)``."""

ILLEGAL_MODES = ("penalty", "raise")


class SniffSingleAgentEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One learning seat against given policies (uniform random legal play by default).

    ``learner`` is a seat number or ``"random"`` (drawn at every reset); ``opponents`` is one
    policy for every other seat or a list with one per other seat, in seat order (``None``:
    uniform random legal play). Players named by a spec are reseeded from the environment's
    generator at every reset. ``illegal``:
    ``"penalty"`` ends the episode with -1 for an illegal learner action (as ``env()`` does),
    ``"raise"`` raises :class:`~sniff_env.errors.IllegalMoveError`. Other keywords go to
    :class:`~sniff_env.aec.raw_env` (rules fields, ``reward``, ``episode``, ``max_cycles``...).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 1}

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
        if opponents is None or isinstance(opponents, str) or not isinstance(opponents, Sequence):
            given: list[Policy | None] = [opponents] * (n - 1)
        else:
            given = list(opponents)
            if len(given) != n - 1:
                raise ValueError(f"give one opponent policy for each of the {n - 1} other seats; got {len(given)}")
        self._policies = [self._player(pol) for pol in given]
        self._spec_players = [pol for pol, spec in zip(self._policies, given, strict=True) if isinstance(spec, str)]
        self._learner_choice = learner
        self.learner = 0 if learner == "random" else int(learner)
        self.illegal = illegal
        self.render_mode = render_mode
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]  # type: ignore[index]
        self.action_space = self.aec.action_space(agent0)  # type: ignore[assignment]

    def _player(self, policy: Policy | None) -> Policy | None:
        """``policy``, or the player its spec names (for these rules)."""
        if isinstance(policy, str):
            from .players import BUILTIN, load, parse_spec

            base, _ = parse_spec(policy)
            return load(policy) if base in BUILTIN else load(policy, rules=self.aec.rules)
        if policy is not None and not callable(policy) and not callable(getattr(policy, "act", None)):
            raise TypeError(
                "an opponent is a player spec, a callable f(observation, info) or has .act(observation, info); "
                f"got {policy!r}"
            )
        return policy

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
            policy = self._policy_of(aec.seat_of(agent))
            if policy is None:
                action = self._random_action(obs["action_mask"])
            elif callable(getattr(policy, "act", None)):
                action = policy.act(obs, aec.full_info(agent))
            else:
                action = policy(obs, aec.full_info(agent))
            aec.step(action)  # checked there: a policy must return a whole number

    def _result(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        aec, agent = self.aec, self.agent
        reward = float(aec._cumulative_rewards[agent])
        aec._cumulative_rewards[agent] = 0.0
        obs = aec.observe(agent)
        info = dict(aec.infos[agent])
        info["action_mask"] = obs["action_mask"].copy()  # the env caches its observations
        return obs["observation"].copy(), reward, bool(aec.terminations[agent]), bool(aec.truncations[agent]), info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        for player in self._spec_players:
            player.reset(seed=int(self.np_random.integers(2**31)))
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
        """The learner's action, then the other seats' until the learner is to act again. An
        action that is no whole number (a bool, a float, text) raises :class:`IllegalMoveError`
        whatever ``illegal`` says; a whole number that is not legal (out of range too) ends the
        episode with -1 (``illegal="penalty"``) or raises (``"raise"``)."""
        aec, agent = self.aec, self.agent
        index = checked_action(action, aec.num_actions)
        try:
            aec.step(index)
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            obs = aec.observe(agent)["observation"].copy()
            for a in aec.agents:
                aec.terminations[a] = True
            return obs, -1.0, True, False, {"illegal_action": index}
        self._play_others()
        return self._result()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (all False when the episode is over)."""
        return self.aec.observe(self.agent)["action_mask"].astype(bool)

    def render(self) -> str | None:  # type: ignore[override]
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
