"""A fixed wall-clock comparison of ``training/rllib_selfplay.py`` and ``training/ppo.py``: the
evaluation win rates against greedy and heuristic over training minutes, from their TensorBoard logs.

``ppo.py`` has no time limit of its own, so ``ppo`` runs it here with one: its update raises
once the budget is spent, and its TensorBoard writer flushes every second so nothing is lost.

    python training/rllib_selfplay.py --config configs/training/rllib-sniff-2p.toml --time-budget-s 600 \\
        --exp-name rllib-vs-ppo --iterations 100000
    python training/benchmarks/rllib_compare.py ppo --config configs/training/sniff-2p.toml --budget-s 600 \\
        --exp-name ppo-vs-rllib
    python training/benchmarks/rllib_compare.py plot runs/rllib-vs-ppo/tb runs/ppo-vs-rllib/tb \\
        checkpoints/results/rllib-vs-ppo
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))


class BudgetSpent(Exception):
    """Raised from ``training/ppo.py``'s update once the wall-clock budget is spent."""


def run_ppo(argv: list[str], budget_s: float) -> None:
    """``training/ppo.py`` with ``argv``, stopped after ``budget_s`` seconds of training."""
    import torch.utils.tensorboard as tb

    from training import ppo
    from training.config import parse_config

    args = parse_config(ppo.Args, argv, "training/ppo.py")
    deadline = time.time() + budget_s
    update = ppo.update

    def timed_update(*a: Any, **kw: Any) -> dict[str, float]:
        if time.time() >= deadline:
            raise BudgetSpent
        return update(*a, **kw)

    class PromptWriter(tb.SummaryWriter):  # type: ignore[misc]
        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, flush_secs=1, **kw)

    ppo.update, tb.SummaryWriter = timed_update, PromptWriter
    try:
        ppo.train(args)
    except BudgetSpent:
        print(f"budget of {budget_s:.0f} s spent", flush=True)
    time.sleep(2)  # the writer's last flush


def curves(logdir: Path) -> dict[str, list[tuple[float, int, float]]]:
    """Each ``eval/winrate_vs_*`` series as (minutes since the run began, learner steps, rate)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out: dict[str, list[tuple[float, int, float]]] = {}
    for events in sorted(logdir.glob("events.*")):
        acc = EventAccumulator(str(events))
        acc.Reload()
        t0 = acc.FirstEventTimestamp()
        for tag in acc.Tags()["scalars"]:
            if tag.startswith("eval/winrate_vs_"):
                out.setdefault(tag.removeprefix("eval/winrate_vs_"), []).extend(
                    ((e.wall_time - t0) / 60, e.step, e.value) for e in acc.Scalars(tag)
                )
    return out


def plot(rllib: Path, ppo: Path, out: Path) -> dict[str, Any]:
    """Write ``out.png`` (win rate over minutes, one panel per opponent) and ``out.json``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sniff_env.atomic import save_figure, write_json_atomic

    runs = {"RLlib (rllib_selfplay.py)": curves(rllib), "training/ppo.py": curves(ppo)}
    opponents = sorted({opp for series in runs.values() for opp in series})
    fig, axes = plt.subplots(1, len(opponents), figsize=(5 * len(opponents), 3.6), squeeze=False)
    for ax, opp in zip(axes[0], opponents, strict=True):
        for name, series in runs.items():
            points = series.get(opp, [])
            ax.plot([p[0] for p in points], [p[2] for p in points], marker=".", label=name)
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set(title=f"against {opp}", xlabel="training minutes (wall clock)", ylabel="win rate (duplicate deals)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, out.with_suffix(".png"), dpi=120)
    summary = {
        name: {opp: {"final": pts[-1][2], "best": max(p[2] for p in pts), "minutes": pts[-1][0],
                     "learner_steps": pts[-1][1], "points": pts} for opp, pts in series.items() if pts}
        for name, series in runs.items()
    }
    write_json_atomic(out.with_suffix(".json"), {"logdirs": [str(rllib), str(ppo)], "runs": summary}, indent=2)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ppo", help="run training/ppo.py for a fixed wall-clock budget (other flags go to it)")
    p.add_argument("--budget-s", type=float, required=True)
    q = sub.add_parser("plot", help="plot two runs' evaluation curves over wall-clock minutes")
    q.add_argument("rllib_tb", type=Path)
    q.add_argument("ppo_tb", type=Path)
    q.add_argument("out", type=Path, help="OUT.png and OUT.json are written")
    opts, rest = parser.parse_known_args(argv)
    if opts.command == "ppo":
        run_ppo(rest, opts.budget_s)
    else:
        if rest:
            parser.error(f"unrecognized arguments: {' '.join(rest)}")
        for name, series in plot(opts.rllib_tb, opts.ppo_tb, opts.out).items():
            print(name, {opp: round(v["final"], 3) for opp, v in series.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
