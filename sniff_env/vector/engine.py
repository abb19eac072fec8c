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

The engine makes no policy about finished games; :class:`sniff_env.envs.batch_env.SniffVectorEnv`
adds automatic resets and rewards on top. Code that runs its own kernel over the batch (the
vector envs do) gets what it needs from public members: :attr:`~VectorEngine.games` and
:meth:`~VectorEngine.step_args` (the named structures every stepping kernel starts with,
:mod:`sniff_env.vector.arrays`), :meth:`~VectorEngine.run` (a kernel over the engine's threads),
:meth:`~VectorEngine.check_actions`, :attr:`~VectorEngine.requests` and
:meth:`~VectorEngine.deal_requested`. Code that reads a game asks the engine (:attr:`~VectorEngine.turn`,
:attr:`~VectorEngine.phase` against :data:`PLAY`, :data:`HAND_OVER` and :data:`GAME_OVER`,
:meth:`~VectorEngine.boneyard_range`, :meth:`~VectorEngine.load_info_state`, ...); only the
engine's own package and the compiled players read the state columns of
:mod:`sniff_env.vector.kernels`.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from sniff_env.deal import Deal
from sniff_env.errors import GameOverError, IllegalMoveError
from sniff_env.game import Game, deal_from_dict, forced_lead
from sniff_env.infostate import InfoState
from sniff_env.rules import Rules
from sniff_env.vector import kernels as K
from sniff_env.vector.arrays import DealArrays, EnvArrays, Games, StepArrays, Views
from sniff_env.vector.checks import BatchError, check_memory, int_array, positive_int, rules_value
from sniff_env.vector.tables import Tables, build_tables

DealSpec = dict[str, Any] | Deal
PLAY, HAND_OVER, GAME_OVER = K.PLAY, K.HAND_OVER, K.GAME_OVER
"""Values of :attr:`VectorEngine.phase`, as :class:`sniff_env.game.Phase`: a hand in play, a hand
over (the game goes on: :meth:`VectorEngine.continue_games`), the game over."""
NEXT_HAND, NEW_GAME = K.NEXT_HAND, K.NEW_GAME
"""Values of :attr:`VectorEngine.requests`: deal a game's next hand, or a new game."""
MIN_GAMES_PER_THREAD = 256
"""Below this many games per thread, splitting a batch costs more than it saves."""


def default_threads() -> int:
    """The CPU cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _state_arrays(tables: Tables, B: int) -> dict[str, np.ndarray]:
    """The arrays of the state of ``B`` games (as :class:`VectorEngine` documents them)."""
    n, T, A = tables.rules.num_players, tables.num_tiles, tables.num_actions
    return {
        "S": np.zeros((B, K.NS), np.int64),
        "hands": np.zeros((B, n, T), np.uint8),
        "played": np.full((B, 2 * T), -1, np.int8),  # by tile, then the tiles in play order
        "bone": np.zeros((B, T), np.int64),
        "legal": np.zeros((B, A), np.int16),
        "obs": np.zeros((B, tables.observer.size), np.float32),
        "mask": np.zeros((B, A), np.int8),
        "seeds": np.zeros(B, np.int64),
        "order": np.zeros((B, T), np.int64),
        "leaders": np.full(B, -1, np.int64),
        "request": np.zeros(B, np.int64),
    }


def bytes_per_game(tables: Tables) -> int:
    """The memory one game of a batch takes: its state arrays and its share of the threads'
    scratch arrays (measured on the arrays themselves)."""
    A, T = tables.num_actions, tables.num_tiles
    scratch = sum(a.nbytes for a in K.workspace(1, A, T)) - sum(a.nbytes for a in K.workspace(0, A, T))
    return sum(a.nbytes for a in _state_arrays(tables, 1).values()) + scratch


class VectorEngine:
    """The state of ``num_envs`` games under one rule set, and the two batched transitions."""

    def __init__(
        self,
        rules: Rules,
        num_envs: int,
        max_hands: int | None = None,
        threads: int | None = None,
        max_bytes: int | None = None,
        reserve_per_game: int = 0,
    ) -> None:
        """``max_hands`` as in :class:`sniff_env.game.Game`; ``threads``: how many threads share
        each batched call (default: the usable cores). A batch whose arrays (plus the caller's
        ``reserve_per_game`` bytes a game) would take more than ``max_bytes`` is refused with
        :class:`BatchError` (default limit: see :mod:`sniff_env.vector.checks`)."""
        B = positive_int("num_envs", num_envs)
        threads = None if threads is None else positive_int("threads", threads, " or None")
        self.rules = rules_value(rules)
        self.tables: Tables = build_tables(rules, max_hands)
        check_memory(B, bytes_per_game(self.tables) + reserve_per_game, max_bytes)
        self.num_envs = B
        T, A = self.tables.num_tiles, self.tables.num_actions
        self.num_actions = A
        self.obs_size = self.tables.observer.size
        arrays = _state_arrays(self.tables, B)
        self.S = arrays["S"]
        """Per-game scalars; columns are the ``kernels`` constants (``TURN``, ``SCORES``...)."""
        self.hands = arrays["hands"]
        self._played = arrays["played"]
        self.played_by = self._played[:, :T]
        """``played_by[b, t]``: the seat that played tile ``t`` this hand, -1 if none."""
        self.bone = arrays["bone"]
        self.legal = arrays["legal"]
        """``legal[b, :S[b, NLEGAL]]``: the legal actions of game ``b`` (unsorted)."""
        self._obs = arrays["obs"]
        block = self.tables.observer.pieces["rules"]
        self._obs[:, block.start : block.stop] = self.tables.rules_vec  # constant: the kernels keep it
        self._mask = arrays["mask"]
        self.obs = _read_only(self._obs)
        """``[B, obs_size]``: the observation of the seat to act in each game (read-only: the
        kernels update it in place, so it is only valid until the next call)."""
        self.mask = _read_only(self._mask)
        """``[B, num_actions]``: the action mask of the seat to act in each game (read-only)."""
        self.seeds = arrays["seeds"]
        self._order = arrays["order"]
        self._leaders = arrays["leaders"]
        self._request = arrays["request"]
        self.games = Games(self.S, self.hands, self._played, self.bone, self.legal)
        """The state as the kernels take it (:class:`sniff_env.vector.arrays.Games`; its arrays are
        the engine's own, so a kernel that changes them changes the games)."""
        self._views = Views(self._obs, self._mask, self.tables.kernel_spec, self.tables.rules_vec)
        self._deals = DealArrays(self._request, self.seeds, self._order, self._leaders)
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

    @property
    def num_threads(self) -> int:
        """How many threads share each batched call (1 after :meth:`close`)."""
        return len(self._work)

    def run(self, kernel: Callable[..., int], *args: Any, per_thread: Sequence[Any] | None = None) -> int:
        """``kernel(*args, work, start, stop)`` over the batch cut into one range of games per thread
        (the first on the calling thread), each thread with its own scratch ``work``
        (:func:`kernels.workspace`); with ``per_thread`` (at least :attr:`num_threads` items),
        thread ``i`` also gets ``per_thread[i]`` after ``work``. Returns the sum of what the calls
        return."""
        if per_thread is None and self._pool is None:  # the common case, kept cheap for small batches
            return kernel(*args, self._work[0], 0, self.num_envs)
        own = [()] * len(self._work) if per_thread is None else self._per_thread(per_thread)
        if self._pool is None:
            return kernel(*args, self._work[0], *own[0], 0, self.num_envs)
        futures = [self._pool.submit(kernel, *args, work, *mine, a, b)
                   for work, mine, (a, b) in zip(self._work[1:], own[1:], self._chunks[1:], strict=True)]
        total = kernel(*args, self._work[0], *own[0], *self._chunks[0])
        return total + sum(f.result() for f in futures)

    def _per_thread(self, items: Sequence[Any]) -> list[tuple[Any]]:
        """``items`` as one argument tuple per thread, after checking that there are enough."""
        if not isinstance(items, Sequence) or len(items) < self.num_threads:
            raise BatchError(f"per_thread must be a sequence of at least {self.num_threads} items (one per thread); "
                             f"got {items!r}"[:300])
        return [(item,) for item in items[: self.num_threads]]

    def step_args(self, actions: np.ndarray) -> tuple[Games, Views, Any, np.ndarray]:
        """The arguments every stepping kernel (``kernels.step``, ``kernels.env_step``) starts
        with, for int64 ``actions`` (:meth:`check_actions`): :attr:`games`, the observation
        buffers the kernel rewrites and their spec (:class:`~sniff_env.vector.arrays.Views`), the rules as data
        (:class:`~sniff_env.vector.arrays.RuleTables`) and ``actions``. Pass them to compiled
        kernels only: the observation and mask here are the engine's writable buffers behind
        :attr:`obs` and :attr:`mask`."""
        return self.games, self._views, self.tables.arrays, actions

    @property
    def requests(self) -> np.ndarray:
        """``[B]`` int64: what :meth:`deal_requested` deals in each game: 0 nothing,
        ``kernels.NEXT_HAND`` its next hand, ``kernels.NEW_GAME`` a new game with its seed in
        :attr:`seeds`. ``kernels.env_step`` sets it where a hand ends; a caller may set
        ``NEW_GAME`` where it ends a game early."""
        return self._request

    def env_arrays(self, reward_per_game: bool, episode_per_hand: bool, side_of_seat: np.ndarray,
                   hand_start: np.ndarray) -> EnvArrays:
        """The vector env's argument of ``kernels.env_step`` after :meth:`step_args`: rewards per
        game (else per point), episodes per hand (else per game), each seat's side (int64), the
        scores at each game's hand start (``[B, num_sides]`` int64, which the kernel updates), and
        the engine's :attr:`seeds` and :attr:`requests`."""
        mode = (K.REWARD_GAME if reward_per_game else 0) | (K.EPISODE_HAND if episode_per_hand else 0)
        return EnvArrays(mode, side_of_seat, hand_start, self.seeds, self._request)

    def scratch_games(self, count: int) -> Games:
        """``count`` games of this engine's shapes, apart from its batch (zeros, no tile played):
        a copy for a kernel to play or encode on without touching the batch."""
        return K.new_state(count, self.rules.num_players, self.tables.num_tiles, self.num_actions)

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
    def hand_sizes(self) -> np.ndarray:
        """``[B, num_players]`` view of the tiles in each seat's hand."""
        return self.S[:, K.HAND_COUNT : K.HAND_COUNT + self.rules.num_players]

    @property
    def drawable(self) -> np.ndarray:
        """``[B]``: the tiles each game can still draw (its boneyard less the reserve, as
        :attr:`sniff_env.game.Game.drawable`)."""
        return np.maximum(0, self.S[:, K.BONE_LEN] - self.S[:, K.BONE_POS] - self.rules.boneyard_reserve)

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

    @property
    def count(self) -> np.ndarray:
        """The count of the layout (what its ends add up to) in each game."""
        return self.S[:, K.COUNT]

    @property
    def end_pips(self) -> np.ndarray:
        """``[B, 4]``: the pip of each end (west, east, north, south; 0 where there is none)."""
        return self.S[:, K.END_PIP : K.END_PIP + 4]

    @property
    def end_open(self) -> np.ndarray:
        """``[B, 4]``: 1 where an end can be played on now."""
        return self.S[:, K.END_OPEN : K.END_OPEN + 4]

    @property
    def sniff_tile(self) -> np.ndarray:
        """The sniff of each game's layout, -1 before there is one."""
        return self.S[:, K.SNIFF_TILE]

    def plays(self, game: int) -> np.ndarray:
        """The tiles played this hand in game ``game``, in play order."""
        T = self.tables.num_tiles
        return self._played[game, T : T + self.S[game, K.NPLAYS]]

    def boneyard_range(self, game: int) -> tuple[int, int]:
        """``first, end``: the places of :attr:`bone` that game ``game`` still draws from (the
        reserve that is never drawn included)."""
        return int(self.S[game, K.BONE_POS]), int(self.S[game, K.BONE_LEN])

    @property
    def boneyard_first(self) -> np.ndarray:
        """``[B]``: where each game's next draw comes from in :attr:`bone` (:meth:`boneyard_range`)."""
        return self.S[:, K.BONE_POS]

    @property
    def boneyard_end(self) -> np.ndarray:
        """``[B]``: the end of each game's boneyard in :attr:`bone`."""
        return self.S[:, K.BONE_LEN]

    def in_play(self) -> np.ndarray:
        """The games whose hand is in play."""
        return np.flatnonzero(self.S[:, K.PHASE] == K.PLAY)

    def keep_moves(self, game: int, actions: np.ndarray) -> None:
        """Make ``actions`` (legal in game ``game``) its only legal moves, for a search of it."""
        self.legal[game, : actions.size] = actions
        self.S[game, K.NLEGAL] = actions.size

    def load_info_state(self, state: InfoState, game: int = 0) -> None:
        """Write ``state`` into game ``game``: the public layout, the seat's own hand, hand sizes,
        known missing pips, scores and legal actions; other hands empty, and a boneyard of the
        right size whose tiles are unknown (a search deals them, see
        :class:`sniff_env.players.compiled.rollouts.RolloutSearch`). The observation is not written."""
        rules, T = state.rules, self.tables.num_tiles
        S = self.S[game]
        S[:] = 0
        S[K.TURN], S[K.LEADER], S[K.COUNT], S[K.PASSES] = state.turn, state.leader, state.count, state.passes
        S[K.DRAWN], S[K.LAST_DRAWN] = state.drawn_this_turn, state.last_drawn
        S[K.SNIFF_TILE], S[K.SNIFF_PENDING] = state.sniff_tile, state.sniff_pending
        S[K.BONE_POS], S[K.BONE_LEN] = 0, state.boneyard_size
        S[K.NPLAYS], S[K.HAND_INDEX], S[K.PHASE] = len(state.plays), state.hand_index, K.PLAY
        S[K.FORCED_LEAD] = int(forced_lead(rules, state.hand_index))
        S[K.LAST_DOMINO], S[K.WINNER] = -1, -1
        S[K.NLEGAL] = len(state.legal)
        for e in range(4):
            S[K.END_PIP + e], S[K.END_VAL + e], S[K.END_OPEN + e] = state.end_pip[e], state.end_val[e], state.end_open[e]
        for s in range(rules.num_players):
            S[K.LACKING + s], S[K.HAND_COUNT + s] = state.lacking[s], state.hand_sizes[s]
        for side in range(rules.num_sides):
            S[K.SCORES + side] = state.scores[side]
        self.hands[game] = 0
        self.hands[game, state.seat] = [(state.hand >> t) & 1 for t in range(T)]
        played = self._played[game]
        played[:] = -1
        for i, (tile, seat, _slot) in enumerate(state.plays):
            played[tile] = seat
            played[T + i] = tile
        self.bone[game] = 0
        self.legal[game, : len(state.legal)] = state.legal

    # -- transitions -------------------------------------------------------------------------
    def deal(
        self,
        games: np.ndarray | Sequence[int],
        new_game: bool | np.ndarray,
        seeds: Sequence[int] | np.ndarray | None = None,
        deals: Sequence[DealSpec | None] | None = None,
    ) -> None:
        """Deal the next hand of each game in ``games`` (distinct indices), or with ``new_game`` (a
        bool, or one per game) the first hand of a new game with seed ``seeds[i]``; ``deals[i]``
        (new games only) scripts that first hand as :func:`sniff_env.game.new_game` accepts it.
        Everything is checked before any game changes: a bad argument raises :class:`BatchError`
        (a bad deal :class:`DealError`), the next hand of a game in play or over
        :class:`GameOverError`."""
        games = self._game_indices(games)
        fresh = np.asarray(new_game)
        if fresh.dtype != np.bool_ or fresh.shape not in ((), games.shape):
            raise BatchError(f"new_game must be a bool or {games.size} bools (one per game); got {new_game!r}")
        fresh = np.broadcast_to(fresh, games.shape)
        new_seeds = self.seeds[games] if seeds is None else int_array("seeds", seeds, games.size, seeds=True)
        scripts = [] if deals is None else self._scripts(games, fresh, new_seeds, deals)
        playing = games[~fresh][self.phase[games[~fresh]] != K.HAND_OVER]
        if playing.size:
            raise GameOverError(f"game {playing[0]} has a hand in play or is over: start a new game there "
                                "(new_game) instead of its next hand")
        self.seeds[games[fresh]] = new_seeds[fresh]
        request = self._request
        request[:] = 0
        request[games] = np.where(fresh, K.NEW_GAME, K.NEXT_HAND)
        for b, tiles, leader in scripts:
            request[b] |= K.SCRIPTED
            self._order[b, : len(tiles)] = tiles
            self._leaders[b] = leader
        self.deal_requested()

    def _game_indices(self, games: np.ndarray | Sequence[int]) -> np.ndarray:
        """``games`` as int64 indices after checking that they are distinct games of the batch."""
        games = int_array("games", games, None)
        if games.size and (games.min() < 0 or games.max() >= self.num_envs or np.unique(games).size < games.size):
            raise BatchError(f"games must be distinct indices 0..{self.num_envs - 1}; got {games.tolist()}")
        return games

    def _scripts(self, games: np.ndarray, fresh: np.ndarray, seeds: np.ndarray,
                 deals: Sequence[DealSpec | None]) -> list[tuple[int, list[int], int]]:
        """For each scripted deal: its game, its tiles in deal order (hands, then boneyard) and its
        leader, each checked as :func:`sniff_env.game.new_game` checks a deal."""
        if isinstance(deals, (str, bytes, dict, Deal)) or not isinstance(deals, Sequence) or len(deals) != games.size:
            raise BatchError(f"deals must be a list of {games.size} deals or None (one per game); got {deals!r}"[:300])
        scripts = []
        for i, spec in enumerate(deals):
            if spec is None:
                continue
            if not fresh[i]:
                raise BatchError(f"deals[{i}]: a scripted deal can only start a new game (new_game)")
            game = Game(self.rules, seed=int(seeds[i]), record=False)
            if isinstance(spec, Deal):  # checked as the same deal written out
                spec = {"hands": [list(h) for h in spec.hands], "boneyard": list(spec.boneyard), "leader": spec.leader}
            deal = deal_from_dict(game, spec)
            tiles = [t for hand in deal.hands for t in hand] + list(deal.boneyard)
            scripts.append((int(games[i]), tiles, deal.leader))
        return scripts

    def set_positions(self, position: VectorEngine, game: int, hands: np.ndarray, bone: np.ndarray) -> None:
        """Make every game of this engine game ``game`` of ``position`` (an engine of the same rules)
        with the hidden tiles of a deal of its own: every hand ``hands[b]`` (``[B, players, tiles]``)
        and the boneyard ``bone[b]`` (``[B, tiles]``, at the places ``position``'s game draws from).
        The seat to act has the legal moves of ``position``'s game in its mask; its observation
        holds the rules block only, until a step encodes the next. A deal that does not hold
        each tile exactly once, with those played, raises :class:`BatchError` before any game changes."""
        if position.rules != self.rules:
            raise BatchError("set_positions copies a game of an engine of the same rules")
        B, n, T = self.num_envs, self.rules.num_players, self.tables.num_tiles
        hands, bone = np.asarray(hands), np.asarray(bone)
        if hands.shape != (B, n, T) or bone.shape != (B, T):
            raise BatchError(f"hands must be [{B}, {n}, {T}] and bone [{B}, {T}]; got {list(hands.shape)} and "
                             f"{list(bone.shape)}")
        first, end = int(position.S[game, K.BONE_POS]), int(position.S[game, K.BONE_LEN])
        count = hands.astype(np.int64).sum(axis=1) + (position.played_by[game] >= 0)
        drawable = bone[:, first:end]
        if drawable.size and (drawable.min() < 0 or drawable.max() >= T):
            raise BatchError(f"boneyard tiles must be 0..{T - 1}")
        np.add.at(count, (np.repeat(np.arange(B), end - first), drawable.reshape(-1)), 1)
        bad = np.flatnonzero((count != 1).any(axis=1))
        if bad.size:
            raise BatchError(f"game {bad[0]}: its hands, boneyard and the tiles played must hold each tile once; "
                             f"tiles held {count[bad[0]].tolist()} times")
        nlegal = int(position.S[game, K.NLEGAL])
        legal = position.legal[game, :nlegal]
        self.S[:] = position.S[game]
        self.S[:, K.SHOWN] = nlegal  # the mask shows these: the next step clears them
        self._played[:] = position.play_record[game]
        self.hands[:] = hands
        self.bone[:] = bone
        self.legal[:, :nlegal] = legal
        block = self.tables.observer.pieces["rules"]
        self._obs[:] = 0
        self._obs[:, block.start : block.stop] = self.tables.rules_vec
        self._mask[:] = 0
        self._mask[:, legal] = 1

    def continue_games(self) -> np.ndarray:
        """Deal the next hand of every game whose hand is over; return the games now in play
        (empty once every game is over)."""
        over = np.flatnonzero(self.phase == K.HAND_OVER)
        if over.size:
            self.deal(over, False)
        return np.flatnonzero(self.phase == K.PLAY)

    def deal_requested(self) -> None:
        """Deal what :attr:`requests` asks for, unchecked (the seeds of new games already in
        :attr:`seeds`), then clear the requests; :meth:`deal` is the checked way."""
        self.run(K.deal, self.games, self._views, self.tables.arrays, self._deals)
        self._request[:] = 0

    def step(self, actions: np.ndarray) -> None:
        """One decision per game in play (games not in play ignore their entry). An illegal
        action raises :class:`IllegalMoveError` before any game changes."""
        self.run(K.step, *self.step_args(self.check_actions(actions)))

    def env_step(self, actions: np.ndarray, env: EnvArrays, out: StepArrays) -> int:
        """``kernels.env_step`` over the batch for checked ``actions`` (:meth:`check_actions`): the
        step with a vector env's bookkeeping (``env``: :meth:`env_arrays`), its results in ``out``;
        returns how many hands ended (:attr:`requests` says where)."""
        return self.run(K.env_step, *self.step_args(actions), env, out)

    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """``actions`` as int64, after checking that they are ``num_envs`` whole numbers
        (:class:`BatchError`) and that every game in play got a legal one (:class:`IllegalMoveError`)."""
        actions = int_array("actions", actions, self.num_envs)
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
        if not isinstance(rng, np.random.Generator):
            raise BatchError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)); got {rng!r}")
        out = np.empty(self.num_envs, self.legal.dtype)
        K.sample_actions(self.S, self.legal, rng.random(self.num_envs), out)
        return out


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view
