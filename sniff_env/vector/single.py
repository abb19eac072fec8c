"""One game on the compiled kernels, stepped from Python with as little overhead as it allows.

:class:`CompiledGame` is what the AEC environment steps: the same rules and the same deals as
:class:`sniff_env.game.Game` (the differential tests hold the kernels to it), at a few
microseconds a decision. It keeps only the state the rules need; event records, information
states and rendering stay with the reference engine, which the environment replays on demand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..deal import Deal
from ..rules import Rules
from . import kernels as K
from .checks import seed_value
from .engine import VectorEngine
from .tables import pack

ILLEGAL = -1
"""What ``kernels.step_game`` returns for an action that is not legal (nothing changes then)."""
ACTION_ARG = 6
"""Where the action goes in :attr:`CompiledGame.step_args`."""


class CompiledGame:
    """A single game's arrays and the kernel calls that move it, with their arguments bound once."""

    def __init__(self, rules: Rules, max_hands: int | None = None) -> None:
        eng = VectorEngine(rules, 1, max_hands=max_hands, threads=1)
        self.engine = eng
        self._row = eng.S[0]
        self._sides = slice(K.SCORES, K.SCORES + rules.num_sides)
        P, lo, hi, _pip_tiles, score_tab, _rules_vec, off, fractions, count_val, points_val, act_tile, act_slot = (
            eng._args
        )
        prev = eng._work[0][0]
        itab, ftab = pack(eng.tables)
        self.step_args: list[Any] = [
            eng.S, eng.hands, eng._played, eng.bone, itab, ftab, 0, eng.legal, eng._obs, eng._mask, prev
        ]
        """The arguments of ``kernels.step_game``, bound once. A step puts the action
        (``0 <= action < num_actions``) at :data:`ACTION_ARG` and calls the kernel with them: it
        returns ``phase * 256 + turn`` after the decision and its forced moves, or :data:`ILLEGAL`.
        There is no method for it, as a Python call would cost a tenth of the step."""
        self._scratch_obs = np.zeros_like(eng._obs)
        self._scratch_mask = np.zeros_like(eng._mask)
        self._encode_args = (eng.S, eng.hands, eng._played, P, lo, hi, score_tab, off, fractions, count_val,
                             points_val, act_tile, act_slot, eng.legal, self._scratch_obs, self._scratch_mask, prev)
        block = eng.tables.observer.pieces["rules"]
        self._rules_block = slice(block.start, block.stop)
        self._rules_vec = eng.tables.rules_vec
        self.obs_row = eng._obs[0]
        """The observation of the seat to act (in play), rewritten in place by every step: copy it."""
        self.mask_row = eng._mask[0]
        """Its action mask, likewise."""
        self._games = np.zeros(1, np.int64)
        self._request, self._seeds = eng._request, eng.seeds
        self._deal_args: tuple[Any, ...] = (
            eng.S, eng.hands, eng._played, eng.bone, *eng._args, eng._request, eng.seeds, eng._order, eng._leaders,
            eng.legal, eng._obs, eng._mask, eng._work[0], 0, 1,
        )

    # -- transitions ---------------------------------------------------------------------------
    def new_game(self, seed: int, deal: dict[str, Any] | Deal | None = None) -> None:
        """The first hand of the game with ``seed`` (``deal`` scripts it, as ``new_game`` takes it)."""
        seed = seed_value("seed", seed)
        if deal is not None:
            self.engine.deal(self._games, True, [seed], [deal])
            return
        self._seeds[0] = seed
        self._request[0] = K.NEW_GAME
        K.deal(*self._deal_args)

    def next_hand(self) -> None:
        """Deal the next hand of a game whose hand is over."""
        self._request[0] = K.NEXT_HAND
        K.deal(*self._deal_args)

    # -- what the seats see ----------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a seat that is not to act sees it (a new array)."""
        obs = self._scratch_obs
        obs.fill(0.0)
        obs[0, self._rules_block] = self._rules_vec
        K.encode_seat(*self._encode_args, seat)
        out: np.ndarray = obs[0].copy()
        return out

    # -- the public state ------------------------------------------------------------------------
    @property
    def phase(self) -> int:
        return int(self._row[K.PHASE])

    @property
    def turn(self) -> int:
        return int(self._row[K.TURN])

    @property
    def count(self) -> int:
        return int(self._row[K.COUNT])

    @property
    def scores(self) -> list[int]:
        """Each side's score."""
        scores: list[int] = self._row[self._sides].tolist()
        return scores
