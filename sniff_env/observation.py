"""The observation: one flat float32 vector built from named pieces, from a seat's point of view.

It is computed from an :class:`~sniff_env.infostate.InfoState` only, so it cannot show a
hidden tile. Seats are relative: index 0 is the observing seat, 1 the next to play after it,
and so on; scores are per side, the observer's side first. The layout depends on the set
size and the number of players; :meth:`Observer.describe` prints it.

Layout version history: ``1`` the first layout; ``2`` adds ``move_points`` and ``move_count``
(for every legal placement, the points it scores now and the count it leaves), which spare a
network the modular arithmetic of the scoring rule.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .actions import action_codec
from .game import Game
from .infostate import InfoState, info_state
from .layout import count_after
from .rules import DoublePlacement, Draw, HandEnd, Points, Rules, Scoring, SniffKind
from .scoring import scoring_table
from .tiles import tile_set

LAYOUT_VERSION = 2


@dataclass(frozen=True)
class Piece:
    name: str
    start: int
    size: int
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size


class Observer:
    """Encodes observations and action masks for one rule set."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.ts = tile_set(rules.max_pip)
        self.codec = action_codec(rules.max_pip)
        n, t, p = rules.num_players, self.ts.size, rules.max_pip + 1
        a = self.codec.num_actions
        specs = [
            ("hand", t, "1 for each tile in the seat's hand"),
            ("played_by", t * n, "tile x relative seat: 1 where that seat played that tile this hand"),
            ("end_pip", 4 * p, "west/east/north/south x pip: one-hot pip of each end that exists"),
            ("end_open", 4, "1 where an end can be played on now"),
            ("end_value", 4, "what each end adds to the count, / (2 * max_pip)"),
            ("sniff", 3, "one-hot: no sniff yet / sniff down, sides not open / sides open"),
            ("count", 2, "the count / (8 * max_pip); 1 if the count scores now"),
            ("lead", 1, "1 while no tile has been played (the seat leads)"),
            ("hand_sizes", n, "tiles held by each relative seat / hand_size"),
            ("lacking", n * p, "relative seat x pip: 1 where that seat is known to hold no such pip"),
            ("boneyard", 2, "boneyard size and drawable tiles, / number of tiles"),
            ("scores", rules.num_sides, "each side's score / target, the seat's side first"),
            ("drawn", t, "the tile the seat drew last this turn (must-play-drawn rules)"),
            ("rules", 21, "the rules fields that change play (see Observer.rules_block)"),
            ("move_points", a, "per action: the points that legal placement scores now, / (8 * max_pip)"),
            ("move_count", a, "per action: the count that legal placement leaves, / (8 * max_pip)"),
        ]
        pieces, start = [], 0
        for name, size, doc in specs:
            pieces.append(Piece(name, start, size, doc))
            start += size
        self.pieces: dict[str, Piece] = {pc.name: pc for pc in pieces}
        self.size = start
        self._rules_vec = self.rules_block(rules)
        self._offsets = tuple(pc.start for pc in pieces)
        self._template = np.zeros(self.size, dtype=np.float32)
        rules_piece = self.pieces["rules"]
        self._template[rules_piece.start : rules_piece.stop] = self._rules_vec
        self._template_bytes = self._template.tobytes()
        self._scores = scoring_table(rules.scoring)
        self._end_scale = 1.0 / (2 * rules.max_pip)
        self._count_scale = 1.0 / (8 * rules.max_pip)
        self._hand_scale = 1.0 / (rules.hand_size or 1)
        self._tile_scale = 1.0 / self.ts.size
        self._draw_action = self.codec.draw_action
        self._div5 = rules.points is Points.COUNT_DIV5

    @property
    def version(self) -> str:
        return f"sniff-obs-v{LAYOUT_VERSION}/pip{self.rules.max_pip}/p{self.rules.num_players}"

    @staticmethod
    def rules_block(rules: Rules) -> np.ndarray:
        """21 values: sniff kind (3), double choice, scoring (5), draw (3), voluntary draw,
        must play drawn, points / 5, hand end (4), win during hand, partnership."""
        v: list[float] = []
        v += [float(rules.sniff is k) for k in SniffKind]
        v.append(float(rules.double_placement is DoublePlacement.CHOICE))
        v += [float(rules.scoring is k) for k in Scoring]
        v += [float(rules.draw is k) for k in Draw]
        v.append(float(rules.voluntary_draw))
        v.append(float(rules.must_play_drawn))
        v.append(float(rules.points is Points.COUNT_DIV5))
        v += [float(rules.hand_end is k) for k in HandEnd]
        v.append(float(rules.win_during_hand))
        v.append(float(rules.partnership))
        return np.asarray(v, dtype=np.float32)

    def describe(self) -> str:
        """The layout as a table: name, offset, size, meaning."""
        lines = [f"observation layout {self.version}: {self.size} float32 values"]
        for pc in self.pieces.values():
            lines.append(f"  {pc.name:<11} [{pc.start:>4}:{pc.stop:<4}] {pc.doc}")
        return "\n".join(lines)

    def encode(self, info: InfoState) -> np.ndarray:
        """The observation vector of ``info.seat`` (float32, :attr:`size` values)."""
        rules = self.rules
        n, p, seat = rules.num_players, rules.max_pip + 1, info.seat
        o_hand, o_played, o_end_pip, o_end_open, o_end_value, o_sniff, o_count, o_lead, o_sizes, \
            o_lacking, o_bone, o_scores, o_drawn, _o_rules, o_move_points, o_move_count = self._offsets
        ones: list[int] = []
        hand = info.hand
        while hand:
            low = hand & -hand
            ones.append(o_hand + low.bit_length() - 1)
            hand ^= low
        for tile, who, _ in info.plays:
            ones.append(o_played + tile * n + (who - seat) % n)
        idx: list[int] = []
        val: list[float] = []
        end_pip, end_open = info.end_pip, info.end_open
        if info.plays:
            has_sniff = info.sniff_tile >= 0
            for e in range(4 if has_sniff else 2):
                ones.append(o_end_pip + e * p + end_pip[e])
            for e in range(4):
                if end_open[e]:
                    ones.append(o_end_open + e)
            scale = self._end_scale
            ev = info.end_val
            idx += (o_end_value, o_end_value + 1, o_end_value + 2, o_end_value + 3)
            val += (ev[0] * scale, ev[1] * scale, ev[2] * scale, ev[3] * scale)
            if self._scores[info.count]:
                ones.append(o_count + 1)
            sniff = 0
            if has_sniff:
                sniff = 2 if end_open[2] or end_open[3] or info.sniff_pending == 0 else 1
            ones.append(o_sniff + sniff)
        else:
            ones.append(o_lead)
            ones.append(o_sniff)
        idx.append(o_count)
        val.append(info.count * self._count_scale)
        hs = self._hand_scale
        sizes, lacking = info.hand_sizes, info.lacking
        pips_of = self._pips_of
        for s in range(n):
            rel = (s - seat) % n
            idx.append(o_sizes + rel)
            val.append(sizes[s] * hs)
            lack = lacking[s]
            if lack:
                base = o_lacking + rel * p
                ones += [base + pip for pip in pips_of(lack)]
        idx += (o_bone, o_bone + 1)
        val += (info.boneyard_size * self._tile_scale, max(info.drawable, 0) * self._tile_scale)
        sides = rules.num_sides
        own = seat % 2 if rules.partnership else seat
        target = rules.target
        for side in range(sides):
            idx.append(o_scores + (side - own) % sides)
            val.append(info.scores[side] / target)
        if info.last_drawn >= 0:
            ones.append(o_drawn + info.last_drawn)
        draw_action, scale, table, div5 = self._draw_action, self._count_scale, self._scores, self._div5
        for action in info.legal:
            if action != draw_action:
                after = count_after(info, action)
                idx.append(o_move_count + action)
                val.append(after * scale)
                if table[after]:
                    idx.append(o_move_points + action)
                    val.append((after // 5 if div5 else after) * scale)
        buf = array("f", self._template_bytes)
        for i in ones:
            buf[i] = 1.0
        for i, v in zip(idx, val):
            buf[i] = v
        return np.frombuffer(buf, dtype=np.float32)

    def encode_game(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` in ``game``: :meth:`encode` of its :func:`info_state`."""
        return self.encode(info_state(game, seat))

    @staticmethod
    @lru_cache(maxsize=1 << 14)
    def _pips_of(mask: int) -> tuple[int, ...]:
        return tuple(p for p in range(mask.bit_length()) if mask >> p & 1)

    def mask(self, info: InfoState) -> np.ndarray:
        """int8 mask over all actions: 1 for each legal action (all zeros off turn)."""
        m = np.zeros(self.codec.num_actions, dtype=np.int8)
        if info.legal:
            m[list(info.legal)] = 1
        return m
