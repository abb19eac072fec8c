"""MAPPO or IPPO through BenchMARL's own ``Experiment`` on the parallel form of Sniff, for users
who run their benchmarks in BenchMARL.

BenchMARL builds everything from its configs: the task is
:class:`sniff_env.integrations.benchmarl.SniffTask`, the algorithm BenchMARL's ``MappoConfig``
(``--algorithm mappo``, a critic over every seat's view) or ``IppoConfig`` (``ippo``), the
critic BenchMARL's ``MlpConfig``, the collection, minibatches and optimiser its
``ExperimentConfig`` (the fields below override BenchMARL's defaults). The actor is the project's
:class:`~training.lib.network.PolicyNet` as a BenchMARL model
(:class:`~training.libraries.benchmarl_models.PolicyNetConfig`), with a
fixed logit for the no-op, so the trained policy exports as the project's ONNX policy file that
``sniff eval`` and ``sniff play`` load.

At every step one seat acts and the others take the no-op, the only move their mask allows:
every action in a batch is one the env played, and the waiting entries add nothing to the policy
gradient or the entropy (one legal move has log-probability 0). BenchMARL averages its losses
over all entries, so its policy step is the acting entries' mean times the share of acting
entries (1/2 at two seats), a constant that the learning rate absorbs.

The run ends with the win rate of the greedy (masked argmax) policy against ``final_opponent``
on ``final_games`` duplicate games, with a 95% interval, in ``--result`` (JSON).

    python -m training.libraries.benchmarl_mappo --config configs/training/benchmarl-mappo-sniff-2p.toml
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import torch

from sniff_env.evaluation import wilson_interval
from sniff_env.evaluation.tournament import MAX_HANDS as FINAL_MAX_HANDS
from sniff_env.options import parse_overrides
from training.lib.config import ConfigError, check_fields, parse_config, run_script
from training.lib.device import cpu_module
from training.lib.network import export_policy, policy_meta
from training.lib.run_args import RunArgs
from training.libraries.torchrl_mappo import build_rules, check_batches, evaluate, export_path

ALGORITHMS = ("mappo", "ippo")


@dataclass
class Args(RunArgs):
    FIELD_HELP: ClassVar[dict[str, str]] = {
        "seed": "BenchMARL's experiment seed (games, sampling, torch)",
        "out_dir": "where runs write their policy and BenchMARL's logs",
        "export": "the ONNX policy file to write ('': <out_dir>/<exp_name>/policy.onnx)",
    }
    exp_name: str = field(default="benchmarl-mappo-sniff-2p", metadata={"help": "run name (folder under out_dir)"})
    algorithm: str = field(default="mappo", metadata={"choices": ALGORITHMS, "help": "BenchMARL's MAPPO or IPPO"})
    max_n_frames: int = field(default=120_000, metadata={"min": 1, "help": "env steps to train on (one decision each)"})
    frames_per_batch: int = field(default=6000, metadata={"min": 1, "help": "env steps per iteration (BenchMARL's on_policy_collected_frames_per_batch)"})
    n_envs: int = field(default=10, metadata={"min": 1, "help": "games stepped together (on_policy_n_envs_per_worker)"})
    minibatch_iters: int = field(default=45, metadata={"min": 1, "help": "minibatches per iteration (on_policy_n_minibatch_iters)"})
    minibatch_size: int = field(default=400, metadata={"min": 1, "help": "env steps per minibatch (on_policy_minibatch_size)"})
    lr: float = field(default=5e-5, metadata={"above": 0, "help": "Adam learning rate"})
    gamma: float = field(default=0.99, metadata={"min": 0, "max": 1, "help": "discount per env step"})
    entropy_coef: float = field(default=0.0, metadata={"min": 0, "help": "entropy bonus"})
    hidden: int = field(default=256, metadata={"min": 1, "help": "hidden units per layer of the policy"})
    points_prior: float = field(default=5.0, metadata={"help": "initial weight of each move's own points in its logit (as training/ppo.py)"})
    reward: str = field(default="points", metadata={"choices": ("points", "game"), "help": "'points' (dense) or 'game' (+1/-1 at the end)"})
    reward_scale: float = field(default=0.05, metadata={"above": 0, "help": "multiplier of every reward"})
    max_hands: int = field(default=40, metadata={"min": 1, "help": "a training game ends after this many hands at most"})
    final_opponent: str = field(default="greedy", metadata={"help": "the opponent of the final evaluation"})
    final_games: int = field(default=2000, metadata={"min": 2, "help": "duplicate games of the final evaluation (0.95 interval)"})
    final_seed: int = field(default=77, metadata={"min": 0, "help": "seed of the final evaluation's deals"})
    result: str = field(default="", metadata={"help": "also write the run's summary (budget, steps, final win rate) to this JSON file"})
    loggers: str = field(default="csv", metadata={"help": "BenchMARL's loggers, comma-separated ('csv', 'tensorboard'; '' for none)"})


def check_args(args: Args) -> None:
    """:class:`ConfigError` naming the first field that cannot run, and what it allows."""
    check_fields(args)
    check_batches(args)
    allowed = {"csv", "tensorboard"}
    bad = [w for w in args.loggers.split(",") if w.strip() and w.strip() not in allowed]
    if bad:
        raise ConfigError(f"loggers must be among {sorted(allowed)} (comma-separated) or empty; got {bad[0]!r}")


def experiment_config(args: Args, folder: Path) -> Any:
    """BenchMARL's ``ExperimentConfig`` from its own defaults, with the run's fields."""
    from benchmarl.experiment import ExperimentConfig

    cfg = ExperimentConfig.get_from_yaml()
    cfg.sampling_device = cfg.train_device = cfg.buffer_device = "cpu"
    cfg.max_n_frames, cfg.max_n_iters = args.max_n_frames, None
    cfg.on_policy_collected_frames_per_batch = args.frames_per_batch
    cfg.on_policy_n_envs_per_worker = args.n_envs
    cfg.on_policy_n_minibatch_iters = args.minibatch_iters
    cfg.on_policy_minibatch_size = args.minibatch_size
    cfg.lr, cfg.gamma = args.lr, args.gamma
    cfg.evaluation, cfg.render, cfg.create_json = False, False, False  # the final evaluation is ours, on duplicate deals
    cfg.loggers = [w.strip() for w in args.loggers.split(",") if w.strip()]
    cfg.save_folder = str(folder)
    cfg.checkpoint_interval, cfg.checkpoint_at_end = 0, False
    return cfg


def train(args: Args, command: str = "") -> dict[str, Any]:
    """Train through BenchMARL, export and summarise as ``args`` says; the summary (also
    ``--result``), which records ``command``, the command line that ran it."""
    from training.libraries.benchmarl_models import PolicyNetConfig, SniffTask, policy_net

    # isort: split
    from benchmarl.algorithms import IppoConfig, MappoConfig
    from benchmarl.experiment import Experiment
    from benchmarl.models import MlpConfig

    check_args(args)
    rules = build_rules(args)
    run_dir = Path(args.out_dir) / args.exp_name
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    overrides = parse_overrides([s for s in args.rules.split(",") if s.strip()])
    task = SniffTask(ruleset=args.preset, num_players=args.num_players, reward=args.reward,
                     max_hands=args.max_hands, reward_scale=args.reward_scale, **overrides)
    algorithm = (MappoConfig if args.algorithm == "mappo" else IppoConfig).get_from_yaml()
    algorithm.entropy_coef = args.entropy_coef
    actor = PolicyNetConfig(preset=args.preset, num_players=args.num_players, rules=args.rules,
                            hidden=args.hidden, points_prior=args.points_prior)
    experiment = Experiment(task=task, algorithm_config=algorithm, model_config=actor,
                            critic_model_config=MlpConfig.get_from_yaml(), seed=args.seed,
                            config=experiment_config(args, run_dir))
    net = policy_net(experiment.policy)
    start_rate = evaluate(net, rules, args.final_opponent, args.final_games, args.final_seed, FINAL_MAX_HANDS)
    start = time.time()
    experiment.run()
    seconds = time.time() - start
    frames = int(experiment.total_frames)
    out = export_path(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    export_policy(cpu_module(net), out, policy_meta(rules, frames, f"benchmarl-{args.algorithm}", asdict(args), seconds))
    rate = evaluate(net, rules, args.final_opponent, args.final_games, args.final_seed, FINAL_MAX_HANDS)
    low, high = wilson_interval(rate * args.final_games, args.final_games)
    summary: dict[str, Any] = {
        "command": command,
        "algorithm": args.algorithm.upper(),
        "library": "BenchMARL Experiment with SniffTask (TorchRL PettingZooWrapper over sniff_v0.parallel_env), "
                   f"{'MappoConfig' if args.algorithm == 'mappo' else 'IppoConfig'}, MlpConfig critic, "
                   "the project's PolicyNet as the actor model",
        "rules": rules.name, "num_players": rules.num_players,
        "budget": {"max_n_frames": args.max_n_frames},
        "env_steps": frames, "train_seconds": round(seconds, 1), "steps_per_second": round(frames / max(seconds, 1e-9), 1),
        "policy": str(out),
        "final": {
            "opponent": args.final_opponent, "duplicate_games": args.final_games, "seed": args.final_seed,
            "max_hands": FINAL_MAX_HANDS, "win_rate": round(rate, 4), "ci95": [round(low, 4), round(high, 4)],
            "win_rate_at_start": round(start_rate, 4), "draws": "counted as half a win",
        },
        "args": asdict(args),
    }
    if args.result:
        Path(args.result).parent.mkdir(parents=True, exist_ok=True)
        Path(args.result).write_text(json.dumps(summary, indent=2) + "\n")
    print(f"trained {frames:,} env steps in {seconds:.0f} s; {out}; win rate vs {args.final_opponent} {rate:.3f} "
          f"[{low:.3f}, {high:.3f}] on {args.final_games} duplicate games (at the start: {start_rate:.3f})")
    return summary


def main(argv: list[str] | None = None) -> int:
    args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
    check_args(args)
    words = sys.argv[1:] if argv is None else argv
    train(args, shlex.join(["python", "-m", "training.libraries.benchmarl_mappo", *words]))
    return 0


if __name__ == "__main__":
    run_script(main)
