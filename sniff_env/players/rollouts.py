"""The rollout player: compiled determinized search with heuristic playouts.

For every legal move it samples ``samples`` deals of the tiles the seat cannot see (consistent
with the hand sizes and the pips each seat is known to lack), plays the move and the rest of
the hand with the heuristic in every seat on each, and plays the move with the best mean margin
(:mod:`sniff_env.vector.rollouts`). It is built from the seat's information state alone: the
state is loaded into a one-game batched engine with every other hand empty and the boneyard
unknown, and the search deals those itself. Needs numba (compiled on first use).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..infostate import InfoState
from ..rules import Rules
from ._base import info_of, positive_count


class RolloutPlayer:
    """``samples`` deals per move (spec ``rollouts:samples=64``); seeded by ``seed``."""

    def __init__(self, seed: int | None = None, name: str = "rollouts", samples: int = 64) -> None:
        self.name, self.samples = name, positive_count("samples", samples)
        self._seed = seed or 0
        self._engines: dict[Rules, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        self._seed = seed or 0
        self._engines.clear()

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info)
        if len(state.legal) == 1:
            return state.legal[0]
        engine, search = self._engine(state.rules)
        load_state(engine, state)
        return int(search.actions(np.zeros(1, np.int64))[0])

    def _engine(self, rules: Rules) -> tuple[Any, Any]:
        if rules not in self._engines:
            from ..vector.engine import VectorEngine
            from ..vector.rollouts import RolloutSearch

            engine = VectorEngine(rules, 1, threads=1)
            self._engines[rules] = (engine, RolloutSearch(engine, self.samples, self._seed))
        return self._engines[rules]


def load_state(engine: Any, state: InfoState) -> None:
    """Write ``state`` into game 0 of ``engine``: the public layout, the seat's own hand, hand
    sizes, known missing pips, scores and legal actions; other hands empty, and a boneyard of the
    right size whose tiles are unknown (the search deals them)."""
    from ..game import _forced_lead_for
    from ..vector import kernels as K

    rules, T = state.rules, engine.tables.num_tiles
    S = engine.S[0]
    S[:] = 0
    S[K.TURN], S[K.LEADER], S[K.COUNT], S[K.PASSES] = state.turn, state.leader, state.count, state.passes
    S[K.DRAWN], S[K.LAST_DRAWN] = state.drawn_this_turn, state.last_drawn
    S[K.SNIFF_TILE], S[K.SNIFF_PENDING] = state.sniff_tile, state.sniff_pending
    S[K.BONE_POS], S[K.BONE_LEN] = 0, state.boneyard_size
    S[K.NPLAYS], S[K.HAND_INDEX], S[K.PHASE] = len(state.plays), state.hand_index, K.PLAY
    S[K.FORCED_LEAD] = int(_forced_lead_for(rules, state.hand_index))
    S[K.LAST_DOMINO], S[K.WINNER] = -1, -1
    S[K.NLEGAL] = len(state.legal)
    for e in range(4):
        S[K.END_PIP + e], S[K.END_VAL + e], S[K.END_OPEN + e] = state.end_pip[e], state.end_val[e], state.end_open[e]
    for s in range(rules.num_players):
        S[K.LACKING + s], S[K.HAND_COUNT + s] = state.lacking[s], state.hand_sizes[s]
    for side in range(rules.num_sides):
        S[K.SCORES + side] = state.scores[side]
    engine.hands[0] = 0
    engine.hands[0, state.seat] = [(state.hand >> t) & 1 for t in range(T)]
    played = engine.play_record[0]
    played[:] = -1
    for i, (tile, seat, _slot) in enumerate(state.plays):
        played[tile] = seat
        played[T + i] = tile
    engine.bone[0] = 0
    engine.legal[0, : len(state.legal)] = state.legal
