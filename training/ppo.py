"""Self-play PPO with action masking for Sniff, in the spirit of CleanRL's single-file scripts.

One policy plays every seat from seat-relative observations. Each game is either pure
self-play (every seat is the learner) or the learner in one seat against an opponent drawn
from a pool of its own past snapshots and built-in players, so that it does not chase its own
tail. Rewards are dense ``points`` (each side's score change minus the opponents' mean) or
``game`` (+1/-1 at the end). Checkpoints are written atomically and resumable; the final
policy is exported (``--export``) to an ONNX file that ``sniff_env.players.load`` plays (NAME.onnx)
or a TorchScript file the training tools go on from (NAME.pt).

The games are played on the batched engine and collected by one path, the batched collector
(:class:`training.lib.collector.Collector`; ``--overlap`` splits it in two halves). The run's
arguments are :class:`Args`: the fields every trainer has (:class:`training.lib.run_args.RunArgs`),
the network's, the update's, the league's and the evaluations' (:mod:`training.lib.ppo_args`) and
the run's own below, all filled by flat TOML keys and flags.

    python -m training.ppo --config configs/training/sniff-2p.toml --total-steps 200000
"""

from __future__ import annotations

import random
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import nn

from sniff_env.observation import observer_for
from sniff_env.players.specs import split_specs
from sniff_env.rules import Rules
from training.lib.collector import Collector, CollectorConfig
from training.lib.config import (
    FORCE_HELP,
    ConfigError,
    check_run_outputs,
    parse_config,
    rules_for,
    run_script,
)
from training.lib.device import (
    DEVICE_HELP,
    PRECISION_HELP,
    PRECISIONS,
    cpu_module,
    cpu_state,
    host_view,
    precision,
    resolve_device,
)
from training.lib.evaluate import LogitsFn, evaluator, masked_logits
from training.lib.experience import INPUT, ExperienceSettings, VectorSelfPlay, reward_scale
from training.lib.init_weights import init_from, matching_checkpoint
from training.lib.network import (
    export_policy,
    forward_inputs,
    make_net,
    policy_meta,
    prepare_inputs,
    save_atomic,
)
from training.lib.overlap import OverlappedCollector
from training.lib.ppo_args import EvalArgs, LeagueArgs, NetworkArgs, UpdateArgs
from training.lib.privileged import tile_guess_loss
from training.lib.progress import ProgressLines, TimeLeftColumn, closing_summary
from training.lib.run_args import RunArgs
from training.lib.torchscript import TRUST_HELP

ENGINES = ("vector", "python")
"""``--engine``: the batched engine; ``python`` is deprecated (see :func:`deprecations`)."""
COLLECTORS = ("fast", "exact", "reference")
"""``--collector``: the batched collector's two draws; ``reference`` is deprecated (see :func:`deprecations`)."""
NO_STEP_BUDGET = 2**62
"""``--total-steps`` at least this: no step budget, the ``--stop-seconds`` clock ends the run."""
RESUME_AUTO = "auto"
"""``--resume auto``: go on from the run's own checkpoint where there is one."""


