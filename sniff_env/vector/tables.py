"""The arrays the kernels read, built from the reference tables of one :class:`Rules`.

Nothing here re-derives a rule: tiles come from :func:`sniff_env.tiles.tile_set`, scoring
counts from :func:`sniff_env.scoring.scoring_table`, action numbers from
:func:`sniff_env.actions.action_codec` and the observation layout and its feature tables from
:class:`sniff_env.observation.Observer`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sniff_env.actions import action_codec
from sniff_env.encoding import Spec
from sniff_env.errors import RulesError
from sniff_env.game import checked_max_hands
from sniff_env.observation import Observer
from sniff_env.rule_codes import HAND_END_CODE, LEAD_CODE, SNIFF_CODE
from sniff_env.rules import Draw, LeadTile, Points, Rules, SidesOpen
from sniff_env.scoring import scoring_table
from sniff_env.tiles import tile_set
from sniff_env.vector import kernels as K
from sniff_env.vector.arrays import RuleTables
from sniff_env.vector.checks import INT64_MAX

# same limits as Game._draw_limit: "until playable" is bounded only by the boneyard
_DRAW_LIMIT = {Draw.UNTIL_PLAYABLE: 1 << 30, Draw.MAX_TWO: 2, Draw.NONE: 0}


@dataclass(frozen=True)
class Tables:
    """Everything rule-dependent the kernels need, as contiguous arrays."""

    rules: Rules
    observer: Observer
    params: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    pip_tiles: np.ndarray
    """``pip_tiles[p, q]``: the tile with halves ``p`` and ``q``."""
    score_tab: np.ndarray
    rules_vec: np.ndarray
    offsets: np.ndarray
    fractions: np.ndarray
    """Rows ``kernels.FRAC_*``: the encoder's ``tile_frac``, ``hand_frac``, ``end_frac``
    (:class:`sniff_env.encoding.Spec`, built by the observer)."""
    count_val: np.ndarray
    """``count_val[c]``: the feature of a count ``c`` (the observer's, as float32)."""
    points_val: np.ndarray
    """``points_val[c]``: its ``move_points`` feature (0 where ``c`` does not score)."""
    act_tile: np.ndarray
    """``act_tile[a]``, ``act_slot[a]``: the tile and slot of action ``a`` (-1 for the draw)."""
    act_slot: np.ndarray
    arrays: RuleTables
    """The rule tables as the kernels take them."""
    kernel_spec: Spec
    """The encoder's :class:`~sniff_env.encoding.Spec` of these arrays, as the kernels take it
    (:class:`sniff_env.vector.arrays.Views`)."""

    @property
    def num_actions(self) -> int:
        return int(self.params[K.P_DRAW_ACTION]) + 1

    @property
    def num_tiles(self) -> int:
        return int(self.params[K.P_T])


def build_tables(rules: Rules, max_hands: int | None = None) -> Tables:
    """The kernel arrays for ``rules``; ``max_hands`` as in :class:`sniff_env.game.Game`."""
    if rules.num_players > K.MAX_SEATS:
        raise RulesError(f"the batched engine seats at most {K.MAX_SEATS} players; got {rules.num_players}")
    max_hands = checked_max_hands(max_hands)
    for name, value in (("target", rules.target), ("max_hands", max_hands or 0)):
        if value > INT64_MAX:
            raise RulesError(f"the batched engine holds {name} as a 64-bit integer: at most 2**63 - 1; got {value}")
    ts = tile_set(rules.max_pip)
    codec = action_codec(rules.max_pip)
    observer = Observer(rules)
    assert rules.hand_size is not None
    p = np.zeros(K.NP, np.int64)
    p[K.P_MAX_PIP] = rules.max_pip
    p[K.P_N] = rules.num_players
    p[K.P_PARTNER] = rules.partnership
    p[K.P_HAND_SIZE] = rules.hand_size
    p[K.P_RESERVE] = rules.boneyard_reserve
    p[K.P_FIRST] = LEAD_CODE[rules.first_hand_lead]
    p[K.P_NEXT] = LEAD_CODE[rules.next_hand_lead]
    p[K.P_LEAD_HD] = rules.lead_tile is LeadTile.HIGHEST_DOUBLE
    p[K.P_SNIFF] = SNIFF_CODE[rules.sniff]
    p[K.P_SIDES_NOW] = rules.sniff_sides_open is SidesOpen.IMMEDIATELY
    p[K.P_CHOICE] = rules.double_placement == "choice"
    p[K.P_DIV5] = rules.points is Points.COUNT_DIV5
    p[K.P_DRAW_LIMIT] = _DRAW_LIMIT[rules.draw]
    p[K.P_MUST_PLAY_DRAWN] = rules.must_play_drawn
    p[K.P_VOLUNTARY] = rules.voluntary_draw
    p[K.P_HAND_END] = HAND_END_CODE[rules.hand_end]
    p[K.P_TARGET] = rules.target
    p[K.P_WIN_DURING] = rules.win_during_hand
    p[K.P_MAX_HANDS] = max_hands or 0
    p[K.P_T] = ts.size
    p[K.P_INLINE_BASE] = codec.inline_base
    p[K.P_DRAW_ACTION] = codec.draw_action
    p[K.P_SIDES] = rules.num_sides
    pip_tiles = np.array([[ts.index((a, c)) for c in range(rules.max_pip + 1)] for a in range(rules.max_pip + 1)],
                         np.int64)
    score_tab = np.array(scoring_table(rules.scoring), np.bool_)
    decoded = np.array([codec.decode(a)[:2] for a in range(codec.num_actions)], np.int64)
    spec = observer.spec  # the encoder's feature tables
    lo, hi = np.array(ts.lo, np.int64), np.array(ts.hi, np.int64)
    offsets = np.array(spec.off, np.int64)
    fractions = np.array([spec.tile_frac, spec.hand_frac, spec.end_frac], np.float32)
    count_val, points_val = np.array(spec.count_val, np.float32), np.array(spec.points_val, np.float32)
    act_tile, act_slot = decoded[:, 0].copy(), decoded[:, 1].copy()
    rules_vec = observer.rules_block(rules)
    kernel_spec = Spec(offsets, int(p[K.P_N]), int(p[K.P_MAX_PIP]) + 1, int(p[K.P_SIDES]), int(p[K.P_PARTNER]),
                       int(p[K.P_TARGET]), int(p[K.P_SNIFF]), int(p[K.P_INLINE_BASE]), int(p[K.P_DRAW_ACTION]), lo, hi,
                       act_tile, act_slot, score_tab, count_val, points_val, fractions[K.FRAC_TILES],
                       fractions[K.FRAC_HAND], fractions[K.FRAC_END])
    return Tables(
        rules=rules,
        observer=observer,
        params=p,
        lo=lo,
        hi=hi,
        pip_tiles=pip_tiles,
        score_tab=score_tab,
        rules_vec=rules_vec,
        offsets=offsets,
        fractions=fractions,
        count_val=count_val,
        points_val=points_val,
        act_tile=act_tile,
        act_slot=act_slot,
        arrays=RuleTables(p, lo, hi, pip_tiles, score_tab, act_tile, act_slot),
        kernel_spec=kernel_spec,
    )
