"""The HTTP server of ``sniff serve`` (uvicorn, HTTP/1.1 by h11) with limits on connections.

* **Connections**: at most :data:`MAX_CONNECTIONS` at once, and at most
  :data:`CLIENT_CONNECTIONS` from one client (one address); one more is answered 503 and closed
  at once, so that one client holding connections open keeps no one else out. (A connection
  carries one request at a time, so requests in flight are capped as well.)
* **Slow clients**: a request's line and headers must arrive within :data:`HEADER_TIMEOUT_S`
  seconds of the connection opening (or of the previous answer on it), else it is answered 408
  and closed; an idle kept-alive connection is closed after :data:`KEEP_ALIVE_S` seconds. (The
  body has its own time limit, see :mod:`.borders`.)
* **Long heads**: a request line and headers longer than :data:`MAX_HEADER_BYTES` are answered
  431 and closed, whether they come in pieces or all at once.

These answers are written before the application sees a request; they carry the security
headers of every answer (:data:`~.borders.SECURITY_HEADERS`).
* **Stopping**: on SIGTERM or Ctrl-C the server waits at most :data:`GRACE_S` seconds for the
  answers under way, then cancels them; the worker threads do not hold the process (see
  :mod:`.workers`).
"""

from __future__ import annotations

import asyncio
import re
import socket
import sys
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from sniff_env.web.borders import SECURITY_HEADERS

MAX_CONNECTIONS = 256
CLIENT_CONNECTIONS = 32
"""Connections one client (address) may hold open at once."""
HEADER_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
GRACE_S = 3
SWITCH_INTERVAL_S = 0.001
"""How often Python's lock passes between threads in the server (5 ms by default): the event loop
and a short job (a move against quick agents) wait about this long for it, not 5 ms at each turn,
while long jobs (hints search in Python) run in other threads."""
MAX_HEADER_BYTES = 16 * 1024
"""The longest request line and headers accepted (431 beyond)."""
_HEAD_END = re.compile(rb"\r?\n\r?\n")

def _answer(status: str, text: str, *headers: str) -> bytes:
    """A whole HTTP answer that closes the connection (sent before h11 has a request to answer)."""
    body = (text + "\n").encode()
    guards = [f"{name.decode()}: {value.decode()}" for name, value in SECURITY_HEADERS]
    lines = [f"HTTP/1.1 {status}", "content-type: text/plain; charset=utf-8", *headers, *guards,
             "connection: close", f"content-length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with caps on connections, in all and per client, and limits on the
    time and the size of request heads."""

    max_connections = MAX_CONNECTIONS
    client_connections = CLIENT_CONNECTIONS
    header_timeout_s = HEADER_TIMEOUT_S
    max_header_bytes = MAX_HEADER_BYTES
    _header_timer: asyncio.TimerHandle | None = None
    _partial = False
    """Whether part of a request (not yet its whole head) has come in."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        full = len(self.connections) >= self.max_connections
        super().connection_made(transport)  # type: ignore[arg-type]
        host = self.client[0] if self.client else None
        mine = sum(1 for c in self.connections if isinstance(c, GuardedH11Protocol) and c.client
                   and c.client[0] == host)  # this one included
        why = (f"the server has {self.max_connections} connections open already" if full else
               f"your address has {mine - 1} connections open already, the most one client may hold"
               if mine > self.client_connections else None)
        if why is not None:
            self.transport.write(_answer("503 Service Unavailable", f"{why}; try again in a moment", "retry-after: 5"))
            self.transport.close()
            return
        self._arm()  # a connection that sends nothing is closed too

    def handle_events(self) -> None:
        if self.conn.their_state is h11.IDLE and self._head_too_long():
            self.transport.write(_answer("431 Request Header Fields Too Large", "the request line and headers are "
                                         f"longer than this server accepts ({self.max_header_bytes:,} bytes)"))
            self.transport.close()
            return
        super().handle_events()

    def _head_too_long(self) -> bool:
        """Whether the request head waiting to be read (whole or not) passes ``max_header_bytes``."""
        received = self.conn.trailing_data[0]
        end = _HEAD_END.search(received, 0, self.max_header_bytes + 4)
        return (end.end() if end else len(received)) > self.max_header_bytes

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
        "timeout_graceful_shutdown": GRACE_S, "h11_max_incomplete_event_size": MAX_HEADER_BYTES + 4, **overrides,
    }
    return uvicorn.Config(app, **settings)


class Server(uvicorn.Server):
    """uvicorn's server that calls ``on_start()`` once it listens, and ``on_stop()`` (on its event
    loop) as soon as it starts to stop, before it waits for the answers under way."""

    def __init__(self, config: uvicorn.Config, on_stop: Callable[[], None] = lambda: None,
                 on_start: Callable[[], None] = lambda: None) -> None:
        super().__init__(config)
        self.on_stop, self.on_start = on_stop, on_start

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if not self.should_exit:
            self.on_start()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.on_stop()
        await super().shutdown(sockets)


def serve(app: Any, sock: socket.socket, on_stop: Callable[[], None] = lambda: None,
          on_start: Callable[[], None] = lambda: None) -> None:
    """Serve ``app`` on the listening socket ``sock`` until SIGTERM or Ctrl-C; ``on_start()`` once
    it listens (work that must not delay it), ``on_stop()`` when it starts to stop (to answer the
    requests that wait for long work at once)."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    Server(config(app), on_stop, on_start).run(sockets=[sock])
