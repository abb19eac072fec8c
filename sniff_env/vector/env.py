"""``SniffVectorEnv``: thousands of Sniff games behind one batched, auto-resetting interface.

===============  =====================================================================
games            ``num_envs`` independent games of one rule set (any preset, 2-8 seats)
observation      ``[B, obs_size]`` float32, exactly ``Observer(rules).encode`` of the seat to act
action mask      ``[B, num_actions]`` int8, exactly ``Observer.mask`` of the seat to act
seat to act      ``[B]`` int64
actions          ``[B]`` integers of :mod:`sniff_env.actions`
rewards          ``[B, num_players]`` float32, per seat (partners share their side's reward)
dones            ``[B]`` bool: the episode (a game, or a hand) ended with this step
===============  =====================================================================

Rewards, as in the AEC environment:

* ``"game"``: when a game ends, +1 to the winning side and -1/(sides - 1) to each other side
  (zero-sum: -1 with two sides, -1/2 each with three); a drawn game (only possible with
  ``max_hands``) gives 0. With ``episode="hand"`` the same is paid at every hand end for the
  hand's own points: the side that gained most in the hand wins it (a shared best is a draw).
* ``"points"``: after every step, each side's score change minus the mean change of the other
  sides (zero-sum).

``episode="hand"`` marks ``dones`` at every hand end; the game itself goes on into its next hand
(scores carry over) until it ends and a new one starts. Finished games restart at once with the
next seed (``seed``, ``seed + 1``, ... in order of need); ``infos`` then reports, for the finished
episodes, ``final_scores``, ``winner`` (side, -1 none) and ``seed``. The returned arrays are the
engine's buffers: they are overwritten by the next call, so copy what you keep.

Version history: ``1`` the first interface.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ..presets import make_rules
from ..rules import Rules
from . import kernels as K
from .engine import DealSpec, VectorEngine

Reward = Literal["points", "game"]
Episode = Literal["game", "hand"]
StepResult = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]


class SniffVectorEnv:
    """A batch of auto-resetting Sniff games. ``rules`` is a :class:`Rules` or a preset name (then
    ``num_players`` and ``overrides`` apply)."""

    def __init__(
        self,
        rules: Rules | str = "sniff",
        num_envs: int = 1024,
        seed: int = 0,
        reward: Reward = "points",
        episode: Episode = "game",
        num_players: int = 2,
        max_hands: int | None = None,
        threads: int | None = None,
        **overrides: Any,
    ) -> None:
        if reward not in ("points", "game"):
            raise ValueError(f"reward must be 'points' or 'game'; got {reward!r}")
        if episode not in ("game", "hand"):
            raise ValueError(f"episode must be 'game' or 'hand'; got {episode!r}")
        if isinstance(rules, str):
            rules = make_rules(rules, num_players, **overrides)
        elif overrides:
            rules = rules.replace(**overrides)
        self.rules = rules
        self.num_envs = num_envs
        self.reward = reward
        self.episode = episode
        self.engine = VectorEngine(rules, num_envs, max_hands=max_hands, threads=threads)
        self.num_players = rules.num_players
        self.num_sides = rules.num_sides
        self.num_actions = self.engine.num_actions
        self.obs_size = self.engine.obs_size
        self.observer = self.engine.tables.observer
        self._side_of_seat = np.array([rules.side_of(s) for s in range(rules.num_players)])
        self._next_seed = int(seed)
        self._hand_start = np.zeros((num_envs, self.num_sides), np.int64)

    def _take_seeds(self, count: int) -> np.ndarray:
        seeds = np.arange(self._next_seed, self._next_seed + count, dtype=np.int64)
        self._next_seed += count
        return seeds

    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | np.ndarray | None = None,
        deals: Sequence[DealSpec | None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a new game everywhere: with ``seeds[b]`` each, else from ``seed`` (or the running
        seed counter) on; ``deals[b]`` scripts a game's first hand (see :func:`new_game`)."""
        if seed is not None:
            self._next_seed = int(seed)
        if seeds is None:
            seeds = self._take_seeds(self.num_envs)
        elif len(seeds) != self.num_envs:
            raise ValueError(f"seeds must give one seed per game ({self.num_envs}); got {len(seeds)}")
        if deals is not None and len(deals) != self.num_envs:
            raise ValueError(f"deals must give one entry (or None) per game ({self.num_envs}); got {len(deals)}")
        eng = self.engine
        eng.deal(np.arange(self.num_envs), True, seeds, deals)
        self._hand_start[:] = 0
        return eng.obs, eng.mask, eng.turn.copy()

    def step(self, actions: np.ndarray) -> StepResult:
        """Play one decision in every game; see the module docstring for the results."""
        eng = self.engine
        before = eng.scores.copy()
        eng.step(actions)
        scores = eng.scores.copy()
        phase = eng.phase
        hand_end = phase != K.PLAY
        game_end = phase == K.GAME_OVER
        done = hand_end if self.episode == "hand" else game_end
        side_rewards = np.zeros((self.num_envs, self.num_sides), np.float32)
        winner = np.full(self.num_envs, -1, np.int64)
        if done.any():
            if self.episode == "game":
                winner = np.where(game_end, eng.winner, -1)
            else:
                winner = np.where(hand_end, _unique_best(scores - self._hand_start), -1)
        if self.reward == "points":
            side_rewards[:] = _zero_sum(scores - before)
        elif done.any():
            won = winner >= 0
            side_rewards[won] = -1.0 / (self.num_sides - 1)
            side_rewards[np.flatnonzero(won), winner[won]] = 1.0
        rewards = side_rewards[:, self._side_of_seat]
        infos: dict[str, np.ndarray] = {}
        if hand_end.any():
            ended = np.flatnonzero(hand_end)
            infos = {
                "final_scores": np.where(done[:, None], scores, 0),
                "winner": winner,
                "seed": np.where(done, eng.seeds, -1),
                "game_over": game_end.copy(),
            }
            fresh = game_end[ended]
            seeds = np.zeros(ended.size, np.int64)
            seeds[fresh] = self._take_seeds(int(fresh.sum()))
            eng.deal(ended, fresh, seeds)
            self._hand_start[ended] = eng.scores[ended]
        return eng.obs, eng.mask, eng.turn.copy(), rewards, done, infos

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game."""
        return self.engine.sample_actions(rng)

    def close(self) -> None:
        self.engine.close()


def _zero_sum(delta: np.ndarray) -> np.ndarray:
    """Each side's change minus the mean change of the other sides."""
    n = delta.shape[1]
    total = delta.sum(axis=1, keepdims=True)
    out: np.ndarray = (delta - (total - delta) / (n - 1)).astype(np.float32)
    return out


def _unique_best(values: np.ndarray) -> np.ndarray:
    """Per row, the index of the unique maximum, or -1 when it is shared."""
    best = values.max(axis=1, keepdims=True)
    shared = (values == best).sum(axis=1) > 1
    return np.where(shared, -1, values.argmax(axis=1))
