"""OpenSpiel's IS-MCTS against a uniform random bot or one of the project's players on
``python_sniff``, through ``evaluate_bots``.

    python -m training.studies.openspiel_ismcts --games 20 --simulations 100
    python -m training.studies.openspiel_ismcts --games 20 --simulations 100 --opponent heuristic

IS-MCTS takes each seat in turn; the other seats are the opponent. It prints every game's
returns, then IS-MCTS's mean return, its wins, draws and losses, and the time per IS-MCTS move.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots

import sniff_env.integrations.openspiel  # noqa: F401  (registers python_sniff)
from sniff_env.integrations.openspiel.bots import ismcts_bot, player_bot
from training.lib.config import parse_config


@dataclass
class Args:
    ruleset: str = "sniff"
    """A preset."""
    num_players: int = 2
    episode: str = "hand"
    """``hand`` (one hand per game) or ``game`` (hands to the target)."""
    games: int = 20
    simulations: int = 100
    """IS-MCTS worlds searched per move."""
    opponent: str = "random"
    """``random`` (OpenSpiel's uniform random bot) or a player spec (``heuristic``, ``greedy``, ...)."""
    seed: int = 0


class TimedBot(pyspiel.Bot):  # type: ignore[misc]
    """A bot that counts its moves and the seconds it took over them."""

    def __init__(self, bot: Any) -> None:
        pyspiel.Bot.__init__(self)
        self.bot, self.moves, self.seconds = bot, 0, 0.0

    def restart_at(self, state: Any) -> None:
        self.bot.restart_at(state)

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        self.bot.inform_action(state, player_id, action)

    def step(self, state: Any) -> int:
        start = time.perf_counter()
        action = int(self.bot.step(state))
        self.moves, self.seconds = self.moves + 1, self.seconds + time.perf_counter() - start
        return action


def opponent(game: pyspiel.Game, args: Args, seat: int, seed: int) -> Any:
    if args.opponent == "random":
        return pyspiel.make_uniform_random_bot(seat, seed)
    return player_bot(game, seat, args.opponent, seed)


def run(args: Args) -> None:
    game = pyspiel.load_game(
        "python_sniff", {"ruleset": args.ruleset, "num_players": args.num_players, "episode": args.episode}
    )
    rng = np.random.RandomState(args.seed)
    returns_sum, outcomes = 0.0, {"won": 0, "drawn": 0, "lost": 0}
    moves, seconds = 0, 0.0
    start = time.perf_counter()
    for g in range(args.games):
        seat = g % args.num_players  # IS-MCTS takes each seat in turn
        bots = [opponent(game, args, p, args.seed + g) for p in range(args.num_players)]
        searcher = TimedBot(ismcts_bot(game, args.simulations, args.seed + g))
        bots[seat] = searcher
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        returns_sum += returns[seat]
        outcomes["won" if returns[seat] > 0 else "lost" if returns[seat] < 0 else "drawn"] += 1
        moves, seconds = moves + searcher.moves, seconds + searcher.seconds
        print(f"game {g}: IS-MCTS in seat {seat}, returns {returns}")
    print(
        f"IS-MCTS ({args.simulations} simulations) vs {args.opponent} on {args.ruleset} {args.num_players}p: "
        f"mean return {returns_sum / args.games:+.3f}, won {outcomes['won']}, drawn {outcomes['drawn']}, "
        f"lost {outcomes['lost']} of {args.games}; {seconds / max(moves, 1):.2f}s per IS-MCTS move over {moves} moves "
        f"({time.perf_counter() - start:.1f}s in all)"
    )


def main(argv: list[str] | None = None) -> int:
    run(parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
