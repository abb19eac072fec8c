"""Tables shared by several people: friends at one game, each at their own seat, agents in the rest.

The host (who fills in the new-game form) says who sits in each seat (:class:`TableChoice`):
``me``, ``friend`` (a person who joins by a link) or an agent's level. Each person's seat has
its own key, an unguessable token (:func:`secrets.token_urlsafe`), that stands for the game in
the page's address and in the API's paths (``/?game=TOKEN``, ``/api/games/TOKEN/...``). It opens
that seat and no other: a person sees their own hand only, moves for their own seat only (a
move while another person's seat is to play is refused with 403, and changes nothing), and
comes back to the same seat through the same link after closing the tab. The host's view lists
the friends' links. The table's own id is never told: a wrong or cut-short link is answered 404.

The agents move as soon as it is their turn. A person's turn waits for them, and every view
says how long so far (``table.waiting``). Where the host set ``takeover_s``, a stand-in agent
(the :data:`STAND_IN` level) makes the move of a person waited for longer than that, and plays
at once for a person whose page has not asked for the table in that long (a closed tab, a
friend who has not opened their link yet) until their page asks again: the seat is theirs as
soon as they are back. A stand-in moves when someone's page asks for the table (each page asks
every second or so), never in the background. At the end of a hand any person may deal the
next one (with ``takeover_s``, the server deals it once the hand has been over that long).

There is no undo (it would take back the others' moves too), a finished game does not count in
the record of the server's player, and the log a person saves is always their seat's record
(:func:`~sniff_env.gamelog.seat_log`: their own tiles and the public moves, never another hand),
even once the game is over. The full log is written on the server only, like every game's.
"""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from sniff_env.errors import GameOverError
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.play.levels import DEFAULT_LEVEL, LEVELS, level_names, level_opponent
from sniff_env.play.session import HUMAN, LogWriteError, SeatPlayer, Session, seat_agent
from sniff_env.players import Player
from sniff_env.rules import Rules
from sniff_env.web.sessions import (
    GameChoice,
    Table,
    TableStore,
    WebError,
    check_legal,
    server_log_path,
    setup_of,
)
from sniff_env.web.views import seat_view

ME = "me"
"""The host's own seat, in a :class:`TableChoice`."""
FRIEND = "friend"
"""A seat for a person who joins by its link."""
STAND_IN = "medium"
"""The level of the agent that plays for a person away (fast, and needs nothing compiled)."""
MAX_TAKEOVER_S = 3600
MIN_TAKEOVER_S = 5
HERE_S = 10.0
"""A person whose page has asked for the table within this many seconds is shown as here."""
TOKEN_BYTES = 16
"""The randomness of a seat's link: 128 bits."""


@dataclass(frozen=True)
class TableChoice:
    """A shared table as the host asks for it: the game (as :class:`~.sessions.GameChoice`, less
    the opponent), who sits in each seat, in turn order, and after how many seconds a stand-in
    agent plays for a person away (0: the table waits)."""

    preset: str
    seats: tuple[str, ...]
    players: int = 4
    partnership: bool = False
    muggins_claims: bool = False
    target: int = 0
    rated: bool = False
    takeover_s: int = 0

    def rules(self) -> Rules:
        """The rules, or a :class:`~.sessions.WebError` (422) saying what cannot be chosen."""
        rules = GameChoice(self.preset, self.players, self.partnership, self.muggins_claims, self.target,
                           DEFAULT_LEVEL, self.rated).rules()
        allowed = f"{ME!r} (you), {FRIEND!r} (a person who joins by a link) or a level ({level_names()})"
        if len(self.seats) != self.players:
            raise WebError(422, f"a table of {self.players} players has {self.players} seats, and seats lists "
                                f"{len(self.seats)}; give each seat, in turn order, {allowed}")
        for seat, who in enumerate(self.seats):
            if who not in (ME, FRIEND) and who not in LEVELS:
                raise WebError(422, f"seats[{seat}] is {who!r}; each seat takes {allowed}")
        if self.seats.count(ME) != 1:
            raise WebError(422, f"exactly one seat must be {ME!r} (the host's own); seats lists "
                                f"{self.seats.count(ME)}")
        if self.takeover_s != 0 and not MIN_TAKEOVER_S <= self.takeover_s <= MAX_TAKEOVER_S:
            raise WebError(422, f"takeover_s must be 0 (the table waits for every person) or {MIN_TAKEOVER_S} to "
                                f"{MAX_TAKEOVER_S} seconds; got {self.takeover_s}")
        return rules


@dataclass
class Person:
    """A person's seat: its link's token, whether it is the host's, and when its page last asked."""

    seat: int
    token: str
    host: bool
    seen: float
    """When a request last came through this seat's link (the table's start until the first)."""
    joined: bool = False
    mark: int = 0
    """Index of the first event of "what just happened" for this person (since their last move)."""


