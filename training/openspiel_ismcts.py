"""OpenSpiel's IS-MCTS against a uniform random bot on ``python_sniff``, through ``evaluate_bots``.

    python training/openspiel_ismcts.py --ruleset muggins-sleepers --games 10 --simulations 50
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sniff_env.integrations.openspiel  # noqa: F401  (registers python_sniff)
from sniff_env.integrations.openspiel.bots import ismcts_bot
from training.config import parse_config


@dataclass
class Args:
    ruleset: str = "muggins-sleepers"
    """A preset. Resampling worlds is most reliable where nothing is drawn (see the README)."""
    num_players: int = 2
    episode: str = "hand"
    """``hand`` (one hand per game) or ``game`` (hands to the target)."""
    games: int = 10
    simulations: int = 50
    """IS-MCTS worlds searched per move."""
    seed: int = 0


def run(args: Args) -> None:
    game = pyspiel.load_game(
        "python_sniff", {"ruleset": args.ruleset, "num_players": args.num_players, "episode": args.episode}
    )
    rng = np.random.RandomState(args.seed)
    ismcts_total = others_total = 0.0
    start = time.perf_counter()
    for g in range(args.games):
        seat = g % args.num_players  # IS-MCTS takes each seat in turn
        bots = [pyspiel.make_uniform_random_bot(p, args.seed + g) for p in range(args.num_players)]
        bots[seat] = ismcts_bot(game, args.simulations, args.seed + g)
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        ismcts_total += returns[seat]
        others_total += (sum(returns) - returns[seat]) / (args.num_players - 1)
        print(f"game {g}: IS-MCTS in seat {seat}, returns {returns}")
    took = time.perf_counter() - start
    print(f"IS-MCTS mean return {ismcts_total / args.games:+.3f}, random {others_total / args.games:+.3f} "
          f"over {args.games} games ({took:.1f}s)")


def main(argv: list[str] | None = None) -> int:
    run(parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
