"""Where a network's move values miss the search's: its error, the labels' noise and its regret by situation.

A network trained with ``--q-scale`` regresses its logits on the rollout search's move values.
This study reads a recording of those values (a run's ``teacher-data.npz``), takes its held-out
games (the last ``--holdout`` share, as ``training/imitation.py`` holds them out) and, for each
network, reports per legal move the mean square of the difference between its logits / q-scale
and the recorded values, both centred over the legal moves (points²), and its **regret** under
those values (the best move's value less that of the move it picks). A second recording of the
**same positions** with fewer deals (``--control``, the same seed and actor; ``--ratio``: the
first's deals a move over the second's) gives the first's own label noise: the two differ by
the sum of both noises, and the first's is ``1 / (1 + ratio)`` of it; the network's own error is
what is left. Every figure is also broken down by situation: the tiles of the mover and of the
next seat, the tiles left to draw, whether the sniff is down, and the number of legal moves.

    python -m training.studies.value_fit runs/sniff-2p-mobility-128.pt \\
        --data runs/sniff-2p-search-values-128/teacher-data.npz \\
        --control runs/sniff-2p-search-values-128-control/teacher-data.npz --ratio 4
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sniff_env import make_rules
from sniff_env.atomic import write_json_atomic
from sniff_env.observation import Observer
from training.imitation import centred_q_loss
from training.lib.torchscript import TRUST_HELP, load_checked

SITUATIONS = ("mover's tiles", "next seat's tiles", "tiles to draw", "sniff", "legal moves")


def _per_move(a: np.ndarray, b: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Each row's mean square, per legal move, of ``a - b`` with both centred over the legal moves."""
    return centred_q_loss(torch.from_numpy(a).double(), torch.from_numpy(b).double(), torch.from_numpy(legal),
                          per_row=True).numpy()


def _recording(path: str) -> dict[str, np.ndarray]:
    """The fields of a recording of move values that the study reads; ``ValueError`` for a file
    that is not one."""
    fields = ("games", "obs", "masks", "values")
    try:
        with np.load(path) as saved:
            return {key: saved[key] for key in fields}
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{path} is not a recording of the search's move values (a run's teacher-data.npz, "
                         f"with {', '.join(fields)}): {exc}") from exc


def situations(obs: np.ndarray, legal: np.ndarray, observer: Observer) -> dict[str, np.ndarray]:
    """Each decision's situation, read off its observation (see :data:`SITUATIONS`)."""
    p = observer.pieces
    tiles = observer.ts.size
    sizes = obs[:, p["hand_sizes"].start : p["hand_sizes"].stop] * observer.rules.hand_size
    sniff = obs[:, p["sniff"].start : p["sniff"].stop]
    return {
        "mover's tiles": np.rint(obs[:, p["hand"].start : p["hand"].stop].sum(1)).astype(int),
        "next seat's tiles": np.rint(sizes[:, 1]).astype(int),
        "tiles to draw": np.rint(obs[:, p["boneyard"].start + 1] * tiles).astype(int),
        "sniff": np.argmax(sniff, 1),  # 0: none yet, 1: down with its sides closed, 2: sides open
        "legal moves": legal.sum(1),
    }


