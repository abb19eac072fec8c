"""League self-play PPO for Sniff on Ray RLlib: from this machine to a Ray cluster.

One trainable RLModule (``main``, RLlib's ``ActionMaskingTorchRLModule``) plays every learning
seat of :class:`sniff_env.integrations.rllib.SniffMultiAgentEnv`. At the creation of every
episode the :class:`League` callback draws the table: pure self-play (every seat ``main``), or
``main`` on one side against a frozen snapshot of itself (an RLModule ``snapshot_k``, refreshed
every ``snapshot_every`` iterations, ``pool_size`` at most) or a built-in player. Snapshots go
through RLlib's policy mapping (the table is kept in the episode's ``custom_data``, which
:func:`module_for_agent` reads); built-in players read each seat's ``InfoState``, which an
RLModule never sees, so they play inside the environment (``SniffMultiAgentEnv.set_opponents``).

With ``--engine vector`` the env runners step the batched engine instead, many games each
(:mod:`training.libraries.rllib_vector`: the learner's seat of every game, the league's opponents played
inside the env, snapshots sent to the runners as RLModule weights).

Checkpoints are RLlib's (``Algorithm.save_to_path``; ``--resume`` continues one); metrics go to
TensorBoard; evaluation against greedy and heuristic uses the duplicate-deal evaluator of
``training/lib/evaluate.py``; the final policy is exported to the project's ONNX policy file (the
actor weights mapped into ``training.lib.network.PolicyNet``), ``<out_dir>/<exp_name>/policy.onnx``
unless ``--export`` names another, which ``sniff eval``/``play``/``serve`` load.

    python -m training.libraries.rllib_selfplay --config configs/training/rllib-sniff-2p.toml
    python -m training.libraries.rllib_selfplay --config configs/training/rllib-vector-sniff-2p.toml
    python -m training.libraries.rllib_selfplay --config configs/training/rllib-sniff-2p.toml --address ray://head:10001
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from sniff_env.observation import Observer
from sniff_env.options import parse_overrides
from sniff_env.players import load
from sniff_env.players.specs import BUILTIN, split_spec
from sniff_env.rules import Rules
from training.lib.config import ConfigError, parse_config, rules_for
from training.lib.device import DeviceError, resolve_device
from training.lib.evaluate import evaluator
from training.lib.network import export_policy, make_net, policy_meta
from training.lib.ppo_args import PpoLossArgs
from training.lib.run_args import RunArgs
from training.libraries import rllib_vector

LEARNER = "main"
"""The learner's module on the one-game path (``--engine vector``: RLlib's ``default_policy``)."""
ENGINES = ("python", "vector")
SNAPSHOT = "snapshot_"
RUN_FILE = "sniff_run.json"
"""What a checkpoint folder carries beside RLlib's files: rules, layout, network shape, progress."""


