"""Multi-agent PPO (MAPPO or IPPO) with TorchRL on the parallel form of Sniff, for users who live in TorchRL.

TorchRL's own ``PettingZooWrapper`` steps ``sniff_v0.parallel_env`` (every seat in one group,
``player``; ``n_envs`` games in a ``SerialEnv``) and TorchRL's pieces do the rest: its
``Collector``, a ``ProbabilisticActor`` with a ``MaskedCategorical`` over each agent's action
mask, a ``MultiAgentMLP`` critic (centralised over every agent's view for MAPPO, ``--critic
central``, or each agent's own for IPPO, ``--critic local``), ``GAE`` per agent and
``ClipPPOLoss``. Every seat plays the same policy (parameters shared): the project's
:class:`~training.lib.network.PolicyNet` on the agent's observation, plus a fixed logit for the
no-op, so the final policy exports as the project's ONNX policy file that ``sniff eval`` loads.

The parallel form is turn-based: at every step one agent acts and the others take the no-op,
the only action their mask allows (:mod:`sniff_env.envs.parallel`). Those no-op moves are not
decisions, so they are kept out of the policy's loss: the clipped objective, the entropy bonus
and the advantage normalisation are averaged over the entries whose ``"acting"`` flag is set
(see :func:`masked_losses`). The critic learns the value of every state, the waiting ones
included, which GAE reads between an agent's own decisions.

Every step of the env is one decision of one agent: ``total_frames`` counts them. The run ends
with the win rate of the greedy (masked argmax) policy against ``final_opponent`` on
``final_games`` duplicate games, with a 95% interval, in ``--result`` (JSON).

    python -m training.libraries.torchrl_mappo --config configs/training/torchrl-mappo-sniff-2p.toml
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from sniff_env.evaluation import wilson_interval
from sniff_env.evaluation.tournament import MAX_HANDS as FINAL_MAX_HANDS
from sniff_env.options import parse_overrides
from sniff_env.rules import Rules
from training.lib.config import ConfigError, check_fields, parse_config, rules_for, run_script
from training.lib.device import cpu_module
from training.lib.evaluate import win_rate_vector
from training.lib.network import export_policy, make_net, policy_meta
from training.lib.ppo_args import PpoLossArgs
from training.lib.run_args import RunArgs

GROUP = "player"
"""TorchRL's group of the parallel env's agents (``player_0``, ``player_1``, ...)."""
CRITICS = ("central", "local")
EVAL_MAX_HANDS = 40
"""Hands before an in-training evaluation game is cut short (as the other trainers evaluate)."""


@dataclass
class Args(PpoLossArgs, RunArgs):
    FIELD_HELP: ClassVar[dict[str, str]] = {
        "gamma": "discount per env step",
        "seed": "seed of the games, the sampling and torch",
        "out_dir": "where runs write their policy and logs",
        "export": "the ONNX policy file to write ('': <out_dir>/<exp_name>/policy.onnx)",
    }
    exp_name: str = field(default="torchrl-mappo-sniff-2p", metadata={"help": "run name (folder under out_dir)"})
    total_frames: int = field(default=200_000, metadata={"min": 1, "help": "env steps to train on (one decision each)"})
    time_budget_s: float = field(default=0.0, metadata={"min": 0, "help": "stop after this many seconds of training (0: no limit)"})
    n_envs: int = field(default=8, metadata={"min": 1, "help": "games stepped together (a TorchRL SerialEnv)"})
    frames_per_batch: int = field(default=2048, metadata={"min": 1, "help": "env steps per PPO iteration (a multiple of n_envs)"})
    num_epochs: int = field(default=4, metadata={"min": 1, "help": "passes over each batch"})
    minibatch_size: int = field(default=256, metadata={"min": 1, "help": "env steps per gradient step"})
    learning_rate: float = field(default=3e-4, metadata={"above": 0, "help": "Adam learning rate"})
    hidden: int = field(default=256, metadata={"min": 1, "help": "hidden units per layer of the policy and the critic"})
    points_prior: float = field(default=5.0, metadata={"help": "initial weight of each move's own points in its logit (as training/ppo.py)"})
    critic: str = field(default="central", metadata={"choices": CRITICS, "help": "'central' (MAPPO: the critic reads every agent's view) or 'local' (IPPO)"})
    reward: str = field(default="points", metadata={"choices": ("points", "game"), "help": "'points' (dense) or 'game' (+1/-1 at the end)"})
    reward_scale: float = field(default=0.05, metadata={"above": 0, "help": "multiplier of every reward"})
    max_hands: int = field(default=40, metadata={"min": 1, "help": "a training game ends after this many hands at most"})
    eval_every: int = field(default=20_480, metadata={"min": 0, "help": "env steps between evaluations (0: never)"})
    eval_games: int = field(default=200, metadata={"min": 2, "help": "duplicate games per evaluation opponent"})
    eval_opponents: str = field(default="greedy", metadata={"help": "evaluation opponents (compiled built-ins)"})
    final_opponent: str = field(default="greedy", metadata={"help": "the opponent of the final evaluation"})
    final_games: int = field(default=2000, metadata={"min": 2, "help": "duplicate games of the final evaluation (0.95 interval)"})
    final_seed: int = field(default=77, metadata={"min": 0, "help": "seed of the final evaluation's deals"})
    result: str = field(default="", metadata={"help": "also write the run's summary (budget, steps, final win rate) to this JSON file"})
    tensorboard: bool = field(default=True, metadata={"help": "log to TensorBoard"})


def check_args(args: Args) -> None:
    """:class:`ConfigError` naming the first field that cannot run, and what it allows."""
    check_fields(args)
    check_batches(args)


def check_batches(args: Any) -> None:
    """The checks every multi-agent PPO run here shares (``args`` has ``frames_per_batch``,
    ``n_envs``, ``minibatch_size`` and ``export``): whole batches of every game, minibatches no
    larger than a batch, an ONNX export."""
    if args.frames_per_batch % args.n_envs:
        raise ConfigError(f"frames_per_batch must be a multiple of n_envs = {args.n_envs} (every game steps "
                          f"alike); got {args.frames_per_batch}")
    if args.minibatch_size > args.frames_per_batch:
        raise ConfigError(f"minibatch_size ({args.minibatch_size}) must be at most frames_per_batch "
                          f"({args.frames_per_batch})")
    if args.export and not args.export.endswith(".onnx"):
        raise ConfigError(f"--export writes an ONNX policy file, the format sniff eval and play load: give a "
                          f"NAME.onnx path; got {args.export!r}")


def build_rules(args: Any) -> Rules:
    rules: Rules = rules_for(args.preset, args.num_players, args.rules)
    return rules


def export_path(args: Any) -> Path:
    """Where the run's ONNX policy goes: ``--export``, else ``<out_dir>/<exp_name>/policy.onnx``."""
    return Path(args.export) if args.export else Path(args.out_dir) / args.exp_name / "policy.onnx"


