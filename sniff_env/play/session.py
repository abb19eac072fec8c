"""A game between one person and the agents, independent of any screen or keyboard.

:class:`Session` owns the :class:`~sniff_env.game.Game`, the agent of every other seat, the
undo snapshots and the log file. The terminal asks it for the human's options (with the points
each would score), hands it the chosen move, and draws what it reports.

A change and its log go together (:meth:`Session.commit`): when the log cannot be written the
change is taken back and :class:`LogWriteError` says so. A session writes only files it
created itself (new names are created exclusively) unless told it may overwrite its log file.
A resumed log names the players of its seats: built-in players (no option of theirs naming a
file) and the shipped agents by name; any other player, a file among them, only when the caller
trusts it (named on its command line): a log cannot choose which files this program loads.
"""

from __future__ import annotations

import copy
import os
import secrets
import shlex
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from sniff_env.atomic import PRIVATE, write_json_atomic
from sniff_env.errors import GameOverError, SniffError
from sniff_env.game import Event, Game, Phase, new_game
from sniff_env.gamelog import GameLog, game_log, save_game_log, seat_log
from sniff_env.infostate import info_state
from sniff_env.play.levels import DEFAULT_LEVEL, LEVELS, SEARCHING, level_opponent
from sniff_env.play.table_limits import check_table_player
from sniff_env.play.warm import Warming
from sniff_env.players import (
    BUILTIN,
    Player,
    PlayerSpecError,
    agents,
    file_options,
    load,
    parse_spec,
    spec_kwargs,
)
from sniff_env.players.agents import shipped_agents
from sniff_env.players.compat import policy_fit
from sniff_env.players.policy import PolicyPlayer
from sniff_env.players.search import SearchPlayer
from sniff_env.rules import Rules
from sniff_env.untrusted import printable

HUMAN = "human"
HINT_BUDGET_S = 1.0


class MoveOption(NamedTuple):
    """One legal move of the human, with what it would score now."""

    action: int
    text: str
    points: int
    domino: bool


@dataclass
class SeatPlayer:
    """Who sits in a seat: ``spec`` is ``"human"`` or a player spec for :func:`players.load`."""

    name: str
    spec: str
    agent: Player | None = None
    engine: str = ""
    """The player's own name where the seat goes by its level's (``Expert`` played by ``expert``
    on ``sniff-2p-tiles``): shown second, for those who want to know."""


class LogWriteError(SniffError):
    """The game log cannot be written (``reason``, without the file's name); the change it was
    to record has been taken back."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def data_folder() -> Path:
    """The player's data folder: ``$SNIFF_HOME``, ``~/.sniff`` unless set (game logs go to its
    ``games`` folder, the record across games to its ``stats.json``)."""
    return Path(os.environ.get("SNIFF_HOME") or Path.home() / ".sniff")


def default_save_path(seed: int, folder: Path | None = None) -> Path:
    """A new log name in ``folder`` (default ``$SNIFF_HOME/games``, ``~/.sniff/games`` unless set):
    the time, the seed and a random part, so that two games started in the same second differ."""
    if folder is None:
        folder = data_folder() / "games"
    return folder / f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}-{secrets.token_hex(4)}.json"


def default_opponent(rules: Rules) -> str:
    """The shipped agent trained for ``rules`` (or one that can read their differences), else
    ``heuristic`` (see :func:`sniff_env.players.agents.default_opponent`)."""
    return agents.default_opponent(rules)[0]


def _same_file(one: str, other: str | Path) -> bool:
    """Whether the paths ``one`` and ``other`` name the same file (False where either cannot be resolved)."""
    try:
        return Path(one).resolve() == Path(other).resolve()
    except (OSError, ValueError):
        return False


def shipped_policy(spec: str) -> bool:
    """Whether ``spec`` names a shipped agent, or the policy file of one (as older logs do)."""
    agents = shipped_agents()
    return spec in agents or any(_same_file(spec, a.path) for a in agents.values())


def safe_name(name: object, limit: int = 60) -> str:
    """A player name from an untrusted source, fit for a terminal: control characters (escape
    sequences among them) written as escapes (:func:`~sniff_env.untrusted.printable`), and at
    most ``limit`` characters."""
    text = printable(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(text: str, limit: int = 200) -> str:
    """``text`` from an untrusted source, quoted for a message: at most ``limit`` characters, as
    ``repr`` writes them (control characters escaped)."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


SHARED_BUILTINS = ("guided",)
"""Built-in players that load a network, shared through an :class:`AgentCache` like a policy file."""


