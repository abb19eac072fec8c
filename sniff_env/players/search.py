"""The search player: determinized Monte Carlo search (perfect-information Monte Carlo).

For each decision it samples worlds consistent with what the seat knows
(:func:`~sniff_env.infostate.determinize`), plays every legal action in each world, and
finishes the hand with a fast rollout policy (greedy for every seat). An action's value is the
seat's side's points to the end of the hand, end-of-hand scoring included, minus the mean of
the other sides', averaged over worlds; every action is tried in the same worlds, so the
comparison is paired. The budget is ``simulations`` rollouts per decision, or ``budget_s``
seconds, whichever ends first (``budget_s`` alone makes play depend on the machine's speed;
use ``simulations`` for reproducible runs).
"""

from __future__ import annotations

import random
import time
from typing import Any

from sniff_env.game import Game, Phase
from sniff_env.infostate import InfoState, determinize
from sniff_env.players._base import info_of, positive_count, positive_seconds
from sniff_env.players.greedy import greedy_action
from sniff_env.players.specs import MAX_SIMULATIONS


def rollout(game: Game) -> None:
    """Play the hand out in place, every seat greedy."""
    while game.phase is Phase.PLAY:
        legal = game.legal_actions()
        game.step(legal[0] if len(legal) == 1 else greedy_action(game, legal))


def margin(scores: list[int], before: list[int], side: int) -> float:
    """The side's gain minus the mean gain of the other sides."""
    gains = [a - b for a, b in zip(scores, before)]
    others = [g for s, g in enumerate(gains) if s != side]
    return gains[side] - sum(others) / len(others)


class SearchPlayer:
    """Perfect-information Monte Carlo over sampled worlds, with greedy rollouts."""

    def __init__(
        self,
        seed: int | None = None,
        simulations: int | None = None,
        budget_s: float | None = None,
        name: str = "search",
    ) -> None:
        if simulations is None and budget_s is None:
            budget_s = 0.2
        self.name = name
        self.simulations = None if simulations is None else positive_count("simulations", simulations, MAX_SIMULATIONS)
        self.budget_s = None if budget_s is None else positive_seconds("budget_s", budget_s)
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info, observation)
        legal = list(state.legal)
        if len(legal) == 1:
            return legal[0]
        values = self.evaluate(state)
        return max(legal, key=lambda a: (values[a], -a))

    def evaluate(self, state: InfoState) -> dict[int, float]:
        """Mean rollout margin of every legal action."""
        legal = list(state.legal)
        side = state.rules.side_of(state.seat)
        totals = dict.fromkeys(legal, 0.0)
        deadline = None if self.budget_s is None else time.perf_counter() + self.budget_s
        limit = self.simulations
        done = worlds = 0
        while True:
            world = determinize(state, self._rng)
            before = list(world.scores)
            for a in legal:
                g = world.copy()
                g.step(a)
                rollout(g)
                totals[a] += margin(g.scores, before, side)
            worlds += 1
            done += len(legal)
            if limit is not None and done >= limit:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return {a: v / worlds for a, v in totals.items()}
