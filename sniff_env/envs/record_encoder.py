"""The AEC env's observations, written from seat records (:mod:`sniff_env.envs.seat_record`) by
the observation encoder (:func:`sniff_env.encoding.encode_row`, which
:class:`~sniff_env.observation.Observer` runs as Python) compiled with the rules of
:mod:`sniff_env.rulebook`, as the batched engine's kernels compile it. Where numba cannot be
imported, :class:`sniff_env.envs.seat_record.PythonRecordEncoder` writes the same arrays."""

from __future__ import annotations

import numpy as np

from sniff_env.encoding import encode_row
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
from sniff_env.vector.kernels import P_N, P_SIDES, P_T, spec_of
from sniff_env.vector.tables import build_tables

_encode_row = with_compiled_rules(encode_row)


@compiled()
def encode_record(row: np.ndarray, mask: np.ndarray, rec: np.ndarray, write_mask: bool, P: np.ndarray,
                  lo: np.ndarray, hi: np.ndarray, score_tab: np.ndarray, off: np.ndarray, fractions: np.ndarray,
                  count_val: np.ndarray, points_val: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
                  hand: np.ndarray, seat_of: np.ndarray, order: np.ndarray, legal: np.ndarray) -> None:
    """Write the observation of the seat record ``rec`` into ``row`` (zeros but the rules
    block) and, if ``write_mask``, its legal actions into ``mask`` (zeros). ``hand`` (uint8),
    ``seat_of`` and ``order`` (int8) of one cell per tile and ``legal`` (int16, one per action)
    are scratch rows of the types the batched engine keeps, so that the encoder they share is
    compiled once."""
    spec = spec_of(P, lo, hi, score_tab, off, fractions, count_val, points_val, act_tile, act_slot)
    n, sides, num_tiles = P[P_N], P[P_SIDES], P[P_T]
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
    _encode_row(row, spec, rec[SEAT], hand, order[:k], seat_of, rec[END_PIP : END_PIP + 4], rec[END_VAL : END_VAL + 4],
                rec[END_OPEN : END_OPEN + 4], rec[SNIFF_TILE], rec[SNIFF_PENDING], rec[COUNT],
                rec[PER_SEAT : PER_SEAT + n], rec[PER_SEAT + n : PER_SEAT + 2 * n], rec[BONEYARD], rec[DRAWABLE],
                rec[PER_SEAT + 2 * n : at], rec[LAST_DRAWN], legal[:nlegal])
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
        self._tables = (tables.params, tables.lo, tables.hi, tables.score_tab, tables.offsets, tables.fractions,
                        tables.count_val, tables.points_val, tables.act_tile, tables.act_slot)
        self._hand = np.zeros(tables.num_tiles, np.uint8)
        self._seat_of = np.zeros(tables.num_tiles, np.int8)
        self._order = np.zeros(tables.num_tiles, np.int8)
        self._legal = np.zeros(tables.num_actions, np.int16)

    def encode(self, rec: list[int], acting: bool) -> tuple[np.ndarray, np.ndarray]:
        """The observation of ``rec`` and its mask (its legal actions if ``acting``, else zeros)."""
        row = self._template.copy()
        mask = np.zeros(self.num_actions, np.int8)
        encode_record(row, mask, np.array(rec, np.int64), acting, *self._tables, self._hand, self._seat_of,
                       self._order, self._legal)
        return row, mask

