"""Load on the web table: ``--clients`` players at once for ``--seconds`` seconds, each playing
games as the page does (the page, the game's view, a move or the next deal, a hint now and then),
against a server on this machine. Prints requests per second, the median and 99th percentile
latency of each kind of request, the answers that were no success (by status), and the server's
resident memory before and after (and its peak).

By default it starts ``sniff serve`` itself (``--opponent random``, a temporary games folder);
``--url`` names a running server instead (``--pid`` its process, for the memory). Only
addresses of this machine (loopback) are accepted. Each player sends from its own loopback
address where the server is on 127.0.0.1 (the server shares its work and caps games per
address). ``--hint-flood N`` instead sends N hint requests for one game at once and times the
page meanwhile.

    python -m sniff_env.speed.web_load [--clients 20] [--seconds 20] [--hint-every 10]
    python -m sniff_env.speed.web_load --hint-flood 80 --hint-budget 1
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sniff_env.options import positive_int, real_number

MAX_SECONDS = 300.0
KINDS = ("page", "view", "move", "next", "new", "hint")


@dataclass
class Tally:
    """What the clients saw: each request's kind, status and seconds."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)

    def add(self, kind: str, status: int, seconds: float) -> None:
        self.latencies[kind].append(seconds)
        self.statuses[(kind, status)] += 1


def loopback(url: str) -> str:
    """``url`` if it names this machine (a loopback address or ``localhost``), else SystemExit."""
    host = urlsplit(url).hostname or ""
    try:
        local = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        local = False
    if not local:
        raise SystemExit(f"--url must name this machine (127.0.0.1, ::1 or localhost); got {url!r}")
    return url.rstrip("/") + "/"


