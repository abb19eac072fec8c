"""OpenSpiel's IS-MCTS as a bot that ``evaluate_bots`` can seat.

OpenSpiel's Python ``ISMCTSBot`` searches afresh at every move but lacks ``restart_at`` and
``inform_action``, which ``open_spiel.python.algorithms.evaluate_bots`` calls on every bot;
here they do nothing, which is right for a bot that keeps nothing between moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts


class ISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's IS-MCTS bot, seatable by ``evaluate_bots``."""

    def restart_at(self, state: Any) -> None:
        """Nothing to forget: every move is a fresh search."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to track: every move is a fresh search."""


def ismcts_bot(game: pyspiel.Game, simulations: int = 100, seed: int = 0, uct_c: float = 2.0) -> ISMCTSBot:
    """IS-MCTS with one random rollout per leaf, ``simulations`` worlds per move."""
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return ISMCTSBot(game, evaluator, uct_c=uct_c, max_simulations=simulations, random_state=rng)
