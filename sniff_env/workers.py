"""Worker processes: how many a command may start, and a pool whose processes end with it.

A count of workers is capped at :data:`WORKERS_PER_CORE` per core this process may run on
(:func:`max_workers`): more only share the same cores, and a mistyped count must not fork
without bound. :func:`worker_pool` terminates its processes when its block ends, whether
normally, by an error, by Ctrl-C or by SIGTERM (turned into :class:`SystemExit` while the pool
lives); on Linux each worker is also told to end should this process die without cleaning up.
A worker that dies at its task (killed, out of memory, a crash in compiled code) fails the
pool's ``imap`` and ``map`` with :class:`WorkerLost`, where ``multiprocessing.Pool`` would wait
for the lost task for ever: the pool is the standard library's ``ProcessPoolExecutor``, which
notices a dead worker.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

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


class WorkerLost(RuntimeError):
    """A worker process ended before it finished its task: its results will never come."""


LOST = ("a worker process ended before it finished its task (killed, out of memory, or crashed in compiled "
        "code); its results are lost, so nothing was reported")


class WorkerPool:
    """Worker processes running tasks: ``imap`` (results in order, as they come), ``map`` (a list)
    and ``apply_async`` (one task, a future); a lost worker raises :class:`WorkerLost`."""

    def __init__(self, workers: int, initializer: Callable[[], None] | None = None) -> None:
        self._executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(),
                                             initializer=_start_worker, initargs=(os.getpid(), initializer))

    def imap(self, func: Callable[[T], R], iterable: Iterable[T], chunksize: int = 1) -> Iterator[R]:
        """``func`` of each item, in order; every task is handed out at once."""
        try:
            results = self._executor.map(func, iterable, chunksize=chunksize)
        except BrokenProcessPool:
            raise WorkerLost(LOST) from None
        return _lost_as_error(results)

    def map(self, func: Callable[[T], R], iterable: Iterable[T], chunksize: int = 1) -> list[R]:
        """``func`` of each item, as a list in order."""
        return list(self.imap(func, iterable, chunksize))

    def apply_async(self, func: Callable[..., R], args: tuple[Any, ...] = ()) -> Future[R]:
        """``func(*args)`` in a worker: its future."""
        return self._executor.submit(func, *args)

    @property
    def pids(self) -> list[int]:
        """The workers' process ids (the processes start with the first task)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return sorted(processes)

    def terminate(self) -> None:
        """End every worker now, finished or not, and wait until they have ended."""
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        for process in processes:
            process.kill()
        self._executor.shutdown(wait=True, cancel_futures=True)
        for process in processes:
            process.join()


def _lost_as_error(results: Iterator[R]) -> Iterator[R]:
    """``results``, with a broken pool raised as :class:`WorkerLost`."""
    try:
        yield from results
    except BrokenProcessPool:
        raise WorkerLost(LOST) from None


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
def worker_pool(workers: int, initializer: Callable[[], None] | None = None) -> Iterator[WorkerPool]:
    """A pool of ``workers`` processes (:func:`checked_workers`), each started by ``initializer``,
    terminated when the block ends however it ends (see the module)."""
    checked_workers(workers)
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if main else None
    try:
        pool = WorkerPool(workers, initializer)
        try:
            yield pool
        finally:
            pool.terminate()
    finally:
        if main:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


__all__ = ["WORKERS_PER_CORE", "WorkerLost", "WorkerPool", "checked_workers", "cores", "max_workers", "worker_pool",
           "workers_allowed"]
