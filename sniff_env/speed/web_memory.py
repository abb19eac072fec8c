"""Memory of the web server: how much ``--games`` new games against the default opponent (the
shipped policy, else ``heuristic``) grow the process, the server run in-process (FastAPI's test
client, the games written to a temporary folder). Each game is created as the page does
(``POST /api/games``); the growth is the resident set size after them minus the size after a
few warm-up games (imports, the policy's first load).

    python -m sniff_env.speed.web_memory [--games 300] [--max-games 200]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

from sniff_env.options import positive_int
from sniff_env.presets import make_rules
from sniff_env.web.sessions import MAX_GAMES, TableOptions

WARM_UP = 5


def rss_mb() -> float:
    """The resident set size of this process in MiB (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sniff_env.speed.web_memory", description=__doc__)
    parser.add_argument("--games", type=positive_int, default=300, help="new games to start (default: 300)")
    parser.add_argument("--max-games", type=positive_int, default=MAX_GAMES,
                        help=f"the server's cap on games kept (default: {MAX_GAMES})")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from sniff_env.web.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        options = TableOptions(make_rules("sniff", 2), games_dir=Path(folder), max_games=args.max_games)
        client = TestClient(create_app(options))
        for _ in range(WARM_UP):
            client.post("/api/games").raise_for_status()
        store = client.app.state.store  # type: ignore[attr-defined]
        before, start = rss_mb(), time.perf_counter()
        for _ in range(args.games):
            client.post("/api/games").raise_for_status()
        grown, seconds = rss_mb() - before, time.perf_counter() - start
        kept, agents = len(store.tables), len(store.agents)
    print(f"{args.games} new games (server keeps {args.max_games}; {kept} kept; {agents} policy loaded): "
          f"resident memory grew {grown:.1f} MiB ({1024 * grown / args.games:.0f} KiB per game), {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