@dataclass
class Args(PpoLossArgs, RunArgs):
    FIELD_HELP: ClassVar[dict[str, str]] = {
        "seed": "seed of RLlib, the env runners and the league draws",
        "export": "the policy file the run ends with ('': <out_dir>/<exp_name>/policy.onnx): NAME.onnx, which sniff eval, "
                  "play and serve load, or NAME.pt (TorchScript, for the training tools' --init)",
    }
    exp_name: str = field(default="rllib-sniff", metadata={"help": "run name (folder under out_dir)"})
    engine: str = field(
        default="python",
        metadata={"choices": ENGINES, "help": "'python': one game per env (SniffMultiAgentEnv, every seat can "
                                              "learn); 'vector': the batched engine, num_envs_per_env_runner games "
                                              "per env runner (the learner's seat; opponents played in the env)"},
    )
    iterations: int = field(default=100, metadata={"min": 1, "help": "training iterations (each one train batch)"})
    total_timesteps: int = field(
        default=0, metadata={"min": 0, "help": "stop once this many learner decisions were sampled (0: no limit)"}
    )
    time_budget_s: float = field(default=0.0, metadata={"min": 0, "help": "stop after this many seconds of training (0: no limit)"})
    num_env_runners: int = field(default=1, metadata={"min": 0, "help": "env runner actors (0: sample in the driver)"})
    num_envs_per_env_runner: int = field(
        default=4, metadata={"min": 1, "help": "games each env runner steps together (hundreds with --engine vector)"}
    )
    sample_timeout_s: float = field(
        default=600.0, metadata={"above": 0, "help": "how long the driver waits for env runners' samples (RLlib's default: 60)"}
    )
    train_batch_size: int = field(default=4000, metadata={"min": 1, "help": "env steps per training iteration"})
    minibatch_size: int = field(default=500, metadata={"min": 1, "help": "SGD minibatch size"})
    num_epochs: int = field(default=4, metadata={"min": 1, "help": "epochs per training iteration"})
    learning_rate: float = field(default=3e-4, metadata={"above": 0, "help": "Adam learning rate"})
    hidden: int = field(default=256, metadata={"min": 1, "help": "hidden units per layer (two ReLU layers, as PolicyNet)"})
    share_trunk: bool = field(
        default=False, metadata={"help": "the critic shares the actor's layers (as PolicyNet); RLlib's default: not"}
    )
    reward: str = field(default="points", metadata={"choices": ("points", "game"), "help": "'points' (dense) or 'game' (+1/-1 at the end)"})
    reward_scale: float = field(default=0.05, metadata={"above": 0, "help": "multiplier of every reward"})
    max_hands: int = field(default=40, metadata={"min": 1, "help": "a game ends after this many hands at most"})
    selfplay_prob: float = field(
        default=0.5,
        metadata={"min": 0, "max": 1, "help": "share of games where every seat is the learner (--engine vector: the "
                                               "other seats play its current module, only the learner's seat trains)"},
    )
    pool_size: int = field(default=8, metadata={"min": 1, "help": "frozen snapshots kept as opponents"})
    snapshot_every: int = field(default=10, metadata={"min": 1, "help": "iterations between snapshots"})
    builtin_opponents: str = field(
        default="greedy,heuristic",
        metadata={"help": "built-in players in the league (--engine vector: those the batched engine plays, "
                          "shipped agents or exported policy files)"},
    )
    eval_every: int = field(default=10, metadata={"min": 0, "help": "iterations between evaluations (0: never)"})
    eval_games: int = field(default=200, metadata={"min": 1, "help": "duplicate games per evaluation opponent"})
    eval_opponents: str = field(default="greedy,heuristic", metadata={"help": "evaluation opponents"})
    checkpoint_every: int = field(default=10, metadata={"min": 0, "help": "iterations between checkpoints"})
    resume: str = field(default="", metadata={"help": "an RLlib checkpoint folder of this script to continue"})
    export_from: str = field(
        default="", metadata={"help": "export the policy of this checkpoint folder to the --export file and exit"}
    )
    address: str = field(
        default="", metadata={"help": "join this Ray cluster ('auto', 'HOST:PORT' or 'ray://HOST:PORT'); '': start Ray here"}
    )
    device: str = field(
        default="auto",
        metadata={"help": "where the learner trains: 'auto' (a GPU when torch sees one, else the CPU), 'cpu' or "
                          "'cuda' (RLlib picks which GPU); the env runners stay on the CPU"},
    )
    num_cpus: int = field(default=2, metadata={"min": 1, "help": "CPUs of a Ray started here"})
    object_store_mb: int = field(default=200, metadata={"min": 1, "help": "object store of a Ray started here, in MB"})
    tensorboard: bool = field(default=True, metadata={"help": "log to TensorBoard"})


class RayUnavailableError(RuntimeError):
    """Ray cannot be started here or the cluster at ``--address`` cannot be joined."""


def build_rules(args: Args) -> Rules:
    rules: Rules = rules_for(args.preset, args.num_players, args.rules)
    return rules


def env_config(args: Args) -> dict[str, Any]:
    """The ``env_config`` of :class:`SniffMultiAgentEnv` (or, with ``--engine vector``, of
    :class:`SniffRLlibVectorEnv`, whose league pool :func:`build_config` adds) for a run."""
    overrides = parse_overrides([s for s in args.rules.split(",") if s.strip()])
    return {
        "ruleset": args.preset, "num_players": args.num_players, **overrides,
        "reward": args.reward, "reward_scale": args.reward_scale, "max_hands": args.max_hands,
    }


