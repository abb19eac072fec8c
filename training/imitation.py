"""Warm-start a policy by imitation: learn a teacher's moves (and the value of its positions).

Self-play PPO from a blank network spends most of its budget rediscovering what any domino
player knows (score now, don't leave the next player a five). This script plays games with a
teacher (by default the ``heuristic`` player) in one seat and a mix of opponents in the others,
records the teacher's observations, masks and choices, and trains the same :class:`PolicyNet`
that ``training/ppo.py`` uses: cross-entropy on the teacher's move, and a value head regressed on
the discounted ``points`` return that PPO will use. The result is a checkpoint that
``training/ppo.py --init`` starts from, and (with ``--export``) a policy file.

With ``explore`` > 0 the teacher's seat sometimes plays a uniformly random legal move instead
(its label stays the teacher's choice), so that the student also sees positions that the
teacher alone would never reach. Games are generated in parallel worker processes; the data
depends only on ``seed``, not on the number of workers.

On the batched engine (``--engine vector``) the teacher may also value every legal move (the
compiled rollout search, or ``hindsight`` playouts on the real deal); the network then learns
those values (``--q-scale``: its logits, centred over the legal moves, regress on them) or their
softmax (``--soft-temperature``), and ``--actor`` lets another player, such as the student's own
exported policy, play the teacher's seat so that the labels fall on the student's positions.

    python -m training.imitation --config configs/training/imitation-sniff-2p.toml
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
import torch
from torch import nn

from sniff_env.atomic import atomic_path
from sniff_env.observation import observer_for
from sniff_env.players.guided import LOGIT_SCALE
from sniff_env.presets import PRESET_NAMES
from sniff_env.rules import Rules
from sniff_env.vector.engine import VectorEngine
from sniff_env.workers import max_workers
from training.lib.config import (
    FORCE_HELP,
    ConfigError,
    check_run_outputs,
    parse_config,
    rules_for,
    run_script,
)
from training.lib.device import DEVICE_HELP, cpu_module, cpu_state, host_view, resolve_device
from training.lib.evaluate import evaluator, masked_logits
from training.lib.imitation_record import Batch, RecordSettings, record_family, teacher_fn
from training.lib.init_weights import init_from
from training.lib.network import ARCHITECTURES, export_policy, make_net, policy_meta, save_atomic
from training.lib.run_args import RunArgs
from training.lib.torchscript import TRUST_HELP


@dataclass
class Args(RunArgs):
    FIELD_HELP: ClassVar[dict[str, str]] = {
        "seed": "seed of everything: games, torch, shuffles",
        "out_dir": "where runs write checkpoints",
        "export": "export the policy to this file",
    }
    exp_name: str = field(default="sniff-imitation", metadata={"help": "run name (folder under out_dir)"})
    presets: str = field(
        default="",
        metadata={"help": "train one network for several presets (comma-separated, or 'all'): the games are split "
                          "evenly between them, each is evaluated, and the policy plays them all ('preset' unused)"},
    )
    torch_threads: int = field(default=1, metadata={"min": 1, "help": "torch CPU threads"})
    device: str = field(default="auto", metadata={"help": f"where the network trains: {DEVICE_HELP}; games stay on the CPU"})
    teacher: str = field(default="heuristic", metadata={"help": "the player whose moves are learned"})
    opponents: str = field(
        default="heuristic,greedy,random", metadata={"help": "players drawn (uniformly, per game) for the other side"}
    )
    explore: float = field(default=0.1, metadata={"min": 0, "max": 1, "help": "chance that the teacher's seat plays a random legal move"})
    games: int = field(default=4000, metadata={"min": 1, "help": "games to record"})
    max_hands: int = field(default=40, metadata={"min": 1, "help": "a game ends after this many hands at most"})
    workers: int = field(default=2, metadata={"min": 1, "max": max_workers(), "help": "processes that play the games"})
    holdout: float = field(default=0.05, metadata={"min": 0, "below": 1, "help": "share of games kept out of training to measure agreement"})
    epochs: int = field(
        default=8, metadata={"min": 0, "help": "passes over the recorded decisions (0: none; they are still saved)"}
    )
    batch_size: int = field(default=512, metadata={"min": 1, "help": "decisions per gradient step"})
    learning_rate: float = field(default=1e-3, metadata={"above": 0, "help": "Adam learning rate (annealed to 0)"})
    vf_coef: float = field(default=0.5, metadata={"min": 0, "help": "value loss weight"})
    hidden: int = field(default=256, metadata={"min": 1, "help": "hidden units per layer (as training/ppo.py)"})
    arch: str = field(default="mlp", metadata={"choices": ARCHITECTURES, "help": "network: 'mlp', 'move', 'move-mobility' or 'move-tiles' (as training/ppo.py)"})
    move_hidden: int = field(
        default=64, metadata={"min": 1, "help": "with --arch move: units per layer of the shared move scorer"}
    )
    points_prior: float = field(default=5.0, metadata={"help": "initial weight of each move's points in its logit"})
    gamma: float = field(default=0.99, metadata={"min": 0, "max": 1, "help": "discount per own decision of the value target"})
    reward_scale: float = field(default=0.05, metadata={"above": 0, "help": "multiplier of the points return (as training/ppo.py)"})
    eval_games: int = field(default=200, metadata={"min": 1, "help": "duplicate games against each evaluation opponent"})
    eval_opponents: str = field(default="greedy,heuristic", metadata={"help": "evaluation opponents"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})
    engine: str = field(
        default="python",
        metadata={"choices": ("python", "vector"), "help": "'python' (any players) or 'vector' (batched engine; teacher heuristic, "
                          "rollouts:samples=N or hindsight, opponents greedy or heuristic)"},
    )
    soft_temperature: float = field(
        default=0.0,
        metadata={"min": 0, "help": "with a teacher that values every move (rollouts, hindsight): learn the softmax of its "
                          "move values (points) at this temperature instead of its single choice (0: its choice)"},
    )
    actor: str = field(
        default="",
        metadata={"help": "with engine 'vector': who plays the teacher's seat while recording: '' (the teacher; "
                          "heuristic for hindsight), a compiled built-in, or an exported policy file"},
    )
    q_scale: float = field(
        default=0.0,
        metadata={"min": 0, "help": "with a teacher that values every move (rollouts, hindsight): regress each legal move's "
                          "logit, centred over the legal moves, on its value times this (0: learn choices)"},
    )
    prior: float = field(
        default=0.0,
        metadata={"min": 0, "help": "expert iteration: with --init and --q-scale, learn the guided search's move scores, the "
                          "teacher's values plus this times the --init network's logit / 0.3 (as guided:prior=X scores "
                          "moves), instead of the values alone (0: the values alone)"},
    )
    choice_weight: float = field(
        default=0.0,
        metadata={"min": 0, "help": "with --q-scale: weight of a second term, minus the mean centred value of a move drawn "
                          "from the softmax of the logits / --choice-temperature, which pulls on the moves the policy would "
                          "play rather than on every move alike (0: none)"},
    )
    choice_temperature: float = field(
        default=0.25, metadata={"above": 0, "help": "with --choice-weight: the temperature of that softmax (logit units)"}
    )
    data: str = field(
        default="",
        metadata={"help": "train on the decisions runs saved (their teacher-data.npz; several comma-separated, "
                          "taken one after another) instead of recording"},
    )
    init: str = field(
        default="", metadata={"help": "start from this network (a checkpoint or an exported policy) instead of a blank one"}
    )
    force: bool = field(default=False, metadata={"help": FORCE_HELP})
    trust_code: bool = field(default=False, metadata={"help": f"with --init and --actor: {TRUST_HELP}"})


def load_data(paths: list[str], obs_size: int) -> Batch:
    """The decisions of saved runs (their ``teacher-data.npz``), one after another, each file's
    games numbered on after the last one's; ``SystemExit`` if a file holds other observations or
    other fields than the first."""
    parts: list[dict[str, np.ndarray]] = []
    offset = 0
    for path in paths:
        with np.load(path) as saved:
            part = {key: saved[key] for key in saved.files}
        if part["obs"].shape[1] != obs_size:
            raise SystemExit(f"{path} holds observations of another layout or other rules")
        if parts and set(part) != set(parts[0]):
            raise SystemExit(f"{path} holds other fields ({sorted(part)}) than {paths[0]} ({sorted(parts[0])})")
        part["games"] = part["games"] + offset
        offset = int(part["games"].max()) + 1 if len(part["games"]) else offset
        parts.append(part)
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _chunked_logits(net: nn.Module, obs: np.ndarray, chunk: int = 8192) -> Iterator[tuple[slice, torch.Tensor]]:
    """The network's logits on ``obs``, ``chunk`` rows at a time (the move network's features are
    large), each with the rows it covers; no gradients."""
    net = host_view(net, next(net.parameters()).device)
    with torch.no_grad():
        for lo in range(0, len(obs), chunk):
            rows = slice(lo, lo + chunk)
            yield rows, net(torch.from_numpy(obs[rows]))[0]


def agreement(net: nn.Module, data: Batch) -> float:
    """Share of decisions where the network's masked argmax is the teacher's move."""
    if len(data["actions"]) == 0:
        return float("nan")
    picks = [masked_logits(logits, torch.from_numpy(data["masks"][rows].astype(bool))).argmax(1).numpy()
             for rows, logits in _chunked_logits(net, data["obs"])]
    return float((np.concatenate(picks) == data["actions"]).mean())


def held_out_q_loss(net: nn.Module, data: Batch, q_scale: float) -> float:
    """:func:`centred_q_loss` of the network on ``data``'s move values times ``q_scale``."""
    if len(data["actions"]) == 0:
        return float("nan")
    total = sum(centred_q_loss(logits, torch.from_numpy(data["values"][rows]) * q_scale,
                               torch.from_numpy(data["masks"][rows].astype(bool))).item() * len(logits)
                for rows, logits in _chunked_logits(net, data["obs"]))
    return total / len(data["actions"])


