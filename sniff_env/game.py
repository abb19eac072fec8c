"""The game state and its transitions: deal, lead, placements, draws, passes, hand and game end.

A :class:`Game` is a mutable record with a handful of methods; everything it needs to know
about the rules comes from its frozen :class:`~sniff_env.rules.Rules`. Decisions are integers
of :mod:`sniff_env.actions`. Forced draws and passes are not decisions: :meth:`Game.step`
applies them itself and records them as events, so the seat in :attr:`Game.turn` always has
at least one legal action while the hand is in play.

The rules themselves are the functions of :mod:`sniff_env.rulebook`, which the batched engine
compiles too; a :class:`Game` keeps the state they work on (hands as bit masks, the layout as
lists) and calls them.
"""

from __future__ import annotations

import operator
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, NamedTuple, Protocol

from sniff_env import rulebook
from sniff_env.actions import EAST, LEAD, NORTH, SLOTS, SOUTH, WEST, ActionCodec, action_codec
from sniff_env.deal import (
    Deal,
    draw_lots,
    forced_lead_tile,
    highest_double_holder,
    random_deal,
    scripted_deal,
)
from sniff_env.errors import DealError, GameOverError, IllegalMoveError, SniffError
from sniff_env.layout import Layout, LayoutView
from sniff_env.rule_codes import DRAWN_LEAD, LEAD_CODE, SNIFF_CODE
from sniff_env.rules import (
    DoublePlacement,
    Draw,
    FirstLead,
    LeadTile,
    Points,
    Rules,
    SidesOpen,
)
from sniff_env.scoring import HandResult, score_hand_end, scoring_table
from sniff_env.tiles import mask_tiles, tile_set


class Phase(IntEnum):
    PLAY = 0
    HAND_OVER = 1
    GAME_OVER = 2


class Position(LayoutView, Protocol):
    """What :meth:`Game.from_position` reads of a seat's view of a hand: the layout's fields and
    the rest of an :class:`~sniff_env.infostate.InfoState` (which is built from a game, so it is
    not named here)."""

    @property
    def seat(self) -> int: ...
    @property
    def hand(self) -> int: ...
    @property
    def turn(self) -> int: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def plays(self) -> tuple[tuple[int, int, int], ...]: ...
    @property
    def hand_sizes(self) -> tuple[int, ...]: ...
    @property
    def lacking(self) -> tuple[int, ...]: ...
    @property
    def boneyard_size(self) -> int: ...
    @property
    def passes(self) -> int: ...
    @property
    def drawn_this_turn(self) -> int: ...
    @property
    def last_drawn(self) -> int: ...
    @property
    def scores(self) -> tuple[int, ...]: ...
    @property
    def hand_index(self) -> int: ...
    @property
    def leader(self) -> int: ...
    @property
    def results(self) -> tuple[HandResult, ...]: ...


class Event(NamedTuple):
    """Something that happened. ``kind`` is one of ``lots``, ``deal``, ``play``, ``draw``,
    ``pass``, ``muggins``, ``hand_end``, ``game_end``. For ``play``: ``tile``, ``end`` (slot,
    4 for the lead), ``total``: the count after the play and ``points`` scored. A ``draw``'s tile is
    private to its drawer (see :meth:`Game.public_events`)."""

    kind: str
    player: int
    tile: int = -1
    end: int = -1
    total: int = -1
    points: int = 0


@dataclass(frozen=True)
class HandRecord:
    """Enough to replay one hand: its deal and the decisions taken, with muggins claims."""

    deal: Deal
    actions: tuple[tuple[int, bool], ...]


_ALL_ENDS = (WEST, EAST, NORTH, SOUTH)


DEFAULT_MAX_HANDS = 100
"""The environments' bound on the hands of a game (their ``max_hands``; ``None`` lifts it): a game
still short of the target after this many hands ends there, the highest score winning and a tie
being a draw. Random play under some rule sets drifts below zero for ever, so without a bound
some games would never end; games that reach the target sooner are not changed by it. The rules
engine itself (:func:`new_game`) has no bound unless one is given."""


