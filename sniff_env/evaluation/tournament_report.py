"""Reports of a tournament: a terminal table (rich), JSON (written atomically), a PNG chart."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sniff_env.atomic import save_figure, write_json_atomic
from sniff_env.evaluation.tournament import TournamentResult


def to_json(result: TournamentResult, command: str | None = None) -> dict[str, Any]:
    """Everything measured, as plain data."""
    ratings = result.ratings()
    think = result.think_time()
    return {
        "rules": result.rules.to_dict(),
        "preset": result.rules.name,
        "num_players": result.rules.num_players,
        "players": result.players,
        "games_per_pair": result.games_per_pair,
        "seed": result.seed,
        "max_hands": result.max_hands,
        "draws": "counted as half a win in win rates and ratings",
        "command": command,
        "pairs": [p.to_json() for p in result.pairs()],
        "ratings": {p: round(r, 2) for p, r in sorted(ratings.items(), key=lambda kv: -kv[1])},
        "seconds_per_decision": {p: round(t, 6) for p, t in think.items()},
    }


def write_json(data: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write JSON atomically: a temporary file in the same folder, then a rename."""
    write_json_atomic(path, data, indent=2)


def print_table(result: TournamentResult, console: Any = None) -> None:
    """The pairwise results and the ratings as rich tables."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console(width=max(Console().width, 112))
    table = Table(title=f"{result.rules.name}, {result.rules.num_players} players: duplicate games per pair")
    for col in ("A", "B", "games", "A wins", "B wins", "draws", "A win rate [95% CI]", "pts/hand A", "pts/hand B"):
        table.add_column(col, justify="left" if col in ("A", "B") else "right")
    for p in result.pairs():
        lo, hi = p.interval
        ppa, ppb = p.points_per_hand
        table.add_row(
            p.a, p.b, str(p.games), str(p.wins_a), str(p.wins_b), str(p.draws),
            f"{p.score_a:.3f} [{lo:.3f}, {hi:.3f}]", f"{ppa:.2f}", f"{ppb:.2f}",
        )
    console.print(table)
    ratings = Table(title="Bradley-Terry ratings (Elo scale, mean 0)")
    ratings.add_column("player")
    ratings.add_column("rating", justify="right")
    ratings.add_column("s/decision", justify="right")
    think = result.think_time()
    for name, r in sorted(result.ratings().items(), key=lambda kv: -kv[1]):
        ratings.add_row(name, f"{r:+.0f}", f"{think[name]:.4f}")
    console.print(ratings)


def write_chart(result: TournamentResult, path: str | os.PathLike[str]) -> None:
    """A bar chart of the ratings (PNG, matplotlib's Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = sorted(result.ratings().items(), key=lambda kv: kv[1])
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(ratings)))
    names = [n for n, _ in ratings]
    values = [v for _, v in ratings]
    ax.barh(names, values, color=["#c0504d" if v < 0 else "#4f81bd" for v in values])
    ax.axvline(0, color="black", linewidth=0.8)
    for y, v in enumerate(values):
        ax.text(v, y, f" {v:+.0f} ", va="center", ha="left" if v >= 0 else "right")
    ax.set_xlabel("Bradley-Terry rating (Elo scale, mean 0)")
    ax.set_title(
        f"{result.rules.name}, {result.rules.num_players} players, {result.games_per_pair} duplicate games per pair"
    )
    ax.margins(x=0.25)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, path)