@dataclass
class Args(EvalArgs, LeagueArgs, UpdateArgs, NetworkArgs, RunArgs):
    """A PPO run: the groups' fields (the bases) and the run's own (budget, games, rewards, device,
    checkpoints, engine and collector)."""

    exp_name: str = field(default="sniff-ppo", metadata={"help": "run name (folder under out_dir)"})
    torch_threads: int = field(default=1, metadata={"min": 1, "help": "torch CPU threads"})
    device: str = field(default="auto", metadata={"help": f"where the network trains: {DEVICE_HELP}; the engine stays on the CPU"})
    total_steps: int = field(default=1_000_000, metadata={"min": 1, "help": "engine decisions to train on (num_envs x num_steps an iteration; the learner's own are a share of them: forced moves and, against opponents, their turns are not); 2**62 or more: no step budget, --stop-seconds ends the run"})
    stop_after: int = field(
        default=0,
        metadata={"min": 0, "help": "stop after this many iterations, the learning rate still annealed over total_steps "
                          "(0: run them all)"},
    )
    stop_seconds: float = field(
        default=0.0,
        metadata={"min": 0, "help": "stop, with a checkpoint, at the end of the first iteration that ends this many "
                          "seconds after the run (or its resumption) started: a sitting that fits a wall-clock "
                          "allowance (0: no limit)"},
    )
    num_envs: int = field(default=64, metadata={"min": 1, "help": "games played at once"})
    num_steps: int = field(default=64, metadata={"min": 1, "help": "engine decisions per game per iteration"})
    reward: str = field(default="points", metadata={"choices": ("points", "game"), "help": "'points' (dense) or 'game' (+1/-1 at the end)"})
    reward_scale: float = field(default=0.05, metadata={"above": 0, "help": "multiplier of 'points' rewards"})
    max_hands: int = field(default=40, metadata={"min": 1, "help": "a game ends after this many hands at most"})
    checkpoint_every: int = field(default=25, metadata={"min": 0, "help": "iterations between checkpoints"})
    resume: str = field(default="", metadata={"help": "checkpoint file to resume from; 'auto': the run's own "
                                                      "<out_dir>/<exp_name>/checkpoint.pt where one exists (a stopped "
                                                      "run goes on), else a new run"})
    init: str = field(
        default="",
        metadata={"help": "start a new run from this network: a checkpoint (e.g. training/imitation.py's) or an "
                          "exported policy file (e.g. a shipped agent)"},
    )
    force: bool = field(default=False, metadata={"help": FORCE_HELP})
    trust_code: bool = field(default=False, metadata={"help": f"with --init: {TRUST_HELP}"})
    tensorboard: bool = field(default=True, metadata={"help": "log to TensorBoard"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})
    engine: str = field(
        default="vector",
        metadata={"choices": ENGINES, "help": "'vector': the batched, compiled engine; 'python' is deprecated and goes "
                          "in the next release (it was the reference engine: the run now plays on the batched one, "
                          "with a DeprecationWarning)"},
    )
    overlap: bool = field(
        default=False,
        metadata={"help": "with the fast or exact collector: split the --num-envs games (an even number) into two "
                          "batches, one stepping on the engine's threads while the network scores the other"},
    )
    precision: str = field(default="fp32", metadata={"choices": PRECISIONS, "help": PRECISION_HELP})
    collector: str = field(
        default="fast",
        metadata={"choices": COLLECTORS, "help": "'fast' (buffers on the device, draws over the legal moves alone, "
                          "the snapshots in one stacked pass) or 'exact' (the same buffers, drawing as the earlier "
                          "per-step collector did: the same batches from the same state); 'reference' is deprecated "
                          "and goes in the next release (it was that per-step collector: the run now collects with "
                          "'exact', with a DeprecationWarning)"},
    )


def build_rules(args: Args) -> Rules:
    rules: Rules = rules_for(args.preset, args.num_players, args.rules)
    return rules


def deprecations(args: Args) -> list[str]:
    """What each deprecated choice in ``args`` now does and what to give instead (one message each)."""
    said = []
    if args.engine == "python":
        said.append("--engine python is deprecated and goes in the next release: PPO collects on the batched engine "
                    "alone, so this run plays there (the same rules; the built-in opponents are their compiled "
                    "twins, other draws); give --engine vector")
    if args.collector == "reference":
        said.append("--collector reference is deprecated and goes in the next release: PPO collects with the "
                    "batched collector alone, so this run collects with --collector exact, which draws as the "
                    "per-step collector did (the same batches from the same state); give --collector exact")
    return said


def league_games(args: Args, rules: Rules, num_envs: int, rng: random.Random) -> VectorSelfPlay:
    """``num_envs`` batched games seated from the run's league (their seed drawn from ``rng``)."""
    return VectorSelfPlay(rules, num_envs, rng.getrandbits(40), args.reward, args.max_hands, args.selfplay_prob, rng,
                          tuple(split_specs(args.builtin_opponents)), args.search_threads, args.alternate_seats)


def make_collector(args: Args, vplay: VectorSelfPlay, net: nn.Module, device: torch.device,
                   rng: random.Random | None = None) -> Collector | OverlappedCollector:
    """The run's batched collector over ``vplay``'s games, or with ``--overlap`` over them and a
    second batch as many (seeded from ``rng``; ``vplay`` holds half the run's games), each half's
    engine stepping while the other chooses. ``--collector exact`` (and the deprecated
    ``reference``) draws as the earlier per-step collector did. :class:`ConfigError` when its
    buffers do not fit."""
    config = CollectorConfig(args.num_steps, args.gamma, args.gae_lambda, reward_scale(ExperienceSettings.of(args)),
                             args.collector != "fast")
    first = Collector(vplay, config, net, device)
    if not args.overlap:
        return first
    other = league_games(args, vplay.rules, vplay.env.num_envs, rng or random.Random(args.seed))
    return OverlappedCollector(first, Collector(other, config, net, device))


