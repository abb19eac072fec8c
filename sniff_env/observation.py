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

from sniff_env.actions import action_codec
from sniff_env.encoding import PIECES, Board, Counts, Spec, encode_row
from sniff_env.game import Game
from sniff_env.infostate import InfoState, info_state
from sniff_env.rule_codes import SNIFF_CODE
from sniff_env.rulebook import play_points
from sniff_env.rules import DoublePlacement, Draw, HandEnd, Points, Rules, Scoring, SniffKind
from sniff_env.scoring import scoring_table
from sniff_env.tiles import tile_set

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
        specs = {
            "hand": (t, "1 for each tile in the seat's hand"),
            "played_by": (t * n, "tile x relative seat: 1 where that seat played that tile this hand"),
            "end_pip": (4 * p, "west/east/north/south x pip: one-hot pip of each end that exists"),
            "end_open": (4, "1 where an end can be played on now"),
            "end_value": (4, "what each end adds to the count, / (2 * max_pip)"),
            "sniff": (3, "one-hot: no sniff yet / sniff down, sides not open / sides open"),
            "count": (2, "the count / (8 * max_pip); 1 if the count scores now"),
            "lead": (1, "1 while no tile has been played (the seat leads)"),
            "hand_sizes": (n, "tiles held by each relative seat / hand_size"),
            "lacking": (n * p, "relative seat x pip: 1 where that seat is known to hold no such pip"),
            "boneyard": (2, "boneyard size and drawable tiles, / number of tiles"),
            "scores": (rules.num_sides, "each side's score / target, the seat's side first"),
            "drawn": (t, "the tile the seat drew last this turn (must-play-drawn rules)"),
            "rules": (21, "the rules fields that change play (see Observer.rules_block)"),
            "move_points": (a, "per action: the points that legal placement scores now, / (8 * max_pip)"),
            "move_count": (a, "per action: the count that legal placement leaves, / (8 * max_pip)"),
        }
        pieces, start = [], 0
        for name in PIECES:
            size, doc = specs[name]
            pieces.append(Piece(name, start, size, doc))
            start += size
        self.pieces: dict[str, Piece] = {pc.name: pc for pc in pieces}
        self.size = start
        self._rules_vec = self.rules_block(rules)
        template = np.zeros(self.size, dtype=np.float32)
        rules_piece = self.pieces["rules"]
        template[rules_piece.start : rules_piece.stop] = self._rules_vec
        self._template_bytes = template.tobytes()
        self.spec = self._spec()
        """The encoder's tables for these rules (:class:`sniff_env.encoding.Spec`), as tuples."""

    def _spec(self) -> Spec:
        """The scaled features as float32 tables: ``x / num_tiles``, ``x / hand_size``,
        ``x / (2 * max_pip)``, and a count ``c`` and its points as ``/ (8 * max_pip)``."""
        rules, ts, codec = self.rules, self.ts, self.codec
        score_tab = scoring_table(rules.scoring)
        div5 = rules.points is Points.COUNT_DIV5
        x = np.arange(max(ts.size, 2 * rules.max_pip) + 1)
        counts = np.arange(len(score_tab))
        points = np.array([play_points(c, score_tab, div5) for c in range(len(score_tab))])
        count_scale = 1.0 / (8 * rules.max_pip)

        def f32(values: np.ndarray) -> tuple[float, ...]:
            return tuple(values.astype(np.float32).tolist())

        decoded = [codec.decode(action) for action in range(codec.draw_action)]
        return Spec(
            off=tuple(pc.start for pc in self.pieces.values()),
            num_players=rules.num_players,
            pips=rules.max_pip + 1,
            num_sides=rules.num_sides,
            partnership=int(rules.partnership),
            target=rules.target,
            sniff_kind=SNIFF_CODE[rules.sniff],
            inline_base=codec.inline_base,
            draw_action=codec.draw_action,
            lo=tuple(tile[0] for tile in ts.tiles),
            hi=tuple(tile[1] for tile in ts.tiles),
            act_tile=tuple(tile for tile, _, _ in decoded),
            act_slot=tuple(slot for _, slot, _ in decoded),
            score_tab=tuple(int(v) for v in score_tab),
            count_val=f32(counts * count_scale),
            points_val=f32(points * count_scale),
            tile_frac=f32(x * (1.0 / ts.size)),
            hand_frac=f32(x * (1.0 / (rules.hand_size or 1))),
            end_frac=f32(x * (1.0 / (2 * rules.max_pip))),
        )

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

    def blank_row(self) -> np.ndarray:
        """A new observation row of zeros with the rules block in place: what the encoder writes over."""
        return np.frombuffer(self._template_bytes, dtype=np.float32).copy()

    def encode(self, info: InfoState) -> np.ndarray:
        """The observation vector of ``info.seat`` (float32, :attr:`size` values), written by
        :func:`sniff_env.encoding.encode_row`."""
        row = array("f", self._template_bytes)
        seat_of = {tile: who for tile, who, _ in info.plays}
        board = Board(info.end_pip, info.end_val, info.end_open, info.sniff_tile, info.sniff_pending, info.count)
        counts = Counts(info.hand_sizes, info.lacking, info.scores, info.boneyard_size, info.drawable)
        encode_row(row, self.spec, info.seat, _bits(info.hand, self.ts.size), list(seat_of), seat_of, board, counts,
                   info.last_drawn, info.legal)
        return np.frombuffer(row, dtype=np.float32)

    def encode_game(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` in ``game``: :meth:`encode` of its :func:`info_state`."""
        return self.encode(info_state(game, seat))

    def mask(self, info: InfoState) -> np.ndarray:
        """int8 mask over all actions: 1 for each legal action (all zeros off turn)."""
        m = np.zeros(self.codec.num_actions, dtype=np.int8)
        if info.legal:
            m[list(info.legal)] = 1
        return m



@lru_cache(maxsize=128)
def observer_for(rules: Rules) -> Observer:
    """The :class:`Observer` of ``rules``, built once per rule set and shared: an observer holds
    only tables made from its rules, and nothing changes them once it is built."""
    return Observer(rules)


_DIGIT_BITS = bytes.maketrans(b"01", b"\0\1")


def _bits(mask: int, size: int) -> bytes:
    """``mask`` as ``size`` bytes 0 or 1, lowest bit first: the encoder's per-tile form of a hand."""
    return f"{mask:0{size}b}"[::-1].encode().translate(_DIGIT_BITS)
