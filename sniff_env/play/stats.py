"""The player's record across games, kept in the player's data folder (``stats.json``).

Each finished game of the person at the table (in the terminal or in the browser) counts once,
under what makes it the game it was: its preset, its player count, every rule that differs from
the preset's (the target always, partnerships, muggins claims, any other rule changed), its
opponents (a level by its name) and whether it was rated. A row holds games played, won, lost
and drawn, the best score, the current run of wins and the longest. Rows counted by the first
version of the file, which told games apart by preset, players and opponents only, are read and
kept as they were, shown as such ("rules not told apart"); new games never count into them. The file lives beside the games folder, in
``$SNIFF_HOME`` (``~/.sniff`` unless set), readable by its owner only, and is replaced
atomically, so a crash never leaves it half-written. An update reads, changes and writes the
file while holding a lock on ``.stats.json.lock`` beside it, so that two programs counting games
at once (a server and a terminal game) never lose each other's. A file that cannot be read (damaged, of another format, too large) is refused
with :class:`StatsError` and left as it is: nothing is counted into it, and nothing resets it
unasked.
"""

from __future__ import annotations

import os
import stat
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from sniff_env.atomic import PRIVATE, write_json_atomic
from sniff_env.errors import SniffError
from sniff_env.game import Phase
from sniff_env.gamelog import GameLogError, read_json
from sniff_env.play.session import HUMAN, Session, data_folder, safe_name
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import Rules
from sniff_env.untrusted import InputFileError, read_bounded

FORMAT = "sniff-stats"
VERSION = 2
READS = (1, 2)
"""The versions read: version 1 rows lack the rules and the rating (see :attr:`Record.rules`)."""
FILE_NAME = "stats.json"
MAX_BYTES = 4 * 2**20
"""The largest statistics file read (a row takes about 200 bytes)."""
_LOCK = threading.Lock()
"""One update at a time in this process (the server records games from worker threads)."""
LOCK_WAIT_S = 10.0
"""How long an update waits for another program's update of the same file."""


class StatsError(SniffError):
    """The statistics file cannot be read or written; it is left as it was."""


@dataclass
class Record:
    """The games of one kind: a preset, a player count, the rules as changed from the preset's,
    the opponents, rated or not."""

    preset: str
    players: int
    opponent: str
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    best: int | None = None
    """The highest final score of the player's side."""
    streak: int = 0
    """Games won in a row, up to the latest."""
    best_streak: int = 0
    last: str = ""
    """When the latest game ended (local time, ``YYYY-MM-DD HH:MM``)."""
    rules: str | None = None
    """What sets the rules apart from the preset's (:func:`rules_text`: ``to 100 · partners``);
    None in a row of the first version of the file, which did not tell rules apart."""
    rated: bool | None = None
    """Whether the games were rated; None where the row did not tell (the first version)."""

    @property
    def key(self) -> str:
        return record_key(self.preset, self.players, self.opponent, self.rules, self.rated)

    @property
    def kind(self) -> str:
        """The kind of game in words: ``sniff, 2 players, to 100, partners, rated``."""
        rules = "rules not told apart (counted before they were)" if self.rules is None else self.rules.replace(" · ", ", ")
        return f"{safe_name(self.preset)}, {self.players} players, {safe_name(rules)}{', rated' if self.rated else ''}"


@dataclass
class Stats:
    """Every kind of game played, and the run of wins across all of them."""

    records: dict[str, Record]
    streak: int = 0
    best_streak: int = 0

    @property
    def played(self) -> int:
        return sum(r.played for r in self.records.values())

    @property
    def won(self) -> int:
        return sum(r.won for r in self.records.values())


def record_key(preset: str, players: int, opponent: str, rules: str | None = None, rated: bool | None = None) -> str:
    """A row's name: ``sniff · 2 players · to 100 · partners · Expert · rated`` (a row of the first
    version, ``rules`` None: ``sniff · 2 players · random``)."""
    if rules is None:
        return f"{preset} · {players} players · {opponent}"
    return f"{preset} · {players} players · {rules} · {opponent}" + (" · rated" if rated else "")


WORDS = {"partnership": "partners", "muggins_claims": "muggins claims"}
"""Rules that read as words where they are on (and are left out where off, as in every preset)."""


def rules_text(rules: Rules) -> str:
    """What makes these rules the game they are, beside the preset and the player count: the
    target, then each rule that differs from the preset's, ``to 61 · partners · muggins claims ·
    double-9 · scoring=primes``."""
    base: dict[str, Any] = {}
    if rules.name in PRESET_NAMES:
        try:
            base = make_rules(rules.name, rules.num_players).to_dict()
        except SniffError:
            base = {}
    parts = [f"to {rules.target}"]
    for key, value in rules.to_dict().items():
        if key in ("name", "num_players", "target") or base.get(key, object()) == value:
            continue
        if key in WORDS:
            if value:
                parts.append(WORDS[key])
            elif key in base:
                parts.append(f"no {WORDS[key]}")
        elif key == "max_pip":
            parts.append(f"double-{value}")
        else:
            parts.append(f"{key}={value}")
    return " · ".join(parts)


