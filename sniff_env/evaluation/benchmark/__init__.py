"""Named, versioned benchmark tasks and their protocol (``sniff benchmark``).

:mod:`.tasks` holds the tasks as data, :mod:`.protocol` plays an agent through one,
:mod:`.report` writes the standard JSON (the same inputs give the same file byte for byte),
its run sidecar, a PNG and the comparison table.
"""

from __future__ import annotations

from sniff_env.evaluation.benchmark.tasks import (
    ANCHOR,
    MIN_GAMES,
    OPPONENTS,
    TASKS,
    BenchmarkError,
    Task,
    UnknownTaskError,
    get_task,
)

__all__ = ["ANCHOR", "MIN_GAMES", "OPPONENTS", "TASKS", "BenchmarkError", "Task", "UnknownTaskError", "get_task"]
