"""The server's games: each a :class:`~sniff_env.play.session.Session` behind an id and a version.

The version counts the changes of a game. Every request that changes one names the version it
was made for, so a move sent from an old page (another tab, a double click) is refused instead
of being applied to a position its sender never saw.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SniffError
from ..gamelog import load_game_log
from ..play.session import Session
from ..rules import Rules
from .views import seat_view


class WebError(SniffError):
    """A request the server refuses; ``status`` is its HTTP status."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.extra = extra


@dataclass(frozen=True)
class TableOptions:
    """How new games are set up: the options of ``sniff serve``."""

    rules: Rules
    opponents: tuple[str, ...] = ()
    partner: str | None = None
    seat: int = 0
    seed: int | None = None
    rated: bool = False
    games_dir: Path | None = None
    save_path: Path | None = None
    """The log file of the first game (later games are logged in ``games_dir``)."""
    hint_budget_s: float = 1.0


@dataclass
class Table:
    """One game on the server."""

    id: str
    session: Session
    version: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "version": self.version, **seat_view(self.session)}

    def check(self, version: int) -> None:
        if version != self.version:
            raise WebError(409, f"this request was made for version {version} of the game, which is now at "
                                f"version {self.version}; reload the game and try again", version=self.version)

    def changed(self) -> None:
        """Count a change and write the log (the same JSON log as ``sniff play``)."""
        self.version += 1
        self.session.save()


class TableStore:
    """The games of one server, by id."""

    def __init__(self, options: TableOptions) -> None:
        self.options = options
        self.tables: dict[str, Table] = {}
        self._lock = threading.Lock()
        self._first = True

    def _add(self, session: Session) -> Table:
        table = Table(secrets.token_urlsafe(9), session)
        with self._lock:
            self.tables[table.id] = table
        return table

    def _save_path(self, seed: int) -> Path | None:
        if self.options.games_dir is None:
            return None
        return self.options.games_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}-{secrets.token_hex(3)}.json"

    def new(self) -> Table:
        """A new game with the server's options (its seed for the first game only)."""
        o = self.options
        with self._lock:
            first, self._first = self._first, False
        session = Session.start(o.rules, list(o.opponents), human=o.seat, partner=o.partner,
                                seed=o.seed if first else None, rated=o.rated)
        session.save_path = (first and o.save_path) or self._save_path(session.seed)
        session.advance()
        return self._add(session)

    def resume(self, path: Path) -> Table:
        """A game continued from a saved log."""
        session = Session.resume(load_game_log(path), path)
        session.rated = session.rated or self.options.rated
        session.advance()
        return self._add(session)

    def get(self, game_id: str) -> Table:
        table = self.tables.get(game_id)
        if table is None:
            raise WebError(404, f"there is no game {game_id!r} on this server (it may have been started by "
                                "an earlier run of the server); start a new game")
        return table