def checked_max_hands(max_hands: object) -> int | None:
    """``max_hands``, a harness's limit on the hands of a game: ``None`` or a positive whole number
    (anything else raises :class:`SniffError`)."""
    if max_hands is None or (isinstance(max_hands, int) and not isinstance(max_hands, bool) and max_hands >= 1):
        return max_hands
    raise SniffError(f"max_hands must be a positive whole number or None; got {max_hands!r}")


class Game:
    """One game to the target, hand after hand. Build with :func:`new_game`."""

    __slots__ = (
        "_choice",
        "_claims",
        "_div5",
        "_draw_action",
        "_draw_limit",
        "_events_before",
        "_forced_lead",
        "_inline_base",
        "_legal",
        "_must_play",
        "_partner",
        "_pip_mask",
        "_record",
        "_score",
        "_sides_now",
        "_sniff_kind",
        "_voluntary",
        "_win_in_hand",
        "bone_pos",
        "boneyard",
        "codec",
        "count",
        "deal",
        "drawn_this_turn",
        "end_open",
        "end_pip",
        "end_val",
        "events",
        "hand_actions",
        "hand_index",
        "hand_start",
        "hands",
        "lacking",
        "last_drawn",
        "leader",
        "max_hands",
        "n",
        "passes",
        "phase",
        "plays",
        "records",
        "results",
        "rules",
        "scores",
        "seed",
        "sniff_pending",
        "sniff_tile",
        "ts",
        "turn",
        "winner",
    )

    rules: Rules
    hands: list[int]
    boneyard: tuple[int, ...]
    end_pip: list[int]
    end_val: list[int]
    end_open: list[bool]
    scores: list[int]
    lacking: list[int]
    plays: list[tuple[int, int, int]]
    events: list[Event]
    results: list[HandResult]
    records: list[HandRecord]
    hand_actions: list[tuple[int, bool]]
    hand_start: Game | None
    _legal: list[int] | None

    # -- construction ----------------------------------------------------------------------
    def __init__(
        self, rules: Rules, seed: int | None = None, record: bool = True, max_hands: int | None = None
    ) -> None:
        self.max_hands = checked_max_hands(max_hands)
        """After this many hands the game ends even short of the target (highest score wins, a
        tie is a draw). Not a rule of the game: a limit for harnesses, since some rule sets let
        weak play drift below zero for ever."""
        self.rules = rules
        self.ts = tile_set(rules.max_pip)
        self.codec: ActionCodec = action_codec(rules.max_pip)
        self.n = rules.num_players
        self.seed = secrets.randbits(63) if seed is None else int(seed)
        self.hand_index = -1
        self.scores = [0] * rules.num_sides
        self.phase = Phase.HAND_OVER
        self.winner: int | None = None
        self.results = []
        self.records = []
        self.events = []
        self._record = record
        self._score = scoring_table(rules.scoring)
        self._div5 = rules.points is Points.COUNT_DIV5
        self._sniff_kind = SNIFF_CODE[rules.sniff]
        self._choice = rules.double_placement is DoublePlacement.CHOICE
        self._forced_lead = False
        self._draw_limit = {Draw.UNTIL_PLAYABLE: 1 << 30, Draw.MAX_TWO: 2, Draw.NONE: 0}[rules.draw]
        # Rule flags and tables read on every move, kept as plain attributes for speed.
        self._claims = rules.muggins_claims
        self._must_play = rules.must_play_drawn
        self._voluntary = rules.voluntary_draw
        self._partner = rules.partnership
        self._win_in_hand = rules.win_during_hand
        self._sides_now = rules.sniff_sides_open is SidesOpen.IMMEDIATELY
        self._pip_mask = self.ts.pip_mask
        self._inline_base = self.codec.inline_base
        self._draw_action = self.codec.draw_action
        self.hand_start = None
        self._events_before = 0
        self._legal = None

    def hand_rng(self, hand_index: int) -> random.Random:
        """The generator of one hand's lots and deal: a function of the seed and hand number only,
        so that every game with the same seed sees the same deals whatever is played."""
        return random.Random(f"sniff:{self.seed}:{hand_index}")

    # -- dealing -----------------------------------------------------------------------------
    def start_hand(self, deal: Deal | None = None) -> None:
        """Deal the next hand (by the rules and the seed, or as ``deal`` says) and set it up."""
        if self.phase is Phase.PLAY:
            raise GameOverError("a hand is in play; finish it before dealing the next")
        if self.phase is Phase.GAME_OVER:
            raise GameOverError("the game is over")
        self.hand_index += 1
        if deal is None:
            deal = self._deal_by_rules()
        self.deal = deal
        self._setup_hand(deal)

    def next_lead(self) -> int | FirstLead:
        """How the leader of the next hand to deal is chosen: a seat, where the rules name it (the
        rotation, the last hand's winner), else the draw that decides it (``FirstLead.LOTS``,
        ``FirstLead.RANDOM``, or ``FirstLead.HIGHEST_DOUBLE``: the deal decides)."""
        return self._lead_of(self.hand_index + 1)

    def _lead_of(self, hand_index: int) -> int | FirstLead:
        """:func:`sniff_env.rulebook.lead_method` for hand ``hand_index``."""
        rules = self.rules
        last_leader = last_domino = -1
        if hand_index > 0:
            last_leader = self.deal.leader
            last = self.results[-1]
            if last.ended_by == "domino" and last.winner is not None:
                last_domino = last.winner
        method, seat = rulebook.lead_method(hand_index, LEAD_CODE[rules.first_hand_lead],
                                            LEAD_CODE[rules.next_hand_lead], last_leader, last_domino, self.n)
        return seat if seat >= 0 else DRAWN_LEAD[method]

    def _deal_by_rules(self) -> Deal:
        rules, ts = self.rules, self.ts
        rng = self.hand_rng(self.hand_index)
        method = self._lead_of(self.hand_index)
        lots: tuple[int, ...] = ()
        leader: int | None = method if isinstance(method, int) else None
        if method is FirstLead.LOTS:
            leader, lots = draw_lots(ts, self.n, rng)
        elif method is FirstLead.RANDOM:
            leader = rng.randrange(self.n)
        hands, bone = random_deal(rules, rng, leader)
        if leader is None:  # highest_double
            leader = highest_double_holder(ts, hands)
        return Deal(hands, bone, leader, lots)

    def _setup_hand(self, deal: Deal) -> None:
        rules = self.rules
        self.hands = [sum(1 << t for t in h) for h in deal.hands]
        self.boneyard = deal.boneyard
        self.bone_pos = 0
        self.leader = self.turn = deal.leader
        self.plays = []
        self.end_pip = [0, 0, 0, 0]
        self.end_val = [0, 0, 0, 0]
        self.end_open = [False, False, False, False]
        self.sniff_tile = -1
        self.sniff_pending = 0
        self.count = 0
        self.passes = 0
        self.drawn_this_turn = 0
        self.last_drawn = -1
        self.lacking = [0] * self.n
        self.hand_actions = []
        self._forced_lead = forced_lead(rules, self.hand_index)
        self.phase = Phase.PLAY
        self._legal = None
        self._events_before = len(self.events)
        if self._record:
            if deal.lots:
                self.events.append(Event("lots", deal.leader, total=len(deal.lots)))
            self.events.append(Event("deal", deal.leader, total=self.hand_index))
        self.hand_start = None
        self.hand_start = self._start_copy()

    def _start_copy(self) -> Game:
        """A copy of the game at the start of a hand, for :meth:`undo`, holding only this hand's
        events and none of the finished hands' records and results (so that starting a hand
        costs the same however long the game has run; :meth:`undo` puts them back)."""
        events, results, records = self.events, self.results, self.records
        self.events, self.results, self.records = events[self._events_before:], [], []
        try:
            return self.copy()
        finally:
            self.events, self.results, self.records = events, results, records

    def arrange_boneyard(self, order: Sequence[int]) -> None:
        """Put the tiles not yet drawn in a new draw order, ``order`` (a permutation of them): a
        chance node that picks each drawn tile as it is drawn does so. The deal record and the
        hand's start follow, so :meth:`undo` and :func:`replay` see the tiles as drawn."""
        left = self.boneyard[self.bone_pos :]
        new = tuple(order)
        if sorted(new) != sorted(left):
            raise DealError(
                f"the new draw order must hold exactly the undrawn tiles {sorted(left)}; got {list(new)}"
            )
        self.boneyard = self.boneyard[: self.bone_pos] + new
        self.deal = Deal(self.deal.hands, self.boneyard, self.deal.leader, self.deal.lots)
        if self.hand_start is not None:  # copies share their hand start: give this one its own
            start = self.hand_start.copy()
            start.boneyard, start.deal = self.boneyard, self.deal
            self.hand_start = start

    # -- queries -----------------------------------------------------------------------------
    @property
    def drawable(self) -> int:
        """Tiles that can still be drawn (the boneyard less the reserve)."""
        return len(self.boneyard) - self.bone_pos - self.rules.boneyard_reserve

    @property
    def boneyard_size(self) -> int:
        return len(self.boneyard) - self.bone_pos

    def side_of(self, seat: int) -> int:
        """The side of ``seat`` (:func:`sniff_env.rulebook.side_of`)."""
        return rulebook.side_of(seat, self.rules.partnership)

    def open_pips(self) -> int:
        """Bit mask of the pips that can be played on now (:func:`sniff_env.rulebook.open_pips`)."""
        return rulebook.open_pips(self.end_pip, self.end_open)

    def legal_actions(self) -> list[int]:
        """The legal decisions of the seat :attr:`turn`, ascending (empty unless in play)."""
        if self._legal is None:
            self._legal = self._compute_legal() if self.phase is Phase.PLAY else []
        return self._legal

    def _placements(self, seat: int) -> list[int]:
        """The placements of ``seat``: on each open end, the held tiles that match it (by the bit
        masks of ``TileSet.pip_mask``, built by :func:`sniff_env.rulebook.matches`); in-line doubles where :func:`sniff_env.rulebook.inline_offered`
        allows; a forced lead as :func:`sniff_env.rulebook.forced_lead_tile` says."""
        hand = self.hands[seat]
        ts = self.ts
        acts: list[int] = []
        if not self.plays:
            if self._forced_lead:
                lead = forced_lead_tile(ts, mask_tiles(hand))
                hand = 1 << lead
            inline_ok = rulebook.inline_offered(self._choice, self._sniff_kind, -1)
            m = hand
            while m:
                low = m & -m
                t = low.bit_length() - 1
                m ^= low
                acts.append(t * SLOTS + LEAD)
                if inline_ok and ts.is_double[t]:
                    acts.append(self.codec.inline_base + ts.tiles[t][0] * SLOTS + LEAD)
            return acts
        last = self.last_drawn
        if last >= 0 and self._must_play and self._playable(1 << last):
            hand = 1 << last
        pip_mask = self._pip_mask
        end_open, end_pip = self.end_open, self.end_pip
        inline_ok = rulebook.inline_offered(self._choice, self._sniff_kind, self.sniff_tile)
        if not inline_ok:  # the common case, without in-line doubles to offer
            for e in _ALL_ENDS:
                if end_open[e]:
                    m = hand & pip_mask[end_pip[e]]
                    while m:
                        low = m & -m
                        acts.append((low.bit_length() - 1) * SLOTS + e)
                        m ^= low
            return acts
        for e in _ALL_ENDS:
            if end_open[e]:
                m = hand & pip_mask[end_pip[e]]
                while m:
                    low = m & -m
                    t = low.bit_length() - 1
                    m ^= low
                    acts.append(t * SLOTS + e)
                    if inline_ok and ts.is_double[t]:
                        acts.append(self.codec.inline_base + end_pip[e] * SLOTS + e)
        return acts

    def _playable(self, hand: int) -> bool:
        pip_mask = self._pip_mask
        for e in _ALL_ENDS:
            if self.end_open[e] and hand & pip_mask[self.end_pip[e]]:
                return True
        return False

    def _can_draw(self) -> bool:
        return self.drawn_this_turn < self._draw_limit and self.drawable > 0

    def _compute_legal(self) -> list[int]:
        acts = self._placements(self.turn)
        if self._voluntary and acts and self.plays and self._can_draw():
            last = self.last_drawn
            if not (last >= 0 and self._must_play and self._playable(1 << last)):
                acts.append(self._draw_action)
        if len(acts) > 1:
            acts.sort()
        return acts

    # -- transitions -------------------------------------------------------------------------
    def step(self, action: int, claim: bool = True) -> None:
        """Apply the decision ``action`` of the seat :attr:`turn`, then any forced draws and
        passes that follow. ``claim=False`` (with ``muggins_claims``) leaves the points
        unclaimed, and the next seat calls muggins and takes them."""
        if self.phase is not Phase.PLAY:
            raise GameOverError(
                "the game is over" if self.phase is Phase.GAME_OVER else "the hand is over; call start_hand()"
            )
        legal = self.legal_actions()
        if type(action) is not int:
            try:
                action = operator.index(action)  # numpy integers become plain ints (masks need them)
            except TypeError:
                raise self._illegal(action, legal, ": an action is a whole number") from None
        if action not in legal:
            raise self._illegal(action, legal)
        self.hand_actions.append((action, claim))
        self._legal = None
        if action == self._draw_action:
            self._draw(voluntary=True)
        elif action >= self._inline_base:
            pip, slot = divmod(action - self._inline_base, SLOTS)
            self._place(self.ts.double_of[pip], slot, True, claim)
        else:
            tile, slot = divmod(action, SLOTS)
            self._place(tile, slot, False, claim)
        if self.phase is Phase.PLAY:
            self._advance()

    def _illegal(self, action: object, legal: list[int], why: str = "") -> IllegalMoveError:
        return IllegalMoveError(
            f"{self._describe(action)} is not legal for seat {self.turn}{why}; legal: "
            + ", ".join(f"{a} ({self.codec.describe(a)})" for a in legal),
            action,
            tuple(legal),
        )

    def _describe(self, action: object) -> str:
        if isinstance(action, int) and not isinstance(action, bool) and 0 <= action < self.codec.num_actions:
            return f"action {action} ({self.codec.describe(action)})"
        return f"action {action!r} (actions are 0..{self.codec.num_actions - 1})"

    def _place(self, tile: int, slot: int, inline: bool, claim: bool) -> None:
        """Lay ``tile`` (:func:`sniff_env.rulebook.place`), score it
        (:func:`sniff_env.rulebook.play_points`, with muggins) and pass the turn or end the hand."""
        seat = self.turn
        self.hands[seat] &= ~(1 << tile)
        lo, hi = self.ts.tiles[tile]
        count, self.sniff_tile, self.sniff_pending = rulebook.place(
            self.end_pip, self.end_val, self.end_open, self.sniff_tile, self.sniff_pending, tile, lo, hi, slot,
            inline, self._sniff_kind, self._sides_now)
        self.count = count
        self.plays.append((tile, seat, slot))
        self.passes = 0
        taker = seat
        points = _play_points(count, self._score, self._div5)
        if points and self._claims and not claim:
            taker = (seat + 1) % self.n
        if self._record:
            self.events.append(_event(Event, ("play", seat, tile, slot, count, points if taker == seat else 0)))
            if taker != seat:
                self.events.append(Event("muggins", taker, tile, slot, count, points))
        if points:
            side = _side_of(taker, self._partner)
            self.scores[side] += points
            if self._win_in_hand and self.scores[side] >= self.rules.target:
                self._end_hand(None, reached_target=True)
                return
        if not self.hands[seat]:
            self._end_hand(seat)
            return
        self.turn = (seat + 1) % self.n
        self.drawn_this_turn = 0
        self.last_drawn = -1

    def _draw(self, voluntary: bool) -> None:
        seat = self.turn
        if voluntary:
            self.lacking[seat] = 0
        else:
            self.lacking[seat] = self.open_pips()
        tile = self.boneyard[self.bone_pos]
        self.bone_pos += 1
        self.hands[seat] |= 1 << tile
        self.drawn_this_turn += 1
        self.last_drawn = tile
        if self._record:
            self.events.append(_event(Event, ("draw", seat, tile, -1, -1, 0)))

    def _advance(self) -> None:
        """Apply forced draws and passes until a seat has a decision or the hand ends."""
        while True:
            acts = self._compute_legal()
            if acts:
                self._legal = acts
                return
            if self._can_draw():
                self._draw(voluntary=False)
                continue
            seat = self.turn
            if self.drawn_this_turn:
                self.lacking[seat] = self.open_pips()
            else:
                self.lacking[seat] |= self.open_pips()
            if self._record:
                self.events.append(_event(Event, ("pass", seat, -1, -1, -1, 0)))
            self.passes += 1
            if self.passes >= self.n and not (self._draw_limit and self.drawable > 0):
                self._end_hand(None)
                return
            self.turn = (seat + 1) % self.n
            self.drawn_this_turn = 0
            self.last_drawn = -1

    def _end_hand(self, domino: int | None, reached_target: bool = False) -> None:
        ts, rules = self.ts, self.rules
        pips = tuple(ts.mask_pips(h) for h in self.hands)
        left = tuple(h.bit_count() for h in self.hands)
        if reached_target:
            scorer = self.plays[-1][1]
            result = HandResult(
                "target", None, pips, left, tuple(0 for _ in self.scores),
                (f"seat {scorer} reached the target of {rules.target} during the hand",),
            )
        else:
            result = score_hand_end(rules, pips, left, domino)
            for side, pts in enumerate(result.side_points):
                self.scores[side] += pts
        self.results.append(result)
        self.records.append(HandRecord(self.deal, tuple(self.hand_actions)))
        self._legal = None
        if self._record:
            self.events.append(Event("hand_end", -1 if result.winner is None else result.winner))
        winner = rulebook.game_winner(self.scores, len(self.scores), rules.target, self.hand_index + 1,
                                      self.max_hands or 0)
        if winner == rulebook.GAME_GOES_ON:
            self.phase = Phase.HAND_OVER
        else:
            self.winner = None if winner < 0 else winner
            self.phase = Phase.GAME_OVER
            if self._record:
                self.events.append(Event("game_end", winner))

    # -- history -----------------------------------------------------------------------------
    def copy(self) -> Game:
        """An independent copy (the event list and records are copied shallowly)."""
        g = Game.__new__(Game)
        try:
            values = _ALL_SLOTS(self)
        except AttributeError:  # no hand dealt yet: some slots are unset
            values = tuple(getattr(self, name, _UNSET) for name in Game.__slots__)
        for name, value in zip(Game.__slots__, values):
            if type(value) is list:
                value = list(value)
            elif value is _UNSET:
                continue
            setattr(g, name, value)
        return g

    def undo(self) -> int:
        """Take back the last decision of the current hand; returns it. Forced draws and passes
        that followed it are taken back too."""
        if self.hand_start is None or not self.hand_actions:
            raise GameOverError("nothing to undo in this hand")
        if self.phase is not Phase.PLAY:
            raise GameOverError("the hand is over; its moves can no longer be taken back")
        actions = self.hand_actions[:-1]
        undone = self.hand_actions[-1][0]
        start = self.hand_start
        restored = start.copy()
        for action, claim in actions:
            restored.step(action, claim)
        before = self.events[: self._events_before]  # the hand start holds this hand's events only
        for name in Game.__slots__:
            if name in ("hand_start", "results", "records"):  # a hand in play adds to neither
                continue
            try:
                setattr(self, name, getattr(restored, name))
            except AttributeError:
                continue
        self.events = before + self.events
        return undone

    @property
    def layout(self) -> Layout:
        """The layout now, as a value (:class:`~sniff_env.layout.Layout`)."""
        return Layout.of(self)

    def public_events(self, seat: int, start: int = 0, stop: int | None = None) -> list[Event]:
        """The events ``start:stop`` as ``seat`` saw them: other seats' drawn tiles are hidden
        (``tile=-1``)."""
        return [
            e._replace(tile=-1) if e.kind == "draw" and e.player != seat else e
            for e in self.events[start:stop]
        ]

    # -- positions for search ---------------------------------------------------------------
    @classmethod
    def from_position(
        cls, info: Position, hands: Sequence[int], boneyard: Sequence[int], seed: int | None = None,
        *, partial: bool = False,
    ) -> Game:
        """The game in the position ``info`` shows, with its hidden tiles as given: a world to
        search in (see :func:`~sniff_env.infostate.determinize`).

        ``hands`` holds every seat's tiles as a bit mask (the seat's own must be ``info.hand``),
        ``boneyard`` the undrawn tiles in draw order. Every seat's hand must have the size
        ``info`` gives, the boneyard too, and together with the tiles played they must be the
        whole set, each tile once; ``partial=True`` lets the other hands and the boneyard hold
        fewer tiles (a sketch of the layout to look one placement ahead on). Anything else raises
        :class:`DealError`. The game has no event log and cannot undo; if the seat to move has no
        decision, its forced draws and passes are applied, as :meth:`step` would have.
        """
        rules = info.rules
        g = cls(rules, seed=seed, record=False)
        hands, boneyard = g._checked_position(info, list(hands), tuple(boneyard), partial)
        g.hand_index, g.scores, g.results = info.hand_index, list(info.scores), list(info.results)
        g.phase, g.leader, g.turn = info.phase, info.leader, info.turn
        g.hands, g.boneyard, g.bone_pos = hands, boneyard, 0
        g.plays = list(info.plays)
        g.end_pip, g.end_val, g.end_open = list(info.end_pip), list(info.end_val), list(info.end_open)
        g.sniff_tile, g.sniff_pending, g.count = info.sniff_tile, info.sniff_pending, info.count
        g.passes, g.drawn_this_turn, g.last_drawn = info.passes, info.drawn_this_turn, info.last_drawn
        g.lacking, g.hand_actions = list(info.lacking), []
        g.deal = Deal(tuple(tuple(mask_tiles(h)) for h in hands), boneyard, info.leader)
        g._forced_lead = forced_lead(rules, info.hand_index)
        if g.phase is Phase.PLAY and not g.legal_actions():
            g._advance()  # dealt for another seat, the mover may have to draw or pass first
        return g

    def _checked_position(
        self, info: Position, hands: list[int], boneyard: tuple[int, ...], partial: bool
    ) -> tuple[list[int], tuple[int, ...]]:
        """``hands`` and ``boneyard`` if they complete ``info`` (see :meth:`from_position`)."""
        full = self.ts.all_mask
        if len(hands) != self.n or not all(type(h) is int and h >= 0 and not h & ~full for h in hands):
            raise DealError(f"hands must be {self.n} bit masks of tiles of the set; got {hands!r}")
        if hands[info.seat] != info.hand:
            raise DealError(
                f"seat {info.seat} must hold its own hand {mask_tiles(info.hand)}; got {mask_tiles(hands[info.seat])}"
            )
        if not all(type(t) is int and 0 <= t < self.ts.size for t in boneyard):
            raise DealError(f"the boneyard must list tiles 0..{self.ts.size - 1}; got {list(boneyard)}")
        seen = 0
        for where, tiles in [("placed", [t for t, _, _ in info.plays]), *(
                (f"in seat {s}'s hand", mask_tiles(h)) for s, h in enumerate(hands)), ("in the boneyard", boneyard)]:
            for t in tiles:
                if seen >> t & 1:
                    raise DealError(f"tile {self.ts.tiles[t]} is {where} and also placed or dealt before")
                seen |= 1 << t
        sizes = [h.bit_count() for h in hands] + [len(boneyard)]
        want = [*info.hand_sizes, info.boneyard_size]
        short_ok = [partial and s != info.seat for s in range(self.n)] + [partial]
        for s, (have, need, short) in enumerate(zip(sizes, want, short_ok, strict=True)):
            if have != need and not (short and have < need):
                where = "the boneyard" if s == self.n else f"seat {s}"
                at_most = " at most (partial)" if short else ""
                raise DealError(f"{where} holds {need} tiles{at_most}; got {have}")
        return hands, boneyard


