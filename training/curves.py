"""Plot a run's learning curves (evaluation win rates) from its TensorBoard logs.

    python training/curves.py runs/muggins-2p/tb checkpoints/results/muggins-2p-curve.png

Several folders (the stages of one agent, each started from the last) are drawn end to end:

    python training/curves.py runs/sniff-2p-finetune/tb runs/sniff-2p-finetune-2/tb out.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def plot_curves(logdir: str | Path | list[str | Path], out: str | Path, title: str | None = None,
                smooth: int = 6) -> Path:
    """Write a PNG of every ``eval/winrate_vs_*`` series of ``logdir`` (one folder, or several
    drawn one after the other), with a moving average over ``smooth`` evaluations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    dirs = [Path(d) for d in (logdir if isinstance(logdir, list) else [logdir])]
    series: dict[str, tuple[list[int], list[float]]] = {}
    offset = 0
    for d in dirs:
        events = EventAccumulator(str(d))
        events.Reload()
        tags = [t for t in events.Tags()["scalars"] if t.startswith("eval/winrate_vs_")]
        if not tags:
            raise ValueError(f"{d} holds no eval/winrate_vs_* series")
        last = offset
        for tag in tags:
            steps, values = series.setdefault(tag.split("/", 1)[1], ([], []))
            for point in events.Scalars(tag):
                steps.append(offset + point.step)
                values.append(point.value)
                last = max(last, offset + point.step)
        offset = last
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in sorted(series):
        steps, values = series[name]
        line = ax.plot(steps, values, marker="o", markersize=3, linewidth=0.6, alpha=0.5, label=name)[0]
        if smooth > 1 and len(values) >= smooth:
            avg = np.convolve(values, np.ones(smooth) / smooth, mode="valid")
            ax.plot(steps[smooth - 1 :], avg, color=line.get_color(), linewidth=2,
                    label=f"{name}, mean of {smooth}")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("win rate (duplicate games)")
    ax.set_ylim(0, 1)
    ax.set_title(title or dirs[0].parent.name)
    ax.legend(fontsize=8)
    fig.tight_layout()
    from sniff_env.atomic import atomic_path

    with atomic_path(out, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)
    return Path(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("paths", nargs="+", help="the run's TensorBoard folders (runs/NAME/tb), then the PNG to write")
    parser.add_argument("--title", default=None)
    parser.add_argument("--smooth", type=int, default=6, help="moving average over this many evaluations")
    args = parser.parse_args(argv)
    if len(args.paths) < 2:
        parser.error("give at least one TensorBoard folder and the PNG to write")
    *logdirs, out = args.paths
    print(f"wrote {plot_curves(logdirs, out, args.title, args.smooth)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
