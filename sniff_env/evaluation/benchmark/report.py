"""Benchmark reports: the standard JSON, its run sidecar, a PNG and the comparison table.

The standard JSON (``OUT.json``) holds only what the inputs decide (task, agent, every result,
the ratings, the command), with fixed rounding and key order, so that the same inputs give the
same file byte for byte on any machine. What differs from run to run (wall time, the machine,
seconds per decision, the date) goes to the sidecar ``OUT.run.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sniff_env.atomic import save_figure, write_json_atomic
from sniff_env.evaluation.benchmark.protocol import BenchmarkResult
from sniff_env.evaluation.benchmark.tasks import ANCHOR, BenchmarkError
from sniff_env.evaluation.tournament import PairResult
from sniff_env.players import BUILTIN, parse_spec
from sniff_env.players.agents import shipped_agents
from sniff_env.untrusted import InputFileError, printable, read_bounded

FORMAT = "sniff-benchmark/1"
"""The format of the standard JSON; a reader refuses any other."""
RUN_FORMAT = "sniff-benchmark-run/1"
"""The format of the sidecar (wall time, machine): not a report, so ``table`` passes it over."""
MAX_REPORT_BYTES = 16 * 2**20
"""The largest report ``table`` reads (a report takes a few kilobytes)."""


def agent_record(spec: str) -> dict[str, Any]:
    """What identifies the agent: its spec and, for a policy (shipped or a file), its file's digest."""
    base = parse_spec(spec)[0]
    if base in BUILTIN:
        return {"spec": spec, "kind": "built-in"}
    agents = shipped_agents()
    path = agents[base].path if base in agents else Path(base)
    kind = "shipped agent" if base in agents else "policy file"
    return {"spec": spec, "kind": kind, "file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def _pair(p: PairResult) -> dict[str, Any]:
    lo, hi = p.interval
    a, b = p.points_per_hand
    return {
        "games": p.games, "wins": p.wins_a, "losses": p.wins_b, "draws": p.draws,
        "win_rate": round(p.score_a, 4), "ci95": [round(lo, 4), round(hi, 4)],
        "points_per_hand": [round(a, 3), round(b, 3)],
    }


def to_json(result: BenchmarkResult, command: str | None) -> dict[str, Any]:
    """The standard JSON of a run: nothing in it depends on the machine or the clock."""
    ratings = result.ratings()
    return {
        "format": FORMAT,
        "task": result.task.name,
        "version": result.task.version,
        "standard": result.standard,
        "agent": agent_record(result.agent),
        "protocol": {
            **result.task.to_json(),
            "games": dict(result.games),
            "pool_games": result.pool_games,
            "metric": "duplicate-deal win rate of the agent (draws count half) with a 95% Wilson interval; "
            f"Bradley-Terry rating on the Elo scale fitted on every game, {ANCHOR} at 0",
        },
        "results": [{"opponent": p.b, **_pair(p)} for p in result.against()],
        "pool": [{"a": p.a, "b": p.b, **_pair(p)} for p in result.pool()],
        "ratings": {name: round(value, 1) for name, value in sorted(ratings.items(), key=lambda kv: -kv[1])},
        "command": command,
    }


def run_json(result: BenchmarkResult) -> dict[str, Any]:
    """The sidecar: how long the run took, where, and each player's seconds per decision."""
    import numpy

    return {
        "format": RUN_FORMAT,
        "task": result.task.name,
        "agent": result.agent,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "wall_s": round(result.wall_s, 1),
        "engines": result.engines,
        "seconds_per_decision": {k: round(v, 6) for k, v in result.tournament.think_time().items()},
        "machine": {
            "platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "python": sys.version.split()[0], "numpy": numpy.__version__,
        },
    }


def output_paths(out: str | os.PathLike[str]) -> tuple[Path, Path, Path]:
    """The standard JSON, the sidecar and the PNG of ``--out``."""
    base = Path(out)
    return base.with_name(base.name + ".json"), base.with_name(base.name + ".run.json"), base.with_name(base.name + ".png")


def write_report(result: BenchmarkResult, out: str | os.PathLike[str], command: str | None) -> tuple[Path, Path, Path]:
    """Write the standard JSON, the sidecar and the PNG (each atomically)."""
    json_path, run_path, png_path = output_paths(out)
    data = to_json(result, command)
    write_json_atomic(json_path, data, indent=2)
    write_json_atomic(run_path, run_json(result), indent=2)
    write_chart(data, png_path)
    return json_path, run_path, png_path


def write_chart(data: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Win rates against each opponent with their intervals, and the ratings (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agent = data["agent"]["spec"]
    rows = data["results"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 1.6 + 0.45 * len(data["ratings"])))
    names = [r["opponent"] for r in rows]
    rates = [r["win_rate"] for r in rows]
    errors = [[r["win_rate"] - r["ci95"][0] for r in rows], [r["ci95"][1] - r["win_rate"] for r in rows]]
    left.barh(names, rates, xerr=errors, color="#4f81bd", capsize=3)
    left.axvline(0.5, color="black", linewidth=0.8, linestyle="--")
    left.set_xlim(0, 1)
    left.invert_yaxis()
    left.set_xlabel(f"win rate of {agent} (95% interval)")
    ratings = sorted(data["ratings"].items(), key=lambda kv: kv[1])
    right.barh([n for n, _ in ratings], [v for _, v in ratings],
               color=["#c0504d" if n == agent else "#9bbb59" for n, _ in ratings])
    right.axvline(0, color="black", linewidth=0.8)
    right.set_xlabel(f"Bradley-Terry rating (Elo scale, {ANCHOR} = 0)")
    fig.suptitle(f"{data['task']}: {agent}" + ("" if data["standard"] else " (non-standard budget)"))
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, path, dpi=100, metadata={"Software": None})


def _read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON in ``path`` (a regular file of at most :data:`MAX_REPORT_BYTES`), or
    :class:`BenchmarkError` saying why it cannot be read."""
    try:
        return json.loads(read_bounded(path, MAX_REPORT_BYTES, "the benchmark report").decode("utf-8"))
    except InputFileError as exc:
        raise BenchmarkError(str(exc)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise BenchmarkError(f"{printable(path)} is not a readable benchmark JSON: {printable(exc)}") from None


def read_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A standard benchmark JSON, or :class:`BenchmarkError` saying why the file is not one."""
    data = _read_json(path)
    name = printable(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise BenchmarkError(f"{name} is not a benchmark JSON of format {FORMAT!r} (found {found!r}); "
                             f"give the OUT.json that 'sniff benchmark run' writes")
    if not _is_report(data):
        raise BenchmarkError(f"{name} claims format {FORMAT!r} but lacks its fields (task, standard, agent.spec, "
                             "results with opponent, win_rate, ci95 and games, and the agent's rating)")
    return data


def is_run_sidecar(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is the ``OUT.run.json`` sidecar of a run (wall time and machine)."""
    try:
        data = _read_json(path)
    except BenchmarkError:
        return False
    return isinstance(data, dict) and data.get("format") == RUN_FORMAT


def _is_report(data: dict[str, Any]) -> bool:
    agent, results, ratings = data.get("agent"), data.get("results"), data.get("ratings")
    if not (isinstance(data.get("task"), str) and isinstance(data.get("standard"), bool)
            and isinstance(agent, dict) and isinstance(agent.get("spec"), str)
            and isinstance(results, list) and isinstance(ratings, dict)
            and isinstance(ratings.get(agent["spec"]), (int, float))):
        return False
    number = (int, float)
    return all(isinstance(x, dict) and isinstance(x.get("opponent"), str) and isinstance(x.get("win_rate"), number)
               and isinstance(x.get("games"), int) and isinstance(x.get("ci95"), list) and len(x["ci95"]) == 2
               and all(isinstance(v, number) for v in x["ci95"]) for x in results)


def table_rows(reports: Sequence[dict[str, Any]]) -> dict[str, tuple[list[str], list[list[str]]]]:
    """Per task: the column names and one row per report (best rating first); the names from the
    reports made printable (:func:`~sniff_env.untrusted.printable`)."""
    out: dict[str, tuple[list[str], list[list[str]]]] = {}
    for task in dict.fromkeys(r["task"] for r in reports):
        mine = [r for r in reports if r["task"] == task]
        opponents = list(dict.fromkeys(x["opponent"] for r in mine for x in r["results"]))
        columns = ["agent", "rating", *(f"vs {printable(o)}" for o in opponents), "games"]
        rows = []
        for r in sorted(mine, key=lambda r: -r["ratings"][r["agent"]["spec"]]):
            cells = {x["opponent"]: f"{x['win_rate']:.3f} [{x['ci95'][0]:.3f}, {x['ci95'][1]:.3f}]" for x in r["results"]}
            name = printable(r["agent"]["spec"]) + ("" if r["standard"] else " (non-standard)")
            games = sum(x["games"] for x in r["results"])
            rows.append([name, f"{r['ratings'][r['agent']['spec']]:+.0f}", *(cells.get(o, "-") for o in opponents),
                         str(games)])
        out[printable(task)] = (columns, rows)
    return out


def markdown_table(reports: Sequence[dict[str, Any]]) -> str:
    """The comparison as Markdown tables, one per task."""
    parts = []
    for task, (columns, rows) in table_rows(reports).items():
        lines = [f"**{task}**", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def print_table(reports: Sequence[dict[str, Any]], console: Any = None) -> None:
    """The comparison as rich tables, one per task (the reports' text shown as text, not markup)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console(width=max(Console().width, 120))
    for task, (columns, rows) in table_rows(reports).items():
        table = Table(title=escape(f"{task}: win rate [95% interval] and rating ({ANCHOR} = 0)"))
        for col in columns:
            table.add_column(escape(col), justify="left" if col == "agent" else "right")
        for row in rows:
            table.add_row(*map(escape, row))
        console.print(table)
