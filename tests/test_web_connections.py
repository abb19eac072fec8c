"""What the web server answers before the application sees a request: one client's connections
are capped apart from everyone's, a request head over the limit is refused whole or in pieces,
and these raw answers carry the security headers of every other answer."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from hostile import RULES, deadline  # noqa: F401  (deadline: a time limit for every test)
from web_server import connect, live_server, read_all

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (uvicorn) is not installed")

from sniff_env.web.borders import SECURITY_HEADERS
from sniff_env.web.server import MAX_HEADER_BYTES
from sniff_env.web.sessions import TableOptions

PAGE = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def connect_from(port: int, address: str) -> socket.socket:
    """A connection to the server from another loopback address (another client)."""
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))


def head_of(answer: bytes) -> tuple[str, dict[str, str]]:
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    return head[0], {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:])}


def assert_guarded(answer: bytes) -> None:
    status, headers = head_of(answer)
    for name, value in SECURITY_HEADERS:
        assert headers.get(name.decode()) == value.decode(), (status, name)


def test_one_client_holding_connections_open_keeps_no_one_else_out(tmp_path: Path) -> None:
    with live_server(TableOptions(RULES, ("random",), games_dir=tmp_path), header_timeout_s=5.0,
                     max_connections=64, client_connections=8) as port:
        held = [connect(port) for _ in range(40)]  # half-open, as a flood holds them
        for s in held:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        time.sleep(0.3)
        refused = [read_all(s) for s in held[8:]]
        assert all(a.startswith(b"HTTP/1.1 503 ") for a in refused)
        assert b"the most one client may hold" in refused[0]
        assert_guarded(refused[0])
        other = connect_from(port, "127.0.0.2")
        other.sendall(PAGE + b"Connection: close\r\n\r\n")
        assert read_all(other).startswith(b"HTTP/1.1 200 ")
        for s in held:
            s.close()


@pytest.mark.parametrize("pieces", [1, 8], ids=["at once", "in pieces"])
def test_a_request_head_over_the_limit_is_refused(tmp_path: Path, pieces: int) -> None:
    head = PAGE + b"X-Long: " + b"a" * (3 * MAX_HEADER_BYTES) + b"\r\n\r\n"
    with live_server(TableOptions(RULES, ("random",), games_dir=tmp_path)) as port:
        s = connect(port)
        size = len(head) // pieces + 1
        try:
            for i in range(0, len(head), size):
                s.sendall(head[i:i + size])
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before all of it was sent
        answer = read_all(s)
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert f"({MAX_HEADER_BYTES:,} bytes)".encode() in answer
        assert_guarded(answer)
        fine = connect(port)
        fine.sendall(PAGE + b"X-Fine: " + b"a" * (MAX_HEADER_BYTES - 200) + b"\r\nConnection: close\r\n\r\n")
        assert read_all(fine).startswith(b"HTTP/1.1 200 ")


def test_the_raw_503_and_408_carry_the_security_headers(tmp_path: Path) -> None:
    with live_server(TableOptions(RULES, ("random",), games_dir=tmp_path), header_timeout_s=0.3,
                     max_connections=1) as port:
        first = connect(port)
        first.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        time.sleep(0.05)
        second = read_all(connect(port))
        late = read_all(first)
    assert second.startswith(b"HTTP/1.1 503 ") and late.startswith(b"HTTP/1.1 408 ")
    assert_guarded(second)
    assert_guarded(late)