class AgentCache:
    """Policy players loaded once and shared (a server loads each policy file once, not once per
    game): each game gets a shallow copy of the loaded player, reset with its own seed, so the
    network is shared and the generator (and a guided player's search) is the game's own. The
    other built-in players are cheap and are built afresh."""

    def __init__(self) -> None:
        self._loaded: dict[tuple[str, Rules], Player | Exception] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._loaded)

    def _sibling(self, spec: str, rules: Rules) -> Player | None:
        """A player of ``spec`` for ``rules`` on the network already loaded for other rules of
        the same spec (rules it can play: another target, say), so that a network is loaded once
        whatever the rules of the games it plays; None where there is none (call with the lock)."""
        for (other, _), loaded in self._loaded.items():
            if other == spec and type(loaded) is PolicyPlayer:
                fit = policy_fit(loaded, rules)
                if fit is not None and fit.ok:
                    return PolicyPlayer(loaded.network, loaded.meta, rules, loaded.name, loaded.sample)
        return None

    def load(self, spec: str, rules: Rules, seed: int) -> Player:
        with self._lock:
            template = self._loaded.get((spec, rules))
            if template is None:
                template = self._sibling(spec, rules)
            if template is None:
                try:
                    template = fresh_player(spec, rules, seed)
                except (ValueError, ImportError, OSError) as exc:
                    template = exc
            self._loaded[(spec, rules)] = template
        if isinstance(template, Exception):
            raise template
        player = copy.copy(template)
        player.reset(seed)
        return player


def fresh_player(spec: str, rules: Rules, seed: int) -> Player:
    """A new player of ``spec``: a built-in (which plays whatever rules it is shown) or a policy
    file fitted to ``rules``."""
    return load(spec, seed=seed) if spec.partition(":")[0] in BUILTIN else load(spec, rules=rules, seed=seed)


def load_agent(spec: str, rules: Rules, seed: int, fallback: bool = False,
               cache: AgentCache | None = None) -> tuple[Player, str | None]:
    """The agent a spec names (a policy file through ``cache`` when given). With ``fallback``, an
    agent that cannot be loaded or cannot play these rules (a policy trained for others) is
    replaced by ``heuristic``, with a note."""
    base = spec.partition(":")[0]
    try:
        if cache is not None and (base not in BUILTIN or base in SHARED_BUILTINS):
            return cache.load(spec, rules, seed), None
        return fresh_player(spec, rules, seed), None
    except (ValueError, ImportError, OSError) as exc:
        if not fallback:
            raise SniffError(f"opponent {spec!r} cannot play: {exc}") from None
        return load("heuristic", seed=seed), f"{safe_name(spec, 200)} cannot be used ({exc}); heuristic plays instead"


def seat_agent(seat: int, spec: str, rules: Rules, seed: int, fallback: bool = False,
               agents: AgentCache | None = None, notes: list[str] | None = None,
               label: str | None = None) -> SeatPlayer:
    """The agent of ``spec`` in ``seat`` (held to the table's limits), named ``label`` where given
    (the player's own name second); what the table should know of it (a policy replaced by
    ``heuristic`` under ``fallback``, a policy trained for other rules) goes to ``notes``."""
    # a built-in player that cannot be built is an error even where a policy may fall back
    may_fall_back = fallback and spec.partition(":")[0] not in BUILTIN
    agent, note = load_agent(spec, rules, seed, may_fall_back, agents)
    check_table_player(seat, spec)  # within the spec's own bounds, a move at the table is held to half a minute
    told = notes if notes is not None else []
    if note:
        told.append(note)
        spec = "heuristic"
    name = printable(agent.name)  # a name may come from a log or a file: shown as text
    fit = policy_fit(agent, rules)
    notice = fit.notice(name) if fit is not None else None
    if notice and notice not in told:
        told.append(notice)
    return SeatPlayer(label, spec, agent, engine=name) if label is not None else SeatPlayer(name, spec, agent)


def _trusted(spec: str, trusted: Collection[str]) -> bool:
    """Whether ``spec`` is one of the ``trusted`` specs, or names the same file as one that is no
    built-in player."""
    return spec in trusted or any(_same_file(spec, t) for t in trusted if t.partition(":")[0] not in BUILTIN)


