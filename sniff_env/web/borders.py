"""What every request must pass before the application sees it (an ASGI middleware).

* **Host**: with a list of host names, a request for another one (a page of another site whose
  name was pointed at this machine) is refused, 403.
* **Origin**: a request that changes something (``POST``, ``PUT``, ``PATCH``, ``DELETE``) must
  come from the server's own pages: its ``Origin`` header (or, without one, its ``Referer``)
  must name the address it was sent to (the ``Host`` header); otherwise 403. Browsers send
  ``Origin`` with every cross-site ``POST``; a request with neither header is not a browser's
  and is let through (``curl``, scripts).
* **Size**: a body longer than ``max_body`` bytes is refused, 413, before it is read further.
"""

from __future__ import annotations

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

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...], max_body: int) -> None:
        self.app = app
        self.hosts = tuple(h.lower() for h in hosts)
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        why = refusal(scope["method"], headers, self.hosts)
        if why is not None:
            await JSONResponse({"error": why}, status_code=403)(scope, receive, send)
            return
        if scope["method"] not in UNSAFE:
            await self.app(scope, receive, send)
            return
        body = await self._body(headers, receive)
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
        """The whole body, or ``None`` when it is longer than ``max_body``."""
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
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
