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
  (zero-sum: -1 with two sides, -1/2 each with three); a drawn game (only possible at
  ``max_hands``) gives 0. With ``episode="hand"`` the same is paid at every hand end for the
  hand's own points: the side that gained most in the hand wins it (a shared best is a draw).
* ``"points"``: after every step, each side's score change minus the mean change of the other
  sides (zero-sum).

Every game ends: ``max_hands`` (default :data:`~sniff_env.game.DEFAULT_MAX_HANDS`, 100; ``None``
lifts it) ends a game still short of the target after that many hands, the highest score
winning. ``episode="hand"`` marks ``dones`` at every hand end; the game itself goes on into its next hand
(scores carry over) until it ends and a new one starts. Finished games restart at once with the
next seed (``seed``, ``seed + 1``, ... in order of need); ``infos`` then reports, for the finished
episodes, ``final_scores``, ``winner`` (side, -1 none) and ``seed``. The observation and mask
returned are read-only views of the engine's buffers: they change with the next call, so copy
what you keep (the other arrays are new at each call).

A wrapper that runs its own kernel over the games (as :mod:`sniff_env.envs.gym_vector` does, to
play opponents inside the step) uses :meth:`SniffVectorEnv.env_step_args`,
:meth:`~SniffVectorEnv.step_arrays` and :meth:`~SniffVectorEnv.deal_ended`.

