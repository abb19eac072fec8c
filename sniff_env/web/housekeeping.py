"""Cleaning of the server's games folder, at start and every :data:`CLEAN_EVERY` new games.

Only files the server can tell are its own are removed: its game logs (named with
:data:`~.sessions.LOG_PREFIX`) that are older than ``keep_days`` days or beyond the newest
``keep`` of them, and temporary files left by an interrupted atomic write
(``.NAME.json.XXXX.tmp``, see :mod:`sniff_env.atomic`) that no write has touched for
:data:`TEMP_GRACE_S` seconds. Other files (logs of ``sniff play``, a ``--save`` file) are left
alone, and so are the files named in ``spare`` (a resumed game's log, the logs of the games the
server holds).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

LOG_PREFIX = "web-"
"""The start of the name of each log file the server names itself."""
CLEAN_EVERY = 100
"""New games between two cleanings of the games folder while the server runs."""
KEEP_LOGS = 1000
"""Server logs kept by default (the newest)."""
KEEP_DAYS = 30.0
"""Server logs younger than this many days are kept by default."""
TEMP_GRACE_S = 60.0
"""A temporary file untouched this long belongs to no running write."""


@dataclass(frozen=True)
class Cleaned:
    """What :func:`clean_games_folder` removed."""

    logs: int = 0
    temporary: int = 0

    def __str__(self) -> str:
        return (f"removed {self.logs} old game log{'s' * (self.logs != 1)} of this server and "
                f"{self.temporary} leftover temporary file{'s' * (self.temporary != 1)}")


def _files(folder: Path, pattern: str) -> list[tuple[float, Path]]:
    """Regular files (not links) in ``folder`` matching ``pattern``, with their modification times."""
    found = []
    for path in folder.glob(pattern):
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found.append((info.st_mtime, path))
    return found


def _remove(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:  # gone already, or not ours to remove: leave it
        return False
    return True


def clean_games_folder(folder: Path, keep: int = KEEP_LOGS, keep_days: float = KEEP_DAYS,
                       spare: Collection[Path] = (), now: float | None = None) -> Cleaned:
    """Remove the server's old logs and leftover temporary files from ``folder`` (see the module)."""
    if keep < 0 or not keep_days > 0:
        raise ValueError(f"keep must be 0 or more and keep_days above 0; got {keep!r}, {keep_days!r}")
    if not folder.is_dir():
        return Cleaned()
    now = time.time() if now is None else now
    spared = {os.path.realpath(p) for p in spare}
    logs = sorted(_files(folder, f"{LOG_PREFIX}*.json"), reverse=True)  # newest first
    oldest = now - keep_days * 86400
    removed = sum(_remove(path) for rank, (mtime, path) in enumerate(logs)
                  if (rank >= keep or mtime < oldest) and os.path.realpath(path) not in spared)
    stale = now - TEMP_GRACE_S
    temporary = sum(_remove(path) for mtime, path in _files(folder, ".*.json.*.tmp") if mtime < stale)
    return Cleaned(removed, temporary)
