"""``sniff solve``: solve a rung of the ladder exactly and rate players on it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sniff_env.atomic import write_json_atomic
from sniff_env.evaluation.benchmark.tasks import TASKS
from sniff_env.evaluation.solved.ladder import (
    CHECKPOINTS,
    PLAYERS,
    RUNGS,
    TARGET_NASH_CONV,
    markdown_table,
    plot_curves,
    study,
)

RESULT_KEYS = ("task", "histories", "information_states", "information_states_with_a_choice", "build_s",
               "nash_conv_target", "cfr_plus", "players", "exact_results")
"""What the table and the plot read of a result file."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", choices=RUNGS, nargs="?", default=RUNGS[0], help="the rung: a one-hand 2-player task small enough to solve")
    p.add_argument("--players", default=",".join(PLAYERS), help="player specs to rate, comma-separated")
    p.add_argument("--policies", default="", help="policy files made for the rung's rules, comma-separated")
    p.add_argument("--target", type=float, default=TARGET_NASH_CONV, help="stop CFR+ at this NashConv")
    p.add_argument("--psro", type=int, default=0, metavar="ROUNDS", help="also rate PSRO with exact best responses")
    p.add_argument("--max-iterations", type=int, default=CHECKPOINTS[-1], help="CFR+ iterations at most")
    p.add_argument("--no-equilibrium", action="store_true",
                   help="skip CFR+: only rate the players (and best-respond to the targets), to add to "
                        "an earlier run of the rung in --table")
    p.add_argument("--out", type=Path, default=None, help="write the table as JSON here")
    p.add_argument("--plot", nargs="+", metavar="JSON", default=None,
                   help="instead of solving, draw the CFR+ curves of these results into --out (a PNG)")
    p.add_argument("--table", nargs="+", metavar="JSON", default=None,
                   help="instead of solving, print these results as one Markdown table")


def run(args: argparse.Namespace) -> int:
    if args.table:
        print(markdown_table([read_json(Path(f)) for f in args.table]))
        return 0
    if args.plot:
        if args.out is None:
            raise SystemExit("sniff solve --plot: give --out PNG")
        try:
            plot_curves([read_json(Path(f)) for f in args.plot], str(args.out))
        except ValueError as exc:
            raise SystemExit(f"sniff solve --plot: {exc}") from None
        print(f"wrote {args.out}")
        return 0
    if args.task not in TASKS:
        raise SystemExit(f"sniff solve: unknown task {args.task!r}")
    if args.max_iterations < 1 or not args.target >= 0 or args.psro < 0:
        raise SystemExit("sniff solve: --max-iterations must be 1 or more, --target and --psro 0 or more")
    checkpoints = [c for c in CHECKPOINTS if c < args.max_iterations] + [args.max_iterations]
    def partial(result: dict[str, object]) -> None:
        if args.out is not None:
            write_json_atomic(args.out, {**result, "command": command}, indent=2)

    command = "sniff solve " + " ".join(args.argv[1:])
    result = study(args.task, [p for p in args.players.split(",") if p], [p for p in args.policies.split(",") if p],
                   checkpoints, args.target, args.psro, partial=partial, equilibrium=not args.no_equilibrium)
    result["command"] = command
    if args.out is not None:
        write_json_atomic(args.out, result, indent=2)
        print(f"wrote {args.out}")
    else:
        print(json.dumps(result, indent=2))
    return 0


def read_json(path: Path) -> dict[str, object]:
    """A result file of this command, or a one-line error naming it."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"sniff solve: cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or "cfr_plus" not in data:
        raise SystemExit(f"sniff solve: {path} is no result of sniff solve")
    missing = [k for k in RESULT_KEYS if k not in data]
    if missing:
        raise SystemExit(f"sniff solve: {path} lacks {', '.join(missing)}; a result of sniff solve holds {', '.join(RESULT_KEYS)}")
    return data
