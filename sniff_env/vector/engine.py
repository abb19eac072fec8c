"""A batch of independent Sniff games stepped together by compiled kernels.

:class:`VectorEngine` holds the state of ``num_envs`` games as arrays and moves all of them at
once: :meth:`~VectorEngine.step` applies one decision per game (plus the forced draws and
passes that follow), :meth:`~VectorEngine.deal` starts the next hand or a new game where asked.
After either call, :attr:`~VectorEngine.obs` and :attr:`~VectorEngine.mask` hold, for every game
in play, exactly ``Observer(rules).encode(info_state(game, seat))`` and ``Observer.mask`` of the
seat to act. Deals follow the reference engine's seeds: hand ``h`` of the game with seed ``s``
is drawn from ``random.Random(f"sniff:{s}:{h}")`` (re-done in compiled code).

The engine makes no policy about finished games; :class:`sniff_env.vector.env.SniffVectorEnv`
adds automatic resets and rewards on top.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..deal import Deal
from ..errors import IllegalMoveError
from ..game import Game, deal_from_dict
from ..rules import Rules
from . import kernels as K
from .tables import Tables, build_tables

DealSpec = dict[str, Any] | Deal
MIN_GAMES_PER_THREAD = 256
"""Below this many games per thread, splitting a batch costs more than it saves."""


def default_threads() -> int:
    """The CPU cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class VectorEngine:
    """The state of ``num_envs`` games under one rule set, and the two batched transitions."""

    def __init__(
        self, rules: Rules, num_envs: int, max_hands: int | None = None, threads: int | None = None
    ) -> None:
        """``threads``: how many threads share each batched call (default: the usable cores)."""
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive whole number; got {num_envs!r}")
        self.rules = rules
        self.tables: Tables = build_tables(rules, max_hands)
        self.num_envs = B = num_envs
        n, T, A = rules.num_players, self.tables.num_tiles, self.tables.num_actions
        self.num_actions = A
        self.obs_size = self.tables.observer.size
        self.S = np.zeros((B, K.NS), np.int64)
        """Per-game scalars; columns are the ``kernels`` constants (``TURN``, ``SCORES``...)."""
        self.hands = np.zeros((B, n, T), np.uint8)
        self.played_by = np.full((B, T), -1, np.int8)
        self.bone = np.zeros((B, T), np.int64)
        self.legal = np.zeros((B, A), np.int16)
        """``legal[b, :S[b, NLEGAL]]``: the legal actions of game ``b`` (unsorted)."""
        self.obs = np.zeros((B, self.obs_size), np.float32)
        self.mask = np.zeros((B, A), np.int8)
        self.seeds = np.zeros(B, np.int64)
        self._order = np.zeros((B, T), np.int64)
        self._leaders = np.full(B, -1, np.int64)
        self._request = np.zeros(B, np.int64)
        self._args = self.tables.kernel_args()
        n_threads = max(1, min(threads or default_threads(), B // MIN_GAMES_PER_THREAD))
        bounds = np.linspace(0, B, n_threads + 1).astype(int).tolist()
        self._chunks = list(itertools.pairwise(bounds))
        self._pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None

    def close(self) -> None:
        """Stop the worker threads (the engine stays usable, single-threaded)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
            self._chunks = [(0, self.num_envs)]

    def _run(self, kernel: Callable[..., None], *args: Any) -> None:
        if self._pool is None:
            kernel(*args, 0, self.num_envs)
            return
        for f in [self._pool.submit(kernel, *args, a, b) for a, b in self._chunks]:
            f.result()

    # -- views -------------------------------------------------------------------------------
    @property
    def turn(self) -> np.ndarray:
        return self.S[:, K.TURN]

    @property
    def phase(self) -> np.ndarray:
        return self.S[:, K.PHASE]

    @property
    def num_legal(self) -> np.ndarray:
        return self.S[:, K.NLEGAL]

    @property
    def scores(self) -> np.ndarray:
        """``[B, num_sides]`` view of the running scores."""
        return self.S[:, K.SCORES : K.SCORES + self.rules.num_sides]

    @property
    def winner(self) -> np.ndarray:
        """The winning side of each finished game, -1 for a draw or a game in progress."""
        return self.S[:, K.WINNER]

    @property
    def hand_index(self) -> np.ndarray:
        return self.S[:, K.HAND_INDEX]

    # -- transitions -------------------------------------------------------------------------
    def deal(
        self,
        games: np.ndarray,
        new_game: bool | np.ndarray,
        seeds: Sequence[int] | np.ndarray | None = None,
        deals: Sequence[DealSpec | None] | None = None,
    ) -> None:
        """Deal the next hand of each game in ``games`` (indices), or with ``new_game`` the first
        hand of a new game with seed ``seeds[i]``; ``deals[i]`` (new games only) scripts that
        first hand as :func:`sniff_env.game.new_game` accepts it."""
        games = np.asarray(games, np.int64).reshape(-1)
        fresh = np.broadcast_to(np.asarray(new_game, np.bool_), games.shape)
        if seeds is not None:
            self.seeds[games[fresh]] = np.asarray(seeds, np.int64).reshape(-1)[fresh]
        request = self._request
        request[:] = 0
        request[games] = np.where(fresh, K.NEW_GAME, K.NEXT_HAND)
        if deals is not None:
            for i, spec in enumerate(deals):
                if spec is None:
                    continue
                if not fresh[i]:
                    raise ValueError("a scripted deal can only start a new game")
                request[games[i]] |= K.SCRIPTED
                self._script(int(games[i]), spec)
        self._run(K.deal, self.S, self.hands, self.played_by, self.bone, *self._args, request, self.seeds,
                  self._order, self._leaders, self.legal, self.obs, self.mask)

    def _script(self, b: int, spec: DealSpec) -> None:
        game = Game(self.rules, seed=int(self.seeds[b]), record=False)
        deal = spec if isinstance(spec, Deal) else deal_from_dict(game, spec)
        tiles = [t for hand in deal.hands for t in hand] + list(deal.boneyard)
        self._order[b, : len(tiles)] = tiles
        self._leaders[b] = deal.leader

    def step(self, actions: np.ndarray) -> None:
        """One decision per game in play (games not in play ignore their entry)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},); got {actions.shape}")
        actions = actions.astype(np.int64, copy=False)
        in_play = self.S[:, K.PHASE] == K.PLAY
        inside = (actions >= 0) & (actions < self.num_actions)
        legal = inside & (self.mask[np.arange(self.num_envs), np.where(inside, actions, 0)] == 1)
        bad = np.flatnonzero(in_play & ~legal)
        if bad.size:
            self._raise_illegal(int(bad[0]), int(actions[bad[0]]))
        self._run(K.step, self.S, self.hands, self.played_by, self.bone, *self._args, actions, self.legal,
               self.obs, self.mask)

    def _raise_illegal(self, b: int, action: int) -> None:
        codec = self.tables.observer.codec
        legal = tuple(sorted(int(a) for a in self.legal[b, : self.S[b, K.NLEGAL]]))
        what = f"action {action} ({codec.describe(action)})" if 0 <= action < self.num_actions else (
            f"action {action} (actions are 0..{self.num_actions - 1})")
        raise IllegalMoveError(
            f"game {b}: {what} is not legal for seat {self.S[b, K.TURN]}; legal: {list(legal)}", action, legal
        )

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every game in play (0 elsewhere)."""
        nl = self.S[:, K.NLEGAL]
        pick = (rng.random(self.num_envs) * nl).astype(np.int64)
        return np.where(nl > 0, self.legal[np.arange(self.num_envs), pick], 0)
