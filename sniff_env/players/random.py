"""The random player: uniform over the legal actions, with its own seeded generator."""

from __future__ import annotations

import random
from typing import Any

from sniff_env.players._base import legal_actions


class RandomPlayer:
    """Picks a legal action uniformly at random."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        return self._rng.choice(legal_actions(observation, info))
