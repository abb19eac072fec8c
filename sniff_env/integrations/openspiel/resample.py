"""Worlds consistent with what one seat knows: the hidden chance outcomes of the current hand
drawn again, so that the seat's information state is unchanged (for IS-MCTS and the like).

Earlier hands keep their outcomes: each hand is shuffled afresh, so they say nothing of the
current hand's hidden tiles. For the current hand, every other seat's tiles (those it played
and those it holds) get an arrival, its deal or one of its draws, that the public record allows:

* a seat that drew by force or passed held no tile that could be played then;
* a seat that drew by choice held a tile that could be played then, and, under
  ``must_play_drawn``, had not just drawn one; a seat to move now holds a playable tile;
* a seat that played after drawing, under ``must_play_drawn``, played the tile it drew if that
  tile could be played;
* a tile is played after it arrives (so a seat holds as many tiles now as the table shows);
* where the lead is forced (the highest double, else the heaviest tile), no deal that had to
  lead held a tile that outranks the lead; where the highest double decides the leader, no seat
  was dealt one.

Each other seat's tiles come from slots: its deal (one slot per tile) and each of its draws. A
world gives every slot a tile it allows (the constraints above, but for a held playable tile,
which is placed first at random) and every played tile a slot of its player, by augmenting paths
taken in random order, so worlds spread over those the record allows. Every world is then
replayed by the engine and kept only if the seat sees exactly what it saw.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple, TypeVar

from sniff_env.deal import forced_lead_tile, heavier_key
from sniff_env.errors import SniffError
from sniff_env.game import forced_lead
from sniff_env.integrations.openspiel.play import ChancePlay, Stage, Step
from sniff_env.integrations.openspiel.text import information_state_string
from sniff_env.tiles import TileSet, mask_tiles

DEFAULT_TRIES = 200
"""Proposals per world: one almost always does; a dead end costs about a millisecond."""
NEVER = 1 << 30
"""The play time of a tile still held: later than any event."""


W = TypeVar("W")


class ResampleError(SniffError):
    """No world consistent with the seat's information was found in the tries allowed."""


@dataclass
class _Seat:
    """What the public record says of one other seat's tiles this hand (times are indices into
    the hand's events; a tile mask per moment is the tiles that could be played then)."""

    seat: int
    played: dict[int, int] = field(default_factory=dict)
    """Tile -> when it was played."""
    draws: list[int] = field(default_factory=list)
    """When it drew, in order (one slot per draw)."""
    draw_ban: list[int] = field(default_factory=list)
    """Per draw: tiles that cannot have been drawn there (``must_play_drawn``)."""
    blocked: list[tuple[int, int]] = field(default_factory=list)
    """(time, playable tiles) where it drew by force or passed: it held none of them."""
    needs: list[tuple[int, int]] = field(default_factory=list)
    """(time, playable tiles) where it had a decision other than a placement: it held one."""
    deal_ban: int = 0
    """Tiles its deal cannot hold (they would outrank the lead)."""


class _Slot(NamedTuple):
    """A place one of a seat's tiles came from: its deal (``draw`` -1) or one of its draws."""

    seat: _Seat
    draw: int


class _Record(NamedTuple):
    """What one seat knows of the others' tiles in the current hand."""

    seats: list[_Seat]
    slots: list[_Slot]
    """Where the other seats' tiles came from: each seat's deal (one slot per tile) and draws."""
    allowed: list[int]
    """Per slot, the tiles (a mask) the record lets arrive there."""
    leader: int
    lead_options: int
    """Where the highest double chose another seat to lead and it has not led yet: the tiles
    that outrank every tile of the seat's (one of them is that leader's best); else 0."""


