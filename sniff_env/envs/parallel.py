"""The parallel form of the AEC environment: ``sniff_v0.parallel_env(...)``.

Sniff is turn-based and its turns do not go round in a fixed cycle (a seat with no legal move is
passed over, the winner of a hand leads the next), so PettingZoo's ``aec_to_parallel`` (one
move of every agent per step) does not fit it. :class:`SniffParallelEnv` is a turn-based
conversion instead: every step takes an action for every live agent and applies that of the
agent to act.

So that every agent has a legal action at every step (multi-agent trainers sample every agent's
action from its mask, and a mask of zeros is no distribution), the parallel form has **one more
action than the AEC form**: :attr:`SniffParallelEnv.noop_action` (``num_actions``, the last
index: 176 for double-six), the *no-op*. It is the only legal action of an agent that is not to
act, it is illegal for the agent to act, and the environment ignores the action of every agent
that is not to act, whatever it is: a no-op never changes the game.

Spaces (per agent): actions ``Discrete(num_actions + 1)``; observations a dict of
``"observation"`` (the AEC form's vector), ``"action_mask"`` (int8, ``num_actions + 1``
entries: the legal moves of the agent to act, the no-op alone for every other agent, and for
every agent once the game is over) and ``"acting"`` (int8, shape ``(1,)``: 1 for the agent to
act, else 0), which a trainer uses to keep waiting agents' no-ops out of its loss. The
observation of the agent to act carries its ``info_state`` attribute as in the AEC form. Every
reward, termination and truncation is handed to every agent; after a step each info also names
the agent to act next (``"active_agent"``, PettingZoo's turn-based convention). ``max_cycles``
truncates the game after that many steps (each step is one cycle: every live agent hands in an
action). The AEC form (:mod:`sniff_env.envs.aec`) keeps ``Discrete(num_actions)`` and masks of
zeros for the agents not to act.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from sniff_env.envs.aec import SeatObservation, env
from sniff_env.envs.masks import MaskedObservationSpace

AgentID = str

ACTING_KEY = "acting"
"""The observation entry that says whether the agent is to act (1) or waits (0)."""


def parallel_env(ruleset: str = "sniff", num_players: int = 2, render_mode: str | None = None,
                 max_cycles: int | None = None, **options: Any) -> SniffParallelEnv:
    """The parallel environment: the arguments of :func:`sniff_env.envs.aec.env`, ``max_cycles`` in steps."""
    if max_cycles is not None and (not isinstance(max_cycles, int) or isinstance(max_cycles, bool) or max_cycles < 1):
        raise ValueError(f"max_cycles must be a positive whole number or None; got {max_cycles!r}")
    return SniffParallelEnv(env(ruleset, num_players, render_mode, **options), max_cycles)


class SniffParallelEnv(ParallelEnv[AgentID, dict[str, np.ndarray], int]):  # type: ignore[misc]
    """The turn-based parallel view of a Sniff AEC environment, with a no-op for the agents not to
    act (see the module docs)."""

    def __init__(self, aec_env: Any, max_cycles: int | None = None) -> None:
        self.aec_env = aec_env
        raw = aec_env.unwrapped
        self.metadata: dict[str, Any] = aec_env.metadata
        self.possible_agents: list[AgentID] = list(raw.possible_agents)
        self.agents: list[AgentID] = []
        self.render_mode = raw.render_mode
        self.state_space = raw.state_space
        self.max_cycles = max_cycles
        self.num_actions: int = raw.num_actions
        """Actions of the AEC form; the parallel form has one more, :attr:`noop_action`."""
        self.noop_action: int = self.num_actions
        """The no-op: the one legal action of an agent not to act (the env ignores that agent's action)."""
        inner = raw.observation_space(self.possible_agents[0])
        obs_space = MaskedObservationSpace({
            "observation": inner["observation"],
            "action_mask": spaces.Box(0, 1, (self.num_actions + 1,), np.int8),
            ACTING_KEY: spaces.Box(0, 1, (1,), np.int8),
        })
        self._observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self._action_spaces: dict[AgentID, spaces.Discrete] = {
            a: spaces.Discrete(self.num_actions + 1) for a in self.possible_agents}
        self._steps = 0

    @property
    def unwrapped(self) -> Any:
        """The raw AEC environment (its game, rules and helpers)."""
        return self.aec_env.unwrapped

    def observation_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[AgentID, Any], dict[AgentID, dict[str, Any]]]:
        """Start a new game (the AEC form's ``seed`` and ``options``)."""
        self._steps = 0
        self.aec_env.reset(seed=seed, options=options)
        self.agents = self.aec_env.agents[:]
        infos = {a: dict(self.aec_env.infos[a]) for a in self.agents}
        return self._observations(self.agents), infos

    def step(self, actions: Mapping[AgentID, Any]) -> tuple[dict[AgentID, Any], ...]:
        """Apply the action of the agent to act; every other agent's action (its no-op) is ignored."""
        if not self.agents:
            raise RuntimeError("the game is over: call reset() before step()")
        aec = self.aec_env
        mover = aec.agent_selection
        if not isinstance(actions, Mapping) or mover not in actions:
            raise KeyError(f"step() takes a dict of actions that holds one for {mover!r}, the agent to act; "
                           f"got {actions!r:.120}")
        aec.step(actions[mover])
        self._steps += 1
        live = aec.agents[:]
        rewards = {a: float(aec.rewards[a]) for a in live}
        terminations = {a: bool(aec.terminations[a]) for a in live}
        truncations = {a: bool(aec.truncations[a]) for a in live}
        infos = {a: dict(aec.infos[a]) for a in live}
        if not any(terminations.values()) and self.max_cycles is not None and self._steps >= self.max_cycles:
            for agent in live:
                aec.unwrapped.truncations[agent] = True
                truncations[agent] = True
        observations = self._observations(live)
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)
        for info in infos.values():
            info["active_agent"] = aec.agent_selection
        self.agents = aec.agents[:]
        return observations, rewards, terminations, truncations, infos

    def _observations(self, agents: list[AgentID]) -> dict[AgentID, Any]:
        aec = self.aec_env
        mover = aec.agent_selection
        out = {}
        for agent in agents:
            seat_obs = aec.observe(agent)
            acting = agent == mover and not (aec.terminations[agent] or aec.truncations[agent])
            mask = np.zeros(self.num_actions + 1, np.int8)
            if acting:
                mask[: self.num_actions] = seat_obs["action_mask"]
            else:
                mask[self.noop_action] = 1
            flag = np.array([int(acting)], np.int8)
            out[agent] = (seat_obs.with_entries(action_mask=mask, **{ACTING_KEY: flag})
                          if isinstance(seat_obs, SeatObservation)
                          else {**seat_obs, "action_mask": mask, ACTING_KEY: flag})
        return out

    def render(self) -> Any:
        return self.aec_env.render()

    def state(self) -> np.ndarray:
        """The AEC form's full-information state."""
        state: np.ndarray = self.aec_env.state()
        return state

    def close(self) -> None:
        self.aec_env.close()
