"""The parallel form of the AEC environment: ``sniff_v0.parallel_env(...)``.

Sniff is turn-based and its turns do not go round in a fixed cycle (a seat with no legal move is
passed over, the winner of a hand leads the next), so PettingZoo's ``aec_to_parallel`` (one
move of every agent per step) does not fit it. :class:`SniffParallelEnv` is PettingZoo's
turn-based conversion instead: every step takes an action for every live agent and applies that
of the agent to act, whose mask is its legal moves (the other masks are zeros, and their actions
are ignored); every observation, reward, termination and truncation is handed to every agent, and
each info says which agent acts next (``"active_agent"``). ``max_cycles`` truncates the game after
that many steps (each step is one cycle: every live agent hands in an action).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from sniff_env.envs.aec import env


def parallel_env(ruleset: str = "sniff", num_players: int = 2, render_mode: str | None = None,
                 max_cycles: int | None = None, **options: Any) -> SniffParallelEnv:
    """The parallel environment: the arguments of :func:`sniff_env.envs.aec.env`, ``max_cycles`` in steps."""
    if max_cycles is not None and (not isinstance(max_cycles, int) or isinstance(max_cycles, bool) or max_cycles < 1):
        raise ValueError(f"max_cycles must be a positive whole number or None; got {max_cycles!r}")
    return SniffParallelEnv(env(ruleset, num_players, render_mode, **options), max_cycles)


class SniffParallelEnv(turn_based_aec_to_parallel_wrapper):  # type: ignore[misc]
    """The turn-based parallel view of an AEC environment (see the module docs)."""

    def __init__(self, aec_env: Any, max_cycles: int | None = None) -> None:
        super().__init__(aec_env)
        self.max_cycles = max_cycles
        self._steps = 0

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], ...]:
        self._steps = 0
        return super().reset(seed=seed, options=options)  # type: ignore[no-any-return]

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], ...]:
        """Apply the action of the agent to act (``actions`` may hold every live agent's)."""
        if not self.agents:
            raise RuntimeError("the game is over: call reset() before step()")
        observations, rewards, terminations, truncations, infos = super().step(actions)
        self._steps += 1
        if self.agents and self.max_cycles is not None and self._steps >= self.max_cycles:
            aec = self.aec_env
            for agent in aec.agents:
                aec.unwrapped.truncations[agent] = True
                truncations[agent] = True
            while aec.agents:
                aec.step(None)
            self.agents: list[str] = []
        return observations, rewards, terminations, truncations, infos