def guided_values(net: nn.Module, data: Batch, prior: float) -> np.ndarray:
    """``data``'s move values plus ``prior`` times ``net``'s logits / :data:`LOGIT_SCALE`: the scores
    the guided player (``guided:prior=X``, this network as its agent) gives the moves, from which
    a round of expert iteration learns. Illegal moves stay ``-inf``."""
    scores = data["values"].copy()
    for rows, logits in _chunked_logits(net, data["obs"]):
        scores[rows] += np.float32(prior / LOGIT_SCALE) * logits.numpy()
    return scores


def centred_q_loss(logits: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor,
                   per_row: bool = False) -> torch.Tensor:
    """Mean squared error between the logits and the targets of the legal moves, each centred on
    its row's mean over the legal moves (a softmax policy only sees differences); rows weigh
    alike whatever their number of legal moves. ``per_row``: each row's error, not their mean."""
    m = mask.float()
    count = m.sum(1, keepdim=True).clamp(min=1.0)
    lg = torch.where(mask, logits, torch.zeros_like(logits))
    tg = torch.where(mask, targets, torch.zeros_like(targets)).to(logits.dtype)
    diff = (lg - (lg * m).sum(1, keepdim=True) / count) - (tg - (tg * m).sum(1, keepdim=True) / count)
    rows = (diff**2 * m).sum(1) / count.squeeze(1)
    return rows if per_row else rows.mean()


