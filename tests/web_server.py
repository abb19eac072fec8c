"""The real web server and Chromium for the browser tests: started as a user starts them."""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def start_server(games: Path, *options: str) -> tuple[subprocess.Popen[str], str, str]:
    """``python -m sniff_env serve`` on a free port with ``options``, logs in ``games`` and the
    player's data (the record across games) in ``games / "home"``: the process, its address and
    the line that gives it (the game to open after ``?game=``, if any)."""
    cmd = [sys.executable, "-m", "sniff_env", "serve", "--port", "0", "--games-dir", str(games), *options]
    env = {**os.environ, "SNIFF_HOME": str(games / "home")}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not match:
        proc.kill()
        pytest.fail(f"the server did not start: {line}{proc.stdout.read()}")
    return proc, match.group(0), line


def run_server(games: Path, *options: str) -> Iterator[str]:
    """:func:`start_server`; yields its address, then stops it."""
    proc, address, _ = start_server(games, *options)
    yield address
    proc.terminate()
    proc.wait(timeout=10)


@contextmanager
def live_server(options: Any, **protocol: Any) -> Iterator[int]:
    """The app for ``options`` (:class:`~sniff_env.web.sessions.TableOptions`) behind uvicorn in
    this process, on a free loopback port (yielded), its protocol's limits set by ``protocol``."""
    from sniff_env.cli.serve import listen
    from sniff_env.web.app import create_app
    from sniff_env.web.server import GuardedH11Protocol, Server, config

    app = create_app(options)
    sock = listen("127.0.0.1", 0)
    quick = type("QuickProtocol", (GuardedH11Protocol,), protocol)
    server = Server(config(app, http=quick, timeout_keep_alive=1), on_stop=app.state.workers.close)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def read_all(s: socket.socket) -> bytes:
    """Everything ``s`` receives until the other side closes it (or resets it: a server that
    closes a connection with unread data in it resets it)."""
    chunks = []
    try:
        while chunk := s.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def require_browser() -> Any:
    """The ``playwright.sync_api`` module; skips the calling test module without it or Chromium."""
    api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    if not CHROMIUM.is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)
    return api


@pytest.fixture(scope="module", name="games")
def games_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's folder of game logs (one per test module)."""
    return tmp_path_factory.mktemp("games")


DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module", name="browser")
def browser_fixture() -> Iterator[Any]:
    """Headless Chromium, one per test module."""
    api = require_browser()
    with api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def open_page(browser: Any, url: str, viewport: dict[str, int]) -> Any:
    """A page of the table at ``url`` in ``viewport`` (touch on the phone), once its state is in:
    the game named in ``url`` (``?game=``), else one dealt as a player deals it (opening the page
    deals nothing)."""
    page = browser.new_page(viewport=viewport, has_touch=viewport is PHONE)
    page.set_default_timeout(15_000)
    page.goto(url)
    if "game=" not in url:
        deal(page)
    page.wait_for_function("window.sniff && window.sniff.state")
    return page


def deal(page: Any) -> None:
    """Press Deal on the page's welcome, as a player starts the game it offers."""
    page.wait_for_selector("#welcome:not([hidden]) #deal")
    page.click("#deal")


def state(page: Any) -> dict[str, Any]:
    """The page's game state, as the page holds it."""
    return dict(page.evaluate("JSON.parse(JSON.stringify(window.sniff.state))"))


def wait_past(page: Any, version: int) -> dict[str, Any]:
    """The page's state once it has moved past ``version`` and is not waiting on the server."""
    page.wait_for_function(f"window.sniff.state.version > {version} && !window.sniff.busy")
    return state(page)


def click_move(page: Any, option: dict[str, Any], claim: bool | None = None) -> None:
    """Play ``option`` as a person does: the tile in the hand, then its end on the table (or Draw);
    ``claim`` sets the claim box first where the rules show it (None: as it is)."""
    if claim is not None and page.locator("#claim-box").is_visible() and page.is_checked("#claim") != claim:
        page.click("#claim")
    if option["draw"]:
        page.click("#draw")
        return
    tile = f"{option['tile'][0]}-{option['tile'][1]}"
    if page.evaluate("window.sniff.selected") != tile:
        page.click(f"#hand [data-tile='{tile}']")
    page.click(f"#layout .target[data-action='{option['action']}']")


def first_listed(s: dict[str, Any]) -> dict[str, Any]:
    """The first move the page lists."""
    return dict(s["options"][0])


def best_scoring(s: dict[str, Any]) -> dict[str, Any]:
    """The move that scores the most (the first listed of equals)."""
    return dict(max(s["options"], key=lambda o: o["points"]))


Chooser = Callable[[dict[str, Any]], dict[str, Any]]


def play_until(page: Any, wanted: Callable[[dict[str, Any]], bool], limit: int = 300, claim: bool | None = None,
               choose: Chooser = first_listed) -> dict[str, Any]:
    """Click ``choose(state)`` (the next hand, a new game, as needed) until ``wanted(state)`` holds
    (``claim``: as :func:`click_move`); refused after ``limit`` moves."""
    s = state(page)
    for _ in range(limit):
        if wanted(s):
            return s
        if s["phase"] == "game_over":
            page.click("#result-new")
            page.wait_for_function(f"window.sniff.state.id !== {s['id']!r} && !window.sniff.busy")
            s = state(page)
            continue
        if s["phase"] == "hand_over":
            page.click("#result-next")
        else:
            click_move(page, choose(s), claim)
        s = wait_past(page, s["version"])
    raise AssertionError(f"the wanted position did not come in {limit} moves")


def finish(page: Any, choose: Chooser = best_scoring, limit: int = 2000) -> dict[str, Any]:
    """Play the game on the page to its end by ``choose``; its last state."""
    s = state(page)
    for _ in range(limit):
        if s["phase"] == "game_over":
            return s
        if s["phase"] == "hand_over":
            page.click("#result-next")
        else:
            click_move(page, choose(s))
        s = wait_past(page, s["version"])
    raise AssertionError(f"the game did not end in {limit} moves")


def settled(page: Any, pops: bool = False) -> bytes:
    """A screenshot of the page once every tile is down (and, unless ``pops``, every "+N" gone)."""
    page.wait_for_function("document.getAnimations().every((a) => a.playState === 'finished')")
    if not pops:
        page.wait_for_function("!document.querySelector('.score-pop')")
    return bytes(page.screenshot())


MOST_BYTES = 200_000
"""The largest picture the capture scripts keep, in bytes."""


def save_png(png: bytes, path: Path) -> int:
    """``png`` reduced to 256 colours, written to ``path``; its size in bytes (refused past
    :data:`MOST_BYTES`)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    if out.tell() > MOST_BYTES:
        raise RuntimeError(f"{path.name} would be {out.tell():,} bytes, over {MOST_BYTES:,}")
    path.write_bytes(out.getvalue())
    return out.tell()


RESULTS = Path(__file__).resolve().parents[1] / "checkpoints" / "results"


def screenshot(page: Any, name: str, folder: Path) -> Path:
    """A screenshot of ``page`` once its tiles are down: ``checkpoints/results/web-NAME.png`` with
    ``SNIFF_UPDATE_SCREENSHOT=1``, else in ``folder`` (a test run leaves the repository as it was)."""
    path = RESULTS / f"web-{name}.png" if os.environ.get("SNIFF_UPDATE_SCREENSHOT") else folder / f"{name}.png"
    page.wait_for_function("document.getAnimations().every((a) => a.playState === 'finished')")
    page.screenshot(path=str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path
