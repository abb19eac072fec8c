"""The server's games: each a :class:`~sniff_env.play.session.Session` behind an id and a version.

A game has the server's options (``sniff serve``'s), or those a player chose in the page's
new-game form (:class:`GameChoice`: a preset, the players, partnerships, muggins claims, a
target among :data:`TARGETS` and an opponent level among :data:`LEVELS`, never a file).

A game is asked for by its keys (:attr:`Table.keys`): the id of a game of one person, or at a
table shared with friends (:mod:`.tables`) each person's seat key, which opens that seat alone.

The version counts the changes of a game. Every request that changes one names the version it
was made for, so a move sent from an old page (another tab, a double click) is refused instead
of being applied to a position its sender never saw.

The store holds at most ``max_games`` games, and at most ``client_games`` of one client (the
address its requests come from): a client's new game beyond its share drops its own least
recently used game, and a new game on a full server drops the least recently used game of the
client holding the most, so that nobody's new games push out another's. A game left idle for
``idle_s`` seconds is dropped too. A request for a dropped game is answered 410 (its log stays
on disk, and ``sniff serve --resume LOG`` continues it). A game's log is written at its first
change (a move, a deal, an undo), not when it is dealt: a game nobody played (a page opened to
look, a game started and left) leaves no log behind. The policy
players are loaded once per server and shared by its games. The logs the server names itself start with
:data:`LOG_PREFIX`, which tells them from other logs in the same folder when old ones are
cleaned away (see :mod:`.housekeeping`).

A game's lock is held while it changes; a request that cannot have it within
:data:`LOCK_WAIT_S` seconds (the agents of that game are still thinking over an earlier
request) is refused with 503 and ``Retry-After`` instead of waiting on. A change is checked
against the game's version, and against a change of the game still under way, before it is
queued for a worker (:meth:`Table.claim`), so a stale or doubled request never takes one.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from sniff_env.errors import GameOverError, SniffError
from sniff_env.game import Game, Phase
from sniff_env.gamelog import load_game_log
from sniff_env.play.levels import DEFAULT_LEVEL, LEVELS, level_names
from sniff_env.play.session import AgentCache, LogWriteError, Session, chosen_opponents, default_save_path
from sniff_env.play.warm import Warming
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import Rules
from sniff_env.web.housekeeping import CLEAN_EVERY, KEEP_DAYS, KEEP_LOGS, LOG_PREFIX, clean_games_folder
from sniff_env.web.views import seat_view

MAX_GAMES = 200
CLIENT_GAMES = 20
"""Games one client may keep on the server by default; its next game drops its oldest."""
IDLE_S = 120 * 60.0
FORGOTTEN = 10_000
"""How many dropped games' ids are remembered, to answer 410 rather than 404 for them."""
MAX_HINT_BUDGET_S = 30.0
"""The longest thinking time a hint may be given."""
LOCK_WAIT_S = 5.0
"""How long a request waits for a game that is busy with an earlier one."""


