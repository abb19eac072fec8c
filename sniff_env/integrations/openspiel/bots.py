"""Bots for ``python_sniff`` that ``evaluate_bots`` can seat: OpenSpiel's IS-MCTS, and any of the
project's players (``heuristic``, ``greedy``, a shipped agent, ...) acting on its seat's view.

OpenSpiel's Python ``ISMCTSBot`` searches afresh at every move but lacks ``restart_at`` and
``inform_action``, which ``open_spiel.python.algorithms.evaluate_bots`` calls on every bot;
here they do nothing, which is right for a bot that keeps nothing between moves. Its worlds are
drawn with the bot's own generator, so a seed reproduces its play.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from sniff_env.infostate import info_state
from sniff_env.integrations.openspiel.spiel import SniffGame, SniffState
from sniff_env.players import BUILTIN, Player, load


class ISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's IS-MCTS bot, seatable by ``evaluate_bots`` and reproducible by its seed."""

    def resample_from_infostate(self, state: Any) -> Any:
        """A world drawn with the bot's own generator (OpenSpiel's bot passes a sampler seeded
        afresh from the system, so two runs with one seed would differ)."""
        if self._resampler_cb:
            return self._resampler_cb(state, state.current_player())
        return state.resample_from_infostate(state.current_player(), self.random_number)

    def restart_at(self, state: Any) -> None:
        """Nothing to forget: every move is a fresh search."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to track: every move is a fresh search."""


def ismcts_bot(game: pyspiel.Game, simulations: int = 100, seed: int = 0, uct_c: float = 2.0) -> ISMCTSBot:
    """IS-MCTS with one random rollout per leaf, ``simulations`` worlds per move."""
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return ISMCTSBot(game, evaluator, uct_c=uct_c, max_simulations=simulations, random_state=rng)


class PlayerBot(pyspiel.Bot):  # type: ignore[misc]
    """One of the project's players in one seat: it is shown what an environment shows the
    acting seat (the observation, the action mask and ``info["info_state"]``), nothing more."""

    def __init__(self, game: SniffGame, seat: int, player: Player, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        if not 0 <= seat < game.num_players():
            raise ValueError(f"seat must be 0..{game.num_players() - 1}; got {seat!r}")
        self._game, self._seat, self._seed = game, seat, seed
        self.player = player

    def restart_at(self, state: SniffState) -> None:
        """A new game: the player starts afresh with its seed."""
        self.player.reset(self._seed)

    def inform_action(self, state: SniffState, player_id: int, action: int) -> None:
        """Nothing to track: the player reads the seat's information state at every move."""

    def step(self, state: SniffState) -> int:
        if state.current_player() != self._seat:
            raise ValueError(f"this bot plays seat {self._seat}; seat {state.current_player()} is to move")
        info = info_state(state.play.game, self._seat)
        mask = np.zeros(self._game.num_distinct_actions(), np.int8)
        mask[list(info.legal)] = 1
        observation = {"observation": self._game.observer.encode(info), "action_mask": mask}
        return int(self.player.act(observation, {"info_state": info}))


def player_bot(game: SniffGame, seat: int, spec: str = "heuristic", seed: int = 0) -> PlayerBot:
    """The project's player ``spec`` (see :func:`sniff_env.players.load`) in ``seat``: a built-in
    player gets ``seed``, a shipped agent or policy file the game's rules."""
    builtin = spec.partition(":")[0] in BUILTIN
    player = load(spec, seed=seed) if builtin else load(spec, rules=game.rules)
    return PlayerBot(game, seat, player, seed if builtin else None)
