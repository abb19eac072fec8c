"""``POST /api/replay``: an uploaded game log, checked against the server's limits, as frames.

Either kind of log replays: a full game log (every hand face up) or a seat's record of a game
in progress, which the table's "Save log" gives before the game is over (that seat's view:
its own tiles face up, the others hidden; see :mod:`sniff_env.play.seat_replay`).

A log is judged by its size before the engine re-runs it: at most :data:`MAX_HANDS` hands and
:data:`MAX_FRAMES` positions (a deal or a decision each; in a seat's record, an event), answered 413 beyond that. The frames
are encoded one by one, and the answer stops with a 413 once it would pass :data:`MAX_BYTES`, so
neither the work nor the answer can grow past those limits. The work stops early when ``stop``
says so (the uploader went away, or the server is stopping).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.responses import Response

from sniff_env.gamelog import GameLogError, read_json
from sniff_env.play.seat_replay import SeatLog, parse_log
from sniff_env.web import views
from sniff_env.web.sessions import WebError

MAX_HANDS = 100
"""The most hands a replayed log may hold (a game to 250 points takes about 10 to 30)."""
MAX_FRAMES = 2_500
"""The most positions (each deal and each decision) a replayed log may hold."""
MAX_BYTES = 24_000_000
"""The longest replay answer, in bytes."""


class Stopped(Exception):
    """The replay was given up before it was finished (nobody waits for it any more)."""


def _encode(data: Any) -> str:
    """Compact JSON, all ASCII (so its length is its size in bytes)."""
    return json.dumps(data, allow_nan=False, separators=(",", ":"))


def _moves(hand: Any) -> int:
    """A hand's positions after its deal: its decisions (a full log) or its events (a seat's
    record), whichever list is longer, so that a decoy (``"decisions": []`` in a seat's record)
    cannot hide the list that is replayed."""
    if not isinstance(hand, dict):
        return 0
    return max((len(v) for k, v in hand.items() if k in ("decisions", "events") and isinstance(v, list)), default=0)


def check_size(data: Any) -> None:
    """Refuse (413) a log with more hands or positions than the server replays; a log whose
    shape is wrong is left to the parser, which says what is wrong with it."""
    if not isinstance(data, dict) or not isinstance(data.get("hands"), list):
        return
    hands = data["hands"]
    if len(hands) > MAX_HANDS:
        raise WebError(413, f"this log has {len(hands):,} hands; the server replays logs of at most "
                            f"{MAX_HANDS} hands (use sniff replay LOG for longer games)", limit=MAX_HANDS)
    frames = sum(1 + _moves(h) for h in hands)
    if frames > MAX_FRAMES:
        raise WebError(413, f"this log has {frames:,} positions (deals and decisions); the server replays logs "
                            f"of at most {MAX_FRAMES:,} (use sniff replay LOG for longer games)", limit=MAX_FRAMES)


def replay_answer(body: bytes, stop: Callable[[], bool] = lambda: False) -> Response:
    """The frames of the uploaded log as JSON, or a 422 (a log that cannot be replayed) or 413
    (one over the limits) refusal; :class:`Stopped` when ``stop()`` turns true first. Blocking
    work: run it in a worker thread."""
    try:
        data = read_json(body, "the uploaded log")
        check_size(data)
        log = parse_log(data, "the uploaded log")
    except GameLogError as exc:
        raise WebError(422, str(exc)) from None
    if isinstance(log, SeatLog):
        record, frames = _encode({"seat": log.seat, "name": log.names[log.seat]}), views.seat_replay_frames(log)
    else:
        record, frames = "null", views.replay_frames(log)
    parts = ['{"players":', _encode(log.players), ',"record":', record, ',"frames":[']
    size = sum(map(len, parts)) + 2
    for i, frame in enumerate(frames):
        if stop():
            raise Stopped
        text = _encode(frame)
        size += len(text) + (i > 0)
        if size > MAX_BYTES:
            raise WebError(413, f"the replay of this log would be longer than the server sends "
                                f"({MAX_BYTES:,} bytes); use sniff replay LOG", limit=MAX_BYTES)
        parts.append("," + text if i else text)
    parts.append("]}")
    return Response("".join(parts), media_type="application/json")