class RunHook(Protocol):
    """What a driver built on :func:`train` adds to a run (``training/exploit.py``'s evaluations)."""

    def __call__(self, policy: LogitsFn, net: nn.Module, step: int, iteration: int, seconds: float,
                 last: bool) -> str:
        """Called once before the first iteration, after every iteration and once after the last
        (``last``) with the policy (observations -> logits, on the CPU), the network itself (to
        copy, not to change), the learner decisions and iterations so far and the seconds
        trained (the hook's own time left out, of ``--stop-seconds`` too); what it returns joins
        the progress line (and is printed)."""
        ...


def train(args: Args, hook: RunHook | None = None) -> Path:
    """Run PPO as ``args`` say; the checkpoint's path. With ``hook`` (see :class:`RunHook`) the
    driver prints the closing summary, not this function. A deprecated choice in ``args`` (see
    :func:`deprecations`) runs as its message says, with a :class:`DeprecationWarning`."""
    for message in deprecations(args):
        warnings.warn(message, DeprecationWarning, stacklevel=2)
    device = resolve_device(args.device)
    rules = build_rules(args)
    run_dir = Path(args.out_dir) / args.exp_name
    # -- seeding: one block, every generator explicit -------------------------------------
    random_gen = random.Random(args.seed)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.torch_threads)
    sampler = torch.Generator().manual_seed(args.seed + 1)

    version = observer_for(rules).version
    pool: list[dict[str, torch.Tensor]] = []  # the learner's past snapshots, opponents in the league
    episode_returns: list[float] = []  # the learner's results (1 won, 0 not) in games against opponents
    vplay = league_games(args, rules, args.num_envs // 2 if args.overlap else args.num_envs, random_gen)
    net = make_net(rules, args.hidden, args.points_prior, args.arch, args.move_hidden, args.critic,
                   args.aux_tiles > 0).to(device)
    if args.fix_tiles:
        net.fix_tiles()
    host = host_view(net, device)  # what the CPU-side evaluations and the hook call
    collector = make_collector(args, vplay, net, device, random_gen)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    global_step, iteration, start_time = 0, 0, time.time()
    steps_per_iter = args.num_envs * args.num_steps
    num_iterations = max(1, args.total_steps // steps_per_iter)
    last_iteration = min(num_iterations, args.stop_after) if args.stop_after > 0 else num_iterations

    if args.init and not args.resume:
        init_from(net, args.init, rules, version, args.trust_code)
        if args.pool_size:
            pool.append(cpu_state(net.state_dict()))

    if args.resume:
        ckpt = matching_checkpoint(args.resume, rules, version)
        net.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        global_step, iteration = ckpt["global_step"], ckpt["iteration"]
        pool = ckpt["pool"]
        random_gen.setstate(ckpt["random_state"])
        sampler.set_state(ckpt["sampler_state"])
        torch.set_rng_state(ckpt["torch_state"])

    writer = None
    if args.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir / "tb"))
        writer.add_text("args", str(asdict(args)))

    def save_checkpoint() -> Path:
        path = run_dir / "checkpoint.pt"
        save_atomic(
            {
                "model": cpu_state(net.state_dict()), "optimizer": cpu_state(optimizer.state_dict()),
                "args": asdict(args),
                "rules": rules.to_dict(), "observation_version": version,
                "global_step": global_step, "iteration": iteration, "pool": pool,
                "random_state": random_gen.getstate(), "sampler_state": sampler.get_state(),
                "torch_state": torch.get_rng_state(),
            },
            path,
        )
        return path

    import sys

    from rich.progress import BarColumn, Progress, TextColumn

    on_terminal = sys.stdout.isatty()
    budget = None if args.total_steps >= NO_STEP_BUDGET else last_iteration * steps_per_iter
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(),
        TextColumn("{task.completed:,}" + ("/{task.total:,}" if budget else "")),
        TextColumn("{task.fields[status]}"), TimeLeftColumn(start_time, args.stop_seconds),
        disable=not (args.progress and on_terminal),
    )
    # the bar and the lines count engine decisions, as the step budget does (the learner's are a share of them)
    task = progress.add_task(args.exp_name, total=budget, completed=iteration * steps_per_iter, status="")
    lines = ProgressLines(args.exp_name, budget, start_time, args.stop_seconds, enabled=args.progress and not on_terminal)
    last_eval: dict[str, Any] = {}
    best_rate = -1.0
    hook_s = 0.0  # seconds spent in the hook, left out of the run's clock

    def call_hook(last: bool = False) -> str:
        nonlocal hook_s
        if hook is None:
            return ""
        t0 = time.time()
        said = hook(lambda x: host(x)[0], net, global_step, iteration, t0 - start_time - hook_s, last)
        hook_s += time.time() - t0
        return said

    def say(said: str) -> None:  # the hook's words before and after the iterations
        lines.update(iteration * steps_per_iter, said, force=True)
        if not args.progress:
            print(f"step {global_step:,} iteration {iteration}: {said}", flush=True)

    if said := call_hook():
        say(said)
    with progress:
        while iteration < last_iteration:
            iteration += 1
            if args.anneal_lr:
                frac = 1.0 - (iteration - 1.0) / num_iterations
                optimizer.param_groups[0]["lr"] = frac * args.learning_rate
            with precision(args.precision, device):
                batch, sps = collector.collect(net, pool, sampler)
            episode_returns += collector.pop_wins()
            global_step += len(batch["actions"])
            with precision(args.precision, device):
                stats = update(args, net, optimizer, batch, sampler)
            if args.pool_size and iteration % args.snapshot_every == 0:
                pool.append(cpu_state(net.state_dict()))
                del pool[: -args.pool_size]
            status = f"{global_step:,} learner decisions, SPS {sps:,.0f}"
            if writer is not None:
                for key, value in stats.items():
                    writer.add_scalar(key, value, global_step)
                writer.add_scalar("charts/SPS", sps, global_step)
                writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
                if episode_returns:
                    writer.add_scalar("charts/episodic_return", float(np.mean(episode_returns)), global_step)
                    episode_returns.clear()
            if args.eval_every and iteration % args.eval_every == 0:
                last_eval = {}
                for opp in split_specs(args.eval_opponents):
                    rate = evaluator(opp, args.search_threads)(
                        lambda x: host(x)[0], rules, opp, args.eval_games, args.seed + iteration, args.max_hands
                    )
                    status += f" vs {opp} {rate:.3f}"
                    last_eval = {"step": global_step, "rates": {**last_eval.get("rates", {}), opp: rate}}
                    if opp == args.select_on and rate > best_rate:
                        best_rate = rate
                        meta = policy_meta(rules, global_step, "ppo", asdict(args), time.time() - start_time)
                        export_policy(cpu_module(net), run_dir / "best.pt", meta | {"selected_win_rate": rate})
                    if writer is not None:
                        writer.add_scalar(f"eval/winrate_vs_{opp}", rate, global_step)
            if said := call_hook():
                status += f"; {said}"
            if args.checkpoint_every and iteration % args.checkpoint_every == 0:
                save_checkpoint()
            progress.update(task, completed=iteration * steps_per_iter, status=status)
            lines.update(iteration * steps_per_iter, status, force=" vs " in status or bool(said))
            if not args.progress and (" vs " in status or said):
                print(f"step {global_step:,} iteration {iteration}: {status}", flush=True)
            if args.stop_seconds and time.time() - start_time - hook_s >= args.stop_seconds:
                break
    if said := call_hook(last=True):
        say(said)
    ckpt_path = save_checkpoint()
    if writer is not None:
        writer.close()
    if args.export:
        meta = policy_meta(rules, global_step, "ppo", asdict(args), time.time() - start_time - hook_s)
        export_policy(cpu_module(net), args.export, meta)
    if hook is not None:
        return ckpt_path
    for line in closing_summary(args.exp_name, global_step, time.time() - start_time, ckpt_path, args.export or None,
                                run_dir / "tb" if writer is not None else None, last_eval):
        print(line, flush=True)
    return ckpt_path


