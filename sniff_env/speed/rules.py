"""Engine speed: decisions per second of uniform random playouts, per preset.

Each repeat plays ``--games`` seeded games to their end (at most ``--max-hands`` hands) by a
uniform random policy, with the event log on and off; the median of ``--repeats`` is shown.
Times are CPU time of this process, so that other work on a shared machine distorts them less.
Where OpenSpiel is installed, its Python ``python_block_dominoes`` is measured the same way in
the same run as a peer (it is optional: ``pip install open_spiel``).

    python -m sniff_env.speed.rules [--players 2 3 4] [--games 200] [--repeats 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import time
from pathlib import Path
from typing import Any

from sniff_env.game import Phase, new_game
from sniff_env.options import positive_int
from sniff_env.presets import PRESET_NAMES, make_rules

TARGET = 50_000
"""Decisions per second on one core that the engine is meant to reach."""


def playout_rate(preset: str, players: int, games: int, record: bool, max_hands: int, seed: int = 0) -> float:
    """Decisions per second over ``games`` random games."""
    rules = make_rules(preset, players)
    rng = random.Random(seed)
    decisions = 0
    start = time.process_time()
    for g in range(games):
        game = new_game(rules, seed=seed * 1_000_003 + g, record=record, max_hands=max_hands)
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            acts = game.legal_actions()
            game.step(acts[int(rng.random() * len(acts))])
            decisions += 1
    return decisions / (time.process_time() - start)


def load_openspiel() -> Any | None:
    """``pyspiel`` with ``python_block_dominoes`` registered, or ``None`` when not installed."""
    try:
        import open_spiel  # type: ignore[import-untyped, import-not-found, unused-ignore]
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    # Import the one game module by path: the games package imports every Python game, and
    # some of them need extra libraries.
    path = Path(open_spiel.__file__).parent / "python" / "games" / "block_dominoes.py"
    spec = importlib.util.spec_from_file_location("_openspiel_block_dominoes", path)
    if spec is None or spec.loader is None:
        return None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    return pyspiel


def openspiel_rate(pyspiel: Any, games: int, seed: int = 0) -> float:
    """Decisions per second of random ``python_block_dominoes`` playouts (chance nodes are not decisions)."""
    game = pyspiel.load_game("python_block_dominoes")
    rng = random.Random(seed)
    decisions = 0
    start = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                acts = state.legal_actions()
                state.apply_action(acts[int(rng.random() * len(acts))])
                decisions += 1
    return decisions / (time.process_time() - start)


def median_rate(fn: Any, repeats: int, *args: Any) -> float:
    return float(statistics.median(fn(*args, seed=r) for r in range(repeats)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sniff speed rules", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2], help="player counts to measure")
    parser.add_argument("--presets", nargs="+", default=list(PRESET_NAMES), choices=PRESET_NAMES)
    parser.add_argument("--games", type=positive_int, default=200, help="games per repeat")
    parser.add_argument("--repeats", type=positive_int, default=5, help="repeats; the median is shown")
    parser.add_argument("--max-hands", type=positive_int, default=20, help="hand limit per game")
    parser.add_argument("--no-peer", action="store_true", help="skip OpenSpiel even if installed")
    args = parser.parse_args(argv)
    for players in args.players:  # refuse a bad player count before any work
        for preset in args.presets:
            make_rules(preset, players)

    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=f"Random playouts, decisions/s (median of {args.repeats}, {args.games} games each)")
    for col in ("engine", "players", "events on", "events off", "vs OpenSpiel"):
        table.add_column(col, justify="right" if col != "engine" else "left")
    pyspiel = None if args.no_peer else load_openspiel()
    peer = median_rate(lambda seed: openspiel_rate(pyspiel, args.games, seed), args.repeats) if pyspiel else None

    slowest = float("inf")
    for players in args.players:
        for preset in args.presets:
            on, off = (
                median_rate(playout_rate, args.repeats, preset, players, args.games, record, args.max_hands)
                for record in (True, False)
            )
            slowest = min(slowest, on)
            ratio = f"{on / peer:.1f}x" if peer else "-"
            table.add_row(preset, str(players), f"{on:,.0f}", f"{off:,.0f}", ratio)
    if peer:
        table.add_row("OpenSpiel python_block_dominoes", "2", f"{peer:,.0f}", "", "1.0x")
    console.print(table)
    if pyspiel is None and not args.no_peer:
        console.print("OpenSpiel is not installed: no peer measured (pip install open_spiel).")
    verdict = "meets" if slowest >= TARGET else "is below"
    console.print(f"slowest preset with events on: {slowest:,.0f} decisions/s, which {verdict} the {TARGET:,} target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