class Resampler:
    """Worlds that ``seat`` cannot tell from ``play``: the current hand's hidden outcomes drawn
    anew. :meth:`proposals` builds candidate histories of the hand; whoever replays one checks
    the result with :meth:`accepts` (the guarantee: the seat's information state is unchanged)."""

    def __init__(self, play: ChancePlay, seat: int) -> None:
        if play.stage is Stage.DRAW or play.is_over:
            raise ResampleError("worlds are resampled at decision nodes and while dealing, not at a draw or the end")
        self.play, self.seat = play, seat
        self.head = [s.action for s in play.trail[: play.hand_start]]
        """The actions before the current hand, which every world keeps."""
        self.target = information_state_string(play, seat)
        self._record = _constraints(play, seat) if play.stage is Stage.PLAY else None

    def proposals(self, rng: random.Random, tries: int = DEFAULT_TRIES) -> Iterator[list[int]]:
        """Candidate actions of the current hand, from ``tries`` attempts (an attempt that runs
        into a dead end yields nothing)."""
        hand = self.play.trail[self.play.hand_start :]
        for _ in range(tries):
            if self._record is None:
                yield _propose_dealing(self.play, self.seat, hand, rng)
                continue
            actions = _propose(self.play, hand, self._record, rng)
            if actions is not None:
                yield actions

    def accepts(self, world: ChancePlay) -> bool:
        """Whether ``world`` (a proposal replayed) looks to the seat exactly as the game does."""
        return world.stage is self.play.stage and information_state_string(world, self.seat) == self.target

    def sample(
        self, rng: random.Random, replay: Callable[[list[int]], tuple[W, ChancePlay]], tries: int = DEFAULT_TRIES
    ) -> W:
        """The first proposal that ``replay`` (the hand's actions -> a world, and the game in it;
        a :class:`SniffError` rejects the proposal) turns into a world the seat cannot tell
        from the game."""
        for actions in self.proposals(rng, tries):
            try:
                world, view = replay(actions)
            except SniffError:
                continue
            if self.accepts(view):
                return world
        raise ResampleError(f"no world consistent with seat {self.seat}'s information found in {tries} tries")


def resample_actions(play: ChancePlay, seat: int, rng: random.Random, tries: int = DEFAULT_TRIES) -> list[int]:
    """A history (all actions from the start) that ``seat`` cannot tell from ``play``'s."""
    resampler = Resampler(play, seat)

    def replay(actions: list[int]) -> tuple[list[int], ChancePlay]:
        assert play.hand_root is not None
        world = play.hand_root.copy()
        for a in actions:
            world.apply(a)
        return resampler.head + actions, world

    return resampler.sample(rng, replay, tries)


def _propose_dealing(play: ChancePlay, seat: int, hand: list[Step], rng: random.Random) -> list[int]:
    """Still dealing: the others' tiles so far are any tiles ``seat`` was not dealt."""
    own = {s.action for s in hand if s.stage is Stage.DEAL and s.seat == seat}
    pool = [t for t in range(play.ts.size) if t not in own]
    rng.shuffle(pool)
    return [pool.pop() if s.stage is Stage.DEAL and s.seat != seat else s.action for s in hand]


# -- what the record says ----------------------------------------------------------------------
def _constraints(play: ChancePlay, seat: int) -> _Record:
    """What the public record and ``seat``'s own tiles say of the other seats' tiles."""
    game, ts, rules = play.game, play.ts, play.rules
    assert game.hand_start is not None
    playable = _playable_table(ts)
    seats = {s: _Seat(s) for s in range(rules.num_players) if s != seat}
    seen = sum(1 << t for t in game.deal.hands[seat])
    replay = game.hand_start.copy()  # the ends at each event: public, whatever the hidden tiles
    first = len(replay.events)
    turn, drew = -1, -1  # whose turn the last event was in; its draw slot earlier in that turn
    for action, claim in game.hand_actions:
        start = len(replay.events)
        before = playable[replay.open_pips()]
        replay.step(action, claim)
        after = playable[replay.open_pips()]
        for i in range(start, len(replay.events)):
            e = replay.events[i]
            if e.player != turn:
                turn, drew = e.player, -1
            if e.kind == "draw" and e.player == seat:
                seen |= 1 << e.tile
            if e.kind == "play":
                seen |= 1 << e.tile
            if e.player == seat or e.kind not in ("play", "draw", "pass"):
                continue
            who, time, now = seats[e.player], i - first, before if i == start else after
            if e.kind == "play":
                who.played[e.tile] = time
                if drew >= 0 and rules.must_play_drawn:
                    who.draw_ban[drew] |= now & ~(1 << e.tile)
            elif e.kind == "pass":
                who.blocked.append((time, now))
            else:
                if i == start:  # the decision itself: a draw by choice
                    who.needs.append((time, now))
                    if drew >= 0 and rules.must_play_drawn:
                        who.draw_ban[drew] |= now
                else:
                    who.blocked.append((time, now))
                drew = len(who.draws)
                who.draws.append(time)
                who.draw_ban.append(0)
    if game.plays and game.turn != seat:
        seats[game.turn].needs.append((NEVER - 1, playable[game.open_pips()]))
    unseen = ts.all_mask & ~seen
    lead_options = _lead_bans(play, seat, seats, unseen)
    slots, allowed = _slots(list(seats.values()), unseen, rules.hand_size or 0)
    return _Record(list(seats.values()), slots, allowed, game.leader, lead_options)


