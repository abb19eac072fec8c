"""What one seat may know, and worlds sampled consistently with it.

:class:`InfoState` is built from a :class:`~sniff_env.game.Game` for one seat and holds no
hidden tile: not the other hands, not the boneyard order, not the tiles others drew. Players
and the observation encoder read only this. :func:`determinize` deals the unseen tiles to the
other seats and the boneyard at random, respecting every hand size and every pip a seat is
known to lack, and returns a full game to search in.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from sniff_env.game import Game, Phase
from sniff_env.layout import Layout
from sniff_env.rules import Rules
from sniff_env.scoring import HandResult
from sniff_env.tiles import mask_tiles, tile_set


class InfoState(NamedTuple):
    """The public state of a hand plus one seat's private hand (an immutable record)."""

    rules: Rules
    seat: int
    hand: int
    """The seat's own tiles (bit mask)."""
    turn: int
    legal: tuple[int, ...]
    """The seat's legal actions when it is to move, else empty."""
    phase: Phase
    plays: tuple[tuple[int, int, int], ...]
    """``(tile, seat, slot)`` for every placement of this hand, in order."""
    end_pip: tuple[int, int, int, int]
    end_val: tuple[int, int, int, int]
    end_open: tuple[bool, bool, bool, bool]
    sniff_tile: int
    sniff_pending: int
    count: int  # type: ignore[assignment]  # the layout count; shadows tuple.count on purpose
    hand_sizes: tuple[int, ...]
    lacking: tuple[int, ...]
    """Per seat, a bit mask of the pips that seat is known not to hold."""
    boneyard_size: int
    drawable: int
    passes: int
    drawn_this_turn: int
    last_drawn: int
    """The tile the seat drew last this turn (only when it is the seat's own turn), or -1."""
    scores: tuple[int, ...]
    hand_index: int
    leader: int
    results: tuple[HandResult, ...]

    @property
    def layout(self) -> Layout:
        """The layout, as a value (:class:`~sniff_env.layout.Layout`)."""
        return Layout.of(self)

    @property
    def played_mask(self) -> int:
        m = 0
        for tile, _, _ in self.plays:
            m |= 1 << tile
        return m

    @property
    def unseen_mask(self) -> int:
        """Tiles this seat cannot see: in other hands or in the boneyard."""
        return tile_set(self.rules.max_pip).all_mask & ~self.hand & ~self.played_mask


def info_state(game: Game, seat: int) -> InfoState:
    """What ``seat`` may know of ``game`` now."""
    own_turn = game.phase is Phase.PLAY and game.turn == seat
    ep, ev, eo = game.end_pip, game.end_val, game.end_open
    return InfoState(
        game.rules,
        seat,
        game.hands[seat],
        game.turn,
        tuple(game.legal_actions()) if own_turn else (),
        game.phase,
        tuple(game.plays),
        (ep[0], ep[1], ep[2], ep[3]),
        (ev[0], ev[1], ev[2], ev[3]),
        (eo[0], eo[1], eo[2], eo[3]),
        game.sniff_tile,
        game.sniff_pending,
        game.count,
        tuple([h.bit_count() for h in game.hands]),
        tuple(game.lacking),
        game.boneyard_size,
        game.drawable,
        game.passes,
        game.drawn_this_turn if own_turn else 0,
        game.last_drawn if own_turn else -1,
        tuple(game.scores),
        game.hand_index,
        game.leader,
        tuple(game.results),
    )


def sample_hidden(info: InfoState, rng: random.Random, tries: int = 50) -> tuple[list[int], list[int]]:
    """Deal the unseen tiles: ``(hands, boneyard)`` with ``hands[seat] == info.hand``.

    Each other seat gets its known number of tiles, none with a pip it is known to lack;
    the rest form the boneyard in random order. Seats are filled most constrained first; if a
    random fill runs into a dead end it is retried (from half the tries on, each seat takes
    first the tiles that later seats may not hold), and after ``tries`` failures the lacking
    constraints are dropped (they are then inconsistent, as for a mover that has just drawn).
    """
    ts = tile_set(info.rules.max_pip)
    unseen = mask_tiles(info.unseen_mask)
    others = [s for s in range(info.rules.num_players) if s != info.seat]
    order = sorted(others, key=lambda s: -info.lacking[s].bit_count())
    banned = {s: 0 for s in others}
    for s in others:
        for p in range(ts.max_pip + 1):
            if info.lacking[s] >> p & 1:
                banned[s] |= ts.pip_mask[p]
    for attempt in range(tries + 1):
        use_lacking = attempt < tries
        # After half the tries, each seat takes first the tiles that the seats filled after it
        # may not hold: a purely random fill can miss the few consistent deals.
        steer = 2 * attempt >= tries
        pool = list(unseen)
        rng.shuffle(pool)
        hands = [0] * info.rules.num_players
        hands[info.seat] = info.hand
        ok = True
        for i, s in enumerate(order):
            need = info.hand_sizes[s]
            bad = banned[s] if use_lacking else 0
            allowed = [t for t in pool if not (bad >> t & 1)]
            if steer and use_lacking:
                later = order[i + 1 :]
                allowed.sort(key=lambda t: -sum(banned[o] >> t & 1 for o in later))
            chosen = allowed[:need]
            if len(chosen) < need:
                ok = False
                break
            taken = set(chosen)
            pool = [t for t in pool if t not in taken]
            for t in chosen:
                hands[s] |= 1 << t
        if ok:
            return hands, pool
    raise AssertionError("unreachable: an unconstrained fill always succeeds")


def determinize(info: InfoState, rng: random.Random) -> Game:
    """A full game consistent with ``info``: the public state copied, the hidden tiles sampled.

    The result has no event log and a seed of its own; continue it with ``step``.
    """
    hands, bone = sample_hidden(info, rng)
    return Game.from_position(info, hands, bone, seed=rng.getrandbits(62))
