"""Deals: the scripted-deal record, its checks, random deals and the choice of the leader.

The rules of the lead and of the deal's split are those of :mod:`sniff_env.rulebook`; the
functions here apply them to tile indices and :class:`~sniff_env.tiles.TileSet` tables.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sniff_env import rulebook
from sniff_env.errors import DealError
from sniff_env.rules import Rules
from sniff_env.tiles import Tile, TileSet, tile_set


@dataclass(frozen=True)
class Deal:
    """One hand's deal: each seat's tiles, the boneyard in draw order, and the leader.

    Tiles are indices (see :mod:`sniff_env.tiles`). Build a checked one from pip pairs with
    :func:`scripted_deal`.
    """

    hands: tuple[tuple[int, ...], ...]
    boneyard: tuple[int, ...]
    leader: int
    lots: tuple[int, ...] = ()
    """The tiles drawn for the lead (``first_hand_lead="lots"``), one per seat; empty otherwise."""

    def to_json(self, ts: TileSet) -> dict[str, Any]:
        pair = ts.tiles
        return {
            "hands": [[list(pair[t]) for t in h] for h in self.hands],
            "boneyard": [list(pair[t]) for t in self.boneyard],
            "leader": self.leader,
        }


def _held(ts: TileSet, hand: Sequence[int]) -> list[int]:
    held = [0] * ts.size
    for t in hand:
        held[t] = 1
    return held


def heavier_key(ts: TileSet, tile: int) -> tuple[int, int]:
    """A sort key of tiles by :func:`sniff_env.rulebook.heavier`'s ranking: pip total, then the
    higher half."""
    return ts.pips[tile], ts.tiles[tile][1]


def forced_lead_tile(ts: TileSet, hand: Sequence[int]) -> int:
    """The highest double in ``hand``, or its heaviest tile if it holds no double
    (:func:`sniff_env.rulebook.forced_lead_tile`)."""
    return rulebook.forced_lead_tile(_held(ts, hand), ts.lo, ts.hi)


def highest_double_holder(ts: TileSet, hands: Sequence[Sequence[int]]) -> int:
    """The seat holding the highest double (or, with no double out, the heaviest tile)
    (:func:`sniff_env.rulebook.highest_double_holder`)."""
    return rulebook.highest_double_holder([_held(ts, h) for h in hands], len(hands), ts.lo, ts.hi)


def draw_lots(ts: TileSet, num_players: int, rng: random.Random) -> tuple[int, tuple[int, ...]]:
    """Every seat draws one tile; the heaviest leads. Returns (leader, tiles drawn)."""
    drawn = tuple(rng.sample(range(ts.size), num_players))
    return lots_leader(ts, drawn), drawn


def lots_leader(ts: TileSet, drawn: Sequence[int]) -> int:
    """The seat whose lot (``drawn[seat]``) is the heaviest tile: it leads
    (:func:`sniff_env.rulebook.lots_leader`)."""
    return rulebook.lots_leader(drawn, len(drawn), ts.lo, ts.hi)


def random_deal(rules: Rules, rng: random.Random, leader: int | None) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Shuffle the set and split it into ``hand_size`` tiles for each seat and the boneyard
    (:func:`sniff_env.rulebook.dealt_to`)."""
    ts = tile_set(rules.max_pip)
    order = list(range(ts.size))
    rng.shuffle(order)
    k = rules.hand_size
    assert k is not None
    n = rules.num_players
    hands: list[list[int]] = [[] for _ in range(n)]
    bone: list[int] = []
    for i, t in enumerate(order):
        seat = rulebook.dealt_to(i, n, k)
        (hands[seat] if seat >= 0 else bone).append(t)
    return tuple(tuple(sorted(h)) for h in hands), tuple(bone)


def scripted_deal(
    rules: Rules,
    hands: Sequence[Sequence[Tile | Sequence[int]]],
    boneyard: Sequence[Tile | Sequence[int]] | None = None,
    leader: int | None = None,
    rng: random.Random | None = None,
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...] | None, int | None]:
    """Check a scripted deal given as pip pairs and convert it to tile indices.

    ``boneyard`` lists the remaining tiles in the order they are drawn; ``None`` shuffles the
    rest with ``rng``. ``leader`` ``None`` leaves the leader to the rules' lead selection.
    """
    ts = tile_set(rules.max_pip)
    if not isinstance(hands, Sequence) or isinstance(hands, (str, bytes)):
        raise DealError(f"hands must be a list of {rules.num_players} lists of tiles; got {hands!r}")
    if len(hands) != rules.num_players:
        raise DealError(f"the deal has {len(hands)} hands; the rules have {rules.num_players} players")
    seen: dict[int, str] = {}

    def take(tile: Any, where: str) -> int:
        try:
            t = ts.index(tile)
        except ValueError as exc:
            raise DealError(f"{where}: {exc}") from None
        if t in seen:
            raise DealError(f"tile {ts.name(t)} appears twice (in {seen[t]} and in {where})")
        seen[t] = where
        return t

    out_hands = []
    for seat, hand in enumerate(hands):
        if len(hand) != rules.hand_size:
            raise DealError(
                f"hand {seat} has {len(hand)} tiles; the rules deal {rules.hand_size} to each player"
            )
        out_hands.append(tuple(sorted(take(t, f"hand {seat}") for t in hand)))
    rest = [t for t in range(ts.size) if t not in seen]
    bone: tuple[int, ...] | None
    if boneyard is None:
        shuffled = list(rest)
        (rng or random.Random(0)).shuffle(shuffled)
        bone = tuple(shuffled)
    else:
        bone = tuple(take(t, "the boneyard") for t in boneyard)
        if len(bone) != len(rest):
            missing = ", ".join(ts.name(t) for t in rest if t not in bone)
            raise DealError(
                f"the boneyard must hold every tile not in a hand ({len(rest)} tiles); missing: {missing}"
            )
    if leader is not None and (
        not isinstance(leader, int) or isinstance(leader, bool) or not 0 <= leader < rules.num_players
    ):
        raise DealError(f"leader must be a seat 0..{rules.num_players - 1}; got {leader!r}")
    return tuple(out_hands), bone, leader
