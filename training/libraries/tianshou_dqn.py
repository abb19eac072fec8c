"""A masked double DQN with Tianshou 2.0, for users who live in Tianshou.

One learning seat (a random one at every game) plays against a compiled built-in player on the
batched engine (:class:`sniff_env.envs.gym_vector.SniffGymVectorEnv`), seen through
:class:`TianshouVectorEnv`, a Tianshou vector env whose observations carry the action mask
where Tianshou's DQN looks for it (``obs.mask``). Tianshou's own pieces do the rest: its
``DiscreteQLearningPolicy`` (masked argmax, masked epsilon-greedy), its ``DQN`` algorithm (double
Q-learning, so the bootstrap takes the target network's value of the online network's *masked*
argmax; vanilla DQN's ``max`` would range over illegal actions too), its ``VectorReplayBuffer`` and
``Collector``, in a loop written out (Tianshou's ``OffPolicyTrainer`` scans the whole buffer
after every round of collection). The Q-network is the project's :class:`PolicyNet` (its
logits head gives the Q-values), so the final network exports as a policy file like any other:
its masked argmax is the greedy policy.

Every learner decision is one environment step: ``total_timesteps`` counts them exactly (the
random warm-up of ``learning_starts`` included), and win rates against built-in players go to
TensorBoard (``eval/winrate_vs_*``, what ``training/curves.py`` plots) every ``eval_every``.

    python -m training.libraries.tianshou_dqn --config configs/training/tianshou-dqn-reference-1m.toml
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from sniff_env.options import parse_overrides
from sniff_env.rules import Rules
from training.lib.config import ConfigError, check_fields, parse_config, rules_for
from training.lib.device import DEVICE_HELP, cpu_module, resolve_device
from training.lib.evaluate import win_rate_vector
from training.lib.network import export_policy, make_net, policy_meta
from training.lib.run_args import RunArgs

REWARDS = ("points", "game")
EVAL_MAX_HANDS = 40
"""Hands before an evaluation game is cut short (as the other trainers evaluate)."""


@dataclass
class Args(RunArgs):
    FIELD_HELP: ClassVar[dict[str, str]] = {
        "seed": "seed of the games, the exploration, the replay sampling and torch",
        "out_dir": "where runs write models and logs",
        "export": "export the final Q-network as a policy to this file",
    }
    exp_name: str = field(default="sniff-tianshou-dqn", metadata={"help": "run name (folder under out_dir)"})
    device: str = field(default="auto", metadata={"help": f"where the Q-network trains: {DEVICE_HELP}; the games stay on the CPU"})
    total_timesteps: int = field(default=100_000, metadata={"min": 1, "help": "learner decisions to train on (warm-up included)"})
    opponent: str = field(default="heuristic", metadata={"help": "the compiled player of the other seats: heuristic, greedy, random, ..."})
    n_envs: int = field(default=100, metadata={"min": 1, "help": "games stepped together"})
    collect_steps: int = field(default=1, metadata={"min": 1, "help": "steps per game between two rounds of updates"})
    updates_per_step: float = field(default=0.1, metadata={"above": 0, "help": "gradient steps per learner decision collected"})
    batch_size: int = field(default=128, metadata={"min": 1, "help": "transitions per gradient step"})
    buffer_size: int = field(default=100_000, metadata={"min": 1, "help": "replay buffer capacity (transitions)"})
    learning_starts: int = field(default=20_000, metadata={"min": 0, "help": "decisions played at random before any update"})
    learning_rate: float = field(default=2.5e-4, metadata={"above": 0, "help": "Adam learning rate"})
    gamma: float = field(default=0.99, metadata={"min": 0, "max": 1, "help": "discount"})
    n_step: int = field(default=3, metadata={"min": 1, "help": "steps of the n-step return"})
    target_update_freq: int = field(default=500, metadata={"min": 0, "help": "gradient steps between target network copies"})
    eps_start: float = field(default=1.0, metadata={"min": 0, "max": 1, "help": "exploration rate at the first update"})
    eps_end: float = field(default=0.05, metadata={"min": 0, "max": 1, "help": "exploration rate after the decay"})
    exploration_fraction: float = field(default=0.2, metadata={"above": 0, "max": 1, "help": "share of total_timesteps over which eps decays"})
    hidden: int = field(default=256, metadata={"min": 1, "help": "hidden units per layer"})
    reward: str = field(default="points", metadata={"choices": REWARDS, "help": "'points' (the score differences) or 'game' (+1/-1 at the end)"})
    reward_scale: float = field(default=0.05, metadata={"above": 0, "help": "multiplier of the rewards"})
    eval_every: int = field(default=50_000, metadata={"min": 0, "help": "learner decisions between evaluations (0: never)"})
    eval_games: int = field(default=200, metadata={"min": 1, "help": "duplicate games per evaluation opponent"})
    eval_opponents: str = field(default="greedy,heuristic", metadata={"help": "evaluation opponents (compiled built-ins)"})
    tensorboard: bool = field(default=True, metadata={"help": "log to TensorBoard"})


def check_args(args: Args) -> None:
    """:class:`ConfigError` naming the first field that cannot run, and what it allows: each field's
    own bounds (:func:`~training.lib.config.check_fields`), then how the fields fit together."""
    check_fields(args)
    per_round = args.n_envs * args.collect_steps
    for name in ("total_timesteps", "learning_starts"):
        if getattr(args, name) % per_round:
            raise ConfigError(f"{name} must be a multiple of n_envs x collect_steps = {per_round} (decisions per "
                              f"round of collection); got {getattr(args, name)}")
    if args.learning_starts >= args.total_timesteps:
        raise ConfigError(f"learning_starts ({args.learning_starts}) must be below total_timesteps ({args.total_timesteps})")
    if args.buffer_size < args.batch_size:
        raise ConfigError(f"buffer_size ({args.buffer_size}) must hold at least one batch ({args.batch_size})")
    if not 0.0 <= args.eps_end <= args.eps_start <= 1.0:
        raise ConfigError(f"need 0 <= eps_end <= eps_start <= 1; got eps_start={args.eps_start}, eps_end={args.eps_end}")
    if round(args.updates_per_step * per_round) < 1:
        raise ConfigError(f"updates_per_step x n_envs x collect_steps must make at least one gradient step per round; "
                          f"got {args.updates_per_step} x {per_round}")


def build_rules(args: Args) -> Rules:
    rules: Rules = rules_for(args.preset, args.num_players, args.rules)
    return rules


class TianshouVectorEnv:
    """:class:`~sniff_env.envs.gym_vector.SniffGymVectorEnv` under Tianshou's vector-env contract.

    Observations are ``Batch(obs=[N, obs_size] float32, mask=[N, A] int8)``. The batched engine
    starts the next game in the step that ends one; this env returns the finished game's last view
    (mask all zero) as that step's observation and hands the new game's first one to the
    ``reset(env_id=...)`` Tianshou's collector makes next. All games step together."""

    is_async = False

    def __init__(self, venv: Any, reward_scale: float = 1.0) -> None:
        from tianshou.data import Batch

        self._batch = Batch
        self.venv, self.reward_scale = venv, reward_scale
        self.env_num: int = venv.num_envs
        self.action_space = [venv.single_action_space] * self.env_num
        self._pending: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return self.env_num

    def _infos(self, ids: np.ndarray) -> np.ndarray:
        return np.array([{"env_id": int(i)} for i in ids], dtype=object)

    def reset(self, env_id: Any = None, **kwargs: Any) -> tuple[Any, np.ndarray]:
        """Every game anew (``env_id=None``; ``seed`` numbers the deals), or the games of
        ``env_id``, which must have just ended: their next game is already dealt."""
        if env_id is None:
            obs, _ = self.venv.reset(**kwargs)
            self._pending.clear()
            return self._batch(obs=obs["observation"], mask=obs["action_mask"]), self._infos(np.arange(self.env_num))
        ids = np.atleast_1d(np.asarray(env_id, np.int64))
        waiting = [int(i) for i in ids if int(i) not in self._pending]
        if waiting:
            raise ValueError(f"games {waiting} have not ended: only a finished game can be reset alone")
        rows = [self._pending.pop(int(i)) for i in ids]
        obs = np.stack([r[0] for r in rows])
        mask = np.stack([r[1] for r in rows])
        return self._batch(obs=obs, mask=mask), self._infos(ids)

    def step(self, action: Any, id: Any = None) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One learner decision in every game (``id``: all games, in order)."""
        ids = np.arange(self.env_num) if id is None else np.atleast_1d(np.asarray(id, np.int64))
        if not np.array_equal(ids, np.arange(self.env_num)):
            raise ValueError(f"the {self.env_num} games share one engine and step together; got ids {ids.tolist()}")
        if self._pending:
            raise ValueError(f"games {sorted(self._pending)} ended: reset them before the next step")
        obs, rewards, terminated, truncated, infos = self.venv.step(np.asarray(action, np.int64))
        view, mask = obs["observation"].copy(), obs["action_mask"].copy()
        for b in np.flatnonzero(terminated | truncated).tolist():
            self._pending[b] = (view[b].copy(), mask[b].copy())
            view[b] = infos["final_obs"][b]["observation"]
            mask[b] = infos["final_obs"][b]["action_mask"]
        scaled = rewards.astype(np.float32) * np.float32(self.reward_scale)
        return self._batch(obs=view, mask=mask), scaled, terminated, truncated, self._infos(ids)

    def seed(self, seed: int | None = None) -> list[None]:
        """Seeding happens at :meth:`reset` (``seed=``)."""
        return [None] * self.env_num

    def render(self, **kwargs: Any) -> list[Any]:
        return [None] * self.env_num

    def close(self) -> None:
        self.venv.close()


class QNetwork(nn.Module):
    """Tianshou's model interface (``(obs, state, info) -> (q_values, state)``) over the project's
    :class:`~training.lib.network.PolicyNet`: its logits head gives one Q-value per action."""

    net: Any
    """The project network (a :class:`~training.lib.network.PolicyNet`: ``trunk`` and ``logits``)."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def q_values(self, obs: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.net.logits(obs, self.net.trunk(obs))
        return out

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        device = next(self.net.parameters()).device
        return self.q_values(torch.as_tensor(obs, dtype=torch.float32, device=device)), state


