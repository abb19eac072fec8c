"""A batch of independent Sniff games stepped together by compiled kernels.

:class:`VectorEngine` holds the state of ``num_envs`` games as arrays and moves all of them at
once: :meth:`~VectorEngine.step` applies one decision per game (plus the forced draws and
passes that follow), :meth:`~VectorEngine.deal` starts the next hand or a new game where asked.
After either call, :attr:`~VectorEngine.obs` and :attr:`~VectorEngine.mask` hold, for every game
in play, exactly ``Observer(rules).encode(info_state(game, seat))`` and ``Observer.mask`` of the
seat to act; both are read-only views, since the kernels update them in place. Deals follow the
reference engine's seeds: hand ``h`` of the game with seed ``s`` is drawn from
``random.Random(f"sniff:{s}:{h}")`` (re-done in compiled code). Each call splits the batch into
one range of games per thread.

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
        self._played = np.full((B, 2 * T), -1, np.int8)  # by tile, then the tiles in play order
        self.played_by = self._played[:, :T]
        """``played_by[b, t]``: the seat that played tile ``t`` this hand, -1 if none."""
        self.bone = np.zeros((B, T), np.int64)
        self.legal = np.zeros((B, A), np.int16)
        """``legal[b, :S[b, NLEGAL]]``: the legal actions of game ``b`` (unsorted)."""
        self._obs = np.zeros((B, self.obs_size), np.float32)
        block = self.tables.observer.pieces["rules"]
        self._obs[:, block.start : block.stop] = self.tables.rules_vec  # constant: the kernels keep it
        self._mask = np.zeros((B, A), np.int8)
        self.obs = _read_only(self._obs)
        """``[B, obs_size]``: the observation of the seat to act in each game (read-only: the
        kernels update it in place, so it is only valid until the next call)."""
        self.mask = _read_only(self._mask)
        """``[B, num_actions]``: the action mask of the seat to act in each game (read-only)."""
        self.seeds = np.zeros(B, np.int64)
        self._order = np.zeros((B, T), np.int64)
        self._leaders = np.full(B, -1, np.int64)
        self._request = np.zeros(B, np.int64)
        self._args = self.tables.kernel_args()
        n_threads = max(1, min(threads or default_threads(), B // MIN_GAMES_PER_THREAD))
        bounds = np.linspace(0, B, n_threads + 1).astype(int).tolist()
        self._chunks = list(itertools.pairwise(bounds))
        self._work = [K.workspace(b - a, A, T) for a, b in self._chunks]
        """Scratch arrays for each thread (the calling thread's first) and its range of games."""
        self._pool = ThreadPoolExecutor(n_threads - 1) if n_threads > 1 else None

    def close(self) -> None:
        """Stop the worker threads (the engine stays usable, single-threaded)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
            self._work = [K.workspace(self.num_envs, self.num_actions, self.tables.num_tiles)]

    def _run(self, kernel: Callable[..., int], *args: Any) -> int:
        """``kernel(*args, work, start, stop)`` over the batch cut into one range of games per thread
        (the first on this thread), each thread with its own ``work``; the sum of what they return."""
        if self._pool is None:
            return kernel(*args, self._work[0], 0, self.num_envs)
        pieces = zip(self._work[1:], self._chunks[1:], strict=True)
        futures = [self._pool.submit(kernel, *args, work, a, b) for work, (a, b) in pieces]
        total = kernel(*args, self._work[0], *self._chunks[0])
        return total + sum(f.result() for f in futures)

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
    def play_record(self) -> np.ndarray:
        """``[B, 2T]``: ``played_by`` followed by the tiles of the hand in play order (the first
        ``S[b, NPLAYS]`` of them), as the kernels keep them."""
        return self._played

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
        self._deal_requested()

    def continue_games(self) -> np.ndarray:
        """Deal the next hand of every game whose hand is over; return the games now in play
        (empty once every game is over)."""
        over = np.flatnonzero(self.phase == K.HAND_OVER)
        if over.size:
            self.deal(over, False)
        return np.flatnonzero(self.phase == K.PLAY)

    def _deal_requested(self) -> None:
        """``deal`` for the games whose ``_request`` is set (seeds already in place)."""
        self._run(K.deal, self.S, self.hands, self._played, self.bone, *self._args, self._request,
                  self.seeds, self._order, self._leaders, self.legal, self._obs, self._mask)

    def _script(self, b: int, spec: DealSpec) -> None:
        game = Game(self.rules, seed=int(self.seeds[b]), record=False)
        deal = spec if isinstance(spec, Deal) else deal_from_dict(game, spec)
        tiles = [t for hand in deal.hands for t in hand] + list(deal.boneyard)
        self._order[b, : len(tiles)] = tiles
        self._leaders[b] = deal.leader

    def step(self, actions: np.ndarray) -> None:
        """One decision per game in play (games not in play ignore their entry). An illegal
        action raises :class:`IllegalMoveError` before any game changes."""
        actions = self._checked(actions)
        self._run(K.step, self.S, self.hands, self._played, self.bone, *self._args, actions, self.legal,
                  self._obs, self._mask)

    def _checked(self, actions: np.ndarray) -> np.ndarray:
        """``actions`` as int64, after checking that every game in play got a legal one."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},); got {actions.shape}")
        actions = np.ascontiguousarray(actions, np.int64)
        bad = K.first_illegal(self.S, self._mask, actions)
        if bad >= 0:
            self._raise_illegal(bad, int(actions[bad]))
        return actions

    def _raise_illegal(self, b: int, action: int) -> None:
        codec = self.tables.observer.codec
        legal = tuple(sorted(int(a) for a in self.legal[b, : self.S[b, K.NLEGAL]]))
        what = f"action {action} ({codec.describe(action)})" if 0 <= action < self.num_actions else (
            f"action {action} (actions are 0..{self.num_actions - 1})")
        raise IllegalMoveError(
            f"game {b}: {what} is not legal for seat {self.S[b, K.TURN]}; legal: {list(legal)}", action, legal
        )

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every game in play (0 elsewhere), as int16."""
        out = np.empty(self.num_envs, self.legal.dtype)
        K.sample_actions(self.S, self.legal, rng.random(self.num_envs), out)
        return out


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view
