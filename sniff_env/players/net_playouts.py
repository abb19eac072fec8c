"""Playouts by a trained network: every legal move valued on sampled deals, the hand played out
by the network in every seat (its masked argmax, each seat reading its own observation of the
sampled deal), all the deals and moves of a choice side by side on one batched engine.

The deals are the rollout search's (:meth:`~sniff_env.players.compiled.rollouts.RolloutSearch.deals`:
the unseen tiles dealt to the other hands as the seat's information allows, the rest shuffled
into the boneyard), so only the playout policy differs from the compiled search: the heuristic
there, the network here. A playout is worth what the search's is (``value``: the hand's margin, or
the chance of winning the game from the scores it ends on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from sniff_env.players.compiled.baselines import heuristic_chooser
from sniff_env.players.compiled.playouts import playout_values, value_odds
from sniff_env.players.policy import policy_actions
from sniff_env.vector.engine import VectorEngine

if TYPE_CHECKING:
    from sniff_env.players.beliefs import Evidence
    from sniff_env.players.compiled.rollouts import RolloutSearch
    from sniff_env.players.policy import PolicyNetwork
    from sniff_env.rules import Rules


class NetPlayouts:
    """Values of a seat's legal moves from playouts by ``network`` (see the module)."""

    def __init__(self, rules: Rules, network: PolicyNetwork, seed: int = 0, value: str = "margin",
                 plies: int = 0) -> None:
        self.rules, self.network, self.value, self.plies = rules, network, value, plies
        self._rng = np.random.default_rng(seed)
        self._engines: dict[int, tuple[VectorEngine, Any]] = {}
        self._odds, self._low = value_odds(rules, value)

    def _engine(self, games: int) -> tuple[VectorEngine, Any]:
        if games not in self._engines:
            engine = VectorEngine(self.rules, games, threads=1)
            self._engines[games] = (engine, heuristic_chooser(engine))
        return self._engines[games]

    def values(self, root: VectorEngine, search: RolloutSearch, deals: int, evidence: Evidence | None = None,
               ) -> np.ndarray:
        """The mean value of each legal move of game 0 of ``root`` (in ``root.legal[0]``'s order)
        over ``deals`` deals that ``search`` (on ``root``) samples, weighed by ``evidence`` if given."""
        hands = search.deals(0, deals, evidence)
        mean: np.ndarray = self.play(root, hands, self.boneyards(root, hands)).mean(axis=0)
        return mean

    def boneyards(self, root: VectorEngine, hands: np.ndarray) -> np.ndarray:
        """``[deals, T]``: for each deal of ``hands``, the tiles neither played nor in a hand,
        shuffled, at the boneyard's places of game 0 of ``root`` (the tiles drawn before them
        are gone and never read)."""
        T = root.tables.num_tiles
        unseen = (root.play_record[0, :T] < 0) & ~hands.any(axis=1).astype(bool)
        first, end = root.boneyard_range(0)
        bone = np.zeros((len(hands), T), np.int64)
        for d in range(len(hands)):
            tiles = np.flatnonzero(unseen[d])
            if tiles.size != end - first:
                raise ValueError(f"deal {d} leaves {tiles.size} tiles unseen for a boneyard of {end - first}")
            bone[d, first:end] = self._rng.permutation(tiles)
        return bone

    def play(self, root: VectorEngine, hands: np.ndarray, bone: np.ndarray) -> np.ndarray:
        """``[deals, L]``: the value of each of the ``L`` legal moves of game 0 of ``root`` played
        on each deal (``hands[d]``: every hand; ``bone[d]``: the boneyard, as the engine keeps it)
        and the hand played out (see the module)."""
        L = int(root.num_legal[0])
        legal = root.legal[0, :L].astype(np.int64)
        deals = len(hands)
        B = deals * L
        eng, heuristic = self._engine(B)
        eng.set_positions(root, 0, np.repeat(hands, L, axis=0), np.repeat(bone, L, axis=0))
        eng.step(np.tile(legal, deals))
        ply = 0
        while True:
            playing = eng.in_play()
            if not playing.size:
                break
            actions = np.zeros(B, np.int64)
            if self.plies and ply >= self.plies:
                actions[playing] = heuristic(playing)
            else:
                actions[playing] = policy_actions(self.network, eng, playing)
            eng.step(actions)
            ply += 1
        values: np.ndarray = self._worth(root, eng).reshape(deals, L)
        return values

    def _worth(self, root: VectorEngine, eng: VectorEngine) -> np.ndarray:
        """Each played-out game's value to the side to act at the root, as the compiled search
        values its own playouts (:func:`~sniff_env.players.compiled.playouts.value_at`)."""
        return playout_values(root, 0, eng, self._odds, self._low)
