"""A policy against one opponent on every preset it plays: the per-preset table of a generalist.

For each preset of the policy's family (its metadata's ``rules_family``; or ``--presets``), the
policy and the opponent play ``--games`` duplicate games exactly as ``sniff eval POLICY OPPONENT
--preset P --games G --seed S`` does (the same function, so the same games and figures); the
table gives each preset's win rate with its 95% interval and points per hand, and ``--out``
writes them as JSON (with each preset's ``sniff eval`` command) and a PNG chart beside it.

    python -m training.preset_table generalist-2p greedy --games 2000 --seed 61 --workers 2 \\
        --out checkpoints/results/generalist-2p-presets
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from sniff_env.atomic import save_figure, write_json_atomic
from sniff_env.evaluation.tournament import run_tournament
from sniff_env.options import positive_int, seed_int, win_rate, worker_count
from sniff_env.players.agents import shipped_agents
from sniff_env.players.compat import trained_rules
from sniff_env.players.policy import load_network
from sniff_env.presets import PRESET_NAMES, make_rules


def family_presets(policy: str) -> list[str]:
    """The presets a policy (a shipped agent's name or a policy file) was trained for, in its order."""
    agents = shipped_agents()
    path = agents[policy].path if policy in agents else Path(policy)
    if not path.is_file():
        raise ValueError(f"{policy!r} is neither a shipped agent ({', '.join(agents)}) nor a policy file; "
                         "name the presets with --presets to play any other player")
    _, meta, _ = load_network(path)
    return [r.name for r in trained_rules(meta)]


def eval_command(policy: str, opponent: str, preset: str, players: int, games: int, seed: int, workers: int) -> str:
    """The ``sniff eval`` command that plays the same games as one row of the table."""
    return shlex.join(["sniff", "eval", policy, opponent, "--preset", preset, *(["--players", str(players)]
                       if players != 2 else []), "--games", str(games), "--seed", str(seed), "--workers", str(workers)])


def table_rows(policy: str, opponent: str, presets: list[str], players: int, games: int, seed: int,
               workers: int) -> list[dict[str, Any]]:
    """One row per preset: the pair's result from the policy's side, and its command."""
    rows = []
    for preset in presets:
        start = time.perf_counter()
        result = run_tournament([policy, opponent], make_rules(preset, players), games, seed, workers)
        pair = result.pairs()[0].to_json()
        rows.append({"preset": preset, **pair, "seconds": round(time.perf_counter() - start, 1),
                     "command": eval_command(policy, opponent, preset, players, games, seed, workers)})
    return rows


def print_rows(rows: list[dict[str, Any]], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column in ("preset", "games", "win rate [95% CI]", "points per hand"):
        table.add_column(column, justify="left" if column == "preset" else "right")
    for r in rows:
        lo, hi = r["ci95"]
        table.add_row(r["preset"], f"{r['games']:,}", f"{r['win_rate_a']:.1%} [{lo:.1%}, {hi:.1%}]",
                      f"{r['points_per_hand_a']:.1f} – {r['points_per_hand_b']:.1f}")
    Console().print(table)


def write_chart(rows: list[dict[str, Any]], path: Path, title: str, line: float | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    x = range(len(rows))
    rates = [r["win_rate_a"] for r in rows]
    errs = [[r["win_rate_a"] - r["ci95"][0] for r in rows], [r["ci95"][1] - r["win_rate_a"] for r in rows]]
    ax.bar(x, rates, yerr=errs, capsize=3, color="#4c72b0")
    if line is not None:
        ax.axhline(line, color="#c44e52", linestyle="--", linewidth=1, label=f"{line:.0%}")
        ax.legend(loc="lower right")
    ax.set_xticks(list(x), [r["preset"] for r in rows], rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(title)
    fig.tight_layout()
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("policy", help="a shipped agent's name or a policy file")
    parser.add_argument("opponent", help="the player it meets on every preset (a player spec)")
    parser.add_argument("--presets", default="", help="comma-separated presets (default: the policy's own family)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=positive_int, default=2000,
                        help="duplicate games per preset, rounded up to whole deals as by sniff eval")
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument("--workers", type=worker_count, default=1)
    parser.add_argument("--line", type=win_rate, default=None, help="draw this win rate (0 to 1) as a line on the chart")
    parser.add_argument("--out", type=Path, help="write OUT.json and OUT.png")
    opts = parser.parse_args(argv)
    try:
        presets = [p.strip() for p in opts.presets.split(",") if p.strip()] or family_presets(opts.policy)
        unknown = sorted(set(presets) - set(PRESET_NAMES))
        if unknown:
            parser.error(f"unknown preset(s) {', '.join(unknown)}; choose from {', '.join(PRESET_NAMES)}")
        rows = table_rows(opts.policy, opts.opponent, presets, opts.players, opts.games, opts.seed, opts.workers)
    except ValueError as exc:  # a missing or mismatched policy, an unknown player, a bad count
        parser.error(str(exc))
    title = f"{opts.policy} against {opts.opponent}, {opts.players} players, {opts.games:,} duplicate games a preset"
    print_rows(rows, title)
    if opts.out:
        report = {"policy": opts.policy, "opponent": opts.opponent, "players": opts.players, "games": opts.games,
                  "seed": opts.seed, "command": "python -m training.preset_table " + shlex.join(argv or sys.argv[1:]),
                  "presets": rows}
        opts.out.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(opts.out.with_suffix(".json"), report, indent=2)
        write_chart(rows, opts.out.with_suffix(".png"), title, opts.line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
