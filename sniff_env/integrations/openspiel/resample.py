"""Worlds consistent with what one seat knows: the hidden chance outcomes of the current hand
drawn again, so that the seat's information state is unchanged (for IS-MCTS and the like).

Earlier hands keep their outcomes: each hand is shuffled afresh, so they say nothing of the
current hand's hidden tiles. The other seats' tiles now are sampled by
:func:`~sniff_env.infostate.sample_hidden` (it respects the pips each seat is known to lack);
their tiles played and held are then split at random between their deal and their draws, and
the candidate is replayed by the engine: it is kept only if the seat sees exactly what it saw.
"""

from __future__ import annotations

import random

from ...errors import SniffError
from ...infostate import info_state, sample_hidden
from ...tiles import mask_tiles
from .play import ChancePlay, Stage, Step
from .text import information_state_string

DEFAULT_TRIES = 500


class ResampleError(SniffError):
    """No world consistent with the seat's information was found in the tries allowed."""


def resample_actions(play: ChancePlay, seat: int, rng: random.Random, tries: int = DEFAULT_TRIES) -> list[int]:
    """A history (all actions from the start) that ``seat`` cannot tell from ``play``'s."""
    if play.stage is Stage.DRAW or play.is_over:
        raise ResampleError("worlds are resampled at decision nodes and while dealing, not at a draw or the end")
    assert play.hand_root is not None
    head = [s.action for s in play.trail[: play.hand_start]]
    hand = play.trail[play.hand_start :]
    target = information_state_string(play, seat)
    for _ in range(tries):
        actions = _propose(play, seat, hand, rng)
        if actions is None:
            continue
        world = play.hand_root.copy()
        try:
            for a in actions:
                world.apply(a)
        except SniffError:
            continue
        if world.stage is play.stage and information_state_string(world, seat) == target:
            return head + actions
    raise ResampleError(f"no world consistent with seat {seat}'s information found in {tries} tries")


def _propose(play: ChancePlay, seat: int, hand: list[Step], rng: random.Random) -> list[int] | None:
    """The hand's actions with the outcomes hidden from ``seat`` drawn again (None: a dead end)."""
    n = play.rules.num_players
    if play.stage is not Stage.PLAY:  # still dealing: the others' tiles so far are any unseen ones
        own = {s.action for s in hand if s.stage is Stage.DEAL and s.seat == seat}
        pool = [t for t in range(play.ts.size) if t not in own]
        rng.shuffle(pool)
        return [pool.pop() if s.stage is Stage.DEAL and s.seat != seat else s.action for s in hand]
    hands_now, _ = sample_hidden(info_state(play.game, seat), rng)
    played_at: dict[int, int] = {}  # tile -> its position in the hand's trail
    for i, s in enumerate(hand):
        if s.stage is Stage.PLAY:
            tile = play.game.codec.decode(s.action)[0]
            if tile >= 0:
                played_at[tile] = i
    draw_action = play.game.codec.draw_action
    outcome: dict[int, int] = {}  # position of a hidden outcome in the trail -> its new tile
    for other in range(n):
        if other == seat:
            continue
        held = set(mask_tiles(hands_now[other]))
        held.update(t for t, i in played_at.items() if hand[i].seat == other)
        draws = [i for i, s in enumerate(hand) if s.stage is Stage.DRAW and s.seat == other]
        for i in reversed(draws):  # latest first: the fewest tiles can have been drawn there
            options = sorted(t for t in held if played_at.get(t, len(hand)) > i)
            if _forced(hand, i, draw_action) and i + 1 < len(hand) and hand[i + 1].stage is Stage.PLAY and hand[i + 1].seat == other:
                # a forced draw followed by a placement: only the tile just drawn could be placed
                placed = play.game.codec.decode(hand[i + 1].action)[0]
                options = [placed] if placed in options else []
            if not options:
                return None
            tile = rng.choice(options)
            outcome[i] = tile
            held.discard(tile)
        deals = [i for i, s in enumerate(hand) if s.stage is Stage.DEAL and s.seat == other]
        rest = sorted(held)
        rng.shuffle(rest)
        if len(rest) != len(deals):
            return None
        outcome.update(zip(deals, rest, strict=True))
    return [outcome.get(i, s.action) for i, s in enumerate(hand)]


def _forced(hand: list[Step], i: int, draw_action: int) -> bool:
    """Whether the draw at ``hand[i]`` was forced (not the seat's own draw action)."""
    j = i - 1
    while j >= 0 and hand[j].stage is Stage.DRAW and hand[j].seat == hand[i].seat:
        j -= 1  # earlier draws of the same turn
    return not (j >= 0 and hand[j].stage is Stage.PLAY and hand[j].action == draw_action and j == i - 1)
