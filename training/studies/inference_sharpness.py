"""How sharply players take points: the sharpness ``B`` that fits their tile choices best.

The inference of :mod:`sniff_env.players.beliefs` models another seat as laying a tile with odds
``exp(B * points)``, the points being the most that tile would score on the layout it faces.
This study plays ``--games`` games of a player against itself and, at every decision between
two tiles or more (not the lead), scores the tile it laid under that model: it prints the mean
log-likelihood for each ``B`` of a grid, the best one marked.

    python -m training.studies.inference_sharpness heuristic --games 150
    python -m training.studies.inference_sharpness rollouts:samples=128 --games 30
"""

from __future__ import annotations

import argparse
import math

from sniff_env import make_rules
from sniff_env.actions import action_codec
from sniff_env.players.beliefs import tile_points
from training.studies.self_play import self_play

GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8, 1.2)


def choices(spec: str, games: int, seed: int) -> list[tuple[int, list[int]]]:
    """``(points of the tile laid, points of every tile it could lay)`` at each decision with a
    choice of tiles, ``spec`` in both seats of ``games`` games of 2-player ``sniff``."""
    codec = action_codec(make_rules("sniff", 2).max_pip)
    out = []
    for g in range(games):
        for state, action in self_play(spec, seed + g):
            layout = state.layout
            tiles = sorted({codec.decode(a)[0] for a in state.legal if a < codec.draw_action})
            if not layout.is_empty and action < codec.draw_action and len(tiles) > 1:
                points = {t: tile_points(layout, codec, t) for t in tiles}
                out.append((points[codec.decode(action)[0]], list(points.values())))
    return out


def mean_log_likelihood(rows: list[tuple[int, list[int]]], beta: float) -> float:
    return sum(beta * laid - math.log(sum(math.exp(beta * p) for p in options)) for laid, options in rows) / len(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("player", help="a player spec, e.g. heuristic or rollouts:samples=128")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    rows = choices(args.player, args.games, args.seed)
    fits = {beta: mean_log_likelihood(rows, beta) for beta in GRID}
    best = max(fits, key=fits.__getitem__)
    print(f"{args.player}: {len(rows)} decisions between two tiles or more")
    for beta, value in fits.items():
        print(f"B = {beta:<5} mean log-likelihood {value:.4f}{'  <- best' if beta == best else ''}")


if __name__ == "__main__":
    main()