def learner_module(args: Args | Mapping[str, Any]) -> str:
    """The module id of the learner of a run (its ``Args`` or their dict)."""
    engine = args.get("engine", "python") if isinstance(args, Mapping) else args.engine
    return LEARNER if engine == "python" else "default_policy"


EXPORT_SUFFIXES = (".onnx", ".pt")
"""What an export may be: the ONNX policy players load, or TorchScript for the training tools."""


def export_path(args: Args) -> Path:
    """Where the run's policy goes: ``--export``, else ``<out_dir>/<exp_name>/policy.onnx``; a
    ``ValueError`` for a name that is neither ``.onnx`` nor ``.pt``."""
    if not args.export:
        return Path(args.out_dir) / args.exp_name / "policy.onnx"
    path = Path(args.export)
    if path.suffix not in EXPORT_SUFFIXES:
        raise ValueError(f"--export {args.export!r}: a policy file is NAME.onnx (what sniff eval, play and serve "
                         f"load) or NAME.pt (TorchScript, for the training tools); got the suffix {path.suffix!r}")
    return path


def builtins_of(args: Args) -> list[str]:
    return [s.strip() for s in args.builtin_opponents.split(",") if s.strip()]


def check_league(args: Args) -> None:
    """Refuse, before Ray starts, a league opponent the run's env cannot play (a ``ValueError``
    naming it and what is allowed)."""
    if args.engine not in ENGINES:
        raise ValueError(f"--engine must be one of {', '.join(ENGINES)}; got {args.engine!r}")
    if args.engine == "vector":
        rllib_vector.check_opponents(env_config(args), builtins_of(args))
        return

    for spec in builtins_of(args):  # a PlayerSpecError or PolicyError (ValueErrors) says what is wrong
        load(spec) if split_spec(spec)[0] in BUILTIN else load(spec, rules=build_rules(args))


