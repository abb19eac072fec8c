"""Determinized rollout search, compiled: the heuristic player improved by playing each move out.

For the seat to act, each sample deals the tiles it cannot see (the other hands, of their known
sizes and without the pips each seat is known to lack where the pool allows, and the boneyard in
a random order); every legal move is then played on that same deal and the hand is played out
by the heuristic player in every seat. A move's value is the mean, over the samples, of the
points its side gains to the end of the hand less what the other sides gain (the mean of them);
the search plays the best (ties: the lowest action). With ``value="win"`` (two sides) a playout is
worth instead the chance of winning the game from the scores it ended on
(:mod:`sniff_env.players.compiled.win_odds`). Given evidence (:mod:`sniff_env.players.beliefs`), a deal is kept
with the likelihood of the others' plays under it, so the deals follow the posterior of a model
of how they play. Only what the seat may know is read: its
own hand, the tiles played, the layout, the hand sizes, the known missing pips and the
boneyard's size; the hidden tiles of the real game are never looked at.

Randomness comes from an explicit 64-bit state (splitmix64) that the caller seeds.

This module holds the search's entry points; its parts live beside it, each named for what it
holds: the deals (:mod:`.deals`), the playouts and their values (:mod:`.playouts`), the exact
endgame (:mod:`.endgame`) and the random numbers (:mod:`.splitmix`). Their public names are
re-exported here.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from sniff_env.players.beliefs import Evidence, no_evidence
from sniff_env.players.compiled.baselines import weight_vector
from sniff_env.players.compiled.deals import Seen, determinize, plausible_deal, sample_deals
from sniff_env.players.compiled.endgame import (
    SOLVE_MOST,
    SolverSpace,
    checked_solve,
    solve_each,
    solver_space,
    tiles_to_play,
)
from sniff_env.players.compiled.playouts import (
    MARGIN_WEIGHT,
    NO_ODDS,
    RolloutSpace,
    play_each,
    play_each_reply,
    rollout_value,
    value_odds,
    values_at,
    workspace,
)
from sniff_env.players.compiled.splitmix import mix64, shuffle
from sniff_env.players.specs import MAX_SAMPLES, MAX_THREADS
from sniff_env.players.strategy import Weights
from sniff_env.vector import compiled
from sniff_env.vector.arrays import Games, RuleTables
from sniff_env.vector.checks import positive_int
from sniff_env.vector.engine import VectorEngine
from sniff_env.vector.kernels import BONE_LEN, BONE_POS, NLEGAL, P_N, P_T

__all__ = [
    "DEPTHS", "MARGIN_WEIGHT", "NO_ODDS", "NO_SEEDS", "SOLVE_MOST", "VALUES", "HindsightValues", "RolloutSearch",
    "SearchOptions", "best_action", "checked_depth", "checked_solve", "checked_threads", "checked_value",
    "determinize", "hindsight_values", "rollout_value", "rollout_values", "sample_deals",
    "solver_space", "stream_seeds", "value_odds", "values_at", "workspace",
]

_jit = compiled()

VALUES = ("margin", "win")
"""What a playout may be worth (see :class:`RolloutSearch`)."""


class SearchOptions(NamedTuple):
    """How a search values the moves of one choice (:func:`rollout_values`)."""

    W: np.ndarray
    """The heuristic's weights in the playouts (:func:`~sniff_env.players.compiled.baselines.weight_vector`)."""
    samples: int
    """Deals per choice."""
    odds: np.ndarray
    """With ``low``, what a playout is worth (:func:`~sniff_env.players.compiled.playouts.value_odds`)."""
    low: int
    depth: int
    """1: the heuristic plays on after the move; 2: each reply of another side is played out too."""
    solve: int
    """Tiles still to play at or below which each deal's hand is solved exactly (0: never)."""


