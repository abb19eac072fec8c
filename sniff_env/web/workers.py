"""The one pool of worker threads that does the server's CPU-heavy work: the agents' moves,
hints, game logs and replays.

The pool takes at most ``threads + waiting`` jobs at once; one more is refused at once with a
429 answer and a ``Retry-After`` header (:class:`Busy`) instead of being queued, so a flood of
hints or replays cannot build an endless queue, and the requests that need no worker (the page,
a game's view) are answered while the pool is full. The threads are daemon threads: a stopping
server does not wait for a job that runs long (a search with a huge budget); :meth:`Workers.close`
drops the jobs not started yet and sets :attr:`Workers.closing`, which long jobs may watch to
stop early.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from sniff_env.web.sessions import WebError, stopping

T = TypeVar("T")
THREADS = 4
"""Jobs worked on at once."""
WAITING = 28
"""Jobs that may wait for a thread; beyond ``THREADS + WAITING`` jobs a request is refused (429)."""
RETRY_AFTER_S = 2


class Busy(WebError):
    """A refusal because the server is at its limit of work (429, with ``Retry-After``)."""

    def __init__(self, message: str, status: int = 429, retry_after_s: float = RETRY_AFTER_S) -> None:
        super().__init__(status, message, retry_after_s=retry_after_s)


class Abandoned(WebError):
    """The client went away before its answer was ready (the answer is for nobody: 499)."""

    def __init__(self) -> None:
        super().__init__(499, "the client closed the connection before the answer was ready")


class Workers:
    """A bounded pool of daemon threads (started when first needed)."""

    def __init__(self, threads: int = THREADS, waiting: int = WAITING, name: str = "sniff-worker") -> None:
        if threads < 1 or waiting < 0:
            raise ValueError(f"a pool needs at least one thread and no negative queue; got {threads}, {waiting}")
        self.threads, self.capacity, self.name = threads, threads + waiting, name
        self.closing = threading.Event()
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = queue.SimpleQueue()
        self._slots = threading.BoundedSemaphore(self.capacity)
        self._lock = threading.Lock()
        self._started = 0
        self._pending: set[Future[Any]] = set()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = set()

    @property
    def in_use(self) -> int:
        """Jobs taken and not finished (running or waiting)."""
        with self._lock:
            return len(self._pending)

    def submit(self, fn: Callable[..., T], *args: Any, done: Callable[[], None] | None = None) -> Future[T]:
        """Queue ``fn(*args)``; :class:`Busy` when the pool holds ``capacity`` jobs already.
        ``done()`` is called once the job has finished, failed or been dropped (at once when it is
        refused)."""
        refusal: WebError | None = None
        if self.closing.is_set():
            refusal = stopping()
        elif not self._slots.acquire(blocking=False):
            refusal = Busy(f"the server is busy: {self.capacity} requests (moves, hints, replays) are being "
                           "worked out already; try again in a moment")
        if refusal is not None:
            if done is not None:
                done()
            raise refusal
        future: Future[T] = Future()
        with self._lock:
            self._pending.add(future)
            if self._started < self.threads:
                self._started += 1
                threading.Thread(target=self._work, name=f"{self.name}-{self._started}", daemon=True).start()
        future.add_done_callback(self._finished)
        if done is not None:
            future.add_done_callback(lambda _: done())
        self._jobs.put((future, fn, args))
        return future

    def _finished(self, future: Future[Any]) -> None:
        with self._lock:
            self._pending.discard(future)
        self._slots.release()

    def _work(self) -> None:
        while True:
            future, fn, args = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue  # given up before it started
            try:
                result = fn(*args)
            except BaseException as exc:  # noqa: BLE001  (handed to the request that waits for it)
                future.set_exception(exc)
            else:
                future.set_result(result)

    async def run(self, fn: Callable[..., T], *args: Any, done: Callable[[], None] | None = None,
                  gone: Callable[[], Awaitable[Any]] | None = None, stop: threading.Event | None = None) -> T:
        """``fn(*args)`` in a worker (see :meth:`submit`); the waiting request is free to answer
        others meanwhile. When ``gone()`` finishes first (the client went away), a job not
        started is dropped, ``stop`` is set for one that runs, and :class:`Abandoned` is raised.
        When the pool is closed first, a 503 refusal is raised (the job may run on)."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()
        job = self.submit(fn, *args, done=done)
        job.add_done_callback(lambda f: _relay(loop, f, answer))
        answer.add_done_callback(lambda a: job.cancel() if a.cancelled() else None)
        waiter = (loop, answer)
        with self._lock:
            self._waiters.add(waiter)
        watcher = asyncio.ensure_future(gone()) if gone is not None else None
        try:
            await asyncio.wait({answer} if watcher is None else {answer, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            with self._lock:
                self._waiters.discard(waiter)
            if not answer.done():
                answer.cancel()
                job.cancel()  # drops the job, unless it has started
                if stop is not None:
                    stop.set()
            if watcher is not None:
                watcher.cancel()
        if answer.cancelled():
            raise Abandoned
        return answer.result()

    def close(self) -> None:
        """Drop the jobs not started yet, refuse new ones, and answer the requests still waiting
        with a 503 refusal; :attr:`closing` tells long jobs to stop. Running jobs are not waited
        for (their threads are daemon threads)."""
        self.closing.set()
        with self._lock:
            pending, waiters = list(self._pending), list(self._waiters)
        for loop, answer in waiters:  # first: a dropped job's waiter hears "stopping", not "cancelled"
            _call_soon(loop, _settle, answer, stopping())
        for future in pending:
            future.cancel()


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:  # the loop is closed: nobody waits any more
        pass


def _settle(answer: asyncio.Future[Any], outcome: BaseException | None, result: Any = None) -> None:
    """Give ``answer`` its outcome (on its loop), unless it has one already."""
    if answer.done():
        return
    if outcome is None:
        answer.set_result(result)
    else:
        answer.set_exception(outcome)


def _relay(loop: asyncio.AbstractEventLoop, job: Future[Any], answer: asyncio.Future[Any]) -> None:
    """Hand a finished job's result or error to the request waiting on ``loop``."""
    if job.cancelled():
        _call_soon(loop, lambda: answer.done() or answer.cancel())
    elif job.exception() is not None:
        _call_soon(loop, _settle, answer, job.exception())
    else:
        _call_soon(loop, _settle, answer, None, job.result())