def rss_mb(pid: int) -> tuple[float, float]:
    """The resident memory of process ``pid`` now and at its peak, in MiB (Linux)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


@contextmanager
def started_server(opponent: str, hint_budget: float) -> Iterator[tuple[str, int]]:
    """``sniff serve`` on a free loopback port with a temporary games folder: its address and pid."""
    with tempfile.TemporaryDirectory() as folder:
        cmd = [sys.executable, "-m", "sniff_env", "serve", "--port", "0", "--games-dir", folder,
               "--opponent", opponent, "--hint-budget", str(hint_budget)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, "SNIFF_HOME": folder})
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            found = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if not found:
                raise SystemExit(f"the server did not start: {line}{proc.stdout.read()}")
            yield found.group(0), proc.pid
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


async def player(http: Any, until: float, hint_every: int, tally: Tally) -> None:
    """One client: play games until ``until`` (event-loop time), as the page does."""
    loop = asyncio.get_running_loop()

    async def ask(kind: str, method: str, path: str, **kw: Any) -> Any:
        started = loop.time()
        try:
            r = await http.request(method, path, **kw)
        except Exception as exc:  # noqa: BLE001  (a refused or cut connection is counted, not fatal)
            tally.failures[f"{kind}: {type(exc).__name__}"] += 1
            await asyncio.sleep(0.1)
            return None
        tally.add(kind, r.status_code, loop.time() - started)
        if r.status_code in (429, 503):
            await asyncio.sleep(0.1)
        return r

    view: dict[str, Any] | None = None
    turn = 0
    while loop.time() < until:
        turn += 1
        await ask("page", "GET", "/")
        if view is None or view["phase"] == "game_over":
            r = await ask("new", "POST", "/api/games")
            view = r.json() if r is not None and r.status_code == 200 else None
            continue
        r = await ask("view", "GET", f"/api/games/{view['id']}")
        if r is not None and r.status_code == 200:
            view = r.json()
        if view["your_turn"]:
            if hint_every and turn % hint_every == 0:
                await ask("hint", "GET", f"/api/games/{view['id']}/hint")
            body = {"version": view["version"], "action": view["options"][0]["action"]}
            r = await ask("move", "POST", f"/api/games/{view['id']}/move", json=body)
        elif view["phase"] == "hand_over":
            r = await ask("next", "POST", f"/api/games/{view['id']}/next", json={"version": view["version"]})
        else:
            continue
        if r is not None and r.status_code == 200:
            view = r.json()


def player_address(url: str, index: int) -> str | None:
    """The loopback address player ``index`` sends from, so that the server, which shares its
    work and caps games and connections per address, sees each player as a client of its own:
    ``127.0.X.Y`` for a server on IPv4 loopback, else ``None`` (one address for all)."""
    host = urlsplit(url).hostname or ""
    try:
        ipv4 = ipaddress.ip_address(host).version == 4
    except ValueError:
        ipv4 = host == "localhost"
    return f"127.0.{index // 250}.{index % 250 + 2}" if ipv4 else None


async def load(url: str, clients: int, seconds: float, hint_every: int) -> tuple[Tally, float]:
    import httpx

    tally = Tally()
    loop = asyncio.get_running_loop()
    started = loop.time()
    https = [httpx.AsyncClient(base_url=url, timeout=60,
                               transport=httpx.AsyncHTTPTransport(local_address=player_address(url, i)))
             for i in range(clients)]
    try:
        await asyncio.gather(*(player(http, started + seconds, hint_every, tally) for http in https))
    finally:
        for http in https:
            await http.aclose()
    return tally, loop.time() - started


async def hint_flood(url: str, hints: int) -> Tally:
    """``hints`` hint requests for one new game at once, and the page asked for every 0.1 s until
    they are all answered."""
    import httpx

    tally = Tally()
    limits = httpx.Limits(max_connections=hints + 1, max_keepalive_connections=hints + 1)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as http:
        loop = asyncio.get_running_loop()
        game = (await http.post("/api/games")).json()["id"]

        async def timed(kind: str, path: str) -> None:
            started = loop.time()
            try:
                r = await http.get(path)
            except Exception as exc:  # noqa: BLE001  (counted, not fatal)
                tally.failures[f"{kind}: {type(exc).__name__}"] += 1
                return
            tally.add(kind, r.status_code, loop.time() - started)

        flood = asyncio.gather(*(timed("hint", f"/api/games/{game}/hint") for _ in range(hints)))
        while not flood.done():
            await timed("page", "/")
            await asyncio.sleep(0.1)
        await flood
    return tally


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def report(tally: Tally, seconds: float, clients: int) -> str:
    every = [x for kind in KINDS for x in tally.latencies[kind]]
    head = (f"{clients} clients, {seconds:.1f} s: {len(every):,} answers, {len(every) / seconds:,.1f} requests/s, "
            f"p50 {1000 * percentile(every, 0.5):.1f} ms, p99 {1000 * percentile(every, 0.99):.1f} ms")
    lines = [head, f"{'kind':<6} {'answers':>8} {'p50 ms':>8} {'p99 ms':>8}  not 200"]
    for kind in KINDS:
        times = tally.latencies[kind]
        if not times:
            continue
        other = ", ".join(f"{s}: {n}" for (k, s), n in sorted(tally.statuses.items()) if k == kind and s != 200)
        lines.append(f"{kind:<6} {len(times):>8,} {1000 * percentile(times, 0.5):>8.1f} "
                     f"{1000 * percentile(times, 0.99):>8.1f}  {other or '-'}")
    if tally.failures:
        lines.append("no answer: " + ", ".join(f"{k}: {n}" for k, n in sorted(tally.failures.items())))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sniff_env.speed.web_load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=positive_int, default=20, help="players at once (default: 20)")
    parser.add_argument("--seconds", default=20.0, help=f"how long, at most {MAX_SECONDS:g} (default: 20)",
                        type=real_number(f"a number of seconds above 0, at most {MAX_SECONDS:g}",
                                         lambda v: 0 < v <= MAX_SECONDS))
    parser.add_argument("--hint-every", type=positive_int, default=10, metavar="N",
                        help="each client asks for a hint every N turns (default: 10)")
    parser.add_argument("--opponent", default="random", help="the started server's opponent (default: random)")
    parser.add_argument("--hint-budget", type=float, default=0.2, help="the started server's hint budget (default: 0.2)")
    parser.add_argument("--url", help="a running server on this machine instead of starting one")
    parser.add_argument("--pid", type=positive_int, help="the running server's process, for its memory")
    parser.add_argument("--hint-flood", type=positive_int, metavar="N",
                        help="instead: N hints for one game at once, the page timed meanwhile")
    args = parser.parse_args(argv)

    def run(url: str, pid: int | None) -> None:
        before = rss_mb(pid) if pid else None
        if args.hint_flood:
            started = time.perf_counter()
            tally = asyncio.run(hint_flood(url, args.hint_flood))
            print(report(tally, time.perf_counter() - started, args.hint_flood).replace("clients", "hints at once", 1))
        else:
            tally, seconds = asyncio.run(load(url, args.clients, args.seconds, args.hint_every))
            print(report(tally, seconds, args.clients))
        if pid and before:
            now, peak = rss_mb(pid)
            print(f"server memory: {before[0]:.0f} MiB before, {now:.0f} MiB after, peak {peak:.0f} MiB")

    if args.url:
        run(loopback(args.url), args.pid)
    else:
        with started_server(args.opponent, args.hint_budget) as (url, pid):
            time.sleep(0.5)
            run(url, pid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
