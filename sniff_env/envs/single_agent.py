"""A Gymnasium single-agent view of the AEC environment: one seat learns, the others are played.

:class:`SniffSingleAgentEnv` steps the learner's decision, then plays every other seat with
its policy until the learner must act again or the episode ends. The learner sees only its
own observation and its own rewards, the terminal one included. Its action mask comes in one
of two layouts, chosen by ``mask``:

* ``"info"`` (the default): the observation is the flat vector and the mask is in
  ``info["action_mask"]`` (and :meth:`~SniffSingleAgentEnv.action_masks`, as sb3-contrib's
  ``MaskablePPO`` wants);
* ``"obs"``: the observation is ``Dict(observation=Box, action_mask=Box(0, 1, int8))``, the layout
  of the vector env (:mod:`sniff_env.envs.gym_vector`) and of the AEC env, for libraries that
  read the mask from the observation (TorchRL's ``ActionMask`` transform).

Once the episode is over (terminated or truncated) the mask marks action 0 alone, a placeholder
that is never played (:mod:`sniff_env.envs.masks`): a sampler that draws from it before resetting
never meets an empty mask. With ``infos="full"`` the info also holds the learner's ``events``
and, while it is to act, its ``info_state``; ``env.unwrapped.aec`` is the AEC environment. An
unknown keyword or render mode raises :class:`~sniff_env.errors.UnknownOptionError` (a
``TypeError``); ``render_mode="rgb_array"`` renders the table as a picture
(:mod:`sniff_env.envs.drawing`), once per learner step under Gymnasium's ``RecordVideo``.

Registered with Gymnasium as ``sniff_env/Sniff-v0`` (opponents ``"heuristic"`` there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from sniff_env.envs.aec import RENDER_MODES, check_options, check_render_mode, checked_action, raw_env
from sniff_env.envs.masks import MASK_LAYOUTS, episode_over_mask
from sniff_env.errors import IllegalMoveError
from sniff_env.players import BUILTIN, load, parse_spec

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
    ``"raise"`` raises :class:`~sniff_env.errors.IllegalMoveError`. ``mask``: one of
    :data:`MASK_LAYOUTS` (see the module docs). Other keywords go to
    :class:`~sniff_env.envs.aec.raw_env` (rules fields, ``reward``, ``episode``, ``max_cycles``,
    ``max_hands``...).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        ruleset: str = "sniff",
        num_players: int = 2,
        learner: int | str = 0,
        opponents: Policy | Sequence[Policy] | None = None,
        illegal: str = "penalty",
        render_mode: str | None = None,
        mask: str = "info",
        **options: Any,
    ) -> None:
        check_options(f"{type(self).__name__}.__init__", options, ("learner", "opponents", "illegal", "mask"))
        check_render_mode(render_mode)
        if mask not in MASK_LAYOUTS:
            raise ValueError(f"mask={mask!r} is not allowed; choose one of {MASK_LAYOUTS}")
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
        self.mask_layout = mask
        agent0 = self.aec.possible_agents[0]
        space = self.aec.observation_space(agent0)
        self.observation_space = space if mask == "obs" else space["observation"]  # type: ignore[index]
        self.action_space = self.aec.action_space(agent0)  # type: ignore[assignment]
        self._over_mask = episode_over_mask(self.aec.num_actions)

    def _player(self, policy: Policy | None) -> Policy | None:
        """``policy``, or the player its spec names (for these rules)."""
        if isinstance(policy, str):
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

    def _over(self) -> bool:
        aec, agent = self.aec, self.agent
        return bool(aec.terminations[agent] or aec.truncations[agent])

    def _mask(self) -> np.ndarray:
        """The learner's mask: its legal moves, or the placeholder once the episode is over."""
        return self._over_mask.copy() if self._over() else self.aec.observe(self.agent)["action_mask"].copy()

    def _view(self, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The learner's observation and ``info`` with its mask, in the chosen layout."""
        vector = self.aec.observe(self.agent)["observation"].copy()  # the env caches its observations
        if self.mask_layout == "obs":
            return {"observation": vector, "action_mask": self._mask()}, info
        info["action_mask"] = self._mask()
        return vector, info

    def _result(self) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        aec, agent = self.aec, self.agent
        reward = float(aec._cumulative_rewards[agent])
        aec._cumulative_rewards[agent] = 0.0
        obs, info = self._view(dict(aec.infos[agent]))
        return obs, reward, bool(aec.terminations[agent]), bool(aec.truncations[agent]), info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
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

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The learner's action, then the other seats' until the learner is to act again. An
        action that is no whole number (a bool, a float, text) raises :class:`IllegalMoveError`
        whatever ``illegal`` says; a whole number that is not legal (out of range too) ends the
        episode with -1 (``illegal="penalty"``) or raises (``"raise"``)."""
        aec = self.aec
        index = checked_action(action, aec.num_actions)
        try:
            aec.step(index)
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            for a in aec.agents:
                aec.terminations[a] = True
            obs, info = self._view({"illegal_action": index})
            return obs, -1.0, True, False, info
        self._play_others()
        return self._result()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (the placeholder once the episode is over)."""
        return self._mask().astype(bool)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
