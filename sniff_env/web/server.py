"""The HTTP server of ``sniff serve`` (uvicorn, HTTP/1.1 by h11) with limits on connections.

* **Connections**: at most :data:`MAX_CONNECTIONS` at once; one more is answered 503 and closed
  at once, and uvicorn answers 503 to requests beyond that many in flight (``limit_concurrency``).
* **Slow clients**: a request's line and headers must arrive within :data:`HEADER_TIMEOUT_S`
  seconds of the connection opening (or of the previous answer on it), else it is answered 408
  and closed; an idle kept-alive connection is closed after :data:`KEEP_ALIVE_S` seconds. (The
  body has its own time limit, see :mod:`.borders`.)
* **Stopping**: on SIGTERM or Ctrl-C the server waits at most :data:`GRACE_S` seconds for the
  answers under way, then cancels them; the worker threads do not hold the process (see
  :mod:`.workers`).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_CONNECTIONS = 256
HEADER_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
GRACE_S = 3
MAX_HEADER_BYTES = 16 * 1024
"""The longest request line and headers accepted (h11 answers 400 beyond)."""



def _answer(status: str, text: str, *headers: str) -> bytes:
    """A whole HTTP answer that closes the connection (sent before h11 has a request to answer)."""
    body = (text + "\n").encode()
    lines = [f"HTTP/1.1 {status}", "content-type: text/plain; charset=utf-8", *headers, "connection: close",
             f"content-length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a cap on connections and a time limit on request headers."""

    max_connections = MAX_CONNECTIONS
    header_timeout_s = HEADER_TIMEOUT_S
    _header_timer: asyncio.TimerHandle | None = None
    _partial = False
    """Whether part of a request (not yet its whole head) has come in."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        full = len(self.connections) >= self.max_connections
        super().connection_made(transport)  # type: ignore[arg-type]
        if full:
            self.transport.write(_answer("503 Service Unavailable", f"the server has {self.max_connections} "
                                         "connections open already; try again in a moment", "retry-after: 5"))
            self.transport.close()
            return
        self._arm()  # a connection that sends nothing is closed too

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        self._partial = False
        super().on_response_complete()  # the keep-alive timer takes over an idle connection
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Time the head of a request from its first byte until it is whole."""
        if self.conn.their_state is not h11.IDLE:
            self._partial = False
            self._disarm()
        elif self.conn.trailing_data[0] and not self._partial:
            self._partial = True
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if self.conn.their_state is not h11.IDLE or self.transport.is_closing():
            return
        if self._partial:
            self.transport.write(_answer("408 Request Timeout", "the request line and headers did not come "
                                         f"within {self.header_timeout_s:g} s"))
        self.transport.close()


def config(app: Any, **overrides: Any) -> uvicorn.Config:
    """The server's settings (see the module docstring)."""
    settings: dict[str, Any] = {
        "log_level": "warning", "http": GuardedH11Protocol, "timeout_keep_alive": KEEP_ALIVE_S,
        "limit_concurrency": MAX_CONNECTIONS, "timeout_graceful_shutdown": GRACE_S,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES, **overrides,
    }
    return uvicorn.Config(app, **settings)


class Server(uvicorn.Server):
    """uvicorn's server that calls ``on_stop()`` (on its event loop) as soon as it starts to stop,
    before it waits for the answers under way."""

    def __init__(self, config: uvicorn.Config, on_stop: Callable[[], None] = lambda: None) -> None:
        super().__init__(config)
        self.on_stop = on_stop

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.on_stop()
        await super().shutdown(sockets)


def serve(app: Any, sock: socket.socket, on_stop: Callable[[], None] = lambda: None) -> None:
    """Serve ``app`` on the listening socket ``sock`` until SIGTERM or Ctrl-C; ``on_stop()``
    when it starts to stop (to answer the requests that wait for long work at once)."""
    Server(config(app), on_stop).run(sockets=[sock])