@dataclass
class SharedTable(Table):
    """A game for several people (:attr:`people`, by seat) and agents (the other seats)."""

    people: dict[int, Person] = field(default_factory=dict)
    levels: dict[int, str] = field(default_factory=dict)
    """The level of each agent's seat."""
    stand_ins: dict[int, Player] = field(default_factory=dict)
    """The agent that plays for each person while they are away (only with :attr:`takeover_s`)."""
    stand_in_spec: str = "heuristic"
    takeover_s: int = 0
    clock: Callable[[], float] = time.monotonic
    since: float = 0.0
    """When the current wait (a person's turn, or the deal of the next hand) began."""
    counts: ClassVar[bool] = False
    reveals_at_end: ClassVar[bool] = False
    resumable: ClassVar[bool] = False

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(p.token for p in self.people.values())

    @property
    def host_key(self) -> str:
        """The link's token of the host's seat."""
        return next(p.token for p in self.people.values() if p.host)

    def seat_of(self, key: str) -> int:
        """The seat that the link ``key`` holds (404 for any other key)."""
        for person in self.people.values():
            if secrets.compare_digest(person.token, key):
                return person.seat
        raise WebError(404, "there is no seat with that link at this table")

    # -- who is here -----------------------------------------------------------------------------
    def touch(self, key: str, now: float) -> None:
        person = self.people[self.seat_of(key)]
        person.seen, person.joined = now, True

    def away(self, seat: int, now: float) -> bool:
        """Whether a stand-in plays for the person of ``seat`` at once: their page has not asked
        for the table in :attr:`takeover_s` seconds (never without a takeover time)."""
        return bool(self.takeover_s) and now - self.people[seat].seen > self.takeover_s

    def due(self, now: float) -> bool:
        game = self.session.game
        if not self.takeover_s:
            return False
        if game.phase is Phase.HAND_OVER:
            return now - self.since > self.takeover_s
        return (game.phase is Phase.PLAY and game.turn in self.people
                and (now - self.since > self.takeover_s or self.away(game.turn, now)))

    # -- changes ---------------------------------------------------------------------------------
    def advance(self, now: float) -> None:
        """Let the agents, and the stand-ins of people away, move until a person here is to move
        or the hand is over; the wait for them starts now."""
        game = self.session.game
        while game.phase is Phase.PLAY:
            seat = game.turn
            if seat in self.people and not self.away(seat, now):
                break
            self._move(seat)
        self.since = now

    def _move(self, seat: int) -> None:
        """The move of the agent in ``seat``: its own, or a person's stand-in."""
        player: Player | None
        if seat in self.people:
            player, spec = self.stand_ins[seat], self.stand_in_spec
        else:
            player, spec = self.session.seats[seat].agent, self.session.seats[seat].spec
        assert player is not None
        self.session.wait_for_kernels(spec)
        self.session.game.step(player.act(None, {"info_state": info_state(self.session.game, seat)}))

    def play(self, key: str, action: int, claim: bool) -> None:
        seat, game = self.seat_of(key), self.session.game
        if game.phase is not Phase.PLAY:
            raise GameOverError("the hand is over; deal the next hand" if game.phase is Phase.HAND_OVER
                                else "the game is over")
        if game.turn != seat:
            names = self.session.seats
            raise WebError(403, f"it is {names[game.turn].name}'s turn, not yours: this link holds the seat of "
                                f"{names[seat].name}, and only a seat's own link may move for it",
                           seat=seat, turn=game.turn)
        check_legal(game, action)
        self.people[seat].mark = len(game.events)
        game.step(action, claim)
        self.advance(self.clock())

    def undo(self, key: str) -> None:
        raise WebError(403, "undo is off at a table shared with other people: it would take back their moves too")

    def next_hand(self, key: str) -> None:
        if self.session.game.phase is not Phase.HAND_OVER:
            raise GameOverError("the hand is still in play" if self.session.game.phase is Phase.PLAY
                                else "the game is over")
        self._deal()

    def _deal(self) -> None:
        game = self.session.game
        for person in self.people.values():
            person.mark = len(game.events)
        game.start_hand()
        self.advance(self.clock())

    def take_over(self) -> None:
        """The stand-in's move for the person waited for (or the next deal), then the agents'."""
        now, game = self.clock(), self.session.game
        if not self.due(now):
            raise WebError(409, "no move is due from a stand-in: the person to play is here and within their time")
        if game.phase is Phase.HAND_OVER:
            self._deal()
            return
        self._move(game.turn)
        self.advance(now)

    def commit(self, change: Callable[[], None], what: str) -> None:
        before = ([p.mark for p in self.people.values()], self.since)
        try:
            self.session.commit(change, what)
        except LogWriteError:
            for person, mark in zip(self.people.values(), before[0]):
                person.mark = mark
            self.since = before[1]
            raise

    # -- what a seat sees --------------------------------------------------------------------------
    def _seen_by(self, seat: int) -> list[SeatPlayer]:
        """The seats as ``seat`` sees them: itself as "You", its partner marked."""
        rules = self.session.rules
        return [replace(p, name="You") if s == seat
                else replace(p, name=f"{p.name} (partner)") if rules.partnership and rules.side_of(s) == rules.side_of(seat)
                else p for s, p in enumerate(self.session.seats)]

    def view(self) -> dict[str, Any]:
        """The host's view (a shared table has no view but a seat's)."""
        return self.view_for(self.host_key)

    def seat_session(self, key: str) -> Session:
        seat = self.seat_of(key)
        seen = copy.copy(self.session)
        seen.human, seen.mark, seen.seats = seat, self.people[seat].mark, self._seen_by(seat)
        seen.notes = list(self.session.notes)
        return seen

    def view_for(self, key: str) -> dict[str, Any]:
        seat, now = self.seat_of(key), self.clock()
        rules = self.session.rules
        setup = {k: v for k, v in setup_of(rules, DEFAULT_LEVEL, self.session.rated).items() if k != "opponent"}
        setup.update(seats=[ME if s == seat else FRIEND if s in self.people else self.levels[s]
                            for s in range(rules.num_players)], takeover_s=self.takeover_s)
        return {"id": key, "version": self.version, **seat_view(self.seat_session(key)), "setup": setup,
                "stats": None, "table": self._table_json(seat, now)}

    def _table_json(self, seat: int, now: float) -> dict[str, Any]:
        """Who sits where (people here or away), whom the table waits for and how long, and for the
        host the friends' links."""
        names = [p.name for p in self._seen_by(seat)]
        game = self.session.game
        waiting: dict[str, Any] | None = None
        if (game.phase is Phase.PLAY and game.turn in self.people) or game.phase is Phase.HAND_OVER:
            waited = max(now - self.since, 0.0)
            to_move = game.turn if game.phase is Phase.PLAY else None
            waiting = {"seat": to_move, "name": None if to_move is None else names[to_move],
                       "for": "move" if to_move is not None else "deal", "seconds": round(waited, 1),
                       "takeover_in": round(max(self.takeover_s - waited, 0.0), 1) if self.takeover_s else None}
        host = self.people[seat].host
        return {
            "host": host, "takeover_s": self.takeover_s, "waiting": waiting,
            "people": [{"seat": p.seat, "name": names[p.seat], "you": p.seat == seat, "host": p.host,
                        "joined": p.joined, "here": p.joined and now - p.seen <= HERE_S,
                        "stand_in": self.away(p.seat, now)} for p in self.people.values()],
            "links": [{"seat": p.seat, "name": names[p.seat], "path": f"/?game={p.token}", "joined": p.joined}
                      for p in self.people.values() if host and not p.host],
        }


