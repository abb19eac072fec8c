"""Plot a run's learning curves (evaluation win rates) from its TensorBoard logs.

    python -m training.curves runs/muggins-2p/tb checkpoints/results/muggins-2p-curve.png

Several folders (the stages of one agent, each started from the last) are drawn end to end:

    python -m training.curves runs/sniff-2p-finetune/tb runs/sniff-2p-finetune-2/tb out.png

Stages without TensorBoard logs (imitation rounds) are compared by playing their exported files:
``--stages`` evaluates each against compiled built-ins on the batched engine, over duplicate
games on the given seeds (choose ones no training run played), and writes the PNG and a JSON
of the figures:

    python -m training.curves --stages --opponents heuristic,greedy --games 4000 --seeds 901,902,903 \
        runs/sniff-2p-selfplay.pt runs/sniff-2p-search-values.pt out.png

``--compare`` draws several runs side by side, against learner decisions and against wall-clock
time (the same learning at another speed); a run stopped and resumed is timed while it ran, its
pauses left out (``--pause``):

    python -m training.curves --compare before,after runs/a/tb runs/b/tb out.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sniff_env.atomic import save_figure, write_json_atomic
from sniff_env.evaluation.ratings import wilson_interval
from sniff_env.options import positive_float, positive_int, seed_int
from sniff_env.players.policy import PolicyError
from training.lib.torchscript import TRUST_HELP, load_checked

PAUSE_SECONDS = 900.0
"""A gap longer than this between two of a run's logged points is a pause (the run stopped and
was resumed later), not training: an iteration and its evaluations log within minutes."""


RETURNS = "charts/episodic_return"
"""The series drawn for a run that has no evaluation yet."""


def plot_curves(logdir: str | Path | list[str | Path], out: str | Path, title: str | None = None,
                smooth: int = 6) -> Path:
    """Write a PNG of every ``eval/winrate_vs_*`` series of ``logdir`` (one folder, or several
    drawn one after the other), with a moving average over ``smooth`` evaluations. A run with no
    evaluation yet shows its training games' mean return (``charts/episodic_return``) instead,
    and one with nothing logged yet says so on the figure: any run's folder gives a picture."""
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
        scalars = events.Tags()["scalars"]
        tags = [t for t in scalars if t.startswith("eval/winrate_vs_")] or [t for t in scalars if t == RETURNS]
        last = offset
        for tag in tags:
            steps, values = series.setdefault(tag.split("/", 1)[1], ([], []))
            for point in events.Scalars(tag):
                steps.append(offset + point.step)
                values.append(point.value)
                last = max(last, offset + point.step)
        offset = last
    rates = any(name.startswith("winrate_vs_") for name in series)
    if rates:  # evaluations where there are any; the training returns otherwise
        series = {name: points for name, points in series.items() if name.startswith("winrate_vs_")}
    fig, ax = plt.subplots(figsize=(7, 4))
    if not series:
        ax.text(0.5, 0.5, "nothing logged yet: no evaluation and no finished training game", ha="center",
                va="center", transform=ax.transAxes)
    for name in sorted(series):
        steps, values = series[name]
        line = ax.plot(steps, values, marker="o", markersize=3, linewidth=0.6, alpha=0.5, label=name)[0]
        if smooth > 1 and len(values) >= smooth:
            avg = np.convolve(values, np.ones(smooth) / smooth, mode="valid")
            ax.plot(steps[smooth - 1 :], avg, color=line.get_color(), linewidth=2,
                    label=f"{name}, mean of {smooth}")
    ax.set_xlabel("learner decisions")
    if rates:
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        ax.set_ylabel("win rate (duplicate games)")
        ax.set_ylim(0, 1)
    else:
        ax.set_ylabel("mean return of the training games (no evaluation yet)")
    ax.set_title(title or dirs[0].parent.name)
    if series:
        ax.legend(fontsize=8)
    fig.tight_layout()

    return save_figure(fig, out)