def check_log_player(seat: int, spec: str, trusted: Collection[str] = ()) -> None:
    """Refuse a player spec read from a log unless it names a player, not a file: a built-in
    player with well-formed options, none naming a file (every option a player loads as a policy,
    :func:`~sniff_env.players.file_options`, must give a shipped agent's name), or a shipped agent; or unless the caller trusts it (``trusted``: the
    specs named on its command line). The options' values are checked when the player is built."""
    if _trusted(spec, trusted):
        return
    instead = (f"if you trust that player, name it yourself when you resume: --opponent {shlex.quote(safe_name(spec, 200))} "
               f"(or --partner for your partner's seat)")
    try:
        base, options = parse_spec(spec)
        if base in BUILTIN:
            spec_kwargs(spec)  # unknown options and values of the wrong type
    except PlayerSpecError as exc:
        raise SniffError(f"the log's player for seat {seat} cannot be used: {exc}") from None
    if base in BUILTIN:
        for key in file_options(base):
            if options.get(key, "") != "" and str(options[key]) not in shipped_agents():
                raise SniffError(
                    f"the log names {quoted(spec)} as the player of seat {seat}: its option {key}= must be a shipped "
                    f"agent's name (sniff agents lists them), not a file, as a log may not choose which files this "
                    f"program loads; {instead}")
        return
    if shipped_policy(spec):
        return
    raise SniffError(
        f"the log names {quoted(spec)} as the player of seat {seat}: that is no built-in player and no shipped "
        f"agent, and a log may not choose which files this program loads; {instead}"
    )