_play_points = rulebook.play_points
_side_of = rulebook.side_of
_ALL_SLOTS = operator.attrgetter(*Game.__slots__)
_event = tuple.__new__
"""Builds an :class:`Event` from all six fields, skipping the slower generated constructor."""
_UNSET = object()


def forced_lead(rules: Rules, hand_index: int) -> bool:
    """Whether the leader of hand ``hand_index`` must lead the highest double (or heaviest tile)."""
    method = rules.first_hand_lead if hand_index == 0 else rules.next_hand_lead
    return rulebook.lead_forced(rules.lead_tile is LeadTile.HIGHEST_DOUBLE, LEAD_CODE[method])


def new_game(
    rules: Rules,
    seed: int | None = None,
    deal: dict[str, Any] | Deal | None = None,
    record: bool = True,
    max_hands: int | None = None,
) -> Game:
    """A game with its first hand dealt: by the seed, or as the scripted ``deal`` says.

    ``deal`` is ``{"hands": [[(a, b), ...], ...], "boneyard": [...], "leader": 0}`` with tiles
    as pip pairs (``boneyard`` in draw order; it and ``leader`` may be left out) or a
    :class:`~sniff_env.deal.Deal`. ``record=False`` skips the event log (for fast playouts).
    """
    game = Game(rules, seed, record, max_hands)
    if deal is None:
        game.start_hand()
        return game
    if not isinstance(deal, Deal):
        deal = deal_from_dict(game, deal)
    game.start_hand(deal)
    return game


