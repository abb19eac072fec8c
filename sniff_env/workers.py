"""Worker processes: how many a command may start, and a pool whose processes end with it.

A count of workers is capped at :data:`WORKERS_PER_CORE` per core this process may run on
(:func:`max_workers`): more only share the same cores, and a mistyped count must not fork
without bound. :func:`worker_pool` terminates its processes when its block ends, whether
normally, by an error, by Ctrl-C or by SIGTERM (turned into :class:`SystemExit` while the pool
lives); on Linux each worker is also told to end should this process die without cleaning up.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool
from types import FrameType

WORKERS_PER_CORE = 4
"""The most worker processes per core."""
PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when the thread that started it ends."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_workers() -> int:
    """The most worker processes a command may start: :data:`WORKERS_PER_CORE` per core."""
    return WORKERS_PER_CORE * cores()


def workers_allowed() -> str:
    """The allowed counts, in words."""
    return f"a whole number, 1 or more and at most {max_workers()} ({WORKERS_PER_CORE} per core of {cores()})"


def checked_workers(value: object, name: str = "workers") -> int:
    """``value`` if it is a whole number from 1 to :func:`max_workers`, else :class:`ValueError`
    naming ``name`` and the allowed counts."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number, 1 or more; got {value!r}")
    if value > max_workers():
        raise ValueError(f"{name} must be {workers_allowed()}; got {value!r}")
    return value


def _exit_on_sigterm(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def _die_with_parent(parent: int) -> None:
    """Ask Linux to send this worker SIGTERM when the process that started it ends."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    except (OSError, AttributeError):
        return
    if multiprocessing.get_start_method(allow_none=True) in (None, "fork") and os.getppid() != parent:
        os._exit(1)  # the parent ended before the request was made


def _start_worker(parent: int, initializer: Callable[[], None] | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, inherited across the fork
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends the pool
    _die_with_parent(parent)
    if initializer is not None:
        initializer()


@contextmanager
def worker_pool(workers: int, initializer: Callable[[], None] | None = None) -> Iterator[Pool]:
    """A pool of ``workers`` processes (:func:`checked_workers`), each started by ``initializer``,
    terminated when the block ends however it ends (see the module)."""
    checked_workers(workers)
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if main else None
    try:
        pool = multiprocessing.get_context().Pool(workers, initializer=_start_worker,
                                                  initargs=(os.getpid(), initializer))
        try:
            yield pool
        finally:
            pool.terminate()
            pool.join()
    finally:
        if main:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


__all__ = ["WORKERS_PER_CORE", "checked_workers", "cores", "max_workers", "worker_pool", "workers_allowed"]
