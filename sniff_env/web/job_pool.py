"""The one pool of worker threads that does the server's CPU-heavy work: the agents' moves,
hints, game logs and replays.

The pool takes at most ``threads + waiting`` jobs at once, and at most ``per_client`` of them
from one client (a client is the address a request comes from); one more is refused at once
with a 429 answer and a ``Retry-After`` header (:class:`Busy`) instead of being queued, so a
flood of hints or replays cannot build an endless queue nor fill the pool for the others, and
the requests that need no worker (the page, a game's view) are answered while the pool is full.

The jobs waiting are shared out in turn (:class:`FairQueue`): a free thread takes the next
client's oldest job, and within a client the next game's; no client holds more than
``running`` threads at once, and the last free thread is kept for a client with no job under
way, so a client whose requests wait behind others' floods has a thread at once, or after one
job, however many jobs the others have queued. The threads are daemon threads: a stopping
server does not wait for a job that runs long (a search with a huge budget); :meth:`Workers.close`
drops the jobs not started yet and sets :attr:`Workers.closing`, which long jobs may watch to
stop early.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from sniff_env.web.sessions import WebError, stopping

T = TypeVar("T")
THREADS = 4
"""Jobs worked on at once."""
WAITING = 28
"""Jobs that may wait for a thread; beyond ``THREADS + WAITING`` jobs a request is refused (429)."""
PER_CLIENT = 8
"""Jobs (working or waiting) one client may have at once; beyond that its requests are refused (429)."""
RUNNING = 2
"""Threads one client's jobs may hold at once (its other jobs wait their turn)."""
RETRY_AFTER_S = 2
Job = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class FairQueue:
    """Jobs waiting for a thread, by client and then by game: :meth:`get` takes the oldest job of
    the next game of the next client, round the clients and, within a client, round its games,
    passing over a client that has ``running`` jobs worked on already, and keeping the last of
    the ``threads`` for a client with none (so that the clients with work under way, CPU-bound
    and holding Python's lock in turn, leave a thread and time for the others)."""

    def __init__(self, running: int = 1 << 30, threads: int = 1 << 30) -> None:
        self.running, self.threads = running, threads
        self._ready = threading.Condition()
        self._clients: OrderedDict[str, OrderedDict[str, deque[Job]]] = OrderedDict()
        self._busy: Counter[str] = Counter()

    def put(self, job: Job, client: str = "", game: str = "") -> None:
        with self._ready:
            self._clients.setdefault(client, OrderedDict()).setdefault(game, deque()).append(job)
            self._ready.notify()

    def get(self) -> tuple[Job, str]:
        """The next job in turn and its client (waits for one); call :meth:`done` when it ends."""
        with self._ready:
            while True:
                spare = sum(self._busy.values()) < self.threads - 1
                client = next((c for c in self._clients
                               if not self._busy[c] or (self._busy[c] < self.running and spare)), None)
                if client is not None:
                    break
                self._ready.wait()
            games = self._clients[client]
            game, jobs = next(iter(games.items()))
            job = jobs.popleft()
            if jobs:
                games.move_to_end(game)
            else:
                del games[game]
            if games:
                self._clients.move_to_end(client)
            else:
                del self._clients[client]
            self._busy[client] += 1
            return job, client

    def done(self, client: str) -> None:
        """A job of ``client`` taken by :meth:`get` has ended."""
        with self._ready:
            self._busy[client] -= 1
            if not self._busy[client]:
                del self._busy[client]
            self._ready.notify()


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

    def __init__(self, threads: int = THREADS, waiting: int = WAITING, name: str = "sniff-worker",
                 per_client: int = PER_CLIENT, running: int = RUNNING) -> None:
        if threads < 1 or waiting < 0 or per_client < 1 or running < 1:
            raise ValueError(f"a pool needs at least one thread, no negative queue and room for a client's job; "
                             f"got {threads}, {waiting}, {per_client}, {running}")
        self.threads, self.capacity, self.name = threads, threads + waiting, name
        self.per_client = per_client
        self.closing = threading.Event()
        self._jobs = FairQueue(running, threads)
        self._slots = threading.BoundedSemaphore(self.capacity)
        self._held: Counter[str] = Counter()
        """Jobs taken per client."""
        self._lock = threading.Lock()
        self._started = 0
        self._pending: set[Future[Any]] = set()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = set()

    @property
    def in_use(self) -> int:
        """Jobs taken and not finished (running or waiting)."""
        with self._lock:
            return len(self._pending)

    def submit(self, fn: Callable[..., T], *args: Any, done: Callable[[], None] | None = None,
               client: str = "", game: str = "") -> Future[T]:
        """Queue ``fn(*args)`` for ``client`` (and its ``game``); :class:`Busy` when the pool holds
        ``capacity`` jobs already, or ``per_client`` of this client's. ``done()`` is called once the
        job has finished, failed or been dropped (at once when it is refused)."""
        refusal: WebError | None = None
        if self.closing.is_set():
            refusal = stopping()
        else:
            with self._lock:
                mine = self._held[client]
                if mine < self.per_client:
                    self._held[client] += 1
            if mine >= self.per_client:
                refusal = Busy(f"you have {mine} requests (moves, hints, replays) being worked out already, the most "
                               "one client may have at once; try again when they are answered")
            elif not self._slots.acquire(blocking=False):
                self._release(client)
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
        future.add_done_callback(lambda f: self._finished(f, client))
        if done is not None:
            future.add_done_callback(lambda _: done())
        self._jobs.put((future, fn, args), client, game)
        return future

    def _release(self, client: str) -> None:
        with self._lock:
            self._held[client] -= 1
            if not self._held[client]:
                del self._held[client]

    def _finished(self, future: Future[Any], client: str) -> None:
        with self._lock:
            self._pending.discard(future)
        self._release(client)
        self._slots.release()

    def _work(self) -> None:
        while True:
            (future, fn, args), client = self._jobs.get()
            try:
                if not future.set_running_or_notify_cancel():
                    continue  # given up before it started
                try:
                    result = fn(*args)
                except BaseException as exc:  # noqa: BLE001  (handed to the request that waits for it)
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            finally:
                self._jobs.done(client)

    async def run(self, fn: Callable[..., T], *args: Any, done: Callable[[], None] | None = None,
                  gone: Callable[[], Awaitable[Any]] | None = None, stop: threading.Event | None = None,
                  client: str = "", game: str = "") -> T:
        """``fn(*args)`` in a worker for ``client`` and its ``game`` (see :meth:`submit`); the
        waiting request is free to answer others meanwhile. When ``gone()`` finishes first (the client went away), a job not
        started is dropped, ``stop`` is set for one that runs, and :class:`Abandoned` is raised.
        When the pool is closed first, a 503 refusal is raised (the job may run on)."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()
        job = self.submit(fn, *args, done=done, client=client, game=game)
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