# -- the league ---------------------------------------------------------------------------------
def module_for_agent(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """RLlib's agent-to-module mapping: the seat's module in the table the league drew."""
    try:
        table: Mapping[str, str] = episode.custom_data.get("table", {})
    except AttributeError:
        # ``MultiAgentEpisode.cut`` asks while building the next chunk, before its custom data
        # exists, and then keeps the mapping the agent already had; any answer serves.
        return LEARNER
    return table.get(agent_id, LEARNER)


def draw_table(
    rng: np.random.Generator, rules: Rules, agents: list[str], snapshots: list[str], builtins: list[str],
    selfplay_prob: float,
) -> tuple[dict[str, str], dict[str, str], str]:
    """Who plays where: ``(modules, built-in seats, opponent label)``. Self-play puts ``main`` in
    every seat; otherwise ``main`` takes a random side and the others one snapshot or built-in."""
    options = snapshots + builtins
    if not options or rng.random() < selfplay_prob:
        return dict.fromkeys(agents, LEARNER), {}, "self"
    side = rules.side_of(int(rng.integers(len(agents))))
    pick = options[int(rng.integers(len(options)))]
    modules, seats = {}, {}
    for seat, agent in enumerate(agents):
        if rules.side_of(seat) == side:
            modules[agent] = LEARNER
        elif pick in builtins:
            seats[agent] = pick
        else:
            modules[agent] = pick
    return modules, seats, "snapshot" if pick in snapshots else pick


def _league_callback() -> type:
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class League(RLlibCallback):  # type: ignore[misc]
        """Draws each episode's table, logs the learner's win rate per opponent kind, and
        refreshes the pool of frozen snapshots after training iterations."""

        def __init__(self, args: dict[str, Any]) -> None:
            super().__init__()
            self.args = Args(**args)
            self.rules = build_rules(self.args)
            self.builtins = builtins_of(self.args)
            self.rng: np.random.Generator | None = None

        def on_episode_created(self, *, episode: Any, env_runner: Any, env: Any, env_index: int,
                               rl_module: Any, **kwargs: Any) -> None:
            if self.rng is None:  # one stream per env runner
                self.rng = np.random.default_rng([self.args.seed, env_runner.worker_index])
            sub = env.envs[env_index].unwrapped
            snapshots = sorted(m for m in rl_module.keys() if m.startswith(SNAPSHOT))  # noqa: SIM118 (a MultiRLModule)
            modules, seats, label = draw_table(
                self.rng, self.rules, sub.possible_agents, snapshots, self.builtins, self.args.selfplay_prob
            )
            sub.set_opponents(seats)  # applied at the reset that starts this episode
            episode.custom_data["table"] = modules
            episode.custom_data["opponent"] = label

        def on_episode_end(self, *, episode: Any, metrics_logger: Any, **kwargs: Any) -> None:
            label = episode.custom_data.get("opponent")
            if label in (None, "self"):
                return
            agent = next(a for a, m in episode.custom_data["table"].items() if m == LEARNER)
            win = episode.agent_episodes[agent].get_infos(-1).get("win")
            if win is not None:
                metrics_logger.log_value(f"league/winrate_vs_{label}", float(win), reduce="mean", window=100)

        def on_train_result(self, *, algorithm: Any, result: dict[str, Any], **kwargs: Any) -> None:
            if algorithm.iteration % self.args.snapshot_every == 0:
                refresh_snapshot(algorithm, algorithm.iteration // self.args.snapshot_every, self.args.pool_size)
            result["league_size"] = len(snapshot_ids(algorithm))

    return League


def snapshot_ids(algorithm: Any) -> list[str]:
    return sorted(m for m in algorithm.config.policies if m.startswith(SNAPSHOT))


def refresh_snapshot(algorithm: Any, refresh: int, pool_size: int) -> str:
    """Freeze ``main``'s current weights as snapshot number ``refresh`` (1, 2, ...): module
    ``snapshot_{(refresh - 1) % pool_size}``, added while the pool is short and then overwritten
    oldest first, so that no episode in flight loses the module it was mapped to."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    module_id = f"{SNAPSHOT}{(refresh - 1) % pool_size}"
    if module_id not in algorithm.config.policies:
        algorithm.add_module(module_id=module_id, module_spec=RLModuleSpec.from_module(algorithm.get_module(LEARNER)))
    algorithm.learner_group.set_weights({module_id: algorithm.learner_group.get_weights([LEARNER])[LEARNER]})
    algorithm.env_runner_group.sync_weights(
        from_worker_or_learner_group=algorithm.learner_group, policies=[module_id], inference_only=True
    )
    return module_id


# -- the algorithm -------------------------------------------------------------------------------
def learner_gpus(device: str) -> int:
    """GPUs of the (local) learner for ``--device``: 1 on CUDA, else 0; :class:`DeviceError`
    for an unknown or missing device, or a GPU index, which RLlib chooses itself."""
    if device.strip().lower().startswith("cuda:"):
        raise DeviceError(f"--device {device!r}: RLlib places its learner itself; give 'cuda', 'cpu' or 'auto'")
    return int(resolve_device(device).type == "cuda")


def league_spec(args: Args) -> Any:
    """The league of the batched path (``training.libraries.rllib_vector.LeagueSpec``)."""
    return rllib_vector.LeagueSpec(builtins=tuple(builtins_of(args)), selfplay_prob=args.selfplay_prob,
                                   pool_size=args.pool_size, snapshot_every=args.snapshot_every, seed=args.seed)


def build_config(args: Args) -> Any:
    """RLlib's ``PPOConfig`` of a run: the env, the league's mapping and callback, the masking module."""
    import functools

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from sniff_env.integrations.rllib import SniffMultiAgentEnv

    # PolicyNet's shape (two ReLU layers, linear heads), so the actor exports into it
    model = {
        "fcnet_hiddens": [args.hidden, args.hidden], "fcnet_activation": "relu", "head_fcnet_hiddens": [],
        "vf_share_layers": args.share_trunk,
    }
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
    if args.engine == "vector":
        config = rllib_vector.build_config(env_config(args), league_spec(args), args.num_env_runners,
                                           args.num_envs_per_env_runner, args.sample_timeout_s)
        config = config.rl_module(rl_module_spec=module)
    else:
        config = (
            PPOConfig()
            .environment(SniffMultiAgentEnv, env_config=env_config(args))
            .env_runners(
                num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner,
                sample_timeout_s=args.sample_timeout_s,
            )
            .multi_agent(policies={LEARNER}, policy_mapping_fn=module_for_agent, policies_to_train=[LEARNER])
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: module}))
            .callbacks(functools.partial(_league_callback(), args=asdict(args)))
        )
    return (
        config
        .learners(num_learners=0, num_gpus_per_learner=learner_gpus(args.device))
        .training(
            lr=args.learning_rate, gamma=args.gamma, lambda_=args.gae_lambda, clip_param=args.clip_coef,
            entropy_coeff=args.ent_coef, vf_loss_coeff=args.vf_coef, grad_clip=args.max_grad_norm,
            grad_clip_by="global_norm", train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size, num_epochs=args.num_epochs,
        )
        .debugging(seed=args.seed)
    )


def start_ray(args: Args) -> bool:
    """Join the cluster at ``--address`` or start a small Ray here; ``True`` when this call
    started the connection (and should shut it down). :class:`RayUnavailableError` otherwise."""
    try:
        import ray
    except ImportError:
        raise RayUnavailableError('Ray RLlib is not installed: pip install "sniff-env[rllib]"') from None
    if ray.is_initialized():
        return False
    if args.address:
        _check_reachable(args.address)
        try:  # the cluster's workers get the driver's thread policy (a local Ray inherits it)
            ray.init(address=args.address, logging_level="WARNING",
                     runtime_env={"env_vars": {"OMP_WAIT_POLICY": os.environ["OMP_WAIT_POLICY"]}})
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailableError(f"cannot join the Ray cluster at {args.address!r}: {exc}") from None
        return True
    ray.init(
        num_cpus=args.num_cpus, object_store_memory=args.object_store_mb * 1024 * 1024, include_dashboard=False,
        logging_level="WARNING",
    )
    return True


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast, with a readable error, where nothing listens at ``HOST:PORT``."""
    import socket

    if address == "auto":
        return
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        raise RayUnavailableError(f"--address must be 'auto', 'HOST:PORT' or 'ray://HOST:PORT'; got {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise RayUnavailableError(
            f"no Ray cluster answers at {address!r} ({exc}); start one with `ray start --head` there, "
            "or leave --address empty to run on this machine"
        ) from None


# -- export and evaluation -------------------------------------------------------------------------
ENCODERS = ("encoder.actor_encoder.", "encoder.encoder.")
"""The masking module's hidden layers: the actor's own encoder, or one shared with the critic."""
LAYERS = {"trunk.0": "net.mlp.0", "trunk.2": "net.mlp.2"}
HEADS = {"pi": "pi.net.mlp.0", "v": "vf.net.mlp.0"}


def policy_net(weights: Mapping[str, Any], rules: Rules, hidden: int) -> Any:
    """``training.lib.network.PolicyNet`` holding the actor of an ``ActionMaskingTorchRLModule`` (two
    ReLU layers, linear heads). Its skip weights stay 0; its value head is the module's where the
    critic shares the actor's layers (``share_trunk``), else it is left as built (an exported
    policy has no use for it)."""
    import torch

    encoder = next((e for e in ENCODERS if f"{e}net.mlp.0.weight" in weights), None)
    if encoder is None:
        raise ValueError(f"the RLModule has none of {', '.join(e + 'net.mlp.0.weight' for e in ENCODERS)}: "
                         "it is not a two-layer MLP masking module")
    pairs = {f"{ours}.{p}": f"{encoder}{theirs}.{p}" for ours, theirs in LAYERS.items() for p in ("weight", "bias")}
    heads = HEADS if encoder == "encoder.encoder." else {"pi": HEADS["pi"]}
    pairs |= {f"{ours}.{p}": f"{theirs}.{p}" for ours, theirs in heads.items() for p in ("weight", "bias")}
    net = make_net(rules, hidden, 0.0, "mlp")
    state = net.state_dict()
    for ours, theirs in pairs.items():
        value = torch.as_tensor(np.asarray(weights[theirs]), dtype=torch.float32)
        if value.shape != state[ours].shape:
            raise ValueError(
                f"the RLModule's {theirs} is {tuple(value.shape)}; these rules and --hidden {hidden} need "
                f"{tuple(state[ours].shape)} (a policy trained for other rules or another width)"
            )
        state[ours] = value
    net.load_state_dict(state)
    return net.eval()


def learner_net(algo: Any, rules: Rules, hidden: int, module: str = LEARNER) -> Any:
    return policy_net(algo.learner_group.get_weights([module])[module], rules, hidden)


def evaluate(net: Any, rules: Rules, args: Args, seed: int) -> dict[str, float]:
    """Win rate of the greedy policy against each evaluation opponent, on duplicate deals."""
    return {
        opp: evaluator(opp)(lambda x: net(x)[0], rules, opp, args.eval_games, seed, args.max_hands)
        for opp in filter(None, args.eval_opponents.split(","))
    }


def export_policy_file(net: Any, rules: Rules, out: str | Path, steps: int, args: dict[str, Any],
                       seconds: float | None) -> Path:
    """Write ``net`` as the project's policy file (``training.lib.network.export_policy``)."""
    return export_policy(net, out, policy_meta(rules, steps, "rllib-ppo", args, seconds))


def read_run(checkpoint: str | Path) -> dict[str, Any]:
    """The run file of a checkpoint folder written by this script; ``ValueError`` when absent."""
    path = Path(checkpoint) / RUN_FILE
    try:
        run: dict[str, Any] = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{checkpoint} is not a checkpoint of training/libraries/rllib_selfplay.py ({exc})") from None
    return run


def check_rules(run: dict[str, Any], rules: Rules, checkpoint: str | Path) -> None:
    if run["rules"] != rules.to_dict() or run["observation_version"] != Observer(rules).version:
        theirs = Rules.from_dict(run["rules"])
        raise ValueError(
            f"{checkpoint} was trained for {theirs.name} with {theirs.num_players} players "
            f"(layout {run['observation_version']}), not for the rules asked ({rules.name}, {rules.num_players} "
            "players); pass the run's --preset, --num-players and --rules"
        )


def export_checkpoint(checkpoint: str | Path, out: str | Path, rules: Rules) -> Path:
    """Export the learner of a checkpoint folder (no Ray cluster needed); ``ValueError`` unless it
    was trained for ``rules``."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    run = read_run(checkpoint)
    check_rules(run, rules, checkpoint)
    folder = Path(checkpoint).resolve() / "learner_group" / "learner" / "rl_module" / learner_module(run["args"])
    module = RLModule.from_checkpoint(folder)
    net = policy_net(module.state_dict(), rules, run["hidden"])
    return export_policy_file(net, rules, out, run["learner_steps"], run["args"], run.get("train_seconds"))


def save_checkpoint(algo: Any, run_dir: Path, run: dict[str, Any]) -> Path:
    """``Algorithm.save_to_path`` into ``run_dir/checkpoint`` with the run file (and, on the
    batched path, the league's snapshot pool), replacing the last one only once the new one is
    complete."""
    path, tmp, old = run_dir / "checkpoint", run_dir / "checkpoint.tmp", run_dir / "checkpoint.old"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    if run["args"].get("engine") == "vector":
        rllib_vector.save_league(tmp, rllib_vector.find_league(algo).snapshots)
    (tmp / RUN_FILE).write_text(json.dumps(run, sort_keys=True))
    if path.exists():
        path.rename(old)
    tmp.rename(path)
    shutil.rmtree(old, ignore_errors=True)
    return path


# -- training ----------------------------------------------------------------------------------------
def log_result(writer: Any, result: dict[str, Any], step: int, sps: float, module: str = LEARNER) -> None:
    """RLlib's result in the metric names of ``training/ppo.py``."""
    learner = result.get("learners", {}).get(module, {})
    runners = result.get("env_runners", {})
    for ours, theirs in (
        ("losses/policy_loss", "policy_loss"), ("losses/value_loss", "vf_loss"), ("losses/entropy", "entropy"),
        ("losses/approx_kl", "mean_kl_loss"), ("losses/explained_variance", "vf_explained_var"),
    ):
        if theirs in learner:
            writer.add_scalar(ours, float(learner[theirs]), step)
    writer.add_scalar("charts/SPS", sps, step)
    # the multi-agent env runners' key, or the single-agent ones' (--engine vector)
    ret = runners.get("module_episode_returns_mean", runners.get("module_episode_return_mean", {})).get(module)
    if ret is not None:
        writer.add_scalar("charts/episodic_return", float(ret), step)
    for key, value in runners.items():
        if key.startswith("league/"):
            writer.add_scalar(key, float(value), step)
    writer.add_scalar("league/size", float(result.get("league_size", 0)), step)


def learner_steps(result: dict[str, Any], module: str = LEARNER) -> int:
    """Learner decisions sampled over the run's lifetime."""
    lifetime = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return int(lifetime.get(module, 0))


def train(args: Args) -> Path:
    rules = build_rules(args)

    module = learner_module(args)
    check_league(args)
    export = export_path(args)  # a bad name is refused before Ray starts
    previous: dict[str, Any] = {}
    if args.resume:  # refuse a checkpoint of other rules or the other engine before Ray starts
        previous = read_run(args.resume)
        check_rules(previous, rules, args.resume)
        if learner_module(previous["args"]) != module:
            raise ValueError(f"{args.resume} was trained with --engine {previous['args'].get('engine', 'python')}; "
                             f"resume it with that engine, not {args.engine!r}")
    run_dir = Path(args.out_dir) / args.exp_name
    run_dir.mkdir(parents=True, exist_ok=True)
    started = start_ray(args)
    algo = None
    try:
        from ray import cloudpickle

        if __name__ != "__main__":  # env runners on other nodes need not hold this file
            cloudpickle.register_pickle_by_value(sys.modules[__name__])
        cloudpickle.register_pickle_by_value(rllib_vector)
        steps = 0
        if args.resume:
            from ray.rllib.algorithms.algorithm import Algorithm

            steps = int(previous.get("learner_steps", 0))
            algo = Algorithm.from_checkpoint(str(Path(args.resume).resolve()))
            if args.engine == "vector":
                rllib_vector.find_league(algo).restore(algo, rllib_vector.load_league(Path(args.resume)))
        else:
            algo = build_config(args).build_algo()
        writer = None
        if args.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            writer = SummaryWriter(str(run_dir / "tb"))
            writer.add_text("args", json.dumps(asdict(args)))
        start, last_steps = time.time(), steps
        run: dict[str, Any] = {
            "rules": rules.to_dict(), "observation_version": Observer(rules).version, "hidden": args.hidden,
            "args": asdict(args), "learner_steps": steps,
        }
        while algo.iteration < args.iterations:
            if args.time_budget_s and time.time() - start >= args.time_budget_s:
                break
            if args.total_timesteps and steps >= args.total_timesteps:
                break
            result = algo.train()
            steps = learner_steps(result, module)
            sps = (steps - last_steps) / max(float(result.get("time_this_iter_s", 0.0)), 1e-9)
            last_steps = steps
            status = f"iteration {algo.iteration}: {steps:,} learner decisions, {sps:,.0f}/s"
            if writer is not None:
                log_result(writer, result, steps, sps, module)
            if args.eval_every and algo.iteration % args.eval_every == 0:
                rates = evaluate(learner_net(algo, rules, args.hidden, module), rules, args, args.seed + algo.iteration)
                for opp, rate in rates.items():
                    status += f" vs {opp} {rate:.3f}"
                    if writer is not None:
                        writer.add_scalar(f"eval/winrate_vs_{opp}", rate, steps)
            print(status, flush=True)
            run.update(learner_steps=steps, iteration=algo.iteration, train_seconds=round(time.time() - start, 1))
            if args.checkpoint_every and algo.iteration % args.checkpoint_every == 0:
                save_checkpoint(algo, run_dir, run)
        run.update(train_seconds=round(time.time() - start, 1))
        path = save_checkpoint(algo, run_dir, run)
        if writer is not None:
            writer.close()
        export_policy_file(learner_net(algo, rules, args.hidden, module), rules, export, steps, asdict(args),
                           time.time() - start)
        print(f"exported {export}" + (f" (sniff eval {export} greedy)" if export.suffix == ".onnx" else ""))
        print(f"trained {steps:,} learner decisions in {time.time() - start:.0f} s; checkpoint {path}")
        return path
    finally:
        if algo is not None:
            algo.stop()
        if started:
            import ray

            ray.shutdown()


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
    except ConfigError as exc:
        raise SystemExit(f"error: {exc}") from None
    try:
        learner_gpus(args.device)  # refuse a bad device (a ValueError) before Ray starts
        if args.export_from:
            print(f"exported {export_checkpoint(args.export_from, export_path(args), build_rules(args))}")
            return 0
        train(args)
    except (RayUnavailableError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