Version history: ``1`` the first interface; ``2`` the observation and mask are read-only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from sniff_env.game import DEFAULT_MAX_HANDS
from sniff_env.presets import make_rules
from sniff_env.rules import Rules
from sniff_env.vector.arrays import StepArrays
from sniff_env.vector.checks import INT64_MAX, BatchError, int_array, rules_value, seed_value
from sniff_env.vector.engine import NEW_GAME, DealSpec, VectorEngine

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
        max_hands: int | None = DEFAULT_MAX_HANDS,
        threads: int | None = None,
        max_bytes: int | None = None,
        **overrides: Any,
    ) -> None:
        """``max_hands`` as in :class:`sniff_env.game.Game` (here 100 by default); ``threads`` and
        ``max_bytes`` (the memory the batch may take) as in :class:`VectorEngine`. Bad values raise
        a :class:`sniff_env.errors.SniffError` naming what is allowed."""
        if reward not in ("points", "game"):
            raise BatchError(f"reward must be 'points' or 'game'; got {reward!r}")
        if episode not in ("game", "hand"):
            raise BatchError(f"episode must be 'game' or 'hand'; got {episode!r}")
        seed = seed_value("seed", seed)
        if isinstance(rules, str):
            rules = make_rules(rules, num_players, **overrides)
        elif overrides:
            rules = rules_value(rules).replace(**overrides)
        rules = rules_value(rules)
        self.rules = rules
        self.reward = reward
        self.episode = episode
        self.engine = VectorEngine(rules, num_envs, max_hands=max_hands, threads=threads, max_bytes=max_bytes,
                                   reserve_per_game=sum(a.nbytes for a in self._env_arrays(1, rules)))
        self.num_envs = self.engine.num_envs
        self.num_players = rules.num_players
        self.num_sides = rules.num_sides
        self.num_actions = self.engine.num_actions
        self.obs_size = self.engine.obs_size
        self.observer = self.engine.tables.observer
        self._side_of_seat = np.array([rules.side_of(s) for s in range(rules.num_players)], np.int64)
        self._next_seed = seed
        self._hand_start = self._env_arrays(self.engine.num_envs, rules)[0]
        self._env = self.engine.env_arrays(reward == "game", episode == "hand", self._side_of_seat, self._hand_start)

    @staticmethod
    def _step_arrays(B: int, rules: Rules) -> StepArrays:
        return StepArrays(np.empty((B, rules.num_players), np.float32), np.empty(B, np.bool_), np.empty(B, np.int64),
                          np.empty((B, rules.num_sides), np.int64), np.empty(B, np.int64), np.empty(B, np.bool_))

    @staticmethod
    def _env_arrays(B: int, rules: Rules) -> tuple[np.ndarray, ...]:
        """The scores at each game's hand start, then one step's results: the env's share of memory."""
        return np.zeros((B, rules.num_sides), np.int64), *SniffVectorEnv._step_arrays(B, rules)

    def step_arrays(self) -> StepArrays:
        """New arrays for one step's results, for :meth:`env_step_args`."""
        return self._step_arrays(self.num_envs, self.rules)

    def env_step_args(self, actions: np.ndarray, out: StepArrays) -> tuple[Any, ...]:
        """The arguments of ``kernels.env_step`` before its thread's ``work, start, stop``, for
        checked ``actions`` (:meth:`VectorEngine.check_actions`), with the results going to ``out``:
        :meth:`VectorEngine.step_args`, this env's :meth:`VectorEngine.env_arrays` (its reward and
        episode mode, its sides, the scores at each hand start, the seeds, the deal requests), then
        ``out``. After a run that ended hands, :meth:`deal_ended` deals on."""
        return (*self.engine.step_args(actions), self._env, out)

    def deal_ended(self, new_games: np.ndarray | None = None) -> None:
        """Deal on where a hand ended (:attr:`VectorEngine.requests`): the next hand, or a new game
        with the next running seed where the game is over or is in ``new_games`` (games the caller
        ends early: their hand must have ended too); other ``new_games`` raise :class:`BatchError`
        before anything changes."""
        eng = self.engine
        if new_games is not None:
            games = int_array("new_games", new_games, None)
            if games.size and (games.min() < 0 or games.max() >= self.num_envs or not eng.requests[games].all()):
                raise BatchError(f"new_games must be games whose hand just ended, of "
                                 f"{np.flatnonzero(eng.requests).tolist()}; got {games.tolist()}"[:300])
            eng.requests[games] = NEW_GAME
            self._hand_start[games] = 0
        fresh = np.flatnonzero(eng.requests == NEW_GAME)
        eng.seeds[fresh] = self._take_seeds(fresh.size)
        eng.deal_requested()

    def _seeds_from(self, start: int, count: int) -> np.ndarray:
        if start + count - 1 > INT64_MAX:
            raise BatchError(f"the running seed {start} has reached the largest seed (2**63 - 1): reset with a new seed")
        return np.arange(start, start + count, dtype=np.int64)

    def _take_seeds(self, count: int) -> np.ndarray:
        seeds = self._seeds_from(self._next_seed, count)
        self._next_seed += count
        return seeds

    def reset(
        self,
        seed: int | None = None,
        seeds: Sequence[int] | np.ndarray | None = None,
        deals: Sequence[DealSpec | None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a new game everywhere: with ``seeds[b]`` each, else from ``seed`` (or the running
        seed counter) on; ``deals[b]`` scripts a game's first hand (see :func:`new_game`). Bad
        arguments raise before anything changes, the seed counter included."""
        start = self._next_seed if seed is None else seed_value("seed", seed)
        given = seeds is not None
        eng = self.engine
        eng.deal(np.arange(self.num_envs), True, seeds if given else self._seeds_from(start, self.num_envs), deals)
        self._next_seed = start if given else start + self.num_envs
        self._hand_start[:] = 0
        return eng.obs, eng.mask, eng.turn.copy()

    def step(self, actions: np.ndarray) -> StepResult:
        """Play one decision in every game; see the module docstring for the results. Actions that
        are not ``num_envs`` whole numbers raise :class:`BatchError`, an illegal one in a game
        :class:`IllegalMoveError`, before any game changes."""
        eng = self.engine
        out = self.step_arrays()
        ended = eng.env_step(eng.check_actions(actions), self._env, out)
        infos: dict[str, np.ndarray] = {}
        if ended:
            infos = {"final_scores": out.final_scores, "winner": out.winner, "seed": out.seed,
                     "game_over": out.game_over}
            self.deal_ended()
        return eng.obs, eng.mask, eng.turn.copy(), out.rewards, out.done, infos

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game."""
        return self.engine.sample_actions(rng)

    def close(self) -> None:
        self.engine.close()

