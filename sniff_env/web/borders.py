"""What every request must pass before the application sees it (an ASGI middleware).

* **Host**: with a list of host names, a request for another one (a page of another site whose
  name was pointed at this machine) is refused, 403.
* **Origin**: a request that changes something (``POST``, ``PUT``, ``PATCH``, ``DELETE``) must
  come from the server's own pages: its ``Origin`` header (or, without one, its ``Referer``)
  must name the address it was sent to (the ``Host`` header); otherwise 403. Browsers send
  ``Origin`` with every cross-site ``POST``; a request with neither header is not a browser's
  and is let through (``curl``, scripts).
* **Size**: a body longer than ``max_body`` bytes is refused, 413, before it is read further;
  one that has not all come within ``body_timeout_s`` seconds is refused, 408.

Every answer, refusals included, carries :data:`SECURITY_HEADERS`: no other site may show the
page in a frame (``X-Frame-Options``, CSP ``frame-ancestors``), no answer is sniffed for another
type than it says, and the address of a page (a game's id) is not sent to other sites.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
BODY_TIMEOUT_S = 30.0
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # not no-referrer: browsers would then send "Origin: null"
)


def host_name(netloc: str) -> str:
    """``"[::1]:8765"`` -> ``"::1"``, ``"Localhost:80"`` -> ``"localhost"``."""
    return (urlsplit(f"//{netloc}").hostname or "").lower()


def refusal(method: str, headers: Headers, hosts: tuple[str, ...]) -> str | None:
    """Why a request is refused at the border (403), or ``None``."""
    host = headers.get("host", "")
    if hosts and host_name(host) not in hosts:
        return f"this server answers to {', '.join(hosts)} only, not to {host!r}"
    if method not in UNSAFE:
        return None
    source = headers.get("origin") or headers.get("referer")
    if source is None:
        return None
    parts = urlsplit(source)
    if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
        return (f"this server accepts changes only from its own pages (http://{host}/); "
                f"this request came from {source!r}")
    return None


class Borders:
    """The checks of the module docstring, in front of ``app``."""

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...], max_body: int,
                 body_timeout_s: float | None = None) -> None:
        self.app = app
        self.hosts = tuple(h.lower() for h in hosts)
        self.max_body = max_body
        self.body_timeout_s = BODY_TIMEOUT_S if body_timeout_s is None else body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self._check(scope, receive, guarded(send))

    async def _check(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        why = refusal(scope["method"], headers, self.hosts)
        if why is not None:
            await JSONResponse({"error": why}, status_code=403)(scope, receive, send)
            return
        if scope["method"] not in UNSAFE:
            await self.app(scope, receive, send)
            return
        try:
            body = await self._body(headers, receive)
        except TimeoutError:
            late = f"the request body did not all come within {self.body_timeout_s:g} seconds"
            await JSONResponse({"error": late}, status_code=408, headers={"Connection": "close"})(scope, receive, send)
            return
        if body is None:
            too_long = f"the request body is longer than this server accepts ({self.max_body:,} bytes)"
            await JSONResponse({"error": too_long}, status_code=413)(scope, receive, send)
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()  # after the body: wait for the disconnect, as the server would
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _body(self, headers: Headers, receive: Receive) -> bytes | None:
        """The whole body, or ``None`` when it is longer than ``max_body``; :class:`TimeoutError`
        when it has not all come within ``body_timeout_s``."""
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            return None
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + self.body_timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            message = await asyncio.wait_for(receive(), left)
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def guarded(send: Send) -> Send:
    """``send`` with :data:`SECURITY_HEADERS` added to the start of every answer."""

    async def send_guarded(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {name.lower() for name, _ in message.get("headers", [])}
            extra = [h for h in SECURITY_HEADERS if h[0] not in present]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return send_guarded
