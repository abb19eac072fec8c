"""What a process says while numba compiles one of the package's functions: nothing compiles in
silence.

Numba compiles a function the first time it runs with arguments of new types, unless the disk
cache (:mod:`sniff_env.vector._compile`) holds it. Every such compile of a function of this
package, in any process (the command line, an environment, a trainer, the web server, a worker),
prints one line on stderr naming what compiles and how long it takes on an idle 2-core machine
(:data:`ESTIMATES`, measured by ``sniff speed compile``), a line every
:data:`TICK_S` seconds while it goes on, and the time it took. A compile nested in another (a
kernel's callees) is part of the outer one's notice. Processes that compile the same function
into the same cache at once (a tournament's workers) say it once: the first to claim it
(:func:`claim`). :func:`quiet` silences them for a caller that reports compiles its own way
(``sniff warmup``).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from numba.core import event

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
ESTIMATES_FILE = Path(__file__).with_name("compile_seconds.json")
"""Seconds each top-level kernel takes to compile alone into an empty cache, on an idle 2-core
machine (written by ``sniff speed compile --write``)."""
TICK_S = 10.0
"""Seconds between the lines that say a compile is still going on."""
SHOW_END_S = 1.0
"""A compile that took longer than this says when it is done."""

GROUPS = {
    "sniff_env.vector": "the batched engine",
    "sniff_env.rulebook": "the batched engine",
    "sniff_env.encoding": "the batched engine",
    "sniff_env.envs.gym_vector": "the Gymnasium vector env",
    "sniff_env.envs.record_encoder": "the observation encoder",
    "sniff_env.players.compiled.baselines": "the built-in players",
    "sniff_env.players.strategy": "the built-in players",
    "sniff_env.players.compiled.opponents": "the Gymnasium vector env",
    "sniff_env.players.compiled.rollouts": "the search",
    "sniff_env.players.compiled.deals": "the search",
    "sniff_env.players.compiled.playouts": "the search",
    "sniff_env.players.compiled.endgame": "the search",
    "sniff_env.players.compiled.splitmix": "the search",
    "sniff_env.players.compiled.win_odds": "the search",
}
"""Which part of the package a compiled function belongs to, by the start of its module's name."""


def _load_estimates(part: str) -> dict[str, float]:
    try:
        data = json.loads(ESTIMATES_FILE.read_text())
        return {str(k): float(v) for k, v in data[part].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


ESTIMATES: dict[str, float] = _load_estimates("kernels")
"""``module.qualname`` of a kernel: its measured compile time alone (see :data:`ESTIMATES_FILE`)."""
GROUP_ESTIMATES: dict[str, float] = _load_estimates("groups")
"""A group of :mod:`sniff_env.play.warm`: its measured compile time alone."""


def kernel_name(func: Any) -> str:
    """``module.qualname`` of a compiled function's Python function."""
    return f"{func.__module__}.{func.__qualname__}"


def group_of(module: str) -> str | None:
    """The part of the package a module's compiled functions belong to, None if not the package's."""
    for prefix, label in GROUPS.items():
        if module == prefix or module.startswith(prefix + "."):
            return label
    return "sniff-env" if module.startswith("sniff_env") else None


CLAIM_STALE_S = 600.0
"""A claim older than this is taken for a compile that was cut short: the next one says so again."""


def claim_file(cache: Path, name: str) -> Path:
    """The file in ``cache`` that says a process is announcing the compile of ``name``."""
    return cache / f"compiling-{name}"


def claim(name: str, cache: Path | None) -> bool:
    """Whether this process is the one to announce compiling ``name`` into ``cache``: the first
    to make its claim file there (or any process, where there is no cache or the claim is stale)."""
    if cache is None:
        return True
    marker = claim_file(cache, name)
    for _ in range(2):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            return True
        except FileExistsError:
            try:
                if time.time() - marker.stat().st_mtime < CLAIM_STALE_S:
                    return False
                marker.unlink()
            except FileNotFoundError:
                pass
        except OSError:  # a cache this process cannot write into: it says so for itself
            return True
    return False


def estimate_text(name: str) -> str:
    """The estimate of ``name``'s compile, as a phrase."""
    seconds = ESTIMATES.get(name)
    if seconds is None:
        return "usually a few seconds to a minute"
    return f"about {max(1, round(seconds))} s on an idle 2-core machine"


class CompileNotices(event.Listener):  # type: ignore[misc]
    """Numba's compile events turned into the lines the module docstring describes."""

    def __init__(self) -> None:
        self.cache: Path | None = None
        """Where the compiles go, for :func:`claim` (set by :mod:`sniff_env.vector._compile`)."""
        self.quiet = 0
        self._depth = 0
        self._started = 0.0
        self._what = ""
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.compiles: list[tuple[str, float]] = []
        """Every outermost compile of this process: the function and the seconds it took (said or not)."""
        self._name = ""
        self._claimed = ""

    def _say(self, line: str) -> None:
        try:
            print(f"sniff-env: {line}", file=sys.stderr, flush=True)
        except (OSError, ValueError):  # a closed or broken stream: the compile goes on regardless
            pass

    def on_start(self, ev: Any) -> None:
        self._depth += 1
        if self._depth > 1:
            return
        func = ev.data["dispatcher"].py_func
        self._name = name = kernel_name(func)
        self._started = time.perf_counter()
        group = group_of(func.__module__)
        if group is None:
            return
        self._what = f"{group} ({func.__qualname__})"
        if self.quiet or not claim(name, self.cache):
            return
        self._claimed = name
        self._say(f"compiling {self._what}, {estimate_text(name)}; once: later runs load it from the cache")
        self._stop.clear()
        self._ticker = threading.Thread(target=self._tick, name="sniff-compile-notice", daemon=True)
        self._ticker.start()

    def current(self) -> str:
        """What this process is compiling and for how long so far, "" when nothing."""
        if not self._depth or not self._what:
            return ""
        return f"compiling {self._what}: {time.perf_counter() - self._started:.0f} s so far"

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            self._say(f"still compiling {self._what}: {time.perf_counter() - self._started:.0f} s so far")

    def on_end(self, ev: Any) -> None:
        self._depth -= 1
        if self._depth:
            return
        self.compiles.append((self._name, time.perf_counter() - self._started))
        what = self._what
        if self._claimed and self.cache is not None:
            claim_file(self.cache, self._claimed).unlink(missing_ok=True)
            self._claimed = ""
        if self._ticker is None:
            self._what = ""
            return
        self._stop.set()
        self._ticker.join()
        self._ticker = None
        self._what = ""
        took = time.perf_counter() - self._started
        if took > SHOW_END_S:
            self._say(f"compiled {what} in {took:.0f} s")


NOTICES = CompileNotices()
event.register("numba:compile", NOTICES)


@contextmanager
def quiet() -> Iterator[None]:
    """No compile notices inside the block (the compiles happen all the same)."""
    NOTICES.quiet += 1
    try:
        yield
    finally:
        NOTICES.quiet -= 1
