"""The same job with sb3-contrib's MaskablePPO, for users who live in stable-baselines3.

The learner takes a random seat of :class:`sniff_env.envs.single_agent.SniffSingleAgentEnv` at every
reset; the other seats are played by built-in players (``--opponents``). The final policy is
exported to the same TorchScript format as ``training/ppo.py``, so ``sniff eval`` and
``sniff play`` load it the same way. ``--engine vector`` trains on the batched engine's
:class:`sniff_env.integrations.sb3.SniffSB3VecEnv` instead, much faster, against one compiled player.

    python -m training.libraries.sb3_maskable --config configs/training/sb3-sniff-2p.toml
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn

from sniff_env.atomic import atomic_path
from sniff_env.observation import observer_for
from sniff_env.options import parse_overrides
from sniff_env.players import load
from sniff_env.rules import Rules
from training.lib.config import parse_config, rules_for, run_script
from training.lib.device import DEVICE_HELP, cpu_module, host_view, resolve_device
from training.lib.evaluate import win_rate
from training.lib.network import export_module, policy_meta
from training.lib.run_args import RunArgs


@dataclass
class Args(RunArgs):
    FIELD_HELP: ClassVar[dict[str, str]] = {
        "seed": "seed of the environments, the players and torch",
        "out_dir": "where runs write models and logs",
    }
    exp_name: str = field(default="sniff-sb3", metadata={"help": "run name (folder under out_dir)"})
    device: str = field(default="auto", metadata={"help": f"where the policy trains: {DEVICE_HELP}; the games stay on the CPU"})
    total_timesteps: int = field(default=100_000, metadata={"min": 1, "help": "learner decisions to train on"})
    n_envs: int = field(default=8, metadata={"min": 1, "help": "environments stepped together"})
    n_steps: int = field(default=256, metadata={"min": 2, "help": "steps per environment per rollout"})
    batch_size: int = field(default=256, metadata={"min": 2, "help": "minibatch size"})
    learning_rate: float = field(default=3e-4, metadata={"above": 0, "help": "Adam learning rate"})
    ent_coef: float = field(default=0.01, metadata={"min": 0, "help": "entropy bonus"})
    gamma: float = field(default=0.99, metadata={"min": 0, "max": 1, "help": "discount"})
    hidden: int = field(default=256, metadata={"min": 1, "help": "hidden units per layer"})
    reward: str = field(default="points", metadata={"choices": ("points", "game"), "help": "'points' (dense) or 'game'"})
    opponents: str = field(
        default="random,greedy,heuristic",
        metadata={"help": "built-in players drawn as opponents (vector engine: one compiled player, or one per other seat)"},
    )
    engine: str = field(
        default="python",
        metadata={"choices": ("python", "vector"), "help": "'python' (one reference-engine env per environment) or 'vector' (the batched engine's "
                          "SniffSB3VecEnv: all n_envs games in one compiled step)"},
    )
    max_cycles: int = field(default=4000, metadata={"min": 1, "help": "truncate an episode after this many steps"})
    eval_every: int = field(default=20_000, metadata={"min": 0, "help": "timesteps between evaluations (0: never)"})
    eval_games: int = field(default=50, metadata={"min": 1, "help": "duplicate games per evaluation opponent"})
    eval_opponents: str = field(default="greedy", metadata={"help": "evaluation opponents"})
    resume: str = field(default="", metadata={"help": "a saved model (.zip) to continue"})
    tensorboard: bool = field(default=True, metadata={"help": "log to TensorBoard"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})


def build_rules(args: Args) -> Rules:
    rules: Rules = rules_for(args.preset, args.num_players, args.rules)
    return rules


class _PolicyLogits(nn.Module):
    """The logits path of an SB3 ``MaskableActorCriticPolicy`` on flat observations."""

    def __init__(self, policy: Any) -> None:
        super().__init__()
        self.policy_net = policy.mlp_extractor.policy_net
        self.action_net = policy.action_net

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.policy_net(obs.float()))


def rules_overrides(args: Args) -> dict[str, Any]:
    """``args.rules`` as keyword arguments of the environments."""
    overrides: dict[str, Any] = parse_overrides([s for s in args.rules.split(",") if s.strip()])
    return overrides


def make_env_fn(args: Args, rank: int) -> Any:
    def make() -> Any:
        from sniff_env.envs.single_agent import SniffSingleAgentEnv

        rng = random.Random(args.seed * 1000 + rank)
        names = [s for s in args.opponents.split(",") if s.strip()]
        others = [load(rng.choice(names), seed=rng.getrandbits(31)) for _ in range(args.num_players - 1)]
        env = SniffSingleAgentEnv(
            args.preset, args.num_players, learner="random", opponents=others, reward=args.reward,
            max_cycles=args.max_cycles, **rules_overrides(args),
        )
        env.reset(seed=args.seed * 1000 + rank)
        return env

    return make


def make_venv(args: Args) -> Any:
    """The SB3 ``VecEnv`` of ``args.engine``, seeded with ``args.seed``."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    if args.engine == "vector":
        from sniff_env.integrations.sb3 import SniffSB3VecEnv

        specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
        venv: Any = SniffSB3VecEnv(
            args.n_envs, ruleset=args.preset, num_players=args.num_players, learner="random",
            opponents=specs[0] if len(specs) == 1 else specs, reward=args.reward, **rules_overrides(args),
        )
    else:
        venv = DummyVecEnv([make_env_fn(args, i) for i in range(args.n_envs)])
    venv.seed(args.seed)
    return venv


