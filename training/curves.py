"""Plot a run's learning curves (evaluation win rates, episodic return) from its TensorBoard logs.

    python training/curves.py runs/muggins-2p/tb checkpoints/results/muggins-2p-curve.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def plot_curves(logdir: str | Path, out: str | Path, title: str | None = None) -> Path:
    """Write a PNG of every ``eval/winrate_vs_*`` series (and ``charts/episodic_return``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(logdir))
    events.Reload()
    tags = [t for t in events.Tags()["scalars"] if t.startswith("eval/winrate_vs_")]
    if not tags:
        raise ValueError(f"{logdir} holds no eval/winrate_vs_* series")
    fig, ax = plt.subplots(figsize=(7, 4))
    for tag in sorted(tags):
        points = events.Scalars(tag)
        ax.plot([p.step for p in points], [p.value for p in points], marker="o", label=tag.split("/", 1)[1])
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("win rate (duplicate games)")
    ax.set_ylim(0, 1)
    ax.set_title(title or Path(logdir).parent.name)
    ax.legend()
    fig.tight_layout()
    from sniff_env.atomic import atomic_path

    with atomic_path(out, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)
    return Path(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("logdir", help="the run's TensorBoard folder (runs/NAME/tb)")
    parser.add_argument("out", help="the PNG to write")
    parser.add_argument("--title", default=None)
    args = parser.parse_args(argv)
    print(f"wrote {plot_curves(args.logdir, args.out, args.title)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