def choice_value_loss(logits: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor,
                      temperature: float) -> torch.Tensor:
    """Minus the mean, over rows, of the targets' value (centred over the legal moves) of a move
    drawn from the softmax of the legal logits / ``temperature``: lowest where the policy puts
    its weight on the moves with the best targets, whatever the logits of the others."""
    m = mask.float()
    tg = torch.where(mask, targets, torch.zeros_like(targets)).to(logits.dtype)
    centred = tg - (tg * m).sum(1, keepdim=True) / m.sum(1, keepdim=True).clamp(min=1.0)
    policy = torch.softmax(masked_logits(logits, mask) / temperature, dim=1)
    return -(policy * centred * m).sum(1).mean()


def family_of(args: Args) -> tuple[list[str], list[Rules]]:
    """The presets a run learns and their rules: ``presets`` ('all': every preset), else ``preset``;
    ``SystemExit`` for an unknown preset, a repeated one or rules of different observation layouts."""
    names = [args.preset] if not args.presets else (
        list(PRESET_NAMES) if args.presets.strip() == "all" else [s.strip() for s in args.presets.split(",") if s.strip()])
    unknown = [n for n in names if n not in PRESET_NAMES]
    if unknown or not names or len(set(names)) != len(names):
        raise SystemExit(f"--presets must name distinct presets (or 'all') from {', '.join(PRESET_NAMES)}; "
                         f"got {args.presets!r}")
    family = [rules_for(name, args.num_players, args.rules) for name in names]
    layouts = {(o.version, o.size) for o in map(observer_for, family)}
    if len(layouts) > 1:
        raise SystemExit(f"--presets {args.presets!r}: their observations differ ({sorted(layouts)}); one network "
                         "needs one layout")
    return names, family


