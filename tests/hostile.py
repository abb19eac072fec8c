"""What the hostile-input tables share: a time limit per test (a hang fails the test instead of
the run) and a finished game's log to spoil."""

from __future__ import annotations

import copy
import json
import signal
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from sniff_env.gamelog import game_log
from sniff_env.play.session import Session
from sniff_env.presets import make_rules

LIMIT_S = 60
RULES = make_rules("sniff", 2, target=30)


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """Fail the test that runs longer than ``LIMIT_S`` seconds (POSIX main thread only)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise TimeoutError(f"the test ran over {LIMIT_S} s: something hangs")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(LIMIT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def started(seed: int = 8) -> Session:
    """A game against ``random``, the human to move (or the hand over)."""
    session = Session.start(RULES, ["random"], seed=seed)
    session.advance()
    return session


def finished(seed: int = 8) -> Session:
    """A game played to its end, the human always playing its first legal move."""
    session = started(seed)
    while session.game.phase.name != "GAME_OVER":
        if session.game.phase.name == "HAND_OVER":
            session.next_hand()
        else:
            session.play(session.game.legal_actions()[0])
    return session


SESSION = finished()
LOG: dict[str, Any] = game_log(SESSION.game, [p.spec for p in SESSION.seats], SESSION.meta)


def edited(**changes: Any) -> str:
    """:data:`LOG` as JSON text with ``changes``: ``hands__0__result=[1, 2]`` sets
    ``log["hands"][0]["result"]``."""
    log = copy.deepcopy(LOG)
    for path, value in changes.items():
        *keys, last = path.split("__")
        node: Any = log
        for k in keys:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[int(last) if isinstance(node, list) else last] = value
    return json.dumps(log)
