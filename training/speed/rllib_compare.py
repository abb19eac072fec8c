"""A fixed wall-clock comparison of ``training/libraries/rllib_selfplay.py`` and ``training/ppo.py``: the
evaluation win rates against greedy and heuristic over training minutes, from their TensorBoard logs.

``ppo.py`` has no time limit of its own, so ``ppo`` runs it here with one: its update raises
once the budget is spent, and its TensorBoard writer flushes every second so nothing is lost.

    python -m training.libraries.rllib_selfplay --config configs/training/rllib-sniff-2p.toml --time-budget-s 600 \\
        --exp-name rllib-vs-ppo --iterations 100000
    python -m training.speed.rllib_compare ppo --config configs/training/sniff-2p.toml --budget-s 600 \\
        --exp-name ppo-vs-rllib
    python -m training.speed.rllib_compare plot runs/rllib-vs-ppo/tb runs/ppo-vs-rllib/tb \\
        checkpoints/results/rllib-vs-ppo

``--rllib-vector`` adds a run of the batched path (``--engine vector``), and either first
argument may be the JSON an earlier ``plot`` wrote, whose curve of that trainer is drawn again:

    python -m training.libraries.rllib_selfplay --config configs/training/rllib-vector-sniff-2p.toml --time-budget-s 600 \\
        --exp-name rllib-vector-vs-ppo --iterations 100000
    python -m training.speed.rllib_compare plot checkpoints/results/rllib-vs-ppo.json \\
        checkpoints/results/rllib-vs-ppo.json checkpoints/results/rllib-vector-vs-ppo --rllib-vector runs/rllib-vector-vs-ppo/tb
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from sniff_env.atomic import save_figure, write_json_atomic
from training.lib.config import parse_config


class BudgetSpent(Exception):
    """Raised from ``training/ppo.py``'s update once the wall-clock budget is spent."""


def run_ppo(argv: list[str], budget_s: float) -> None:
    """``training/ppo.py`` with ``argv``, stopped after ``budget_s`` seconds of training."""
    import torch.utils.tensorboard as tb

    from training import ppo

    args = parse_config(ppo.Args, argv, "python -m training.ppo")
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


RLLIB, PPO, VECTOR = "RLlib (rllib_selfplay.py)", "training/ppo.py", "RLlib, batched engine (--engine vector)"
"""The curves' names (and their keys in the JSON ``plot`` writes)."""


def series(source: Path, name: str) -> dict[str, list[tuple[float, int, float]]]:
    """The curves of ``name``: from a TensorBoard folder, or from the JSON of an earlier ``plot``."""
    if source.suffix != ".json":
        return curves(source)
    try:
        runs = json.loads(source.read_text())["runs"]
        return {opp: [(float(m), int(n), float(r)) for m, n, r in v["points"]] for opp, v in runs[name].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{source} holds no curves of {name!r} from an earlier plot ({exc!r})") from None


def plot(rllib: Path, ppo: Path, out: Path, vector: Path | None = None) -> dict[str, Any]:
    """Write ``out.png`` (win rate over minutes, one panel per opponent) and ``out.json``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = {RLLIB: series(rllib, RLLIB), PPO: series(ppo, PPO)}
    sources = {RLLIB: rllib, PPO: ppo}
    if vector is not None:
        runs[VECTOR], sources[VECTOR] = series(vector, VECTOR), vector
    opponents = sorted({opp for curve in runs.values() for opp in curve})
    fig, axes = plt.subplots(1, len(opponents), figsize=(5 * len(opponents), 3.6), squeeze=False)
    for ax, opp in zip(axes[0], opponents, strict=True):
        for name, curve in runs.items():
            points = curve.get(opp, [])
            label = f"{name}, earlier run" if sources[name].suffix == ".json" else name
            ax.plot([p[0] for p in points], [p[2] for p in points], marker=".", label=label)
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set(title=f"against {opp}", xlabel="training minutes (wall clock)", ylabel="win rate (duplicate deals)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, out.with_suffix(".png"), dpi=120)
    summary = {
        name: {opp: {"final": pts[-1][2], "best": max(p[2] for p in pts), "minutes": pts[-1][0],
                     "learner_steps": pts[-1][1], "points": pts} for opp, pts in curve.items() if pts}
        for name, curve in runs.items()
    }
    logdirs = [str(rllib), str(ppo)] + ([str(vector)] if vector is not None else [])
    write_json_atomic(out.with_suffix(".json"), {"logdirs": logdirs, "runs": summary}, indent=2)
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
    q.add_argument("--rllib-vector", type=Path, help="the TensorBoard folder of a run with --engine vector")
    opts, rest = parser.parse_known_args(argv)
    if opts.command == "ppo":
        run_ppo(rest, opts.budget_s)
    else:
        if rest:
            parser.error(f"unrecognized arguments: {' '.join(rest)}")
        try:
            summary = plot(opts.rllib_tb, opts.ppo_tb, opts.out, opts.rllib_vector)
        except ValueError as exc:
            raise SystemExit(f"error: {exc}") from None
        for name, curve in summary.items():
            print(name, {opp: round(v["final"], 3) for opp, v in curve.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