def _lead_bans(play: ChancePlay, seat: int, seats: dict[int, _Seat], unseen: int) -> int:
    """Deal bans from a forced lead: the leader's deal held nothing that outranks the tile it
    led; where the highest double chose the leader, nobody's deal did. Returns the tiles one of
    which another seat, chosen by the highest double but yet to lead, must hold (else 0)."""
    game, ts = play.game, play.ts
    assert play.hand_root is not None
    by_deal = play.hand_root.stage is Stage.DEAL and play.hand_root.leader < 0
    if game.plays:
        lead, leader, _ = game.plays[0]
        if by_deal or forced_lead(play.rules, game.hand_index):
            for s, who in seats.items():
                if by_deal or s == leader:
                    who.deal_ban |= _above(ts, lead)
        return 0
    if not by_deal:
        return 0  # a forced lead still to come says nothing of the others' tiles
    best = _above(ts, forced_lead_tile(ts, game.deal.hands[seat]))
    if game.leader != seat:
        return best & unseen
    for who in seats.values():  # the seat leads: nobody was dealt a tile above its best
        who.deal_ban |= best
    return 0


@cache
def _above(ts: TileSet, tile: int) -> int:
    """The tiles that outrank ``tile`` for a forced lead (any double above any other tile, then
    the heavier), as a mask."""
    rank = _rank(ts, tile)
    return sum(1 << t for t in range(ts.size) if _rank(ts, t) > rank)


def _rank(ts: TileSet, tile: int) -> tuple[bool, int, int]:
    """How a tile ranks for a forced lead: any double above any other tile, then the heavier."""
    return (ts.is_double[tile], *heavier_key(ts, tile))


@cache
def _playable_table(ts: TileSet) -> list[int]:
    """For each mask of open pips, the tiles that could be played on them."""
    table = [0] * (1 << (ts.max_pip + 1))
    for pips in range(1, len(table)):
        low = (pips & -pips).bit_length() - 1
        table[pips] = table[pips & (pips - 1)] | ts.pip_mask[low]
    return table


# -- building a world --------------------------------------------------------------------------
def _slots(seats: list[_Seat], unseen: int, hand_size: int) -> tuple[list[_Slot], list[int]]:
    """Every slot of every other seat, and the tiles each may take: the seat's own played tiles
    and unseen tiles, wherever the record lets them be."""
    slots: list[_Slot] = []
    allowed: list[int] = []
    for who in seats:
        tiles = {**{t: NEVER for t in mask_tiles(unseen)}, **who.played}  # tile -> when played
        dealt = sum(1 << t for t, gone in tiles.items() if _may_deal(who, t, gone))
        slots += [_Slot(who, -1)] * hand_size
        allowed += [dealt] * hand_size
        fits = {t: _draw_slots(who, t, gone) for t, gone in tiles.items()}
        for j in range(len(who.draws)):
            slots.append(_Slot(who, j))
            allowed.append(sum(1 << t for t, bits in fits.items() if bits >> j & 1))
    return slots, allowed


def _propose(play: ChancePlay, hand: list[Step], record: _Record, rng: random.Random) -> list[int] | None:
    """The hand's actions with every other seat's deal and draws chosen anew within the
    constraints (None: this attempt ran into a dead end)."""
    slots, allowed = record.slots, list(record.allowed)
    tile_at = [-1] * len(slots)
    if record.lead_options:  # the leader's best tile first; nobody was dealt a better one
        best = rng.choice(mask_tiles(record.lead_options))
        ban = _above(play.ts, best)
        allowed = [a & ~ban if slot.draw < 0 else a for a, slot in zip(allowed, slots, strict=True)]
        tile_at[next(i for i, s in enumerate(slots) if s.seat.seat == record.leader and s.draw < 0)] = best
    if not _witness_needs(slots, allowed, tile_at, rng):
        return None
    played = [t for who in record.seats for t in who.played]
    if not _Matching(allowed, tile_at, rng).complete(played):
        return None
    deals: dict[int, list[int]] = {who.seat: [] for who in record.seats}
    drawn = {who.seat: [-1] * len(who.draws) for who in record.seats}
    for slot, tile in zip(slots, tile_at, strict=True):
        if slot.draw < 0:
            deals[slot.seat.seat].append(tile)
        else:
            drawn[slot.seat.seat][slot.draw] = tile
    for tiles in deals.values():
        rng.shuffle(tiles)
    out = []
    for s in hand:
        if s.stage is Stage.DEAL and s.seat in deals:
            out.append(deals[s.seat].pop())
        elif s.stage is Stage.DRAW and s.seat in drawn:
            out.append(drawn[s.seat].pop(0))
        else:
            out.append(s.action)
    return out