@_jit
def rollout_values(games: Games, rules: RuleTables, b: int, options: SearchOptions, rng: np.ndarray,
                   work: RolloutSpace, stack: SolverSpace, seen: Seen, totals: np.ndarray) -> None:
    """``totals[j]``: the summed value of ``games.legal[b, j]`` over ``options.samples`` deals (see
    the module). ``work`` is :func:`workspace`'s; ``seen`` the
    :class:`~sniff_env.players.beliefs.Evidence` each deal is kept with the likelihood of (of up
    to :data:`~sniff_env.players.compiled.deals.MAX_TRIES` deals, the last is kept). Where at most
    ``options.solve`` tiles are still to play, each deal's hand is solved
    (:func:`~sniff_env.players.compiled.endgame.solve_each`, ``stack`` of :func:`solver_space`)
    instead of played out."""
    S, odds, low = games.S, options.odds, options.low
    for j in range(S[b, NLEGAL]):
        totals[j] = 0.0
    solving = options.solve > 0 and tiles_to_play(S, b, rules.P) <= options.solve
    stored = 0
    for _ in range(options.samples):
        plausible_deal(games, rules, b, rng, work, seen)
        if solving:
            stored = solve_each(games, rules, b, work, stack, totals, odds, low, stored)
        elif options.depth == 2:
            play_each_reply(games, rules, b, options.W, work, totals, odds, low)
        else:
            play_each(games, rules, b, options.W, work, totals, odds, low)


@_jit
def hindsight_values(games: Games, rules: RuleTables, ids: np.ndarray, W: np.ndarray, work: RolloutSpace,
                     totals: np.ndarray, no_odds: np.ndarray, shuffles: int, rng: np.ndarray, q: np.ndarray) -> None:
    """``q[i, a]``: the margin of action ``a`` in game ``ids[i]`` played on the game's real deal
    (every hand and the boneyard as they are) with the hand played out by the heuristic; ``-inf``
    where illegal (``no_odds`` is :data:`NO_ODDS`). With ``shuffles`` above 0, the mean margin over that many deals of the real
    hands and the boneyard's tiles in a random order. It reads the hidden tiles: a training
    target or a yardstick, never a player."""
    S, hands, bone, legal, P = games.S, games.hands, games.bone, games.legal, rules.P
    DH, DB = work.deal_hands, work.deal_bone
    T, n = P[P_T], P[P_N]
    for i in range(ids.size):
        b = ids[i]
        for a in range(q.shape[1]):
            q[i, a] = -np.inf
        for j in range(S[b, NLEGAL]):
            totals[j] = 0.0
        for s in range(n):  # the playouts read the deal, never write it
            for t in range(T):
                DH[0, s, t] = hands[b, s, t]
        first, end = S[b, BONE_POS], S[b, BONE_LEN]
        for _ in range(max(shuffles, 1)):
            for t in range(T):
                DB[0, t] = bone[b, t]
            if shuffles:  # the tiles still to draw in tile order, then shuffled: blind to the real order
                for k in range(first + 1, end):
                    v, j = DB[0, k], k - 1
                    while j >= first and DB[0, j] > v:
                        DB[0, j + 1] = DB[0, j]
                        j -= 1
                    DB[0, j + 1] = v
                shuffle(DB[0], first, end, rng)
            play_each(games, rules, b, W, work, totals, no_odds, 0)
        for j in range(S[b, NLEGAL]):
            q[i, legal[b, j]] = totals[j] / max(shuffles, 1)


def best_action(legal: np.ndarray, totals: np.ndarray) -> int:
    """The legal action of the highest total (``totals[j]`` for ``legal[j]``), the lowest action among ties."""
    return int(legal[totals == totals.max()].min())


def checked_value(value: object) -> str:
    """``value`` if it is one of :data:`VALUES`, else a ValueError listing them."""
    if value not in VALUES:
        raise ValueError(f"value must be one of {', '.join(map(repr, VALUES))}; got {value!r}")
    return str(value)


DEPTHS = (1, 2)
"""How many plies a search weighs before the heuristic plays on (see :class:`RolloutSearch`)."""


def checked_depth(depth: object) -> int:
    """``depth`` if it is one of :data:`DEPTHS`, else a ValueError listing them."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth not in DEPTHS:
        raise ValueError(f"depth must be one of {', '.join(map(str, DEPTHS))}; got {depth!r}")
    return depth


NO_SEEDS = np.zeros(0, np.uint64)
"""No streams of the games' own: :func:`search_actions` draws every game's deals from one stream."""
def checked_threads(threads: object) -> int:
    """``threads`` if it is a whole number from 0 to :data:`MAX_THREADS`, else a ValueError saying what is allowed."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= MAX_THREADS:
        raise ValueError(f"threads must be 0 (one stream of draws for all the games, on the calling thread) or a "
                         f"whole number of threads up to {MAX_THREADS} (each game its own stream of draws); "
                         f"got {threads!r}")
    return threads