def running_seconds(events: Any, pause: float = PAUSE_SECONDS) -> dict[float, float]:
    """``{wall_time: seconds}`` for every logged point of a TensorBoard ``EventAccumulator``'s
    scalars: the seconds the run had been running when it logged that point, counted from its
    first point, with each gap of more than ``pause`` seconds between consecutive points (a stop
    and a resume) counted as none."""
    times = sorted({e.wall_time for name in events.Tags()["scalars"] for e in events.Scalars(name)})
    clock: dict[float, float] = {}
    total = 0.0
    for before, now in zip([times[0], *times], times):
        gap = now - before
        total += gap if gap <= pause else 0.0
        clock[now] = total
    return clock


def plot_compare(logdirs: list[str | Path], labels: list[str], out: str | Path, series: str = "winrate_vs_greedy",
                 title: str | None = None, pause: float = PAUSE_SECONDS) -> Path:
    """Write a PNG of one evaluation series of several runs side by side, against learner
    decisions (left) and against the seconds each run had been running (right,
    :func:`running_seconds`: pauses of more than ``pause`` seconds left out): runs that learn
    alike per decision but at different speeds overlap on the left and part on the right."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    fig, (by_step, by_time) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for logdir, label in zip(logdirs, labels, strict=True):
        events = EventAccumulator(str(logdir))
        events.Reload()
        tag = f"eval/{series}"
        if tag not in events.Tags()["scalars"]:
            raise ValueError(f"{logdir} holds no {tag} series")
        clock = running_seconds(events, pause)
        points = events.Scalars(tag)
        by_step.plot([e.step for e in points], [e.value for e in points], marker="o", markersize=3, label=label)
        by_time.plot([clock[e.wall_time] for e in points], [e.value for e in points], marker="o", markersize=3,
                     label=label)
    by_step.set_xlabel("learner decisions")
    by_time.set_xlabel(f"wall-clock seconds running (pauses over {pause:g} s left out)")
    by_step.set_ylabel(series.replace("_", " "))
    for ax in (by_step, by_time):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title or series)
    fig.tight_layout()
    return save_figure(fig, out)


def stage_rates(policies: list[str], opponents: list[str], games: int, seeds: list[int],
                max_hands: int = 40, trust_code: bool = False) -> dict[str, dict[str, dict[str, float]]]:
    """``{policy: {opponent: {"games", "wins", "win_rate", "low", "high"}}}``: each exported
    TorchScript policy's win rate (argmax, draws half) against each compiled built-in over ``games``
    duplicate games per seed (:func:`training.lib.evaluate.win_rate_vector`), with a 95% Wilson
    interval; the files load as :func:`training.lib.torchscript.load_checked` allows (``trust_code``)."""
    from training.lib.evaluate import win_rate_vector

    out: dict[str, dict[str, dict[str, float]]] = {}
    for path in policies:
        module, _, rules = load_checked(path, trust_code=trust_code)
        out[path] = {}
        for opp in opponents:
            played = 2 * max(games // 2, 1)  # win_rate_vector plays whole duplicate pairs
            wins = sum(win_rate_vector(module, rules, opp, games, seed, max_hands) * played for seed in seeds)
            total = played * len(seeds)
            low, high = wilson_interval(wins, total)
            out[path][opp] = {"games": total, "wins": wins, "win_rate": wins / total, "low": low, "high": high}
    return out


def plot_stages(rates: dict[str, dict[str, dict[str, float]]], out: str | Path, title: str | None = None) -> Path:
    """A PNG of :func:`stage_rates`' figures, one line per opponent across the stages, with the
    intervals as error bars, and the figures as JSON beside it (same name, ``.json``)."""

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [Path(p).stem for p in rates]
    fig, ax = plt.subplots(figsize=(7, 4))
    for opp in sorted({o for r in rates.values() for o in r}):
        rows = [r[opp] for r in rates.values()]
        y = [x["win_rate"] for x in rows]
        err = [[v - x["low"] for v, x in zip(y, rows, strict=True)], [x["high"] - v for v, x in zip(y, rows, strict=True)]]
        ax.errorbar(range(len(rows)), y, yerr=err, marker="o", capsize=3, label=f"against {opp}")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(names)), names, rotation=15, fontsize=8)
    ax.set_ylabel("win rate (duplicate games)")
    ax.set_ylim(0.3, 1)
    ax.set_title(title or "stages")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, out)
    write_json_atomic(Path(out).with_suffix(".json"), rates, indent=2)
    return Path(out)


def plot_exploit_curve(points: list[dict[str, Any]], out: str | Path, title: str | None = None) -> Path:
    """A PNG of a best response's curve (``training/exploit.py``'s points: ``learner_decisions``,
    ``win_rate`` with ``win_rate_ci95``, ``margin`` with ``margin_ci95``): the win rate and the
    points margin a game against learner decisions, each with its 95% interval as a band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [p["learner_decisions"] for p in points]
    fig, (rate, margin) = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key, label in ((rate, "win_rate", "win rate (duplicate games, draws half)"),
                           (margin, "margin", "points margin a game")):
        y = [p[key] for p in points]
        bands = [p[f"{key}_ci95"] or [v, v] for p, v in zip(points, y, strict=True)]
        ax.plot(x, y, marker="o", markersize=3)
        ax.fill_between(x, [b[0] for b in bands], [b[1] for b in bands], alpha=0.25, label="95% interval")
        ax.axhline(0.5 if key == "win_rate" else 0.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xlabel("learner decisions")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    rate.set_ylim(0, 1)
    games = points[-1]["games"] if points else 0
    fig.suptitle(f"{title or 'best response'} ({games:,} games a point)")
    fig.tight_layout()
    return save_figure(fig, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("paths", nargs="+", help="the run's TensorBoard folders (runs/NAME/tb), then the PNG to write")
    parser.add_argument("--title", default=None)
    parser.add_argument("--smooth", type=positive_int, default=6, help="moving average over this many evaluations")
    parser.add_argument("--stages", action="store_true",
                        help="the paths are exported policies (the stages of one agent): play them instead")
    parser.add_argument("--opponents", default="heuristic,greedy", help="with --stages: compiled built-ins to face")
    parser.add_argument("--games", type=positive_int, default=2000, help="with --stages: duplicate games per seed")
    parser.add_argument("--seeds", default="901", help="with --stages: comma-separated evaluation seeds")
    parser.add_argument("--compare", default="",
                        help="comma-separated labels, one per TensorBoard folder: draw those runs side by side against "
                             "learner decisions and against wall-clock time (--series: which evaluation)")
    parser.add_argument("--series", default="winrate_vs_greedy", help="with --compare: the eval/ series to draw")
    parser.add_argument("--pause", type=positive_float, default=PAUSE_SECONDS,
                        help="with --compare: a gap of more than this many seconds between a run's logged points is a "
                             "stop before a resume, left out of its wall clock")
    parser.add_argument("--trust-code", action="store_true", help=f"with --stages: {TRUST_HELP}")
    args = parser.parse_args(argv)
    if len(args.paths) < 2:
        parser.error("give at least one TensorBoard folder (or policy, with --stages) and the PNG to write")
    *logdirs, out = args.paths
    if args.compare:
        labels = [label.strip() for label in args.compare.split(",")]
        if len(labels) != len(logdirs):
            parser.error(f"--compare needs one label per folder: {len(logdirs)} folders, {len(labels)} labels")
        try:
            print(f"wrote {plot_compare(logdirs, labels, out, args.series, args.title, args.pause)}")
        except ValueError as exc:  # a folder without that series
            parser.error(str(exc))
        return 0
    if args.stages:
        try:
            seeds = [seed_int(x.strip()) for x in args.seeds.split(",")]
        except argparse.ArgumentTypeError as exc:
            parser.error(f"--seeds must be comma-separated seeds (whole numbers from 0); got {args.seeds!r}: {exc}")
        try:
            rates = stage_rates(logdirs, [o.strip() for o in args.opponents.split(",") if o.strip()], args.games, seeds,
                                trust_code=args.trust_code)
        except PolicyError as exc:  # a file that cannot be played, or is not trusted: one line
            parser.error(str(exc))
        for path, row in rates.items():
            print(path, ", ".join(f"{o} {x['win_rate']:.3f} [{x['low']:.3f}, {x['high']:.3f}]" for o, x in row.items()))
        print(f"wrote {plot_stages(rates, out, args.title)}")
        return 0
    print(f"wrote {plot_curves(logdirs, out, args.title, args.smooth)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
