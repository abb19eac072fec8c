"""Sniff with its chance events made explicit, as OpenSpiel sees a game: no pyspiel here.

:class:`ChancePlay` drives the project's :class:`~sniff_env.game.Game` (the one source of the
rules) through a game whose every random event is a chance node with uniform outcomes:

* the lots for the lead (one tile per seat, public), or a seat drawn at random (public);
* the deal, one tile at a time, seat after seat (each tile private to its seat);
* every tile drawn from the boneyard, when it is drawn (private to its drawer).

Decisions are the engine's action ids. The engine applies forced draws itself, so a decision
is first tried on a copy: when that copy has to draw a tile no chance node has chosen yet, the
decision waits and the next node is the chance node of that draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any, NamedTuple

from sniff_env.deal import Deal, highest_double_holder, lots_leader
from sniff_env.envs.rewards import win_rewards
from sniff_env.errors import GameOverError, IllegalMoveError
from sniff_env.game import Event, Game, Phase
from sniff_env.rules import FirstLead, Rules
from sniff_env.tiles import tile_set


class Stage(IntEnum):
    """What the next node is."""

    LOTS = 0
    """Chance: the next seat's lot (a tile)."""
    LEADER = 1
    """Chance: the leader, a seat drawn at random."""
    DEAL = 2
    """Chance: the next tile dealt."""
    PLAY = 3
    """The engine's seat to move decides."""
    DRAW = 4
    """Chance: the tile a seat draws from the boneyard."""
    OVER = 5


CHANCE_STAGES = (Stage.LOTS, Stage.LEADER, Stage.DEAL, Stage.DRAW)


class Step(NamedTuple):
    """One applied action: the stage it was applied in and the seat it concerns (the seat that
    drew the lot, was dealt the tile, drew the tile or decided; -1 for the random leader)."""

    stage: Stage
    seat: int
    action: int


