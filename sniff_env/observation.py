"""The observation: one flat float32 vector built from named pieces, from a seat's point of view.

It is computed from an :class:`~sniff_env.infostate.InfoState` only, so it cannot show a
hidden tile. Seats are relative: index 0 is the observing seat, 1 the next to play after it,
and so on; scores are per side, the observer's side first. The layout depends on the set
size and the number of players; :meth:`Observer.describe` prints it.

Layout version history: ``1`` the first layout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .actions import action_codec
from .infostate import InfoState
from .rules import DoublePlacement, Draw, HandEnd, Points, Rules, Scoring, SniffKind
from .tiles import tile_set

LAYOUT_VERSION = 1


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
        ]
        pieces, start = [], 0
        for name, size, doc in specs:
            pieces.append(Piece(name, start, size, doc))
            start += size
        self.pieces: dict[str, Piece] = {pc.name: pc for pc in pieces}
        self.size = start
        self._rules_vec = self.rules_block(rules)

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
        rules, ts, pc = self.rules, self.ts, self.pieces
        n, p, seat = rules.num_players, rules.max_pip + 1, info.seat
        obs = np.zeros(self.size, dtype=np.float32)
        ones: list[int] = []
        hand = info.hand
        base = pc["hand"].start
        while hand:
            low = hand & -hand
            ones.append(base + low.bit_length() - 1)
            hand ^= low
        base = pc["played_by"].start
        for tile, who, _ in info.plays:
            ones.append(base + tile * n + (who - seat) % n)
        if info.plays:
            base = pc["end_pip"].start
            exists = (True, True, info.sniff_tile >= 0, info.sniff_tile >= 0)
            for e in range(4):
                if exists[e]:
                    ones.append(base + e * p + info.end_pip[e])
            base = pc["end_open"].start
            for e in range(4):
                if info.end_open[e]:
                    ones.append(base + e)
            base = pc["end_value"].start
            obs[base : base + 4] = np.asarray(info.end_val, dtype=np.float32) / (2 * rules.max_pip)
        else:
            ones.append(pc["lead"].start)
        sniff = 0 if info.sniff_tile < 0 else (2 if info.end_open[2] or info.end_open[3] or info.sniff_pending == 0 else 1)
        ones.append(pc["sniff"].start + sniff)
        base = pc["count"].start
        obs[base] = info.count / (8 * rules.max_pip)
        from .scoring import scoring_table

        if info.plays and scoring_table(rules.scoring)[info.count]:
            ones.append(base + 1)
        base = pc["hand_sizes"].start
        hs = rules.hand_size or 1
        for s in range(n):
            obs[base + (s - seat) % n] = info.hand_sizes[s] / hs
        base = pc["lacking"].start
        for s in range(n):
            lack = info.lacking[s]
            rel = (s - seat) % n
            for pip in range(p):
                if lack >> pip & 1:
                    ones.append(base + rel * p + pip)
        base = pc["boneyard"].start
        obs[base] = info.boneyard_size / ts.size
        obs[base + 1] = max(info.drawable, 0) / ts.size
        base = pc["scores"].start
        sides = rules.num_sides
        own = rules.side_of(seat)
        for side in range(sides):
            obs[base + (side - own) % sides] = info.scores[side] / rules.target
        if info.last_drawn >= 0:
            ones.append(pc["drawn"].start + info.last_drawn)
        base = pc["rules"].start
        obs[base : base + 21] = self._rules_vec
        if ones:
            obs[ones] = 1.0
        return obs

    def mask(self, info: InfoState) -> np.ndarray:
        """int8 mask over all actions: 1 for each legal action (all zeros off turn)."""
        m = np.zeros(self.codec.num_actions, dtype=np.int8)
        if info.legal:
            m[list(info.legal)] = 1
        return m
