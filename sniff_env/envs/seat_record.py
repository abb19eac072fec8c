"""A seat's view of a :class:`~sniff_env.game.Game` as one row of ints: a *seat record*.

The AEC env reads everything a seat may know once per decision into a record (:func:`record`),
has it encoded (:mod:`sniff_env.envs.record_encoder`) and keeps it: the seat's
:class:`~sniff_env.infostate.InfoState` is rebuilt from it only when asked for
(:func:`info_state_of`). The game stays the one state; the record is a copy of what the seat
sees, so an observation keeps describing its own decision after the game moves on.

Layout of a record (``n`` seats, ``s`` sides, ``k`` placements this hand, ``m`` legal actions)::

    [seat, hand bits 0-61, hand bits 62-, sniff_tile, sniff_pending, count, boneyard, drawable,
     last_drawn, k, m, turn, phase, passes, drawn_this_turn, hand_index, leader,
     end_pip x4, end_val x4, end_open x4, hand_sizes x n, lacking x n, scores x s,
     (tile, seat, slot) x k, legal x m]
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from sniff_env.game import Game, Phase
from sniff_env.infostate import InfoState
from sniff_env.observation import Observer
from sniff_env.rules import Rules
from sniff_env.scoring import HandResult

(SEAT, HAND_LO, HAND_HI, SNIFF_TILE, SNIFF_PENDING, COUNT, BONEYARD, DRAWABLE, LAST_DRAWN, NPLAYS, NLEGAL, TURN,
 PHASE, PASSES, DRAWN_THIS_TURN, HAND_INDEX, LEADER) = range(17)
END_PIP, END_VAL, END_OPEN, PER_SEAT = 17, 21, 25, 29
"""Where the fixed cells end: the per-seat, per-side and per-move cells follow :data:`PER_SEAT`."""
LOW_BITS = 62
LOW_MASK = (1 << LOW_BITS) - 1


def record(game: Game, seat: int) -> list[int]:
    """What ``seat`` may know of ``game`` now, as a seat record (see the module docstring): the
    fields of :func:`sniff_env.infostate.info_state`, its legal actions only on its own turn."""
    own = game.phase is Phase.PLAY and game.turn == seat
    hand, plays = game.hands[seat], game.plays
    legal = game.legal_actions() if own else ()
    return [
        seat, hand & LOW_MASK, hand >> LOW_BITS, game.sniff_tile, game.sniff_pending, game.count,
        game.boneyard_size, game.drawable, game.last_drawn if own else -1, len(plays), len(legal), game.turn,
        int(game.phase), game.passes, game.drawn_this_turn if own else 0, game.hand_index, game.leader,
        *game.end_pip, *game.end_val, *game.end_open, *map(int.bit_count, game.hands), *game.lacking,
        *game.scores, *chain.from_iterable(plays), *legal,
    ]


def info_state_of(rec: list[int], rules: Rules, results: tuple[HandResult, ...]) -> InfoState:
    """The :class:`InfoState` a seat record holds (``results``: the game's hand results then)."""
    n, sides, k = rules.num_players, rules.num_sides, rec[NPLAYS]
    at = PER_SEAT + 2 * n + sides
    plays = rec[at : at + 3 * k]
    e = END_PIP
    return InfoState(
        rules, rec[SEAT], rec[HAND_LO] | rec[HAND_HI] << LOW_BITS, rec[TURN], tuple(rec[at + 3 * k :]),
        Phase(rec[PHASE]), tuple(zip(plays[0::3], plays[1::3], plays[2::3], strict=True)), (rec[e], rec[e + 1], rec[e + 2], rec[e + 3]),
        (rec[END_VAL], rec[END_VAL + 1], rec[END_VAL + 2], rec[END_VAL + 3]),
        (bool(rec[END_OPEN]), bool(rec[END_OPEN + 1]), bool(rec[END_OPEN + 2]), bool(rec[END_OPEN + 3])),
        rec[SNIFF_TILE], rec[SNIFF_PENDING], rec[COUNT], tuple(rec[PER_SEAT : PER_SEAT + n]),
        tuple(rec[PER_SEAT + n : PER_SEAT + 2 * n]), rec[BONEYARD], rec[DRAWABLE], rec[PASSES], rec[DRAWN_THIS_TURN],
        rec[LAST_DRAWN], tuple(rec[PER_SEAT + 2 * n : at]), rec[HAND_INDEX], rec[LEADER], results,
    )


class PythonRecordEncoder:
    """:class:`~sniff_env.envs.record_encoder.RecordEncoder`'s arrays through :class:`Observer` (Python), for where numba is missing."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.observer = Observer(rules)

    def encode(self, rec: list[int], acting: bool) -> tuple[np.ndarray, np.ndarray]:
        """The observation of ``rec`` and its mask (its legal actions if ``acting``, else zeros)."""
        state = info_state_of(rec, self.rules, ())
        mask = self.observer.mask(state) if acting else np.zeros(self.observer.codec.num_actions, np.int8)
        return self.observer.encode(state), mask
