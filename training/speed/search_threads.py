"""How fast the compiled search chooses for a batch of games on one stream of draws and on
1, 2, ... threads (``RolloutSearch(threads=N)``, as the trainers' league and evaluations seat it
with ``--search-threads N``).

The games are 2-player ``sniff`` deals, each a few heuristic moves into its first hand; each
figure is the median over ``--repeats`` timed choices of every game, after one untimed choice
(kernels loaded). The threaded searches choose the same moves whatever their count (checked
here too); the one-stream search draws otherwise, so its moves are not compared.

    python -m training.speed.search_threads --games 256 --samples 32 --threads 0,1,2
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sniff_env.players import load_compiled
from sniff_env.players.compiled.rollouts import RolloutSearch
from sniff_env.presets import make_rules
from sniff_env.vector.engine import VectorEngine


def positions(games: int, seed: int, moves: int = 3) -> VectorEngine:
    """``games`` deals of 2-player ``sniff``, each ``moves`` heuristic moves in."""
    eng = VectorEngine(make_rules("sniff", 2), games, threads=1)
    eng.deal(np.arange(games), True, seed + np.arange(games))
    heuristic = load_compiled("heuristic", eng)
    for _ in range(moves):
        playing = eng.in_play()
        actions = np.zeros(games, np.int64)
        actions[playing] = heuristic(playing)
        eng.step(actions)
    return eng


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=256, help="games searched at once")
    parser.add_argument("--samples", type=int, default=32, help="deals a move")
    parser.add_argument("--threads", default="0,1,2", help="comma-separated thread counts (0: one stream)")
    parser.add_argument("--repeats", type=int, default=7, help="timed choices of every game per count")
    parser.add_argument("--seed", type=int, default=1000)
    opts = parser.parse_args(argv)
    counts = [int(x) for x in opts.threads.split(",")]
    eng = positions(opts.games, opts.seed)
    games = eng.in_play()
    searches = {n: RolloutSearch(eng, samples=opts.samples, seed=3, threads=n) for n in counts}
    times: dict[int, list[float]] = {n: [] for n in counts}
    moves: dict[int, list[np.ndarray]] = {n: [searches[n].actions(games)] for n in counts}
    for _ in range(opts.repeats):
        for n in counts:  # interleaved, so that the machine's other load falls on every count alike
            t0 = time.perf_counter()
            moves[n].append(searches[n].actions(games))
            times[n].append(time.perf_counter() - t0)
    threaded = [n for n in counts if n]
    same = all(np.array_equal(a, b) for n in threaded for a, b in zip(moves[n], moves[threaded[0]], strict=True))
    base = statistics.median(times[counts[0]])
    print(f"{games.size} games, {opts.samples} deals a move, median of {opts.repeats}:")
    for n in counts:
        med = statistics.median(times[n])
        label = "one stream" if n == 0 else f"{n} thread{'s' if n > 1 else ''}"
        print(f"  {label:>11}: {med * 1000:8.1f} ms a choice of every game, {games.size / med:8.1f} games/s, "
              f"{base / med:.2f}x the first row")
    if threaded:
        print(f"  the threaded searches chose the same moves: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
