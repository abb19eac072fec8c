"""Duplicate-deal tournaments on the batched engine, for players that choose in batches.

The compiled built-ins (``greedy``, ``heuristic`` without its ``counter`` term: see
:mod:`sniff_env.players.compiled.baselines`) and policies (the masked argmax of
:meth:`~sniff_env.players.policy.PolicyNetwork.actions` of an ONNX policy) choose for many
games at once exactly what they choose one game at a time. :func:`play_batched` plays the same
games as :func:`~sniff_env.evaluation.tournament.play_deal`, game for game: the same pairs,
deals, seatings and seeds (the batched engine deals a game's hands from its seed as the
reference engine does), so the outcomes are the same, and only much faster. Games are played in
batches of whole deals, each batch on its own engine; ``workers`` processes share the batches.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sniff_env.errors import SniffError
from sniff_env.evaluation.schedule import (
    GameOutcome,
    cached_player,
    derive_seed,
    one_thread,
    pairings,
    seatings,
)
from sniff_env.players import has_compiled, load_compiled, parse_spec
from sniff_env.players.policy import PolicyPlayer, policy_actions
from sniff_env.players.registry import Choose
from sniff_env.rules import Rules
from sniff_env.workers import worker_pool

BATCH_DEALS = 256
"""Deals played on one engine at once: large enough that a policy's batches are efficient,
small enough that the progress bar moves."""

def batched_chooser(spec: str, player: Any, engine: Any) -> Choose | None:
    """The batched form of the player ``spec`` (loaded as ``player``) on ``engine``: a built-in's
    compiled twin (:mod:`sniff_env.players.registry`) or a policy's network; None if it has none
    (search players, random players, the heuristic's ``counter`` term, a sampling policy)."""
    if has_compiled(parse_spec(spec)[0], exact=True):
        try:
            return load_compiled(spec, engine)
        except ValueError:
            return None
    if type(player) is PolicyPlayer and not player.sample:
        network = player.network
        return lambda games: policy_actions(network, engine, games)
    return None


def batch_refusal(specs: Sequence[str], rules: Rules) -> str | None:
    """Why the players of ``specs`` cannot play ``rules`` on the batched engine (the tournament
    then plays on the reference engine), or None when they can."""
    from sniff_env.vector.engine import VectorEngine

    try:
        probe = VectorEngine(rules, 1, threads=1)
    except SniffError as exc:
        return str(exc)
    try:
        missing = [spec for spec in specs if batched_chooser(spec, cached_player(spec, rules), probe) is None]
    finally:
        probe.close()
    if missing:
        return f"{', '.join(missing)} {'has' if len(missing) == 1 else 'have'} no batched form"
    return None


@dataclass(frozen=True)
class _Batch:
    specs: tuple[str, ...]
    rules: Rules
    seed: int
    max_hands: int
    deals: tuple[tuple[tuple[int, int], int], ...]
    """(pair, deal index) of each deal of the batch, in tournament order."""
    threads: int | None
    """Threads of the batch's engine (None: the usable cores)."""


def play_out(engine: Any, player_of: npt.NDArray[np.int64], choose: Sequence[Choose],
             record: Callable[[npt.NDArray[np.int64], float], None] | None = None) -> None:
    """Play every game of ``engine`` to its end: in game ``g`` seat ``s`` is played by
    ``choose[player_of[g, s]]``; ``record(games, seconds)`` hears of each batched choice."""
    while (live := engine.continue_games()).size:
        actions = np.zeros(engine.num_envs, np.int64)
        acting = player_of[live, engine.turn[live]]
        for p in np.unique(acting):
            games = live[acting == p]
            t0 = time.perf_counter()
            actions[games] = choose[p](games)
            if record is not None:
                record(games, time.perf_counter() - t0)
        engine.step(actions)


def play_batch(batch: _Batch) -> list[GameOutcome]:
    """Every game of a batch of deals, in the order :func:`play_deal` plays them."""
    return play_deals(
        batch.rules, batch.seed, batch.deals, batch.max_hands, batch.threads,
        lambda engine: [batched_chooser(spec, cached_player(spec, batch.rules), engine) for spec in batch.specs],
    )


def play_deals(rules: Rules, seed: int, deals: Sequence[tuple[tuple[int, int], int]], max_hands: int | None,
               threads: int | None, choosers: Callable[[Any], Sequence[Choose | None]]) -> list[GameOutcome]:
    """Every game of ``deals`` ((pair, deal index) each, in order, every seating of a deal) on one
    batched engine of ``threads`` threads: ``choosers(engine)`` gives each player's batched
    choice on that engine, indexed as the pairs name the players."""
    from sniff_env.vector.engine import VectorEngine

    n = rules.num_players
    seats = seatings(n)
    games = [(pair, d, k) for pair, d in deals for k in range(len(seats))]
    seeds = np.array([derive_seed(seed, "deal", d) for _, d, _ in games], np.int64)
    who = np.array([seats[k] for _, _, k in games], np.int64)  # [game, seat]: 0 = player A, 1 = B
    player_of = np.array([[pair[w] for w in seats[k]] for pair, _, k in games], np.int64)  # [game, seat]
    engine = VectorEngine(rules, len(games), max_hands=max_hands, threads=threads)
    decisions = np.zeros((len(games), 2), np.int64)
    think = np.zeros((len(games), 2))
    try:
        engine.deal(np.arange(len(games)), True, seeds)
        choose = list(choosers(engine))
        for c in choose:  # compile (or load from the cache) before the clock runs
            c(np.zeros(0, np.int64))  # type: ignore[misc]

        def record(chosen: npt.NDArray[np.int64], seconds: float) -> None:
            side = who[chosen, engine.turn[chosen]]
            think[chosen, side] += seconds / chosen.size
            decisions[chosen, side] += 1

        play_out(engine, player_of, choose, record)  # type: ignore[arg-type]
        return [
            _outcome(rules, pair, d, int(seeds[g]), seats[k], engine.winner[g], engine.scores[g],
                     int(engine.hand_index[g]) + 1, decisions[g], think[g])
            for g, (pair, d, k) in enumerate(games)
        ]
    finally:
        engine.close()


def _outcome(rules: Rules, pair: tuple[int, int], deal: int, seed: int, seating: tuple[int, ...], winner: int,
             scores: npt.NDArray[np.int64], hands: int, decisions: npt.NDArray[np.int64],
             think: npt.NDArray[np.float64]) -> GameOutcome:
    """The outcome of a finished game of the batch, as :func:`play_deal` records it."""
    points = []
    for player in (0, 1):
        mine = [s for s in range(rules.num_players) if seating[s] == player]
        points.append(sum(int(scores[rules.side_of(s)]) for s in mine) / len(mine))
    return GameOutcome(
        pair, deal, seed, seating, None if winner < 0 else seating[winner], tuple(int(x) for x in scores), hands,
        (points[0], points[1]), (int(decisions[0]), int(decisions[1])), (float(think[0]), float(think[1])),
    )


def play_batched(
    specs: Sequence[str], rules: Rules, deals: int, seed: int, max_hands: int, workers: int = 1,
    callback: Callable[[int, int], None] | None = None,
) -> list[GameOutcome]:
    """The outcomes of every pair of ``specs`` over ``deals`` deals, as the reference tournament
    plays them, in its order; ``callback(done, total)`` counts deals as batches finish."""
    order = [(pair, d) for pair in pairings(len(specs)) for d in range(deals)]
    batches = [
        _Batch(tuple(specs), rules, seed, max_hands, tuple(order[i : i + BATCH_DEALS]), 1 if workers > 1 else None)
        for i in range(0, len(order), BATCH_DEALS)
    ]
    outcomes: list[GameOutcome] = []
    done = 0

    def collect(batch: _Batch, outs: list[GameOutcome]) -> None:
        nonlocal done
        outcomes.extend(outs)
        done += len(batch.deals)
        if callback:
            callback(done, len(order))

    if workers <= 1 or len(batches) == 1:
        for batch in batches:
            collect(batch, play_batch(batch))
    else:
        with worker_pool(min(workers, len(batches)), one_thread) as pool:
            for batch, outs in zip(batches, pool.imap(play_batch, batches, chunksize=1), strict=True):
                collect(batch, outs)
    return outcomes