def measure_fit(files: list[str], data: str, control: str = "", ratio: float = 0.0, holdout: float = 0.05,
                q_scale: float = 0.3, preset: str = "sniff", num_players: int = 2,
                trust_code: bool = False) -> dict[str, Any]:
    """The figures of the module doc for each policy file in ``files`` on ``data``'s held-out
    games; ``ValueError`` for a recording of other rules, a control of other positions or a
    policy file of other rules; the files load as :func:`training.lib.torchscript.load_checked`
    allows (``trust_code``)."""
    rules = make_rules(preset, num_players)
    observer = Observer(rules)
    saved = _recording(data)
    games = saved["games"]
    held = games >= (games.max() + 1) * (1.0 - holdout)
    obs, legal, values = saved["obs"][held], saved["masks"][held].astype(bool), saved["values"][held]
    if obs.shape[1] != observer.size:
        raise ValueError(f"{data} holds observations of other rules than {preset} with {num_players} players")
    if not len(obs):
        raise ValueError(f"no held-out decisions in {data}: raise --holdout")
    noise = None
    if control:
        saved = _recording(control)
        if not np.array_equal(saved["games"], games) or not np.array_equal(saved["obs"][held], obs):
            raise ValueError(f"{control} holds other positions than {data}: record it with the same seed and actor")
        other = saved["values"][held]
        noise = _per_move(values, other, legal) / (1.0 + ratio)
    where = situations(obs, legal, observer)
    best = np.where(legal, values, -np.inf).max(1)
    rows: dict[str, Any] = {}
    for path in files:
        module = load_checked(path, rules, trust_code)[0]
        with torch.no_grad():  # an exported policy gives its logits
            logits = torch.cat([module(torch.from_numpy(obs[lo : lo + 4096])) for lo in range(0, len(obs), 4096)])
        logits = logits.numpy().astype(np.float64)
        error = _per_move(logits / q_scale, values, legal)
        pick = np.where(legal, logits, -np.inf).argmax(1)
        regret = best - values[np.arange(len(pick)), pick]
        rows[path] = {"error": float(error.mean()), "regret": float(regret.mean()),
                      "by": {name: {int(k): {"positions": int((key == k).sum()), "error": float(error[key == k].mean()),
                                             "regret": float(regret[key == k].mean())}
                                    for k in np.unique(key)} for name, key in where.items()}}
    report: dict[str, Any] = {"decisions": len(obs), "q_scale": q_scale, "networks": rows}
    if noise is not None:
        report["noise"] = float(noise.mean())
        report["noise_by"] = {name: {int(k): float(noise[key == k].mean()) for k in np.unique(key)}
                              for name, key in where.items()}
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="exported policy files")
    parser.add_argument("--data", required=True, help="a recording of the search's move values (teacher-data.npz)")
    parser.add_argument("--control", default="", help="the same positions valued with fewer deals a move")
    parser.add_argument("--ratio", type=float, default=0.0, help="with --control: --data's deals a move over --control's")
    parser.add_argument("--holdout", type=float, default=0.05, help="the share of the last games read, as imitation holds them out")
    parser.add_argument("--q-scale", type=float, default=0.3, help="the scale the networks' logits were trained at")
    parser.add_argument("--min-positions", type=int, default=300, help="print only situations with this many decisions")
    parser.add_argument("--out", default="", help="also write the figures to this JSON file")
    parser.add_argument("--trust-code", action="store_true", help=TRUST_HELP)
    args = parser.parse_args(argv)
    if not 0 < args.holdout <= 1 or args.q_scale <= 0:
        parser.error("--holdout must be in (0, 1] and --q-scale above 0")
    if bool(args.control) != (args.ratio > 0):
        parser.error("--control and --ratio (above 0) go together")
    try:
        report = measure_fit(args.files, args.data, args.control, args.ratio, args.holdout, args.q_scale,
                             trust_code=args.trust_code)
    except (ValueError, OSError, KeyError) as exc:
        parser.error(str(exc))
    noise = report.get("noise")
    print(f"{report['decisions']:,} held-out decisions; points² a legal move, centred"
          + (f"; the labels' own noise {noise:.2f}" if noise is not None else ""))
    for path, row in report["networks"].items():
        print(f"{path}: error {row['error']:.2f}, regret {row['regret']:.3f}")
    for name in SITUATIONS:
        print(f"\nby {name}: value, decisions, " + ("noise, " if noise is not None else "")
              + ", ".join(f"error / regret of {Path(p).stem}" for p in report["networks"]))
        first = next(iter(report["networks"].values()))["by"][name]
        for k, cell in first.items():
            if cell["positions"] < args.min_positions:
                continue
            cells = [f"{row['by'][name][k]['error']:6.2f} / {row['by'][name][k]['regret']:.3f}"
                     for row in report["networks"].values()]
            extra = [f"{report['noise_by'][name][k]:5.2f}"] if noise is not None else []
            print("  ".join([f"{k:4d}", f"{cell['positions']:7,}", *extra, *cells]))
    if args.out:
        write_json_atomic(args.out, report)


if __name__ == "__main__":
    main()