def save_model_atomic(model: Any, path: Path) -> None:
    """``model.save`` to a temporary file beside ``path``, then rename it into place."""
    with atomic_path(path, suffix=".zip") as tmp:
        model.save(tmp)


def train(args: Args) -> Path:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    device = resolve_device(args.device)
    rules = build_rules(args)
    observer = observer_for(rules)
    run_dir = Path(args.out_dir) / args.exp_name
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    venv = make_venv(args)
    start = time.time()
    if args.resume:
        model = MaskablePPO.load(args.resume, env=venv, seed=args.seed, device=device)
        if model.observation_space.shape != (observer.size,):
            raise ValueError(f"{args.resume} was trained on another observation layout")
    else:
        model = MaskablePPO(
            "MlpPolicy", venv, n_steps=args.n_steps, batch_size=args.batch_size,
            learning_rate=args.learning_rate, ent_coef=args.ent_coef, gamma=args.gamma,
            policy_kwargs={"net_arch": [args.hidden, args.hidden]}, seed=args.seed, verbose=0, device=device,
            tensorboard_log=str(run_dir / "tb") if args.tensorboard else None,
        )

    class Evaluate(BaseCallback):
        """Log win rates against built-in players to TensorBoard every ``eval_every`` steps."""

        def __init__(self) -> None:
            super().__init__()
            self.next_eval = args.eval_every

        def _on_step(self) -> bool:
            if args.eval_every and self.num_timesteps >= self.next_eval:
                self.next_eval += args.eval_every
                logits = host_view(_PolicyLogits(self.model.policy), device)
                for opp in filter(None, args.eval_opponents.split(",")):
                    rate = win_rate(logits, rules, opp, args.eval_games, args.seed, 40)
                    self.logger.record(f"eval/winrate_vs_{opp}", rate)
            return True

    model.learn(
        total_timesteps=args.total_timesteps, callback=Evaluate(), progress_bar=args.progress,
        reset_num_timesteps=not args.resume, tb_log_name="sb3",
    )
    path = run_dir / "model.zip"
    save_model_atomic(model, path)
    if args.export:
        meta = policy_meta(rules, int(model.num_timesteps), "sb3-maskable-ppo", asdict(args), time.time() - start)
        export_module(cpu_module(_PolicyLogits(model.policy)), args.export, meta)
    print(f"trained {model.num_timesteps:,} steps in {time.time() - start:.0f} s; model {path}")
    return path


def main(argv: list[str] | None = None) -> int:
    args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
    resolve_device(args.device)  # refuse a missing device before any environment is built
    train(args)
    return 0


if __name__ == "__main__":
    run_script(main)