def stream_seeds(seed: int, call: int, games: np.ndarray) -> np.ndarray:
    """The first state of each game's stream of draws at a search's ``call``-th choice
    (splitmix64's finaliser of the seed, the call and the game's index): what a game draws
    depends on neither the other games searched with it nor the threads searching them."""
    with np.errstate(over="ignore"):
        z = (np.uint64(seed & (2**64 - 1)) + np.uint64(call) * np.uint64(0xD1B54A32D192ED03)
             + np.asarray(games, np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        return np.ascontiguousarray(mix64(z), np.uint64)


class RolloutSearch:
    """Search choices for games of one :class:`VectorEngine` (see the module)."""

    def __init__(self, engine: VectorEngine, samples: int = 32, seed: int = 0, weights: Weights | None = None,
                 value: str = "margin", depth: int = 1, solve: int = 0, threads: int = 0) -> None:
        """``value``: what a playout is worth, ``"margin"`` (the hand's points, the side's less the
        others') or ``"win"`` (the chance of winning the game from the scores it ends on, see
        :func:`rollout_value`; two sides only). ``depth``: 1, the heuristic plays from the move on;
        2, every reply of the next seat, where it is another side's, is played out on each deal
        and the move is worth its least (:func:`~sniff_env.players.compiled.playouts.play_each_reply`). ``solve``: where at most that
        many tiles are still to play (held, and still to be drawn), each deal's hand is solved
        exactly instead of played out, every seat seeing the deal and playing its best
        (:func:`~sniff_env.players.compiled.endgame.solved_value`; two sides only, at most :data:`SOLVE_MOST`). ``threads``: 0, the
        games of a call to :meth:`actions` draw their deals in turn from one stream, on the calling
        thread; N, each game draws from a stream of its own (:func:`stream_seeds`) and the games
        are spread over N threads, so the moves are the same for any N."""
        self.engine, self.samples, self.value = engine, positive_int("samples", samples, most=MAX_SAMPLES), checked_value(value)
        self.threads, self._seed, self._calls = checked_threads(threads), seed, 0
        self._pool = ThreadPoolExecutor(threads - 1) if threads > 1 else None
        self.depth, self.solve = checked_depth(depth), checked_solve(solve, engine.rules.num_sides)
        self._stack = solver_space(engine, self.solve)
        self._odds, self._low = value_odds(engine.rules, value)
        self._w = weight_vector(weights or Weights())
        self._rng = np.array([seed & (2**64 - 1)], np.uint64)
        self._work = workspace(engine)
        self._totals = np.zeros(engine.num_actions, np.float64)
        nothing = no_evidence(engine.tables.num_tiles)
        self._nothing = (nothing.seats, nothing.known, nothing.odds)
        # each thread's own generator, scratch space, totals and solver stack; the first the calling thread's
        self._lanes = [(self._rng, self._work, self._totals, self._stack)] + [
            (np.zeros(1, np.uint64), workspace(engine), np.zeros(engine.num_actions, np.float64),
             solver_space(engine, self.solve)) for _ in range(max(0, threads - 1))]

    def actions(self, games: np.ndarray, evidence: Evidence | None = None) -> np.ndarray:
        """The search's action in each of ``games`` (indices of games in play); ``evidence``
        (:func:`sniff_env.players.beliefs.evidence`, one game only) weighs the deals it samples."""
        games = np.ascontiguousarray(games, np.int64)
        out = np.zeros(games.size, np.int64)
        seen = self._seen(evidence, games.size)
        self._spread(games, lambda part, seeds, lane, at: self._search(part, seeds, seen, lane, out, at))
        return out

    def q_values_each(self, games: np.ndarray, deals: np.ndarray) -> np.ndarray:
        """``[len(games), num_actions]``: the mean value of every action in each game, ``-inf`` where
        illegal, game ``games[i]`` valued on ``deals[i]`` deals (each at least 1; a single legal
        action is searched too). The games draw as for :meth:`actions`: in turn from one stream
        without threads (so one game on ``samples`` deals draws as :meth:`q_values` does), else
        each from a stream of its own, spread over the threads."""
        eng = self.engine
        games = np.ascontiguousarray(games, np.int64)
        deals = np.asarray(deals, np.int64)
        if deals.shape != games.shape or (deals < 1).any() or (deals > MAX_SAMPLES).any():
            raise ValueError(f"deals must give each of the {games.size} games 1 to {MAX_SAMPLES} deals; got {deals!r}")
        q = np.full((games.size, eng.num_actions), -np.inf)

        def value(part: np.ndarray, seeds: np.ndarray, lane: tuple[Any, ...], at: np.ndarray) -> None:
            rng, work, totals, stack = lane
            for j, (i, b) in enumerate(zip(at.tolist(), part.tolist(), strict=True)):
                if seeds.size:
                    rng[0] = seeds[j]
                self._values(b, self._nothing, rng, work, totals, stack, int(deals[i]))
                k = int(eng.S[b, NLEGAL])
                q[i, eng.legal[b, :k]] = totals[:k] / deals[i]

        self._spread(games, value)
        return q

    def _spread(self, games: np.ndarray, work: Any) -> None:
        """Run ``work(part, seeds, lane, at)`` over ``games``: without threads, once for all of them
        on the calling thread's lane with no seeds of their own (:data:`NO_SEEDS`); with threads,
        every k-th game to one of k lanes (long and short searches mix), each game seeded with its
        own stream (:func:`stream_seeds`). ``at``: the places in ``games`` of the part's games."""
        if not self.threads:
            work(games, NO_SEEDS, self._lanes[0], np.arange(games.size))
            return
        seeds = stream_seeds(self._seed, self._calls, games)
        self._calls += 1
        lanes = self._lanes[: max(1, min(self.threads, games.size))]
        k = len(lanes)
        places = [np.arange(i, games.size, k) for i in range(k)]
        parts = [(np.ascontiguousarray(games[at]), np.ascontiguousarray(seeds[at]), at) for at in places]
        futures = [self._pool.submit(work, part, own, lane, at)  # type: ignore[union-attr]
                   for (part, own, at), lane in zip(parts[1:], lanes[1:], strict=True)]
        work(*parts[0][:2], lanes[0], parts[0][2])
        for f in futures:
            f.result()

    def _search(self, games: np.ndarray, seeds: np.ndarray, seen: Seen,
                lane: tuple[Any, ...], out: np.ndarray, at: np.ndarray) -> None:
        """The search's action for each of ``games`` into ``out[at]``, with one thread's generator,
        scratch, totals and stack: a single legal action is played without searching; with
        ``seeds`` (one per game; empty: none), game ``i``'s deals come from a stream of its own
        that starts at ``seeds[i]``, else the games draw in turn from the lane's generator. A
        loop over :func:`rollout_values`, which releases the GIL: one compiled search serves
        every way of calling it."""
        rng, work, totals, stack = lane
        eng = self.engine
        for i, b in enumerate(games.tolist()):
            k = int(eng.S[b, NLEGAL])
            if k == 1:
                out[at[i]] = eng.legal[b, 0]
                continue
            if seeds.size:
                rng[0] = seeds[i]
            self._values(b, seen, rng, work, totals, stack)
            out[at[i]] = best_action(eng.legal[b, :k], totals[:k])

    def _values(self, b: int, seen: Seen, rng: np.ndarray, work: RolloutSpace, totals: np.ndarray,
                stack: SolverSpace, samples: int = 0) -> None:
        """:func:`rollout_values` of game ``b`` into ``totals`` (the summed value of each legal action),
        on ``samples`` deals (0: :attr:`samples`, as it is now: a caller may change it between calls)."""
        eng = self.engine
        options = SearchOptions(self._w, samples or self.samples, self._odds, self._low, self.depth, self.solve)
        rollout_values(eng.games, eng.tables.arrays, b, options, rng, work, stack, seen, totals)

    def q_values(self, games: np.ndarray, evidence: Evidence | None = None) -> np.ndarray:
        """``[len(games), num_actions]``: the mean value (``value``) of every action in each game, ``-inf``
        where illegal (a single legal action is searched too). Its argmax, lowest action first,
        is :meth:`actions`' choice where there is more than one legal action. ``evidence`` as
        for :meth:`actions`."""
        eng = self.engine
        games = np.ascontiguousarray(games, np.int64)
        q = np.full((games.size, eng.num_actions), -np.inf)
        seen = self._seen(evidence, games.size)
        for i, b in enumerate(games.tolist()):
            self._values(b, seen, self._rng, self._work, self._totals, self._stack)
            k = int(eng.S[b, NLEGAL])
            q[i, eng.legal[b, :k]] = self._totals[:k] / self.samples
        return q

    def values(self, game: int, evidence: Evidence | None = None) -> dict[int, float]:
        """The mean value (``value``) of every legal action in ``game``; ``evidence`` as for :meth:`actions`."""
        eng = self.engine
        self._values(game, self._seen(evidence, 1), self._rng, self._work, self._totals, self._stack)
        k = int(eng.S[game, NLEGAL])
        return {int(eng.legal[game, j]): float(self._totals[j]) / self.samples for j in range(k)}

    def deals(self, game: int, count: int, evidence: Evidence | None = None) -> np.ndarray:
        """``[count, num_players, num_tiles]`` uint8: the hands of ``count`` deals as the search of
        ``game`` samples them (every hand; the seat's own as it is), to inspect its beliefs."""
        eng = self.engine
        out = np.zeros((count, eng.rules.num_players, eng.tables.num_tiles), np.uint8)
        sample_deals(eng.games, eng.tables.arrays, game, self._rng, self._work, self._seen(evidence, 1), out)
        return out

    def _seen(self, evidence: Evidence | None, games: int) -> Seen:
        """``evidence`` as the compiled search takes it; a ValueError for several games."""
        if evidence is None:
            return self._nothing
        if games != 1:
            raise ValueError(f"evidence is one seat's, of one game; got {games} games to search")
        T = self.engine.tables.num_tiles
        if evidence.odds.shape[1:] != (T,) or not evidence.seats.size == evidence.known.size == len(evidence.odds):
            raise ValueError(f"evidence must hold K seats, K known odds and K rows of {T} tile odds; got "
                             f"{evidence.seats.shape}, {evidence.known.shape} and {evidence.odds.shape}")
        return (np.ascontiguousarray(evidence.seats, np.int64), np.ascontiguousarray(evidence.known, np.float64),
                np.ascontiguousarray(evidence.odds, np.float64))


class HindsightValues:
    """Every legal move's margin on the real deal, the hand played out by the heuristic, for games
    of one :class:`VectorEngine`: one unbiased sample of the move's value to the heuristic, as
    training targets. ``shuffles`` above 0: the mean over that many deals of the real hands and
    the boneyard in a random order (seeded by ``seed``), the search of a seat that sees every
    hand but not the order of the draws. It reads the hidden tiles, so it is never a player."""

    def __init__(self, engine: VectorEngine, weights: Weights | None = None, shuffles: int = 0,
                 seed: int = 0) -> None:
        self.engine = engine
        if isinstance(shuffles, bool) or not isinstance(shuffles, int) or shuffles < 0:
            raise ValueError(f"shuffles must be a whole number of 0 (the real boneyard) or more; got {shuffles!r}")
        self.shuffles = shuffles
        self._rng = np.array([seed & (2**64 - 1)], np.uint64)
        self._w = weight_vector(weights or Weights())
        self._work = workspace(engine)
        self._totals = np.zeros(engine.num_actions, np.float64)

    def q_values(self, games: np.ndarray) -> np.ndarray:
        """``[len(games), num_actions]``: each legal action's margin, ``-inf`` where illegal."""
        eng = self.engine
        games = np.ascontiguousarray(games, np.int64)
        q = np.zeros((games.size, eng.num_actions), np.float64)
        hindsight_values(eng.games, eng.tables.arrays, games, self._w, self._work, self._totals, NO_ODDS, self.shuffles,
                         self._rng, q)
        return q
