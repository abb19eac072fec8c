"""PPO's experience: who plays each seat of the batched games, and what a batch of the learner's decisions holds.

Every seat of every game is the learner (:data:`LEARNER`), a frozen snapshot from the pool, or a
built-in player compiled over the batched engine's arrays (or a policy file over its games:
:func:`sniff_env.players.load_batched`); :class:`VectorSelfPlay` holds the games and who sits
where. :class:`training.lib.collector.Collector` plays them into a :data:`Batch`: each (game,
seat) forms a chain for GAE, rewards between two of its decisions accrue to the earlier one, and a
decision with a single legal action is not stored. :class:`ExperienceSettings` is what that
reads of a trainer's arguments. The earlier collectors, kept as the tests' oracle, are in
:mod:`training.lib.reference_collector`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from sniff_env.players import load_batched
from sniff_env.rules import Rules
from training.lib.config import ConfigError, settings_of
from training.lib.evaluate import masked_logits

Batch = dict[str, torch.Tensor]
INPUT = "input/"
"""Prefix of the batch entries that hold the network's prepared per-row inputs besides ``obs``
(:func:`training.lib.network.prepare_inputs`), computed during collection for the update to reuse."""
LEARNER = -1
"""``table`` code of a learner seat in :class:`VectorSelfPlay`; pool snapshots are 0, 1, ... and
built-in ``k`` is ``-2 - k``."""


def sample(logits: torch.Tensor, mask: torch.Tensor, sampler: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions drawn from the masked softmax of ``logits``, and their log-probabilities."""
    logits = masked_logits(logits, mask)
    actions = torch.multinomial(torch.softmax(logits, -1), 1, generator=sampler).squeeze(1)
    return actions, torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1)


@dataclass(frozen=True)
class ExperienceSettings:
    """What the self-play collection reads of a trainer's settings (``ppo.Args`` has these fields;
    :meth:`of` takes them from it)."""

    num_envs: int
    num_steps: int
    gamma: float
    gae_lambda: float
    reward: str
    """``"points"`` (dense) or ``"game"`` (+1/-1 at the end)."""
    reward_scale: float
    """Multiplier of ``"points"`` rewards."""
    max_hands: int
    selfplay_prob: float
    builtin_opponents: str
    """Comma-separated built-in players in the pool."""

    @classmethod
    def of(cls, settings: Any) -> ExperienceSettings:
        """These fields of ``settings`` (any object that has them, e.g. a trainer's arguments)."""
        return settings_of(cls, settings)


def reward_scale(settings: ExperienceSettings) -> float:
    """The multiplier of the engine's rewards: ``reward_scale`` for ``points``, 1 for ``game``."""
    return float(settings.reward_scale) if settings.reward == "points" else 1.0


class VectorSelfPlay:
    """The batched games and, per game and seat, who plays it (``LEARNER`` or a pool index)."""

    def __init__(self, rules: Rules, num_envs: int, seed: int, reward: str, max_hands: int,
                 selfplay_prob: float, rng: random.Random, builtins: tuple[str, ...] = (),
                 search_threads: int = 0, alternate_seats: bool = False) -> None:
        """``builtins``: the fixed opponents, each a built-in with a compiled twin or a policy (a
        shipped agent's name or an ONNX file), see :func:`sniff_env.players.load_batched`;
        ``search_threads``: the threads of a search among them (0, one stream of draws on the
        calling thread). ``alternate_seats``: every table is seated from the first game on, and
        the learner's side in a game against an opponent is the one after its side in that
        table's previous such game (the tables start on every side in turn), instead of a side
        drawn at random and a first game of self-play everywhere."""
        from sniff_env.envs.batch_env import SniffVectorEnv
        from sniff_env.vector.checks import BatchError

        self.rules, self.rng, self.selfplay_prob = rules, rng, selfplay_prob
        self.n = rules.num_players
        try:
            self.env = SniffVectorEnv(rules, num_envs, seed=seed, reward=reward, max_hands=max_hands)  # type: ignore[arg-type]
        except BatchError as exc:  # a batch that does not fit: the option to change, in one line
            raise ConfigError(f"--num-envs {num_envs}: {exc}") from None
        self.builtins = [load_batched(spec, self.env.engine, search_threads) for spec in builtins]
        self.obs, self.mask, self.seat = (np.array(x) for x in self.env.reset())
        self.table = np.full((num_envs, self.n), LEARNER, np.int64)
        self.pool_size = 0
        self.side = np.array([rules.side_of(s) for s in range(self.n)])
        self.episode_wins: list[float] = []
        self.alternate = alternate_seats
        self.next_side = np.arange(num_envs) % rules.num_sides
        """With ``alternate_seats``: the learner's side in each table's next game against an opponent."""
        if alternate_seats:
            self.draw_tables(np.arange(num_envs))

    def _learner_sides(self, games: np.ndarray, drawn: np.ndarray) -> np.ndarray:
        """The learner's side in each of ``games`` (seated against an opponent): the next in turn
        with ``alternate_seats``, else ``drawn``."""
        if not self.alternate:
            return drawn
        sides = self.next_side[games]
        self.next_side[games] = (sides + 1) % self.rules.num_sides
        return sides

    def draw_table(self, game: int) -> None:
        row = self.table[game]
        row[:] = LEARNER
        if (self.pool_size == 0 and not self.builtins) or self.rng.random() < self.selfplay_prob:
            return
        drawn = np.zeros(1, np.int64) if self.alternate else self.side[[self.rng.randrange(self.n)]]
        learner_side = int(self._learner_sides(np.array([game]), drawn)[0])
        pick = self.rng.randrange(self.pool_size + len(self.builtins))
        row[self.side != learner_side] = pick if pick < self.pool_size else -2 - (pick - self.pool_size)

    def draw_tables(self, games: np.ndarray) -> None:
        """:meth:`draw_table` for every game of ``games`` at once, as array operations (the same
        distribution from one seed drawn from ``rng``, not the same draws)."""
        self.table[games] = LEARNER
        options = self.pool_size + len(self.builtins)
        if not options or not games.size:
            return
        gen = np.random.default_rng(self.rng.getrandbits(64))
        mixed = games[gen.random(games.size) >= self.selfplay_prob]
        drawn = np.zeros(mixed.size, np.int64) if self.alternate else self.side[gen.integers(self.n, size=mixed.size)]
        learner_side = self._learner_sides(mixed, drawn)
        pick = gen.integers(options, size=mixed.size)
        code = np.where(pick < self.pool_size, pick, -2 - (pick - self.pool_size))
        against = self.side[None, :] != learner_side[:, None]
        self.table[mixed] = np.where(against, code[:, None], LEARNER)