class ChancePlay:
    """One game (or one hand, ``one_hand=True``) with explicit chance nodes over a :class:`Game`."""

    __slots__ = (
        "dealt", "drawer", "drawn", "game", "hand_root", "hand_start", "leader", "lots", "max_hands",
        "one_hand", "pending", "preview", "rules", "stage", "start_scores", "trail", "ts", "voluntary",
    )

    stage: Stage
    lots: list[int]
    dealt: list[int]
    leader: int
    hand_start: int
    hand_root: ChancePlay | None

    def __init__(self, rules: Rules, one_hand: bool = False, max_hands: int | None = None) -> None:
        self.rules = rules
        self.ts = tile_set(rules.max_pip)
        self.one_hand = one_hand
        self.max_hands = max_hands
        self.game = Game(rules, seed=0, record=True, max_hands=1 if one_hand else max_hands)
        self.trail: list[Step] = []
        """Every action applied, in order (the OpenSpiel history, annotated)."""
        self.voluntary: list[int] = []
        """Indices into ``game.events`` of the draws that were decisions (the draw action)."""
        self.pending = -1
        self.drawn: list[int] = []
        self.drawer = -1
        self.preview: list[Event] = []
        """At a draw's chance node: the events of the waiting decision up to that draw."""
        self.start_scores = [0] * rules.num_sides
        self._begin_hand()

    # -- copies --------------------------------------------------------------------------------
    def copy(self) -> ChancePlay:
        new = ChancePlay.__new__(ChancePlay)
        for name in ChancePlay.__slots__:
            value = getattr(self, name)
            if type(value) is list:
                value = list(value)
            setattr(new, name, value)
        new.game = self.game.copy()
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> ChancePlay:
        return self.copy()

    # -- queries ---------------------------------------------------------------------------------
    @property
    def is_chance(self) -> bool:
        return self.stage in CHANCE_STAGES

    @property
    def is_over(self) -> bool:
        return self.stage is Stage.OVER

    @property
    def hand_started(self) -> bool:
        """Whether the engine holds a hand (in play or over) to observe."""
        return self.game.hand_index >= 0

    def legal_actions(self) -> list[int]:
        """The decisions of the seat to move (ascending; empty at chance nodes and at the end)."""
        return list(self.game.legal_actions()) if self.stage is Stage.PLAY else []

    def chance_outcomes(self) -> list[int]:
        """The outcomes of this chance node, ascending; each is equally likely."""
        stage, ts = self.stage, self.ts
        if stage is Stage.LOTS:
            return [t for t in range(ts.size) if t not in self.lots]
        if stage is Stage.LEADER:
            return list(range(self.rules.num_players))
        if stage is Stage.DEAL:
            taken = set(self.dealt)
            return [t for t in range(ts.size) if t not in taken]
        if stage is Stage.DRAW:
            g = self.game
            return sorted(set(g.boneyard[g.bone_pos :]).difference(self.drawn))
        return []

    @property
    def chance_seat(self) -> int:
        """The seat a chance outcome goes to (its lot, dealt tile or drawn tile); -1 if public."""
        if self.stage is Stage.LOTS:
            return len(self.lots)
        if self.stage is Stage.DEAL:
            return len(self.dealt) // self._hand_size
        if self.stage is Stage.DRAW:
            return self.drawer
        return -1

    @property
    def _hand_size(self) -> int:
        assert self.rules.hand_size is not None
        return self.rules.hand_size

    def returns(self) -> list[float]:
        """Per seat: the env's game reward (+1 to the side that gained most, -1/(sides-1) to the
        others, 0 on a tie) once the game (or hand) is over; zeros before."""
        n = self.rules.num_players
        if not self.is_over:
            return [0.0] * n
        gain = [s - s0 for s, s0 in zip(self.game.scores, self.start_scores, strict=True)]
        best = max(gain)
        leaders = [side for side, g in enumerate(gain) if g == best]
        side_reward = win_rewards(leaders[0] if len(leaders) == 1 else None, len(gain))
        return [side_reward[self.rules.side_of(seat)] for seat in range(n)]

    # -- transitions -----------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Apply a chance outcome or the decision of the seat to move."""
        stage = self.stage
        if stage is Stage.OVER:
            raise GameOverError("the game is over")
        if stage is Stage.PLAY:
            self._step(action, [], Step(Stage.PLAY, self.game.turn, action))
            return
        outcomes = self.chance_outcomes()
        if action not in outcomes:
            raise IllegalMoveError(
                f"{action!r} is not an outcome of this {stage.name.lower()} chance node; outcomes: {outcomes}",
                action,
                tuple(outcomes),
            )
        seat = self.chance_seat
        if stage is Stage.LOTS:
            self.lots.append(action)
            if len(self.lots) == self.rules.num_players:
                self.leader = lots_leader(self.ts, self.lots)
                self.stage = Stage.DEAL
        elif stage is Stage.LEADER:
            self.leader = action
            self.stage = Stage.DEAL
        elif stage is Stage.DEAL:
            self.dealt.append(action)
            if len(self.dealt) == self.rules.num_players * self._hand_size:
                self._start_hand()
        else:
            self._step(self.pending, [*self.drawn, action], Step(stage, seat, action))
            return
        self.trail.append(Step(stage, seat, action))

    def _begin_hand(self) -> None:
        lead = self.game.next_lead()
        self.lots, self.dealt, self.leader = [], [], -1
        if lead is FirstLead.LOTS:
            self.stage = Stage.LOTS
        elif lead is FirstLead.RANDOM:
            self.stage = Stage.LEADER
        else:
            self.stage = Stage.DEAL
            if not isinstance(lead, FirstLead):
                self.leader = lead
        self.start_scores = list(self.game.scores) if self.one_hand else [0] * self.rules.num_sides
        self.hand_start = len(self.trail)
        self.hand_root = None
        self.hand_root = self.copy()

    def _start_hand(self) -> None:
        k, ts = self._hand_size, self.ts
        hands = tuple(tuple(sorted(self.dealt[i * k : (i + 1) * k])) for i in range(self.rules.num_players))
        taken = set(self.dealt)
        boneyard = tuple(t for t in range(ts.size) if t not in taken)  # the order is chosen draw by draw
        leader = self.leader if self.leader >= 0 else highest_double_holder(ts, hands)
        self.game.start_hand(Deal(hands, boneyard, leader, tuple(self.lots)))
        self.stage = Stage.PLAY

    def _step(self, action: int, drawn: Sequence[int], step: Step) -> None:
        """Apply ``action`` with ``drawn`` as its first draws, recording ``step`` in the trail;
        wait at a chance node for the next draw if it needs more. A rejected action changes
        nothing. The step is recorded before a next hand begins, so that hand's root holds it."""
        g = self.game
        trial = g.copy() if g.drawable > 0 else g  # no tile can be drawn: no trial needed
        if drawn:
            trial.arrange_boneyard([*drawn, *(t for t in g.boneyard[g.bone_pos :] if t not in drawn)])
        events_before = len(g.events)
        trial.step(action)
        self.trail.append(step)
        new_draws = [i for i in range(events_before, len(trial.events)) if trial.events[i].kind == "draw"]
        if len(new_draws) > len(drawn):
            cut = new_draws[len(drawn)]
            self.pending, self.drawn, self.stage = action, list(drawn), Stage.DRAW
            self.drawer = trial.events[cut].player
            self.preview = trial.events[events_before:cut]
            return
        if action == g.codec.draw_action:
            self.voluntary.append(events_before)
        self.game = trial
        self.pending, self.drawn, self.drawer, self.preview = -1, [], -1, []
        if trial.phase is Phase.PLAY:
            self.stage = Stage.PLAY
        elif trial.phase is Phase.GAME_OVER or self.one_hand:
            self.stage = Stage.OVER
        else:
            self._begin_hand()