def make_venv(args: Args) -> TianshouVectorEnv:
    """``n_envs`` learner seats (a random seat each game) against ``args.opponent``, unseeded."""
    from sniff_env.envs.gym_vector import SniffGymVectorEnv

    overrides = parse_overrides([s for s in args.rules.split(",") if s.strip()])
    venv = SniffGymVectorEnv(args.n_envs, ruleset=args.preset, num_players=args.num_players, learner="random",
                             opponents=args.opponent, reward=args.reward, **overrides)
    return TianshouVectorEnv(venv, args.reward_scale)


def exploration(args: Args, step: int) -> float:
    """Epsilon after ``step`` decisions: ``eps_start`` through the warm-up, then linear to ``eps_end``."""
    span = max(args.exploration_fraction * args.total_timesteps - args.learning_starts, 1.0)
    frac = min(max(step - args.learning_starts, 0) / span, 1.0)
    return args.eps_start + frac * (args.eps_end - args.eps_start)


def train(args: Args) -> QNetwork:
    """Train, log and export as ``args`` says; the trained Q-network."""
    from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.utils.torch_utils import policy_within_training_step

    check_args(args)
    device = resolve_device(args.device)
    rules = build_rules(args)
    run_dir = Path(args.out_dir) / args.exp_name
    # Seeding: torch (weights, updates); NumPy's global generator, which Tianshou's epsilon-greedy
    # and replay sampling draw from; the deals, through reset(seed=).
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(1)
    envs = make_venv(args)
    qnet = QNetwork(make_net(rules, args.hidden)).to(device)
    policy = DiscreteQLearningPolicy(model=qnet, action_space=envs.action_space[0], eps_training=args.eps_start)
    algorithm: Any = DQN(
        policy=policy, optim=AdamOptimizerFactory(lr=args.learning_rate), gamma=args.gamma,
        n_step_return_horizon=args.n_step, target_update_freq=args.target_update_freq, is_double=True,
    )
    buffer = VectorReplayBuffer(args.buffer_size, args.n_envs)
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)  # type: ignore[arg-type]
    collector.reset(gym_reset_kwargs={"seed": args.seed})
    writer = _writer(args, run_dir)
    evaluate = _Evaluation(args, rules, qnet, writer)
    per_round = args.n_envs * args.collect_steps
    updates_per_round = round(args.updates_per_step * per_round)
    decisions, updates, start = 0, 0, time.time()
    # Tianshou's OffPolicyTrainer would scan the whole replay buffer for NaNs after every round of
    # collection (seconds per round at this buffer size): the loop is written out instead.
    with policy_within_training_step(policy):
        while decisions < args.total_timesteps:
            policy.set_eps_training(exploration(args, decisions))
            with torch.no_grad():
                stats = collector.collect(n_step=per_round)
            decisions += stats.n_collected_steps
            if decisions <= args.learning_starts:
                continue
            for _ in range(updates_per_round):
                loss = algorithm.update(sample_size=args.batch_size, buffer=buffer).loss
            updates += updates_per_round
            if writer is not None and stats.n_collected_episodes:
                writer.add_scalar("charts/episodic_return", float(np.mean(stats.returns)), decisions)
                writer.add_scalar("charts/epsilon", policy.eps_training, decisions)
                writer.add_scalar("losses/td_loss", loss, decisions)
                writer.add_scalar("charts/SPS", decisions / (time.time() - start), decisions)
            evaluate.maybe(decisions, final=decisions >= args.total_timesteps)
    seconds = time.time() - start
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.save(qnet.state_dict(), run_dir / "qnet.pt")
    if args.export:
        meta = policy_meta(rules, decisions, "tianshou-dqn", asdict(args), seconds)
        export_policy(_cpu_net(qnet), args.export, meta)
    if writer is not None:
        writer.close()
    print(f"trained {decisions:,} learner decisions ({updates:,} gradient steps) in {seconds:.0f} s; "
          f"Q-network {run_dir / 'qnet.pt'}")
    return qnet