def stats_path(folder: Path | None = None) -> Path:
    """The statistics file: ``stats.json`` in ``folder`` (default: the player's data folder)."""
    return (folder or data_folder()) / FILE_NAME


def _damaged(path: Path, why: str) -> StatsError:
    return StatsError(f"the statistics file {str(path)!r} cannot be read ({why}); it is left as it is: move it "
                      f"away (or delete it) to start a new record")


_INTS = {"players", "played", "won", "lost", "drawn", "streak", "best_streak"}


def _record(data: Any, path: Path, key: str, version: int) -> Record:
    known = {f.name for f in fields(Record)} - ({"rules", "rated"} if version == 1 else set())
    if not isinstance(data, dict) or set(data) - known:
        raise _damaged(path, f"the row {key!r} is not a record of games")
    try:
        record = Record(**data)
    except TypeError as exc:
        raise _damaged(path, f"the row {key!r}: {exc}") from None
    numbers = [getattr(record, name) for name in _INTS]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in numbers):
        raise _damaged(path, f"the row {key!r} holds a count that is not a whole number, 0 or more")
    if record.won + record.lost + record.drawn != record.played or record.streak > record.best_streak:
        raise _damaged(path, f"the row {key!r} does not add up")
    if not (record.best is None or (isinstance(record.best, int) and not isinstance(record.best, bool))):
        raise _damaged(path, f"the row {key!r} has a best score that is no whole number")
    if not (record.rules is None or isinstance(record.rules, str)) or not (
            record.rated is None or isinstance(record.rated, bool)) or (record.rules is None) != (record.rated is None):
        raise _damaged(path, f"the row {key!r} has rules or a rating that cannot be read")
    if not all(isinstance(v, str) for v in (record.preset, record.opponent, record.last)) or record.key != key:
        raise _damaged(path, f"the row {key!r} does not match its name")
    return record


def load_stats(path: Path | None = None) -> Stats:
    """The statistics in ``path`` (default :func:`stats_path`); none yet where there is no file.
    :class:`StatsError` where the file cannot be read or is not a statistics file."""
    path = path or stats_path()
    try:
        text = read_bounded(path, MAX_BYTES, "the statistics file")
    except FileNotFoundError:
        return Stats({})
    except InputFileError as exc:
        raise StatsError(f"{exc}; it is left as it is") from None
    except OSError as exc:
        raise StatsError(f"cannot read the statistics file {str(path)!r}: {exc.strerror or exc}") from None
    try:
        data = read_json(text, "it")
    except GameLogError as exc:
        raise _damaged(path, str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _damaged(path, f"it is not a {FORMAT} file")
    version = data.get("version")
    if version not in READS or isinstance(version, bool):
        raise _damaged(path, f"version {version!r}; this program reads versions {' and '.join(map(str, READS))}")
    rows, streak, best = data.get("records"), data.get("streak", 0), data.get("best_streak", 0)
    if not isinstance(rows, dict):
        raise _damaged(path, "'records' is not a mapping")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (streak, best)) or streak > best:
        raise _damaged(path, "the run of wins is not a whole number, 0 or more")
    return Stats({key: _record(row, path, key, version) for key, row in rows.items()}, streak, best)


def save_stats(stats: Stats, path: Path | None = None) -> Path:
    """Write ``stats`` to ``path`` (default :func:`stats_path`) atomically."""
    path = path or stats_path()
    data = {"format": FORMAT, "version": VERSION, "streak": stats.streak, "best_streak": stats.best_streak,
            "records": {key: asdict(r) for key, r in sorted(stats.records.items())}}
    try:
        return write_json_atomic(path, data, mode=PRIVATE)
    except OSError as exc:
        raise StatsError(f"cannot write the statistics file {str(path)!r}: {exc.strerror or exc}") from None


