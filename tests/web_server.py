"""The real web server and Chromium for the browser tests: started as a user starts them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def run_server(games: Path, *options: str) -> Iterator[str]:
    """``python -m sniff_env.web`` on a free port with ``options``, logs in ``games``; yields its address."""
    cmd = [sys.executable, "-m", "sniff_env.web", "--port", "0", "--games-dir", str(games), *options]
    env = {**os.environ, "SNIFF_HOME": str(games)}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not match:
        proc.kill()
        pytest.fail(f"the server did not start: {line}{proc.stdout.read()}")
    yield match.group(0)
    proc.terminate()
    proc.wait(timeout=10)


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
