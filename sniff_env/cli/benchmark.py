"""``sniff benchmark``: rate an agent on a named task, compare reports, list the tasks.

    sniff benchmark tasks
    sniff benchmark run sniff-2p --task sniff-2p-v0 --out results/sniff-2p --workers 2
    sniff benchmark table results/*.json
"""

from __future__ import annotations

import argparse
import shlex
import sys

from sniff_env.atomic import clean_stale_temps
from sniff_env.evaluation.benchmark.protocol import budget, check_agent, run_benchmark
from sniff_env.evaluation.benchmark.report import (
    is_run_sidecar,
    markdown_table,
    output_paths,
    print_table,
    read_report,
    to_json,
    write_report,
)
from sniff_env.evaluation.benchmark.tasks import TASKS, BenchmarkError, get_task
from sniff_env.options import check_output_files, positive_int, worker_count
from sniff_env.untrusted import printable
from sniff_env.workers import max_workers


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub.add_parser("tasks", help="list the tasks with their rules, opponents and games")
    run = sub.add_parser("run", help="play an agent through a task's protocol; write OUT.json, OUT.run.json, OUT.png")
    run.add_argument("agent", metavar="AGENT",
                     help="a shipped agent (sniff agents lists them), the path of an exported policy file, or a "
                     "built-in player spec under another name than the opponents' (e.g. heuristic:name=mine)")
    run.add_argument("--task", required=True, help="task name (sniff benchmark tasks lists them)")
    run.add_argument("--out", default=None,
                     help="file name without extension (default: benchmark/TASK/AGENT in the current folder)")
    run.add_argument("--workers", type=worker_count, default=1,
                     help=f"worker processes, at most {max_workers()} here (default: 1; same results)")
    run.add_argument("--games", type=positive_int, default=None,
                     help="games per opponent and per pool pair instead of the task's own (a non-standard "
                     "run, marked so in the report)")
    run.add_argument("--force", action="store_true", help="overwrite the report files if they exist")
    run.add_argument("--no-progress", action="store_true", help="no progress lines")
    table = sub.add_parser("table", help="compare benchmark reports (OUT.json files), one table per task")
    table.add_argument("files", nargs="+", metavar="FILE", help="standard benchmark JSON files")
    table.add_argument("--markdown", action="store_true", help="print Markdown instead of a terminal table")


def run(args: argparse.Namespace) -> int:
    if args.action == "tasks":
        return _tasks()
    if args.action == "table":
        return _table(args)
    return _run(args)


def _tasks() -> int:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="benchmark tasks (sniff benchmark run AGENT --task NAME)")
    for col in ("task", "rules", "games per opponent", "pool games per pair", "seed"):
        table.add_column(col, overflow="fold")
    for t in TASKS.values():
        overrides = "".join(f" {k}={v}" for k, v in t.rules_overrides.items())
        hands = ", one hand" if t.max_hands == 1 else ""
        table.add_row(f"[bold]{t.name}[/bold]\n{t.summary}", f"{t.preset}, {t.num_players} players{overrides}{hands}",
                      "\n".join(f"{o}: {t.games(o)}" for o in t.opponents),
                      str(t.pool_deals * t.seatings_per_deal), str(t.seed))
    Console(width=max(Console().width, 120)).print(table)
    return 0


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    task = get_task(args.task)
    budget(task, args.games)  # a budget too small fails before anything is loaded
    out = args.out or str(Path("benchmark") / task.name / Path(args.agent).stem.replace(":", "_"))
    check_output_files(output_paths(out), args.force)
    clean_stale_temps(output_paths(out)[0].parent)  # what runs killed mid-write left there
    check_agent(task, args.agent)

    def progress(pair: str, done: int, total: int) -> None:
        if done == total:
            print(f"  {pair}: {total} deals")

    print(f"{task.name}: {args.agent} against {', '.join(task.opponents)}")
    result = run_benchmark(task, args.agent, args.games, args.workers, None if args.no_progress else progress)
    # the command that reproduces the report: only what decides it (not --out, --workers, --force)
    games = f" --games {args.games}" if args.games else ""
    command = f"sniff benchmark run {shlex.quote(args.agent)} --task {task.name}{games}"
    paths = write_report(result, out, command)

    print_table([to_json(result, command)])
    print(f"wrote {', '.join(map(str, paths))} ({result.wall_s:.0f} s)")
    return 0


def _table(args: argparse.Namespace) -> int:
    files = []
    for f in args.files:
        if is_run_sidecar(f):  # a glob such as results/*.json takes the sidecars too: say so, pass them over
            print(f"{printable(f)}: the run sidecar (wall time, machine) of a report, not a report; left out",
                  file=sys.stderr)
        else:
            files.append(f)
    if not files:
        raise BenchmarkError("no benchmark report among the files given: give the OUT.json files of 'sniff benchmark run'")
    reports = [read_report(f) for f in files]
    if args.markdown:
        print(markdown_table(reports), end="")
    else:
        print_table(reports)
    return 0