@contextmanager
def file_lock(path: Path, wait_s: float = LOCK_WAIT_S) -> Iterator[None]:
    """Hold the lock of ``path`` across programs: an exclusive ``flock`` on ``.NAME.lock`` beside
    it (a regular file, never followed through a link); :class:`StatsError` when another program
    holds it for ``wait_s`` seconds or it cannot be made. Where ``flock`` is missing (Windows),
    only this process's updates are kept apart."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    lock = path.with_name(f".{path.name}.lock")
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, PRIVATE)
    except OSError as exc:
        raise StatsError(f"cannot lock the statistics file {str(path)!r}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StatsError(f"cannot lock the statistics file {str(path)!r}: {str(lock)!r} is not a regular file")
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StatsError(f"another program has held the statistics file {str(path)!r} for {wait_s:g} s; "
                                     "the game is not counted") from None
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # closing it releases the lock


def opponent_label(session: Session) -> str:
    """Who the player played against, by name (a seat's number and ``(partner)`` left out)."""
    rules = session.rules
    names = []
    for s, p in enumerate(session.seats):
        if p.spec == HUMAN or (rules.partnership and rules.side_of(s) == rules.side_of(session.human)):
            continue
        name = p.name.split("#")[0].strip()
        if name not in names:
            names.append(name)
    return ", ".join(names) or "nobody"


def outcome(session: Session) -> str:
    """``won``, ``lost`` or ``drawn``: how the finished game went for the player's side."""
    game = session.game
    if game.phase is not Phase.GAME_OVER:
        raise StatsError("the game is not over: only a finished game is counted")
    if game.winner is None:
        return "drawn"
    return "won" if game.winner == session.rules.side_of(session.human) else "lost"


def record_game(session: Session, path: Path | None = None) -> tuple[Record, Stats]:
    """Count the finished game of ``session`` (read, update, write atomically); returns its row
    and the whole record. :class:`StatsError` where the file cannot be read or written."""
    how = outcome(session)
    rules = session.rules
    score = session.game.scores[rules.side_of(session.human)]
    path = path or stats_path()
    with _LOCK, file_lock(path):
        stats = load_stats(path)
        label, kind, rated = opponent_label(session), rules_text(rules), bool(session.rated)
        key = record_key(rules.name, rules.num_players, label, kind, rated)
        row = stats.records.setdefault(key, Record(rules.name, rules.num_players, label, rules=kind, rated=rated))
        row.played += 1
        setattr(row, how, getattr(row, how) + 1)
        row.best = score if row.best is None else max(row.best, score)
        row.streak = row.streak + 1 if how == "won" else 0
        row.best_streak = max(row.best_streak, row.streak)
        row.last = time.strftime("%Y-%m-%d %H:%M")
        stats.streak = stats.streak + 1 if how == "won" else 0
        stats.best_streak = max(stats.best_streak, stats.streak)
        save_stats(stats, path)
    return row, stats


def summary(row: Record, stats: Stats) -> str:
    """One line on the kind of game just played: ``sniff, 2 players, to 100, against Expert: 3
    played, 2 won (67%), best score 104, 2 won in a row (longest 2); all games: …``."""
    share = f" ({100 * row.won / row.played:.0f}%)" if row.played else ""
    run = f"{row.streak} won in a row (longest {row.best_streak})"
    return (f"{row.kind}, against {safe_name(row.opponent)}: {row.played} played, {row.won} won{share}, "
            f"best score {row.best}, {run}; all games: {stats.played} played, {stats.won} won")


def stats_rows(stats: Stats) -> list[dict[str, Any]]:
    """Every row, the most played first, as JSON-ready data (with the share won)."""
    rows = sorted(stats.records.values(), key=lambda r: (r.rules is None, -r.played, r.key))
    return [{**asdict(r), "kind": r.kind, "share": round(100 * r.won / r.played) if r.played else 0} for r in rows]


def stats_lines(stats: Stats, width: int | None = None) -> list[str]:
    """The record as plain text lines for a terminal ``width`` columns wide: a header and, per
    kind of game, its numbers and what it was (preset, players, rules, rated, opponents), wrapped
    under the header's ``game``."""
    if not stats.records:
        return ["no finished games yet: a game counts here once it is over"]
    lines = textwrap.wrap(f"your games: {stats.played} played, {stats.won} won; {stats.streak} won in a row now, "
                          f"longest run {stats.best_streak}", width or 10**6, subsequent_indent="  ")
    head = f"  {'played':>6} {'won':>4} {'lost':>4} {'drawn':>5} {'best':>5} {'run':>4}  game"
    lines.append(head)
    for row in stats_rows(stats):
        numbers = (f"  {row['played']:>6} {row['won']:>4} {row['lost']:>4} {row['drawn']:>5} "
                   f"{'-' if row['best'] is None else row['best']:>5} {row['streak']:>4}  ")
        rules = "rules not told apart" if row["rules"] is None else safe_name(row["rules"]).replace(" · ", ", ")
        what = (f"{safe_name(row['preset'])}, {row['players']}p, {rules}{', rated' if row['rated'] else ''}, "
                f"vs {safe_name(row['opponent'])}")
        room = max((width or 10**6) - len(numbers), 20)
        first, *rest = textwrap.wrap(what, room, break_on_hyphens=False) or [""]
        lines += [numbers + first, *[" " * len(numbers) + more for more in rest]]
    return lines

