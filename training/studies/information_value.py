"""What the hidden tiles are worth to the search, and how much of them the seat can read.

Two measurements, both on 2-player ``sniff`` with games to 100:

- **Clairvoyant searches against ``rollouts:samples=N``** on the batched engine, duplicate deals
  (each deal twice, seats swapped): ``sees-all`` plays each move out once on the real deal (every
  hand and the order of the draws) and ``sees-hands`` on ``--shuffles`` deals of the real hands
  and the boneyard in a random order (:class:`~sniff_env.players.compiled.rollouts.HindsightValues`); the
  playouts are the search's own heuristic ones. ``rollouts`` (the opponent's search, seeded
  apart) is the control that the harness is fair. The clairvoyant ones read hidden tiles: they
  are yardsticks, never players.
- **What the search believes** (``--belief-games``): at each decision of ``--belief-player``
  against itself after the first three plays, the share of the other seat's real hand that the
  search's deals give it (:meth:`~sniff_env.players.compiled.rollouts.RolloutSearch.deals`, 200 deals),
  with no inference and with each ``infer`` sharpness of ``--infer`` (:mod:`sniff_env.players.beliefs`).

    python -m training.studies.information_value --games 2000 --seed 3101 --belief-games 40 \\
        --workers 2 --out checkpoints/results/information-value.json
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from sniff_env import make_rules
from sniff_env.atomic import write_json_atomic
from sniff_env.evaluation.batched import play_deals
from sniff_env.evaluation.ratings import wilson_interval
from sniff_env.evaluation.tournament import derive_seed
from sniff_env.options import worker_count
from sniff_env.players.beliefs import evidence
from training.studies.self_play import self_play_games

PLAYERS = ("sees-all", "sees-hands", "rollouts")
"""The players measured against the search (see the module)."""
DEALS_PER_TASK = 25
"""Deals played on one engine by one worker at a time."""
BELIEF_DEALS = 200
"""Deals the search samples at each decision to measure its beliefs."""


def chooser(name: str, engine: Any, samples: int, shuffles: int, seed: int) -> Callable[[np.ndarray], np.ndarray]:
    """The batched choice of player ``name`` (:data:`PLAYERS`, or ``opponent``) on ``engine``."""
    from sniff_env.players.compiled.rollouts import HindsightValues, RolloutSearch

    if name in ("sees-all", "sees-hands"):
        values = HindsightValues(engine, shuffles=shuffles if name == "sees-hands" else 0, seed=seed)
        return lambda games: np.argmax(values.q_values(games), axis=1).astype(np.int64)
    return RolloutSearch(engine, samples, seed).actions


def match(task: tuple[str, int, int, int, tuple[int, ...]]) -> tuple[int, int, float]:
    """``(wins of the player, games, seconds a decision of the player)`` over some deals."""
    name, samples, shuffles, seed, deals = task
    outcomes = play_deals(
        make_rules("sniff", 2), seed, [((0, 1), d) for d in deals], None, 1,
        lambda engine: [chooser(name, engine, samples, shuffles, derive_seed(seed, name, deals[0])),
                        chooser("opponent", engine, samples, shuffles, derive_seed(seed, "opponent", deals[0]))],
    )
    wins = sum(o.winner == 0 for o in outcomes)
    seconds, decisions = sum(o.think_s[0] for o in outcomes), sum(o.decisions[0] for o in outcomes)
    return wins, len(outcomes), seconds / max(decisions, 1)


def beliefs(task: tuple[str, int, tuple[float, ...]]) -> dict[str, list[float]]:
    """For one self-play game: at each decision after the first three plays, the share of the
    other seat's real hand in the search's deals, with no inference (``"0"``) and each ``infer``."""
    from sniff_env.players.compiled.rollouts import RolloutSearch
    from sniff_env.vector.engine import VectorEngine

    spec, seed, sharpness = task
    engine = VectorEngine(make_rules("sniff", 2), 1, threads=1)
    search = RolloutSearch(engine, 1, derive_seed(seed, "beliefs"))
    out: dict[str, list[float]] = {str(b): [] for b in (0.0, *sharpness)}
    try:
        for game, state, _action in self_play_games(spec, seed):
            other = 1 - state.seat
            real = np.array([(game.hands[other] >> t) & 1 for t in range(engine.tables.num_tiles)])
            if len(state.plays) < 3 or not real.any():
                continue
            engine.load_info_state(state)
            for b in (0.0, *sharpness):
                dealt = search.deals(0, BELIEF_DEALS, evidence(state, b) if b else None)[:, other, :]
                out[str(b)].append(float((dealt * real).sum(axis=1).mean() / real.sum()))
    finally:
        engine.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games of each player against the search (even)")
    parser.add_argument("--seed", type=int, default=1, help="the deals' seed")
    parser.add_argument("--samples", type=int, default=256, help="deals a move of the opponent's search")
    parser.add_argument("--shuffles", type=int, default=64, help="boneyard orders a move of sees-hands")
    parser.add_argument("--players", default=",".join(PLAYERS), help=f"comma-separated, of {', '.join(PLAYERS)}")
    parser.add_argument("--belief-games", type=int, default=0, help="self-play games to measure beliefs on")
    parser.add_argument("--belief-player", default="rollouts:samples=128", help="the player of those games")
    parser.add_argument("--infer", default="0.3,0.5", help="comma-separated infer sharpnesses to compare")
    parser.add_argument("--workers", type=worker_count, default=1, help="processes that play the games")
    parser.add_argument("--out", default="", help="write the figures to this JSON file")
    args = parser.parse_args(argv)
    players = [p for p in args.players.split(",") if p]
    if set(players) - set(PLAYERS) or not players:
        parser.error(f"--players takes some of {', '.join(PLAYERS)}; got {args.players!r}")
    if args.games < 2 or args.games % 2 or args.samples < 1 or args.shuffles < 1 or args.workers < 1 \
            or args.belief_games < 0:
        parser.error("need an even --games of 2 or more, --samples, --shuffles and --workers of 1 or more, "
                     "and --belief-games of 0 or more")
    try:
        sharpness = tuple(float(b) for b in args.infer.split(",") if b)
    except ValueError:
        parser.error(f"--infer takes comma-separated numbers; got {args.infer!r}")
    report: dict[str, Any] = {"opponent": f"rollouts:samples={args.samples}", "games": args.games, "seed": args.seed,
                              "shuffles": args.shuffles, "players": {}}
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.workers) as pool:
        for name in players:
            deals = list(range(args.games // 2))
            tasks = [(name, args.samples, args.shuffles, args.seed, tuple(deals[i : i + DEALS_PER_TASK]))
                     for i in range(0, len(deals), DEALS_PER_TASK)]
            start = time.perf_counter()
            results = pool.map(match, tasks, chunksize=1)
            wins, games = sum(r[0] for r in results), sum(r[1] for r in results)
            per_move = float(np.median([r[2] for r in results]))
            low, high = wilson_interval(wins, games)
            print(f"{name:10s} against {report['opponent']}: {wins}/{games} = {wins / games:.1%} "
                  f"[{low:.1%}, {high:.1%}], {per_move * 1000:.2f} ms a decision "
                  f"({time.perf_counter() - start:.0f} s)")
            report["players"][name] = {"wins": wins, "games": games, "win_rate": wins / games,
                                       "interval": [low, high], "seconds_per_decision": per_move}
        if args.belief_games:
            tasks_b = [(args.belief_player, args.seed + g, sharpness) for g in range(args.belief_games)]
            shares: dict[str, list[float]] = {}
            for part in pool.map(beliefs, tasks_b, chunksize=1):
                for key, values in part.items():
                    shares.setdefault(key, []).extend(values)
            report["beliefs"] = {"player": args.belief_player, "games": args.belief_games, "share_of_real_hand": {}}
            for key, values in shares.items():
                mean, sem = float(np.mean(values)), float(np.std(values) / np.sqrt(len(values)))
                label = "no inference" if float(key) == 0 else f"infer={key}"
                print(f"beliefs, {label:12s}: {mean:.1%} ± {1.96 * sem:.1%} of the other seat's real hand "
                      f"({len(values)} decisions)")
                report["beliefs"]["share_of_real_hand"][label] = {"mean": mean, "decisions": len(values)}
    if args.out:
        write_json_atomic(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