def deal_from_dict(game: Game, spec: dict[str, Any]) -> Deal:
    """Check a scripted deal given as a mapping and complete it from the game's generator."""

    if not isinstance(spec, dict):
        raise DealError(f"a deal is a mapping with keys hands, boneyard, leader; got {spec!r}")
    unknown = set(spec) - {"hands", "boneyard", "leader"}
    if unknown:
        raise DealError(f"unknown deal key(s) {sorted(unknown)}; allowed: hands, boneyard, leader")
    if "hands" not in spec:
        raise DealError("a scripted deal needs 'hands'")
    rng = game.hand_rng(0)
    hands, bone, leader = scripted_deal(
        game.rules, spec["hands"], spec.get("boneyard"), spec.get("leader"), rng
    )
    assert bone is not None
    lots: tuple[int, ...] = ()
    if leader is None:
        method = game.rules.first_hand_lead
        if method is FirstLead.LOTS:
            leader, lots = draw_lots(game.ts, game.n, rng)
        elif method is FirstLead.RANDOM:
            leader = rng.randrange(game.n)
        else:
            leader = highest_double_holder(game.ts, hands)
    return Deal(hands, bone, leader, lots)


def replay(rules: Rules, seed: int, records: Sequence[HandRecord]) -> Game:
    """Re-run a game from its hand records (deals and decisions)."""
    game = Game(rules, seed)
    for rec in records:
        game.start_hand(rec.deal)
        for action, claim in rec.actions:
            game.step(action, claim)
    return game