def _cpu_net(qnet: QNetwork) -> nn.Module:
    """The project network of ``qnet``, on the CPU (a copy when it trains elsewhere)."""
    return cpu_module(qnet.net)


def _writer(args: Args, run_dir: Path) -> Any:
    """The run's TensorBoard writer, or ``None`` without TensorBoard."""
    if not args.tensorboard:
        return None
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir / "tb"))


class _Evaluation:
    """Greedy (masked argmax) win rates against compiled built-ins, every ``eval_every`` decisions."""

    def __init__(self, args: Args, rules: Rules, qnet: QNetwork, writer: Any) -> None:
        self.args, self.rules, self.qnet, self.writer = args, rules, qnet, writer
        self.next = args.eval_every
        self.opponents = [o.strip() for o in args.eval_opponents.split(",") if o.strip()]

    def maybe(self, decisions: int, final: bool = False) -> None:
        if not self.args.eval_every or not (decisions >= self.next or final):
            return
        while self.next <= decisions:
            self.next += self.args.eval_every
        device = next(self.qnet.parameters()).device
        was_training = self.qnet.training
        self.qnet.eval()
        for opp in self.opponents:
            rate = win_rate_vector(lambda obs: self.qnet.q_values(obs.to(device)).cpu(), self.rules, opp,
                                   self.args.eval_games, self.args.seed, EVAL_MAX_HANDS)
            if self.writer is not None:
                self.writer.add_scalar(f"eval/winrate_vs_{opp}", rate, decisions)
            print(f"{decisions:>9,} decisions: win rate vs {opp} {rate:.3f}", flush=True)
        self.qnet.train(was_training)


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
        check_args(args)
        resolve_device(args.device)  # refuse a missing device before any environment is built
    except ConfigError as exc:  # DeviceError among them
        raise SystemExit(str(exc)) from None
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
