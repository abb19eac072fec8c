"""The recent finished games in the server's games folder: a list to pick one from, and its log.

Only full game logs (``sniff-game-log``) that say they are finished are listed or given: the log
of a game still in play holds its seed and every hand, so it is never read out (the replay re-runs
the log and refuses one whose ``finished`` is not what the re-run gives). Logs of ``sniff play``
kept in the same folder are listed beside the server's. The folder is read, never written: a
visit that lists or replays games deals nothing and writes nothing.

The work is bounded: the newest :data:`MAX_SCANNED` files are looked at (each read only up to the
game log limit, see :func:`sniff_env.gamelog.read_log_data`), and :data:`MAX_LISTED` games listed.
"""

from __future__ import annotations

import re
import stat
from datetime import datetime
from pathlib import Path
from typing import Any

from sniff_env.gamelog import FORMAT, GameLogError, read_log_data
from sniff_env.play.session import HUMAN, safe_name
from sniff_env.rules import Rules
from sniff_env.web.sessions import WebError

MAX_SCANNED = 200
"""The newest log files looked at for the list."""
MAX_LISTED = 20
"""The most games listed."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.json")
"""What a log's name in the games folder may look like (no folder, no hidden or temporary file)."""


def _logs(folder: Path) -> list[tuple[float, Path]]:
    """The regular files (not links) in ``folder`` named like logs, newest first."""
    found = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    for path in entries:
        if not NAME.fullmatch(path.name):
            continue
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found.append((info.st_mtime, path))
    found.sort(key=lambda item: (item[0], item[1].name), reverse=True)
    return found


def _finished(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT and data.get("finished") is True


def _names(data: dict[str, Any]) -> list[str]:
    """Each seat's name as the table showed it (safe to show as text)."""
    players, meta = data.get("players"), data.get("meta")
    if not isinstance(players, list):
        players = []
    names = meta.get("names") if isinstance(meta, dict) else None
    if not (isinstance(names, list) and len(names) == len(players)):
        names = players
    return [safe_name(n) for n in names]


def summary(name: str, mtime: float, data: dict[str, Any]) -> dict[str, Any] | None:
    """One finished game as the list shows it (None where its rules or scores cannot be read):
    ``name`` (to replay it by), ``date`` (the log's last change, local time, ISO), ``preset``,
    ``players`` (their names), ``scores`` (by side), ``result`` (who won, in words) and
    ``yours`` (whether the person at the table won: true, false, or null for a draw or a game
    nobody played in person)."""
    try:
        rules = Rules.from_dict(dict(data["rules"]))
    except (KeyError, TypeError, ValueError):
        return None
    names, scores, winner = _names(data), data.get("scores"), data.get("winner")
    if (len(names) != rules.num_players or not isinstance(scores, list) or len(scores) != rules.num_sides
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores)
            or not (winner is None or (isinstance(winner, int) and 0 <= winner < rules.num_sides))):
        return None
    players = data["players"]
    human = next((s for s, spec in enumerate(players) if spec == HUMAN), -1)
    if winner is None:
        result, yours = "a draw", None
    else:
        won = [n for s, n in enumerate(names) if rules.side_of(s) == winner]
        result = f"{' & '.join(won)} {'win' if won == ['You'] or len(won) > 1 else 'wins'}"
        yours = None if human < 0 else rules.side_of(human) == winner
    return {"name": name, "date": datetime.fromtimestamp(mtime).isoformat(timespec="minutes"),
            "preset": rules.name or "custom rules", "players": names, "scores": scores,
            "target": rules.target, "result": result, "yours": yours}


def recent_games(folder: Path, limit: int = MAX_LISTED) -> list[dict[str, Any]]:
    """The newest finished games in ``folder``, newest first (see :func:`summary`); a log that
    cannot be read is left out of the list."""
    if limit < 1:
        raise ValueError(f"limit must be 1 or more; got {limit!r}")
    out: list[dict[str, Any]] = []
    for mtime, path in _logs(folder)[:MAX_SCANNED]:
        try:
            data, _ = read_log_data(path)
        except GameLogError:
            continue
        if _finished(data) and (row := summary(path.name, mtime, data)) is not None:
            out.append(row)
            if len(out) == limit:
                break
    return out


def finished_log(folder: Path, name: str) -> dict[str, Any]:
    """The JSON data of the finished game logged as ``name`` in ``folder``: a :class:`WebError`,
    422 for a name that names no log file, 404 for one that is not there or is no finished game."""
    if not NAME.fullmatch(name):
        raise WebError(422, f"{safe_name(name)!r} is not the name of a game log (a name like "
                            "20250101-200000-seed1-0a1b2c3d.json, no folder)")
    path = folder / name
    try:
        info = path.lstat()
    except OSError:
        raise WebError(404, f"there is no game log {name!r} on this server") from None
    if not stat.S_ISREG(info.st_mode):
        raise WebError(404, f"there is no game log {name!r} on this server")
    try:
        data, _ = read_log_data(path)
    except GameLogError as exc:
        raise WebError(422, str(exc).replace(str(folder), "the games folder")) from None
    if not _finished(data):
        raise WebError(404, f"{name!r} is not a finished game: only finished games can be replayed from the list")
    return dict(data)