def update(
    args: UpdateArgs, net: nn.Module, optimizer: torch.optim.Optimizer, batch: dict[str, torch.Tensor],
    sampler: torch.Generator,
) -> dict[str, float]:
    """PPO's clipped update over the batch (moved to the network's device); returns the standard metrics."""
    device = next(net.parameters()).device
    on_device = {key: value.to(device) for key, value in batch.items()}
    # once: what depends on the observations alone (the collection's own, when it kept them)
    kept = {key.removeprefix(INPUT): value for key, value in on_device.items() if key.startswith(INPUT)}
    inputs = ({"obs": on_device["obs"]} | kept) if kept else prepare_inputs(net, on_device["obs"])
    size = len(batch["actions"])
    mb = max(1, size // args.num_minibatches)
    critic, guess = getattr(net, "critic", None), getattr(net, "tile_guess", None)
    clipfracs: list[torch.Tensor] = []
    sums: dict[str, list[torch.Tensor]] = {}
    for _ in range(args.update_epochs):
        order = torch.randperm(size, generator=sampler)
        for start in range(0, size, mb):
            idx = order[start : start + mb].to(device)
            if guess is None:
                logits, value = forward_inputs(net, inputs, idx)
            else:  # the mlp's trunk features feed the policy and the tile-guessing head alike
                logits, value, h = net.heads(inputs["obs"].index_select(0, idx))
            if critic is not None:
                value = critic(inputs["obs"].index_select(0, idx), on_device["hidden"].index_select(0, idx))
            logits = masked_logits(logits, on_device["masks"][idx])
            logp_all = torch.log_softmax(logits, -1)
            newlogp = logp_all.gather(1, on_device["actions"][idx][:, None]).squeeze(1)
            # softmax, not logp_all.exp(): the same probabilities, while exp of a masked action's
            # huge negative log-probability takes the CPU's slow path (about 13x slower)
            probs = torch.softmax(logits, -1)
            entropy = -(probs * logp_all.clamp(min=-1e8)).sum(-1)
            logratio = newlogp - on_device["logprobs"][idx]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean())
            adv = on_device["advantages"][idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_loss = 0.5 * ((value - on_device["returns"][idx]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            if guess is not None:
                tile_loss = tile_guess_loss(guess(h), on_device["hidden"].index_select(0, idx))
                loss = loss + args.aux_tiles * tile_loss
                sums.setdefault("losses/tile_guess", []).append(tile_loss.detach())
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            optimizer.step()
            for key, value in (
                ("losses/policy_loss", pg_loss), ("losses/value_loss", v_loss),
                ("losses/entropy", entropy.mean()), ("losses/approx_kl", approx_kl),
            ):
                sums.setdefault(key, []).append(value.detach())
    # read once at the end: a read per minibatch would wait for a GPU every time
    stats = {key: float(torch.stack(values).double().mean()) for key, values in sums.items()}
    y_pred, y_true = batch["values"].cpu().numpy(), batch["returns"].cpu().numpy()
    var_y = np.var(y_true)
    stats["losses/explained_variance"] = float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y)
    stats["losses/clipfrac"] = float(torch.stack(clipfracs).double().mean()) if clipfracs else 0.0
    return stats


def main(argv: list[str] | None = None) -> int:
    args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
    resolve_device(args.device)  # refuse a missing device before anything starts
    if args.select_on and args.select_on not in split_specs(args.eval_opponents):
        raise SystemExit(f"--select-on {args.select_on!r} must be one of --eval-opponents ({args.eval_opponents})")
    if (args.critic == "full" or args.aux_tiles) and (args.engine != "vector" or args.collector == "reference"):
        raise SystemExit("--critic full and --aux-tiles read the batched engine's hidden tiles: they need --engine "
                         f"vector and the fast or exact --collector; got engine {args.engine!r}, collector {args.collector!r}")
    if args.fix_tiles and args.arch != "move-tiles":
        raise SystemExit(f"--fix-tiles keeps the tile attention of --arch move-tiles fixed; --arch {args.arch!r} has none")
    if args.aux_tiles and args.arch != "mlp":
        raise SystemExit(f"--aux-tiles reads the mlp network's trunk: it needs --arch mlp, not {args.arch!r}")
    if args.overlap and (args.engine != "vector" or args.collector == "reference" or args.num_envs % 2):
        raise SystemExit("--overlap needs --engine vector, the fast or exact --collector and an even --num-envs; "
                         f"got engine {args.engine!r}, collector {args.collector!r}, num_envs {args.num_envs}")
    if args.resume == RESUME_AUTO:
        own = Path(args.out_dir) / args.exp_name / "checkpoint.pt"
        args.resume = str(own) if own.is_file() else ""
    check_run_outputs(args.out_dir, args.exp_name, args.export, args.force, resuming=bool(args.resume))
    try:
        train(args)
    except torch.OutOfMemoryError as exc:  # checkpoints and exports are atomic: nothing is left half-written
        raise ConfigError(
            f"the device ran out of memory ({str(exc).splitlines()[0]}): lower --num-envs or --num-steps (the experience "
            f"buffers) or raise --num-minibatches (the update's batches); the last checkpoint in "
            f"{Path(args.out_dir) / args.exp_name} is whole"
        ) from None
    return 0


if __name__ == "__main__":
    run_script(main)
