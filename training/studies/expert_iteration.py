"""Expert iteration: the network guides the search, the search teaches the network, again.

Each round starts from the last round's network. That network plays the learner's seat on the
batched engine (``--actor``) while the compiled rollout search values every legal move of its
positions (``samples`` deals a move); the targets are the guided player's scores, the search's
values plus ``prior`` times the network's own logit (``training/imitation.py --prior``), so
the search it learns from is the one it steers. The network is trained on them from its own
weights (``--init``), exported, and played against ``opponent`` (by default
``rollouts:samples=256``) over ``eval_games`` duplicate games on one seed that every round
shares. The rounds stop after ``rounds``, or at the first round that wins no more often than
the best before it. It did not help: the shipped ``sniff-2p-tiles`` card has the rounds' figures.

The base imitation config gives the network's shape, the learning rate, the epochs and the
opponents of the recorded games; this script sets the rest per round. Every round writes
``runs/NAME-K/`` (the recording and checkpoint), ``runs/NAME-K.pt`` (TorchScript, the next
actor) and ``runs/NAME-K.onnx``; ``runs/NAME/rounds.json`` keeps each round's figures, and a
rerun goes on after the last round it holds.

    python -m training.studies.expert_iteration --config configs/training/expert-iteration-sniff-2p.toml
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sniff_env.atomic import atomic_path
from sniff_env.evaluation.tournament import run_tournament
from training import export, imitation
from training.lib.config import parse_config, rules_for, run_script


@dataclass
class Args:
    exp_name: str = field(default="sniff-2p-exit", metadata={"help": "run name: rounds write out_dir/NAME-K*"})
    base: str = field(default="configs/training/imitation-sniff-2p-tiles-2.toml",
                      metadata={"help": "the imitation config each round runs (network shape, learning rate, epochs)"})
    start: str = field(default="checkpoints/sniff-2p-tiles.pt",
                       metadata={"help": "the network of round 0: a TorchScript policy file"})
    rounds: int = field(default=4, metadata={"min": 1, "help": "most rounds"})
    games: int = field(default=16_000, metadata={"min": 1, "help": "games recorded a round"})
    samples: int = field(default=64, metadata={"min": 1, "help": "the search's deals per move"})
    prior: float = field(default=0.3, metadata={"min": 0, "help": "the network's weight in the targets (guided:prior)"})
    opponent: str = field(default="rollouts:samples=256", metadata={"help": "who each round is measured against"})
    eval_games: int = field(default=2000, metadata={"min": 2, "help": "duplicate games of each measurement"})
    eval_seed: int = field(default=501, metadata={"min": 0, "help": "the measurement's seed, the same every round"})
    seed: int = field(default=20, metadata={"min": 0, "help": "round K records on seed + K"})
    workers: int = field(default=2, metadata={"min": 1, "help": "processes for the recording and the measurement"})
    out_dir: str = field(default="runs", metadata={"help": "where the rounds are written"})


def measure(policy: Path, args: Args, rules: Any) -> dict[str, Any]:
    """``policy`` (a policy file) against ``args.opponent``: its games, win rate and 95% interval."""
    result = run_tournament([str(policy), args.opponent], rules, args.eval_games, seed=args.eval_seed,
                           workers=args.workers)
    pair = result.pairs()[0]  # the policy is player A
    return {"games": pair.games, "win_rate": round(pair.score_a, 5), "ci95": [round(x, 5) for x in pair.interval]}


def improved(rounds: list[dict[str, Any]]) -> bool:
    """Whether the last round won more often than every round before it."""
    return bool(rounds[-1]["win_rate"] > max(r["win_rate"] for r in rounds[:-1]))


def to_policy_file(source: str | Path, out: Path) -> Path:
    """``source`` (a TorchScript policy) converted by ``training/export.py`` to ``out``."""
    if export.main([str(source), str(out), "--force"]) != 0:
        raise SystemExit(f"could not convert {source} to {out}")
    return out


def run(args: Args) -> list[dict[str, Any]]:
    base = parse_config(imitation.Args, ["--config", args.base], "")
    rules = rules_for(base.preset, base.num_players, base.rules)
    out = Path(args.out_dir)
    log = out / args.exp_name / "rounds.json"
    rounds: list[dict[str, Any]] = json.loads(log.read_text())["rounds"] if log.exists() else []
    log.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        with atomic_path(log) as tmp:
            tmp.write_text(json.dumps({"args": asdict(args), "rounds": rounds}, indent=1) + "\n")

    if not rounds:
        first = to_policy_file(args.start, out / f"{args.exp_name}-0.onnx")
        rounds.append({"round": 0, "network": args.start, **measure(first, args, rules)})
        save()
        print(f"round 0 ({args.start}): {rounds[-1]['win_rate']:.3f} against {args.opponent}")
    while len(rounds) <= args.rounds and (len(rounds) < 2 or improved(rounds)):
        k, prev = len(rounds), rounds[-1]["network"]
        name, started = f"{args.exp_name}-{k}", time.time()
        imitation.main([
            "--config", args.base, "--out-dir", args.out_dir, "--exp-name", name, "--seed", str(args.seed + k),
            "--init", prev, "--actor", prev, "--teacher", f"rollouts:samples={args.samples}", "--prior", str(args.prior),
            "--games", str(args.games), "--workers", str(args.workers), "--data", "", "--eval-opponents", "",
            "--export", str(out / f"{name}.pt"), "--force",
        ])
        minutes = (time.time() - started) / 60
        played = to_policy_file(out / f"{name}.pt", out / f"{name}.onnx")
        rounds.append({"round": k, "network": str(out / f"{name}.pt"), "minutes": round(minutes, 1),
                       **measure(played, args, rules)})
        save()
        print(f"round {k}: {rounds[-1]['win_rate']:.3f} {rounds[-1]['ci95']} against {args.opponent} "
              f"({minutes:.1f} min to record and train)")
    return rounds


def main(argv: list[str] | None = None) -> int:
    run(parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else ""))
    return 0


if __name__ == "__main__":
    run_script(main)