def open_table(choice: TableChoice, store: TableStore, client: str = "") -> SharedTable:
    """Deal a shared table as ``choice`` asks, held by ``store`` for ``client`` (the host's
    address); its agents to move first have moved. The host's own key is its view's ``id``."""
    rules = choice.rules()
    game = new_game(rules)
    host = choice.seats.index(ME)
    session = Session(game, [], host, choice.rated, seed=game.seed)
    session.warming = store.warming
    session.save_path = server_log_path(game.seed, store.options.games_dir)
    now = store.clock()
    stand_in = level_opponent(STAND_IN, rules)[0]
    table = SharedTable(secrets.token_urlsafe(9), session, client=client, fresh=True, takeover_s=choice.takeover_s,
                        used=now, stand_in_spec=stand_in, clock=store.clock)
    friends = 0
    notes: list[str] = []
    for seat, who in enumerate(choice.seats):
        seed = game.seed + 1000 * seat
        if who in (ME, FRIEND):
            friends += who == FRIEND
            session.seats.append(SeatPlayer("Host" if who == ME else f"Friend {friends}", HUMAN))
            table.people[seat] = Person(seat, secrets.token_urlsafe(TOKEN_BYTES), who == ME, now, joined=who == ME)
            if choice.takeover_s:
                agent = seat_agent(seat, stand_in, rules, seed + 7, agents=store.agents).agent
                assert agent is not None
                table.stand_ins[seat] = agent
            continue
        spec, note = level_opponent(who, rules)
        if note not in notes:
            notes.append(note)
        session.seats.append(seat_agent(seat, spec, rules, seed, True, store.agents, notes, LEVELS[who].label))
        table.levels[seat] = who
    names = [p.name for p in session.seats]
    for s, p in enumerate(session.seats):
        if names.count(p.name) > 1:
            p.name = f"{p.name}#{s}"
    session.notes = notes
    table.advance(now)
    store.keep(table)
    return table