@dataclass
class Session:
    """One game: the engine, the seats, the human's seat, undo and the log."""

    game: Game
    seats: list[SeatPlayer]
    human: int
    rated: bool = False
    save_path: Path | None = None
    seed: int = 0
    notes: list[str] = field(default_factory=list)
    mark: int = 0
    """Index of the first event of "what just happened" (events since the human last moved)."""
    overwrite: bool = False
    """Whether ``save_path`` may replace a file this session did not write."""
    _undo: list[tuple[Game, int]] = field(default_factory=list)
    _written: set[Path] = field(default_factory=set)
    _hint_seed: int = field(default_factory=lambda: secrets.randbits(63))
    """The hint's own seed: its values must not depend on (and so reveal) the game's seed."""
    warming: Warming | None = None
    """The searching agents' compiled functions still compiling in the background (see
    :func:`~sniff_env.play.levels.prepare_searches`): such an agent waits for them at its move."""
    on_wait: Callable[[str], None] | None = None
    """Told what compiles, and for how long so far, while an agent waits for :attr:`warming`."""
    level: str | None = None
    """The level (:data:`~sniff_env.play.levels.LEVELS`) whose player sits in the seats
    :attr:`level_seats`, each named by the level's label."""
    level_seats: tuple[int, ...] = ()

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def start(
        cls,
        rules: Rules,
        opponents: list[str],
        human: int = 0,
        partner: str | None = None,
        seed: int | None = None,
        rated: bool = False,
        save_path: Path | None = None,
        agents: AgentCache | None = None,
        level: str | None = None,
    ) -> Session:
        """A new game; ``opponents`` fill the other seats in order (the last one repeats). With
        ``level``, the opponents are that level's player: their seats (a partner named apart
        aside) go by the level's label (``Expert``), the player's own name second."""
        n = rules.num_players
        if not 0 <= human < n:
            raise SniffError(f"--seat must be a seat 0..{n - 1}; got {human}")
        game = new_game(rules, seed=seed)
        specs: list[str] = []
        fallback = not opponents
        queue = list(opponents) or [default_opponent(rules)]
        for s in range(n):
            if s == human:
                specs.append(HUMAN)
            elif rules.partnership and rules.side_of(s) == rules.side_of(human):
                specs.append(partner or queue[0])
            else:
                specs.append(queue.pop(0) if len(queue) > 1 else queue[0])
        session = cls(game, [], human, rated, save_path, game.seed)
        if level is not None:
            if level not in LEVELS:
                raise SniffError(f"there is no level {level!r}; choose one of {', '.join(LEVELS)}")
            session.level = level
            session.level_seats = tuple(s for s in range(n) if s != human and not (
                partner and rules.partnership and rules.side_of(s) == rules.side_of(human)))
        session._seat_players(specs, fallback, agents)
        return session

    @classmethod
    def resume(cls, log: GameLog, save_path: Path, trusted: Collection[str] = (),
               agents: AgentCache | None = None) -> Session:
        """Continue a logged game (its agents rebuilt from their specs, each checked by
        :func:`check_log_player`; ``trusted`` are the files the caller allows besides the shipped
        ones). The log file itself is the session's own: saving replaces it."""
        human = log.meta.get("human_seat", log.players.index(HUMAN) if HUMAN in log.players else -1)
        if not isinstance(human, int) or not 0 <= human < log.rules.num_players:
            raise SniffError("this log has no human seat to resume (it is a game between agents)")
        for seat, spec in enumerate(log.players):
            if seat != human:
                check_log_player(seat, spec, trusted)
        session = cls(log.game, [], human, bool(log.meta.get("rated", False)), save_path, log.seed)
        level, seats = log.meta.get("level"), log.meta.get("level_seats")
        if level in LEVELS and isinstance(seats, list) and all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(log.players) and x != human
                for x in seats):
            session.level, session.level_seats = str(level), tuple(seats)
        session._seat_players(log.players, fallback=True, agents=agents)
        session.mark = len(log.game.events)
        return session

    @classmethod
    def viewer(cls, log: GameLog, game: Game, human_name: str | None = None) -> Session:
        """A drawing-only session over ``game``: no agents, no human seat, the names from the log
        (made safe to print; the human's seat called ``human_name`` when given)."""
        names = log.meta.get("names")
        if not (isinstance(names, list) and len(names) == len(log.players)):
            names = log.players
        seats = [SeatPlayer(human_name if spec == HUMAN and human_name else safe_name(n), spec)
                 for n, spec in zip(names, log.players)]
        return cls(game, seats, human=-1, seed=log.seed)

    def _seat_players(self, specs: list[str], fallback: bool, agents: AgentCache | None = None) -> None:
        rules = self.game.rules
        for s, spec in enumerate(specs):
            if s == self.human:
                self.seats.append(SeatPlayer("You", HUMAN))
                continue
            label = LEVELS[self.level].label if self.level is not None and s in self.level_seats else None
            self.seats.append(seat_agent(s, spec, rules, self.seed + 1000 * s, fallback, agents, self.notes, label))
        names = [p.name for p in self.seats]
        for p in self.seats:
            if names.count(p.name) > 1 and p.spec != HUMAN:
                p.name = f"{p.name}#{self.seats.index(p)}"
        if rules.partnership:
            for s, p in enumerate(self.seats):
                if s != self.human and rules.side_of(s) == rules.side_of(self.human):
                    p.name = f"{p.name} (partner)"

    # -- queries -------------------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self.game.rules

    @property
    def human_to_move(self) -> bool:
        return self.game.phase is Phase.PLAY and self.game.turn == self.human

    @property
    def can_undo(self) -> bool:
        return not self.rated and bool(self._undo) and self.game.phase is Phase.PLAY

    def options(self) -> list[MoveOption]:
        """The human's legal moves, each tried on a copy of the game for its points."""
        game = self.game
        out = []
        for a in game.legal_actions():
            trial = game.copy()
            before = len(trial.events)
            trial.step(a, claim=True)
            played = [e for e in trial.events[before:] if e.kind == "play"]
            points = played[0].points if played else 0
            domino = bool(played) and trial.hands[self.human] == 0
            out.append(MoveOption(a, game.codec.describe(a), points, domino))
        return out

    def recent_events(self, limit: int = 12) -> list[Event]:
        """What happened since the human last moved, as the human saw it."""
        return self.game.public_events(self.human)[self.mark :][-limit:]

    def hint(self, budget_s: float = HINT_BUDGET_S) -> list[tuple[MoveOption, float]]:
        """The search player's value of each legal move (the expected points margin to the end of
        the hand), best first."""
        search = SearchPlayer(seed=self._hint_seed + len(self.game.events), budget_s=budget_s)
        values = search.evaluate(info_state(self.game, self.human))
        return sorted(((o, values[o.action]) for o in self.options()), key=lambda p: -p[1])

    # -- moves ---------------------------------------------------------------------------------
    def play(self, action: int, claim: bool = True) -> None:
        """The human's move, then the agents' until the human is to move again or the hand ends."""
        if not self.human_to_move:
            raise GameOverError("it is not your turn")
        snapshot = (self.game.copy(), self.mark)
        self.mark = len(self.game.events)
        self.game.step(action, claim)
        self._undo.append(snapshot)
        self.advance()

    def advance(self) -> None:
        """Let the agents move until the human is to move or the hand is over."""
        game = self.game
        while game.phase is Phase.PLAY and game.turn != self.human:
            seat = game.turn
            agent = self.seats[seat].agent
            assert agent is not None
            self.wait_for_kernels(self.seats[seat].spec)
            action = agent.act(None, {"info_state": info_state(game, seat)})
            game.step(action)

    def wait_for_kernels(self, spec: str) -> None:
        """Wait for :attr:`warming`, saying so through :attr:`on_wait`, if ``spec`` searches."""
        if self.warming is None or parse_spec(spec)[0] not in SEARCHING:
            return
        self.warming.wait(self.on_wait)
        self.warming = None

    def undo(self) -> None:
        """Take back the human's last move and the agents' moves after it."""
        if self.rated:
            raise GameOverError("undo is off in a rated game")
        if not self.can_undo:
            raise GameOverError("nothing to undo in this hand")
        self.game, self.mark = self._undo.pop()

    def next_hand(self) -> None:
        """Deal the next hand (after the human has seen the last one's result)."""
        self._undo.clear()
        self.mark = len(self.game.events)
        self.game.start_hand()
        self.advance()

    # -- log -----------------------------------------------------------------------------------
    @property
    def meta(self) -> dict[str, Any]:
        level = {"level": self.level, "level_seats": list(self.level_seats)} if self.level else {}
        return {"human_seat": self.human, "rated": self.rated, "names": [p.name for p in self.seats], **level}

    def own(self, path: Path) -> None:
        """Count ``path`` as this session's own file (a resumed log): saving may replace it."""
        self._written.add(Path(path).resolve())

    def save(self, path: Path | None = None) -> Path:
        """Write the game log (to ``path``, or to the session's log file, a new name in the games
        folder unless set). A file the session did not write itself is never replaced (unless
        ``overwrite`` and it is ``save_path``); :class:`LogWriteError` says what went wrong."""
        target = path or self.save_path
        if target is None:
            target = self.save_path = default_save_path(self.seed)
        resolved = Path(target).resolve()
        exclusive = resolved not in self._written and not (self.overwrite and target == self.save_path)
        try:
            save_game_log(self.game, target, [p.spec for p in self.seats], self.meta, exclusive=exclusive)
        except FileExistsError:
            raise LogWriteError(f"{str(target)!r} already exists and is not this game's log; choose another file",
                                "the file exists") from None
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise LogWriteError(f"cannot write the game log {str(target)!r}: {reason}", reason) from None
        self._written.add(resolved)
        return Path(target)

    def save_record(self, path: Path | None = None) -> Path:
        """Write what the human's seat has seen of the game so far (a seat's record,
        :func:`~sniff_env.gamelog.seat_log`: its own tiles, the public events, no seed and no
        other hand; the whole log once the game is over), for ``sniff replay`` to show: to ``path``,
        else to a new file beside the game's log (a name without the seed). A file the session did
        not write itself is never replaced; :class:`LogWriteError` says what went wrong."""
        folder = self.save_path.parent if self.save_path is not None else data_folder() / "games"
        target = path or folder / f"{time.strftime('%Y%m%d-%H%M%S')}-so-far-{secrets.token_hex(4)}.json"
        resolved = Path(target).resolve()
        players = [p.spec for p in self.seats]
        data = (game_log(self.game, players, self.meta) if self.game.phase is Phase.GAME_OVER
                else seat_log(self.game, self.human, players, self.meta))
        try:
            write_json_atomic(target, data, exclusive=resolved not in self._written, mode=PRIVATE)
        except FileExistsError:
            raise LogWriteError(f"{str(target)!r} already exists and was not written by this game; choose another file",
                                "the file exists") from None
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise LogWriteError(f"cannot write {str(target)!r}: {reason}", reason) from None
        self._written.add(resolved)
        return Path(target)

    def commit(self, change: Callable[[], None], what: str = "the move") -> None:
        """Make ``change`` and write the log: both or neither. When the log cannot be written the
        session is put back as it was and :class:`LogWriteError` says that ``what`` did not happen."""
        before = (self.game.copy(), self.mark, list(self._undo))
        change()
        try:
            self.save()
        except LogWriteError as exc:
            self.game, self.mark, self._undo = before
            raise LogWriteError(f"{what} did not happen: {exc}; the game is as it was", exc.reason) from None


def chosen_level(opponents: list[str], level: str | None = None) -> str | None:
    """The level whose player :func:`chosen_opponents` seats: ``level`` (by default the
    strongest) where no opponent is named, else None."""
    return None if opponents else level or DEFAULT_LEVEL


def chosen_opponents(opponents: list[str], rules: Rules, level: str | None = None) -> tuple[list[str], str | None]:
    """The opponents asked for, else the player of ``level`` on the ladder for ``rules``
    (:mod:`.levels`; by default the strongest) and one line saying which plays and why."""
    if opponents:
        return list(opponents), None
    try:
        spec, note = level_opponent(level or DEFAULT_LEVEL, rules)
    except ValueError as exc:
        raise SniffError(str(exc)) from None
    return [spec], note