def _witness_needs(slots: list[_Slot], allowed: list[int], tile_at: list[int], rng: random.Random) -> bool:
    """For every decision that was no placement, give the seat (in a slot it held then) a tile
    it could have played; False if one cannot be given."""
    for who in {slot.seat.seat: slot.seat for slot in slots}.values():
        mine = [i for i, slot in enumerate(slots) if slot.seat is who]
        for time, can in who.needs:
            if any(tile_at[i] >= 0 and can >> tile_at[i] & 1 and _held(slots[i], tile_at[i], time) for i in mine):
                continue
            taken = set(tile_at)
            pairs = [
                (i, t)
                for i in mine
                if tile_at[i] < 0
                for t in mask_tiles(allowed[i] & can)
                if t not in taken and _held(slots[i], t, time)
            ]
            if not pairs:
                return False
            i, t = rng.choice(pairs)
            tile_at[i] = t
    return True


def _held(slot: _Slot, tile: int, time: int) -> bool:
    """Whether ``tile``, come from ``slot``, was in its seat's hand at ``time``."""
    arrived = -1 if slot.draw < 0 else slot.seat.draws[slot.draw]
    return arrived < time < slot.seat.played.get(tile, NEVER)


class _Matching:
    """Tiles to slots, each slot one of the tiles it allows, by augmenting paths in random order.
    Slots already given a tile keep it."""

    def __init__(self, allowed: list[int], tile_at: list[int], rng: random.Random) -> None:
        self.allowed, self.tile_at, self.rng = allowed, tile_at, rng
        self.fixed = {i for i, t in enumerate(tile_at) if t >= 0}
        self.slot_of = {t: i for i, t in enumerate(tile_at) if t >= 0}

    def complete(self, must: list[int]) -> bool:
        """Give every tile of ``must`` a slot, then every slot a tile; False if that cannot be
        done. A tile or slot once matched stays matched, so a completion found exists."""
        for t in self._shuffled([t for t in must if t not in self.slot_of]):
            if not self._place_tile(t, set()):
                return False
        return all(self._fill_slot(i, set()) for i in self._shuffled([i for i, t in enumerate(self.tile_at) if t < 0]))

    def _shuffled(self, items: list[int]) -> list[int]:
        self.rng.shuffle(items)
        return items

    def _place_tile(self, tile: int, seen: set[int]) -> bool:
        options = [i for i, a in enumerate(self.allowed) if a >> tile & 1 and i not in self.fixed and i not in seen]
        self._shuffled(options).sort(key=lambda i: self.tile_at[i] >= 0)  # free slots first
        for i in options:
            seen.add(i)
            if self.tile_at[i] < 0 or self._place_tile(self.tile_at[i], seen):
                self.tile_at[i], self.slot_of[tile] = tile, i
                return True
        return False

    def _fill_slot(self, slot: int, seen: set[int]) -> bool:
        options = [t for t in mask_tiles(self.allowed[slot]) if t not in seen and self.slot_of.get(t) not in self.fixed]
        self._shuffled(options).sort(key=lambda t: t in self.slot_of)  # free tiles first
        for t in options:
            seen.add(t)
            if t not in self.slot_of or self._fill_slot(self.slot_of[t], seen):
                self.tile_at[slot], self.slot_of[t] = t, slot
                return True
        return False


def _draw_slots(who: _Seat, tile: int, gone: int) -> int:
    """The draws (a bit per slot) at which ``tile``, played at ``gone``, may have arrived."""
    out = 0
    for j, time in enumerate(who.draws):
        if time < gone and not who.draw_ban[j] >> tile & 1 and not _blocked(who, tile, time, gone):
            out |= 1 << j
    return out


def _may_deal(who: _Seat, tile: int, gone: int) -> bool:
    """Whether ``tile``, played at ``gone``, may have been dealt to the seat."""
    return not who.deal_ban >> tile & 1 and not _blocked(who, tile, -1, gone)


def _blocked(who: _Seat, tile: int, since: int, until: int) -> bool:
    """Whether holding ``tile`` from ``since`` to ``until`` contradicts a draw or pass forced on
    the seat (it could have played the tile)."""
    return any(since < time < until and can >> tile & 1 for time, can in who.blocked)