def check_init(args: Args, rules: Rules) -> None:
    """Refuse a bad ``--init`` (``ConfigError``) before any game is recorded. The trial network
    is built on a forked generator, so the run draws what it would draw without the check."""
    with torch.random.fork_rng(devices=[]):
        init_from(make_net(rules, args.hidden, args.points_prior, args.arch, args.move_hidden), args.init,
                  rules, observer_for(rules).version, args.trust_code)


def check_teacher(args: Args, rules: Rules) -> None:
    """Refuse a ``--teacher`` the batched engine cannot seat (``ConfigError``, naming what it
    takes) before any game is recorded: the teacher is built once on a one-game engine."""
    try:
        teacher_fn(VectorEngine(rules, 1, threads=1), args.teacher, 1, args.seed)
    except ValueError as exc:
        raise ConfigError(f"--teacher {args.teacher!r}: {exc}") from exc


def train(args: Args) -> Path:
    device = resolve_device(args.device)
    names, family = family_of(args)
    rules = family[0]
    run_dir = Path(args.out_dir) / args.exp_name
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.torch_threads)
    shuffler = torch.Generator().manual_seed(args.seed + 1)
    start_time = time.time()
    if args.init:
        check_init(args, rules)
    if args.engine == "vector" and not args.data:
        check_teacher(args, rules)

    if args.data:
        data = load_data([s.strip() for s in args.data.split(",") if s.strip()], observer_for(rules).size)
    elif args.engine == "vector":
        from rich.progress import Progress

        with Progress(disable=not args.progress) as bar:
            task = bar.add_task("recording games", total=args.games)
            data = record_family(family, names, RecordSettings.of(args), lambda k: bar.advance(task, k))
    else:
        data = record_family(family, names, RecordSettings.of(args))
    if not args.data:
        run_dir.mkdir(parents=True, exist_ok=True)
        with atomic_path(run_dir / "teacher-data.npz", suffix=".tmp.npz") as tmp:
            np.savez(tmp, **data)
    held = data["games"] >= (data["games"].max() + 1) * (1.0 - args.holdout)
    train_set = {k: v[~held] for k, v in data.items()}
    test_set = {k: v[held] for k, v in data.items()}
    games = len(np.unique(data["games"])) if args.data else args.games
    print(f"{'loaded' if args.data else 'recorded'} {len(data['actions']):,} teacher decisions in {games:,} games "
          f"({time.time() - start_time:.0f} s); {len(test_set['actions']):,} held out")

    observer = observer_for(rules)
    valued = "values" in test_set and args.q_scale > 0  # the held-out fit of the move values is shown
    held_loss: float | None = None  # that fit for the network as it stands, once measured
    net = make_net(rules, args.hidden, args.points_prior, args.arch, args.move_hidden).to(device)
    if args.init:
        init_from(net, args.init, rules, observer.version, args.trust_code)
        fit = ""
        if valued:
            held_loss = held_out_q_loss(net, test_set, args.q_scale)
            fit = f", value loss held-out {held_loss:.3f}"
        print(f"from {args.init}: agreement held-out {agreement(net, test_set):.3f}{fit}")
        if args.prior > 0:  # the targets become the guided search's scores with this network as its prior
            for part in (train_set, test_set):
                part["values"] = guided_values(net, part, args.prior)
            held_loss = held_out_q_loss(net, test_set, args.q_scale)
            print(f"targets: the search's values plus {args.prior} x the network's logit / {LOGIT_SCALE}; "
                  f"value loss held-out {held_loss:.3f}")
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    obs_t = torch.from_numpy(train_set["obs"]).to(device)
    mask_t = torch.from_numpy(train_set["masks"].astype(bool)).to(device)
    act_t = torch.from_numpy(train_set["actions"]).to(device)
    soft_t = q_t = None
    if (args.soft_temperature > 0 or args.q_scale > 0) and "values" not in train_set:
        raise SystemExit("--soft-temperature and --q-scale need a teacher that values every move "
                         "(rollouts:samples=N or hindsight)")
    if args.soft_temperature > 0:
        soft_t = torch.softmax(torch.from_numpy(train_set["values"]) / args.soft_temperature, dim=1).to(device)
    elif args.q_scale > 0:
        q_t = torch.from_numpy(train_set["values"]).to(device)
    ret_t = torch.from_numpy(train_set["returns"]).to(device)
    size = len(act_t)
    steps = args.epochs * max(1, (size + args.batch_size - 1) // args.batch_size)
    step = 0
    for epoch in range(args.epochs):
        order = torch.randperm(size, generator=shuffler)
        losses: list[float] = []
        for lo in range(0, size, args.batch_size):
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - step / steps)
            idx = order[lo : lo + args.batch_size].to(device)
            logits, value = net(obs_t[idx])
            if q_t is not None:
                target = q_t[idx] * args.q_scale
                pi_loss = centred_q_loss(logits, target, mask_t[idx])
                if args.choice_weight > 0:
                    pi_loss = pi_loss + args.choice_weight * choice_value_loss(
                        logits, target, mask_t[idx], args.choice_temperature)
            elif soft_t is None:
                pi_loss = nn.functional.cross_entropy(masked_logits(logits, mask_t[idx]), act_t[idx])
            else:
                logp = torch.log_softmax(masked_logits(logits, mask_t[idx]), dim=1)
                pi_loss = -(soft_t[idx] * logp).sum(1).mean()
            v_loss = 0.5 * ((value - ret_t[idx]) ** 2).mean()
            loss = pi_loss + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimizer.step()
            losses.append(pi_loss.item())
            step += 1
        fit = ""
        if valued:
            held_loss = held_out_q_loss(net, test_set, args.q_scale)
            fit = f", value loss held-out {held_loss:.3f}"
        print(f"epoch {epoch + 1}/{args.epochs}: policy loss {np.mean(losses):.3f}, "
              f"agreement train {agreement(net, train_set):.3f} held-out {agreement(net, test_set):.3f}{fit}")
    net.eval()
    results: dict[str, float] = {"agreement": agreement(net, test_set)}
    if valued:
        results["held_out_q_loss"] = held_loss if held_loss is not None else held_out_q_loss(net, test_set, args.q_scale)
    host = host_view(net, device)
    for name, each in zip(names, family, strict=True):
        where = f" ({name})" if len(family) > 1 else ""
        for opp in filter(None, (s.strip() for s in args.eval_opponents.split(","))):
            key = f"win_rate_vs_{opp}" + (f"@{name}" if len(family) > 1 else "")
            results[key] = evaluator(opp)(lambda x: host(x)[0], each, opp, args.eval_games, args.seed + 7,
                                          args.max_hands)
            print(f"win rate against {opp}{where}: {results[key]:.3f} ({args.eval_games} duplicate games)")
    path = run_dir / "checkpoint.pt"
    save_atomic(
        {
            "model": cpu_state(net.state_dict()), "args": asdict(args), "rules": rules.to_dict(),
            "rules_family": [r.to_dict() for r in family],
            "observation_version": observer.version, "global_step": 0, "imitation": results,
            "imitation_decisions": size,
        },
        path,
    )
    if args.export:
        meta = policy_meta(rules, 0, "imitation", asdict(args), time.time() - start_time, family)
        export_policy(cpu_module(net), args.export, meta)
    print(f"imitation done in {time.time() - start_time:.0f} s; checkpoint {path}")
    return path


def main(argv: list[str] | None = None) -> int:
    args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
    resolve_device(args.device)  # refuse a missing device before recording any game
    if args.engine != "vector" and (args.actor or args.teacher == "hindsight"):
        raise SystemExit("--actor and the hindsight teacher need --engine vector")
    if args.soft_temperature > 0 and args.q_scale > 0:
        raise SystemExit("give --soft-temperature or --q-scale, not both")
    if args.choice_weight > 0 and args.q_scale == 0:
        raise SystemExit("--choice-weight needs --q-scale (it weighs the same move values)")
    if args.prior > 0 and not (args.init and args.q_scale > 0):
        raise SystemExit("--prior needs --init (the network that guides the search) and --q-scale (the scores are learned "
                         "as move values)")
    check_run_outputs(args.out_dir, args.exp_name, args.export, args.force)
    train(args)
    return 0


if __name__ == "__main__":
    run_script(main)