def make_env(args: Args, seed: int) -> Any:
    """TorchRL's ``PettingZooWrapper`` over the parallel form of the run's rules, seeded."""
    from torchrl.envs import PettingZooWrapper

    from sniff_env.sniff_v0 import parallel_env

    overrides = parse_overrides([s for s in args.rules.split(",") if s.strip()])
    env = parallel_env(args.preset, args.num_players, reward=args.reward, max_hands=args.max_hands, **overrides)
    return PettingZooWrapper(env=env, use_mask=True, categorical_actions=True, seed=seed)


class SharedPolicy(nn.Module):
    """The project's policy network over every agent of the group (one set of parameters): the
    logits of ``[..., n_agents, obs_size]`` observations, plus a constant 0 logit for the no-op
    (legal exactly when every other action is masked off, so its value never matters)."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        flat = obs.reshape(-1, obs.shape[-1])
        logits: torch.Tensor = self.net.logits(flat, self.net.trunk(flat))
        logits = torch.cat([logits, logits.new_zeros(flat.shape[0], 1)], dim=-1)
        return logits.reshape(*obs.shape[:-1], logits.shape[-1])


def critic_input(obs: torch.Tensor, acting: torch.Tensor) -> torch.Tensor:
    """What the critic reads of each agent: its observation and whether it is to act."""
    return torch.cat([obs, acting.to(obs.dtype)], dim=-1)


def build_modules(args: Args, rules: Rules, env: Any) -> tuple[Any, Any, nn.Module]:
    """The actor (TorchRL ``ProbabilisticActor``), the critic (``MultiAgentMLP``) and the project
    network inside the actor (what is exported)."""
    from tensordict.nn import TensorDictModule, TensorDictSequential
    from torchrl.modules import MaskedCategorical, MultiAgentMLP, ProbabilisticActor

    net = make_net(rules, args.hidden, args.points_prior, "mlp")
    obs_key = (GROUP, "observation", "observation")
    acting_key = (GROUP, "observation", "acting")
    policy = TensorDictModule(SharedPolicy(net), in_keys=[obs_key], out_keys=[(GROUP, "logits")])
    actor = ProbabilisticActor(
        policy, in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[env.action_key], distribution_class=MaskedCategorical, return_log_prob=True,
    )
    n_agents = len(env.group_map[GROUP])
    size = env.observation_spec[obs_key].shape[-1] + 1
    mlp = MultiAgentMLP(n_agent_inputs=size, n_agent_outputs=1, n_agents=n_agents,
                        centralized=args.critic == "central", share_params=True, depth=2, num_cells=args.hidden,
                        activation_class=nn.Tanh)
    critic = TensorDictSequential(
        TensorDictModule(critic_input, in_keys=[obs_key, acting_key], out_keys=[(GROUP, "critic_input")]),
        TensorDictModule(mlp, in_keys=[(GROUP, "critic_input")], out_keys=[(GROUP, "state_value")]),
    )
    return actor, critic, net


def masked_losses(out: Any, acting: torch.Tensor) -> dict[str, torch.Tensor]:
    """The PPO terms of a minibatch from ``ClipPPOLoss(reduction="none")``'s per-entry losses:
    the clipped objective and the entropy bonus averaged over the acting entries alone (a waiting
    agent's no-op is no decision), the critic's loss over every entry."""
    weight = acting.reshape(acting.shape[:2]).to(torch.float32)  # [batch, n_agents]
    count = weight.sum().clamp_min(1.0)

    def per_entry(name: str) -> torch.Tensor:
        value: torch.Tensor = out[name]
        return value.reshape(weight.shape)

    return {
        "loss_objective": (per_entry("loss_objective") * weight).sum() / count,
        "loss_entropy": (per_entry("loss_entropy") * weight).sum() / count,
        "loss_critic": per_entry("loss_critic").mean(),
    }


def normalise_advantages(data: Any) -> None:
    """Standardise the advantages over the acting entries of a batch (the waiting ones set to 0)."""
    adv = data[GROUP, "advantage"]
    acting = data[GROUP, "observation", "acting"].bool().reshape(adv.shape)
    chosen = adv[acting]
    scaled = (adv - chosen.mean()) / (chosen.std() + 1e-8)
    data[GROUP, "advantage"] = torch.where(acting, scaled, torch.zeros_like(adv))


def evaluate(net: nn.Module, rules: Rules, opponent: str, games: int, seed: int, max_hands: int) -> float:
    """Win rate of the greedy policy against a compiled built-in on duplicate deals (draws half)."""
    was_training = net.training
    net.eval()
    try:
        return win_rate_vector(lambda obs: net.logits(obs, net.trunk(obs)), rules, opponent, games, seed, max_hands)
    finally:
        net.train(was_training)


def train(args: Args, command: str = "") -> dict[str, Any]:
    """Train, log, export and summarise as ``args`` says; the summary (also ``--result``), which
    records ``command``, the command line that ran it."""
    from torchrl.collectors import Collector
    from torchrl.envs import SerialEnv
    from torchrl.objectives import ClipPPOLoss, ValueEstimators

    check_args(args)
    rules = build_rules(args)
    run_dir = Path(args.out_dir) / args.exp_name
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(1)
    seeds = [args.seed * 1000 + i for i in range(args.n_envs)]
    env = SerialEnv(args.n_envs, [lambda s=s: make_env(args, s) for s in seeds])  # type: ignore[misc]
    probe = make_env(args, args.seed)
    actor, critic, net = build_modules(args, rules, probe)
    probe.close()
    loss = ClipPPOLoss(actor, critic, clip_epsilon=args.clip_coef, entropy_coeff=args.ent_coef,
                       critic_coeff=args.vf_coef, loss_critic_type="l2", normalize_advantage=False,
                       reduction="none")
    loss.loss_mask_key = None  # the acting mask is applied by masked_losses
    loss.set_keys(reward=(GROUP, "reward"), action=(GROUP, "action"), value=(GROUP, "state_value"),
                  done=(GROUP, "done"), terminated=(GROUP, "terminated"), advantage=(GROUP, "advantage"),
                  value_target=(GROUP, "value_target"), sample_log_prob=(GROUP, "action_log_prob"))
    loss.make_value_estimator(ValueEstimators.GAE, gamma=args.gamma, lmbda=args.gae_lambda)
    optimiser = torch.optim.Adam(loss.parameters(), lr=args.learning_rate)
    collector = Collector(env, actor, frames_per_batch=args.frames_per_batch, total_frames=args.total_frames,
                          auto_register_policy_transforms=False)  # the policy keeps no state between steps
    writer = _writer(args, run_dir)
    opponents = [o.strip() for o in args.eval_opponents.split(",") if o.strip()]
    curve: list[dict[str, Any]] = []

    def log_eval(frames: int, seconds: float) -> None:
        point: dict[str, Any] = {"frames": frames, "seconds": round(seconds, 1)}
        for opp in opponents:
            rate = evaluate(net, rules, opp, args.eval_games, args.seed, EVAL_MAX_HANDS)
            point[f"winrate_vs_{opp}"] = round(rate, 4)
            if writer is not None:
                writer.add_scalar(f"eval/winrate_vs_{opp}", rate, frames)
        curve.append(point)
        print(f"{frames:>9,} steps, {seconds:6.0f} s: " + ", ".join(f"{k} {v}" for k, v in point.items()
                                                                   if k.startswith("winrate")), flush=True)

    start_rate = evaluate(net, rules, args.final_opponent, args.final_games, args.final_seed, FINAL_MAX_HANDS)
    start, frames, next_eval = time.time(), 0, args.eval_every
    if args.eval_every:
        log_eval(0, 0.0)
    stopped = "total_frames"
    for data in collector:
        frames += data.numel()
        with torch.no_grad():
            data[("next", GROUP, "reward")] = data[("next", GROUP, "reward")] * args.reward_scale
            loss.value_estimator(data, params=loss.critic_network_params,
                                 target_params=loss.target_critic_network_params)
        normalise_advantages(data)
        flat = data.reshape(-1)
        stats: dict[str, float] = {}
        for _ in range(args.num_epochs):
            order = torch.randperm(flat.shape[0])
            for lo in range(0, flat.shape[0], args.minibatch_size):
                batch = flat[order[lo : lo + args.minibatch_size]]
                terms = masked_losses(loss(batch), batch[GROUP, "observation", "acting"])
                total = terms["loss_objective"] + terms["loss_entropy"] + terms["loss_critic"]
                optimiser.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), args.max_grad_norm)
                optimiser.step()
                stats = {k: v.item() for k, v in terms.items()}
        collector.update_policy_weights_()
        seconds = time.time() - start
        if writer is not None:
            writer.add_scalar("charts/SPS", frames / seconds, frames)
            for k, v in stats.items():
                writer.add_scalar(f"losses/{k.removeprefix('loss_')}", v, frames)
        if args.eval_every and frames >= next_eval:
            while next_eval <= frames:
                next_eval += args.eval_every
            log_eval(frames, seconds)
        if args.time_budget_s and seconds >= args.time_budget_s:
            stopped = "time_budget_s"
            break
    collector.shutdown()
    seconds = time.time() - start
    out = export_path(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    export_policy(cpu_module(net), out, policy_meta(rules, frames, "torchrl-mappo", asdict(args), seconds))
    rate = evaluate(net, rules, args.final_opponent, args.final_games, args.final_seed, FINAL_MAX_HANDS)
    low, high = wilson_interval(rate * args.final_games, args.final_games)
    summary: dict[str, Any] = {
        "command": command,
        "algorithm": "MAPPO" if args.critic == "central" else "IPPO",
        "library": "TorchRL PettingZooWrapper(sniff_v0.parallel_env), Collector, ProbabilisticActor + MaskedCategorical, "
                   "MultiAgentMLP critic, GAE, ClipPPOLoss (no-op moves of waiting agents masked out of the policy loss)",
        "rules": rules.name, "num_players": rules.num_players,
        "budget": {"total_frames": args.total_frames, "time_budget_s": args.time_budget_s, "stopped_by": stopped},
        "env_steps": frames, "decisions": frames, "waiting_no_ops_excluded": frames * (rules.num_players - 1),
        "train_seconds": round(seconds, 1), "steps_per_second": round(frames / max(seconds, 1e-9), 1),
        "policy": str(out),
        "final": {
            "opponent": args.final_opponent, "duplicate_games": args.final_games, "seed": args.final_seed,
            "max_hands": FINAL_MAX_HANDS, "win_rate": round(rate, 4), "ci95": [round(low, 4), round(high, 4)],
            "win_rate_at_start": round(start_rate, 4), "draws": "counted as half a win",
        },
        "curve": curve,
        "args": asdict(args),
    }
    if args.result:
        Path(args.result).parent.mkdir(parents=True, exist_ok=True)
        Path(args.result).write_text(json.dumps(summary, indent=2) + "\n")
    if writer is not None:
        writer.close()
    print(f"trained {frames:,} env steps in {seconds:.0f} s; {out}; win rate vs {args.final_opponent} {rate:.3f} "
          f"[{low:.3f}, {high:.3f}] on {args.final_games} duplicate games (at the start: {start_rate:.3f})")
    return summary


def _writer(args: Args, run_dir: Path) -> Any:
    """The run's TensorBoard writer, or ``None`` without TensorBoard."""
    if not args.tensorboard:
        return None
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir / "tb"))


def main(argv: list[str] | None = None) -> int:
    args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
    check_args(args)
    words = sys.argv[1:] if argv is None else argv
    train(args, shlex.join(["python", "-m", "training.libraries.torchrl_mappo", *words]))
    return 0


if __name__ == "__main__":
    run_script(main)