class WebError(SniffError):
    """A request the server refuses; ``status`` is its HTTP status."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.extra = extra

    @property
    def headers(self) -> dict[str, str]:
        """Headers of the refusal (``Retry-After`` where trying again later may work)."""
        retry = self.extra.get("retry_after_s")
        return {"Retry-After": str(max(1, math.ceil(retry)))} if isinstance(retry, (int, float)) else {}


TARGETS = (0, 30, 50, 100, 150, 200, 250)
"""The targets a player may choose in the browser (0: the preset's own)."""


@dataclass(frozen=True)
class GameChoice:
    """A game asked for in the browser: a preset and what may be changed of it, an opponent level
    (the server's request model for the new-game form is made from these fields)."""

    preset: str
    players: int = 2
    partnership: bool = False
    muggins_claims: bool = False
    target: int = 0
    opponent: str = DEFAULT_LEVEL
    rated: bool = False

    def rules(self) -> Rules:
        """The rules, or a :class:`WebError` (422) saying what cannot be chosen."""
        if self.preset not in PRESET_NAMES:
            raise WebError(422, f"there is no preset {self.preset!r}; choose one of {', '.join(PRESET_NAMES)}")
        if self.players not in (2, 3, 4):
            raise WebError(422, f"a game has 2, 3 or 4 players, not {self.players}")
        if self.partnership and self.players != 4:
            raise WebError(422, "partnerships need 4 players")
        if self.target not in TARGETS:
            raise WebError(422, f"the target must be one of {', '.join(map(str, TARGETS[1:]))} (or 0: the preset's)")
        if self.opponent not in LEVELS:
            raise WebError(422, f"there is no opponent {self.opponent!r}; choose one of {level_names()}")
        extra: dict[str, Any] = {"partnership": self.partnership, "muggins_claims": self.muggins_claims}
        if self.target:
            extra["target"] = self.target
        try:
            return make_rules(self.preset, self.players, **extra)
        except SniffError as exc:
            raise WebError(422, str(exc)) from None


def setup_of(rules: Rules, opponent: str, rated: bool) -> dict[str, Any]:
    """A game's settings as the page's new-game form shows them."""
    preset = rules.name if rules.name in PRESET_NAMES else PRESET_NAMES[0]
    default = make_rules(preset, rules.num_players).target
    return {"preset": preset, "players": rules.num_players, "partnership": rules.partnership,
            "muggins_claims": rules.muggins_claims, "target": 0 if rules.target == default else rules.target,
            "opponent": opponent, "rated": rated}


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise SniffError(f"{name} must be a positive, finite number; got {value!r}")


@dataclass(frozen=True)
class TableOptions:
    """How new games are set up and kept: the options of ``sniff serve``."""

    rules: Rules
    opponents: tuple[str, ...] = ()
    partner: str | None = None
    seat: int = 0
    seed: int | None = None
    rated: bool = False
    games_dir: Path | None = None
    save_path: Path | None = None
    """The log file of the first game (later games are logged in ``games_dir``)."""
    overwrite: bool = False
    """Whether ``save_path`` may replace an existing file."""
    hint_budget_s: float = 1.0
    max_games: int = MAX_GAMES
    """Games kept at once; beyond that the least recently used one is dropped."""
    client_games: int = CLIENT_GAMES
    """Games kept at once for one client; beyond that its least recently used one is dropped."""
    idle_s: float = IDLE_S
    """A game not asked for during this many seconds is dropped."""
    hosts: tuple[str, ...] = ()
    """The host names the server answers to (the ``Host`` header); empty: any."""
    keep_logs: int = KEEP_LOGS
    keep_days: float = KEEP_DAYS
    """The server's own logs kept when its games folder is cleaned (see :mod:`.housekeeping`)."""
    level: str | None = None
    """The level whose player ``opponents`` are (their seats go by its label), None where they were named."""

    def __post_init__(self) -> None:
        _positive("the hint budget", self.hint_budget_s)
        if self.hint_budget_s > MAX_HINT_BUDGET_S:
            raise SniffError(f"the hint budget must be at most {MAX_HINT_BUDGET_S:g} seconds; got {self.hint_budget_s!r}")
        _positive("the idle time", self.idle_s)
        for what, value in (("the most games kept", self.max_games), ("the most games of one client", self.client_games)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SniffError(f"{what} must be a whole number >= 1; got {value!r}")
        if isinstance(self.keep_logs, bool) or not isinstance(self.keep_logs, int) or self.keep_logs < 0:
            raise SniffError(f"the logs kept must be a whole number, 0 or more; got {self.keep_logs!r}")
        _positive("the days logs are kept", self.keep_days)


@dataclass
class Table:
    """One game on the server."""

    id: str
    session: Session
    version: int = 0
    used: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    hinting: bool = False
    """Whether a hint for this game is being worked out (one at a time)."""
    changing: bool = False
    """Whether a change of this game (a move, an undo, a deal, its agents' moves) is queued or
    under way (one at a time)."""
    client: str = ""
    """Who asked for the game (the address of the request)."""
    fresh: bool = False
    """Whether nobody has changed the game since it was dealt (its log is not written until then)."""
    opponent: str = "server"
    """The opponent level the game was asked with (``server``: the server's own opponents)."""
    stats: dict[str, Any] | None = None
    """Once the game is over and counted in the player's record: a line on it, or why it was not."""

    counts: ClassVar[bool] = True
    """Whether a finished game counts in the player's record (:mod:`sniff_env.play.stats`)."""
    reveals_at_end: ClassVar[bool] = True
    """Whether the log a seat saves is the whole game once it is over (else always the seat's record)."""
    resumable: ClassVar[bool] = True
    """Whether ``sniff serve --resume`` continues the game's log."""

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys the game is asked for by (in its address): its id."""
        return (self.id,)

    def view(self) -> dict[str, Any]:
        s = self.session
        return {"id": self.id, "version": self.version, **seat_view(s),
                "setup": setup_of(s.rules, self.opponent, s.rated), "stats": self.stats}

    def view_for(self, key: str) -> dict[str, Any]:
        """The view of the seat that ``key`` opens (here the human's)."""
        return self.view()

    def seat_session(self, key: str) -> Session:
        """The game as the seat that ``key`` opens sees it (its ``human``): here the session itself."""
        return self.session

    def touch(self, key: str, now: float) -> None:
        """``key`` has just been used (at ``now``): nothing to note for a game of one person."""

    def due(self, now: float) -> bool:
        """Whether a change is due without anyone's request (a stand-in's move): never here."""
        return False

    def take_over(self) -> None:
        """A stand-in's move for a person away (:meth:`due`): none is ever due here."""
        raise WebError(409, "no stand-in plays at a game of one person")

    def play(self, key: str, action: int, claim: bool) -> None:
        """The move of the seat that ``key`` opens, then the agents' moves."""
        session = self.session
        if not session.human_to_move:
            raise GameOverError("it is not your turn" if session.game.phase is Phase.PLAY
                                else "the hand is over; deal the next hand")
        check_legal(session.game, action)
        session.play(action, claim)

    def undo(self, key: str) -> None:
        self.session.undo()

    def next_hand(self, key: str) -> None:
        if self.session.game.phase is not Phase.HAND_OVER:
            raise GameOverError("the hand is still in play" if self.session.game.phase is Phase.PLAY
                                else "the game is over")
        self.session.next_hand()

    def commit(self, change: Callable[[], None], what: str) -> None:
        """Make ``change`` and write the log, both or neither (:meth:`Session.commit`)."""
        self.session.commit(change, what)

    def check(self, version: int) -> None:
        if version != self.version:
            raise WebError(409, f"this request was made for version {version} of the game, which is now at "
                                f"version {self.version}; reload the game and try again", version=self.version)

    def claim(self, version: int) -> None:
        """Take the game for a change made for ``version`` (on the event loop, before a worker is
        asked for): 409 when the version is stale, 503 while another change is under way.
        :meth:`release` gives it back."""
        self.check(version)
        if self.changing:
            raise busy(self)
        self.changing = True

    def release(self) -> None:
        self.changing = False


def check_legal(game: Game, action: int) -> None:
    """Refuse (400) an ``action`` that is not legal now, listing the legal ones."""
    legal = game.legal_actions()
    if action not in legal:
        texts = ", ".join(f"{a} ({game.codec.describe(a)})" for a in legal)
        raise WebError(400, f"move {action} is not legal now; legal moves: {texts}", legal=list(legal))


def busy(table: Table) -> WebError:
    return WebError(503, "the game is still busy with an earlier request (its agents are thinking); "
                         "try again in a moment", retry_after_s=2)


@contextmanager
def held(table: Table, wait_s: float | None = None) -> Iterator[None]:
    """Hold the game's lock (in a worker thread); 503 if it is not free within ``wait_s``
    (default :data:`LOCK_WAIT_S`)."""
    if not table.lock.acquire(timeout=LOCK_WAIT_S if wait_s is None else wait_s):
        raise busy(table)
    try:
        yield
    finally:
        table.lock.release()


def stopping() -> WebError:
    return WebError(503, "the server is stopping; try again when it is back", retry_after_s=5)


@asynccontextmanager
async def held_async(table: Table, wait_s: float | None = None,
                     stop: threading.Event | None = None) -> AsyncIterator[None]:
    """:func:`held` for the event loop: waits without blocking it (and without a thread), and
    gives up (503) when ``stop`` is set."""
    deadline = time.monotonic() + (LOCK_WAIT_S if wait_s is None else wait_s)
    while not table.lock.acquire(blocking=False):
        if stop is not None and stop.is_set():
            raise stopping()
        if time.monotonic() >= deadline:
            raise busy(table)
        await asyncio.sleep(0.01)
    try:
        yield
    finally:
        table.lock.release()


def log_refusal(what: str, exc: LogWriteError) -> WebError:
    """The answer when a game's log cannot be written (the game is left as it was). The file's
    name is not told: it holds the game's seed."""
    return WebError(507, f"{what} did not happen: the server cannot write the game log ({exc.reason}); "
                         "the game is as it was", changed=False)


def server_log_path(seed: int, folder: Path | None = None) -> Path:
    """A new log name in ``folder`` (see :func:`~sniff_env.play.session.default_save_path`),
    marked as the server's own by :data:`LOG_PREFIX`."""
    path = default_save_path(seed, folder)
    return path.with_name(LOG_PREFIX + path.name)


class TableStore:
    """The games of one server, by id, least recently used first."""

    def __init__(self, options: TableOptions, clock: Callable[[], float] = time.monotonic) -> None:
        self.options = options
        self.clock = clock
        self.agents = AgentCache()
        self.tables: OrderedDict[str, Table] = OrderedDict()
        self._keys: dict[str, str] = {}
        """The id of the game each key opens (:attr:`Table.keys`)."""
        self._gone: OrderedDict[str, tuple[str, bool, bool]] = OrderedDict()
        """Dropped games' keys: why, whether their logs are kept, and whether ``--resume`` continues them."""
        self._lock = threading.Lock()
        self._first = True
        self._made = 0
        self.warming: Warming | None = None
        """The search compiling in the background: every game's searching agent waits for it
        (:attr:`sniff_env.play.session.Session.warming`)."""

    def _drop(self, game_id: str, why: str) -> None:
        table = self.tables.pop(game_id)
        for key in table.keys:
            self._keys.pop(key, None)
            self._gone[key] = (why, not table.fresh, table.resumable)
        while len(self._gone) > FORGOTTEN:
            self._gone.popitem(last=False)

    def _oldest_of(self, client: str | None) -> str:
        """The least recently used game of ``client`` (``None``: of the client with the most games)."""
        if client is None:
            client = Counter(t.client for t in self.tables.values()).most_common(1)[0][0]
        return next(t.id for t in self.tables.values() if t.client == client)

    def _sweep(self, now: float) -> None:
        """Drop the games idle for too long (call with the lock held)."""
        limit = self.options.idle_s
        while self.tables:
            oldest = next(iter(self.tables.values()))
            if now - oldest.used <= limit:
                break
            self._drop(oldest.id, f"it was idle for more than {limit / 60:g} minutes")

    def _add(self, session: Session, opponent: str = "server", client: str = "", fresh: bool = False) -> Table:
        return self.keep(Table(secrets.token_urlsafe(9), session, opponent=opponent, client=client, fresh=fresh))

    def keep(self, table: Table) -> Table:
        """Hold ``table`` (asked for by its :attr:`~Table.keys`), dropping others beyond the limits."""
        o, client = self.options, table.client
        with self._lock:
            table.used = now = self.clock()
            self._sweep(now)
            while sum(t.client == client for t in self.tables.values()) >= o.client_games:
                self._drop(self._oldest_of(client), f"this server keeps {o.client_games} games of one player, "
                                                    "and it was the one of yours left unplayed the longest")
            while len(self.tables) >= o.max_games:
                self._drop(self._oldest_of(None), f"this server keeps {o.max_games} games, and it was the one "
                                                  "left unplayed the longest by the player with the most games")
            self.tables[table.id] = table
            self._keys.update(dict.fromkeys(table.keys, table.id))
            self._made += 1
            clean = self._made % CLEAN_EVERY == 0
            spare = [t.session.save_path for t in self.tables.values() if t.session.save_path is not None]
        if clean:
            clean_games_folder(default_save_path(0, o.games_dir).parent, o.keep_logs, o.keep_days, spare)
        return table

    def _log_first(self, session: Session) -> None:
        try:
            session.save()
        except LogWriteError as exc:
            raise log_refusal("the new game", exc) from None

    def new(self, choice: GameChoice | None = None, client: str = "") -> Table:
        """A new game for ``client`` with the server's options (its seed for the first game
        only), or as the player chose it in the browser. Its log, a new file, is written at the
        game's first change (:meth:`Table` ``fresh`` until then): a game nobody plays leaves none."""
        o = self.options
        if choice is not None:
            rules = choice.rules()
            opponents, note = chosen_opponents([], rules, choice.opponent)
            session = Session.start(rules, opponents, rated=choice.rated or o.rated, agents=self.agents,
                                    level=choice.opponent)
            session.warming = self.warming
            if note and note not in session.notes:
                session.notes.insert(0, note)
            session.save_path = server_log_path(session.seed, o.games_dir)
            session.advance()
            return self._add(session, choice.opponent, client, fresh=True)
        with self._lock:
            first, self._first = self._first, False
        session = Session.start(o.rules, list(o.opponents), human=o.seat, partner=o.partner,
                                seed=o.seed if first else None, rated=o.rated, agents=self.agents, level=o.level)
        session.warming = self.warming
        session.save_path = (first and o.save_path) or server_log_path(session.seed, o.games_dir)
        session.overwrite = bool(first and o.overwrite)
        session.advance()
        return self._add(session, client=client, fresh=True)

    def resume(self, path: Path, advance: bool = True) -> Table:
        """A game continued from a saved log (the policy files it may name: the shipped ones and
        the server's own opponents). Without ``advance`` the agents to move have not moved yet:
        the game is held for a change (:attr:`Table.changing`) until :meth:`advance` is run."""
        trusted = [*self.options.opponents, *([self.options.partner] if self.options.partner else [])]
        session = Session.resume(load_game_log(path), path, trusted, agents=self.agents)
        session.warming = self.warming
        session.own(path)
        session.rated = session.rated or self.options.rated
        if advance:
            session.advance()
        self._log_first(session)
        table = self._add(session)
        table.changing = not advance
        return table

    @staticmethod
    def advance(table: Table) -> None:
        """Let the agents of a game resumed without ``advance`` move, then write its log (blocking:
        run it in a worker)."""
        try:
            with table.lock:
                table.session.commit(table.session.advance, "the agents' moves")
                table.version += 1
        finally:
            table.release()

    def get(self, game_id: str) -> Table:
        """The game that the key ``game_id`` opens (now its most recent use, the key marked as just
        used), or a 404/410 refusal."""
        with self._lock:
            now = self.clock()
            self._sweep(now)
            table = self.tables.get(self._keys.get(game_id, ""))
            if table is not None:
                table.used = now
                table.touch(game_id, now)
                self.tables.move_to_end(table.id)
                return table
            gone = self._gone.get(game_id)
        if gone is not None:
            why, kept, resumable = gone
            log = ("Nobody played it, so it left no log" if not kept
                   else "Its log is kept in the server's games folder" + (
                       " (sniff serve --resume LOG continues it)" if resumable else ""))
            raise WebError(410, f"game {game_id!r} has expired: {why}. {log}; start a new game", expired=True)
        raise WebError(404, f"there is no game {game_id!r} on this server, nor a seat with that link (it may "
                            "have been started by an earlier run of the server, or the link was cut short); "
                            "start a new game, or ask the table's host for your link again")
