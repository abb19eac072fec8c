"""The AEC env's observations, written from seat records (:mod:`sniff_env.envs.seat_record`) by
the observation encoder (:func:`sniff_env.encoding.encode_row`, which
:class:`~sniff_env.observation.Observer` runs as Python) compiled with the rules of
:mod:`sniff_env.rulebook`, as the batched engine's kernels compile it. Where numba cannot be
imported, :class:`sniff_env.envs.seat_record.PythonRecordEncoder` writes the same arrays."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sniff_env.encoding import Board, Counts, Spec, encode_row
from sniff_env.envs.seat_record import (
    BONEYARD,
    COUNT,
    DRAWABLE,
    END_OPEN,
    END_PIP,
    END_VAL,
    HAND_HI,
    HAND_LO,
    LAST_DRAWN,
    LOW_BITS,
    NLEGAL,
    NPLAYS,
    PER_SEAT,
    SEAT,
    SNIFF_PENDING,
    SNIFF_TILE,
)
from sniff_env.rules import Rules
from sniff_env.vector import compiled
from sniff_env.vector.compiled_rules import with_compiled_rules
from sniff_env.vector.tables import build_tables

_encode_row = with_compiled_rules(encode_row)


class RecordScratch(NamedTuple):
    """Scratch rows of the types the batched engine keeps, so that the encoder they share is compiled once."""

    hand: np.ndarray
    """uint8, one cell per tile."""
    seat_of: np.ndarray
    """int8, one cell per tile."""
    order: np.ndarray
    """int8, one cell per tile."""
    legal: np.ndarray
    """int16, one cell per action."""


@compiled()
def encode_record(row: np.ndarray, mask: np.ndarray, rec: np.ndarray, write_mask: bool, spec: Spec,
                  scratch: RecordScratch) -> None:
    """Write the observation of the seat record ``rec`` into ``row`` (zeros but the rules
    block) and, if ``write_mask``, its legal actions into ``mask`` (zeros); ``spec`` is the
    encoder's tables as the kernels take them (:attr:`sniff_env.vector.tables.Tables.kernel_spec`)."""
    hand, seat_of, order, legal = scratch
    n, sides, num_tiles = spec.num_players, spec.num_sides, spec.lo.size
    low, high = rec[HAND_LO], rec[HAND_HI]
    for t in range(num_tiles):
        hand[t] = (low >> t) & 1 if t < LOW_BITS else (high >> (t - LOW_BITS)) & 1
    at = PER_SEAT + 2 * n + sides
    k = rec[NPLAYS]
    for i in range(k):
        order[i] = rec[at + 3 * i]
        seat_of[order[i]] = rec[at + 3 * i + 1]
    nlegal = rec[NLEGAL]
    for i in range(nlegal):
        legal[i] = rec[at + 3 * k + i]
    board = Board(rec[END_PIP : END_PIP + 4], rec[END_VAL : END_VAL + 4], rec[END_OPEN : END_OPEN + 4],
                  rec[SNIFF_TILE], rec[SNIFF_PENDING], rec[COUNT])
    counts = Counts(rec[PER_SEAT : PER_SEAT + n], rec[PER_SEAT + n : PER_SEAT + 2 * n], rec[PER_SEAT + 2 * n : at],
                    rec[BONEYARD], rec[DRAWABLE])
    _encode_row(row, spec, rec[SEAT], hand, order[:k], seat_of, board, counts, rec[LAST_DRAWN], legal[:nlegal])
    if write_mask:
        for i in range(nlegal):
            mask[legal[i]] = 1


class RecordEncoder:
    """Observations and masks of seat records for one rule set, by the compiled encoder."""

    def __init__(self, rules: Rules) -> None:
        tables = build_tables(rules)
        self.rules = rules
        self.num_actions = tables.num_actions
        self._template = tables.observer.blank_row()
        self._spec = tables.kernel_spec
        self._scratch = RecordScratch(np.zeros(tables.num_tiles, np.uint8), np.zeros(tables.num_tiles, np.int8),
                                      np.zeros(tables.num_tiles, np.int8), np.zeros(tables.num_actions, np.int16))

    def encode(self, rec: list[int], acting: bool) -> tuple[np.ndarray, np.ndarray]:
        """The observation of ``rec`` and its mask (its legal actions if ``acting``, else zeros)."""
        row = self._template.copy()
        mask = np.zeros(self.num_actions, np.int8)
        encode_record(row, mask, np.array(rec, np.int64), acting, self._spec, self._scratch)
        return row, mask

