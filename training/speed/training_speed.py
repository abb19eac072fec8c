"""End-to-end learner decisions per second of ``training/ppo.py --engine vector``, per network.

Each network (``--archs``) trains with each collector (``--collectors``: ``fast``, ``exact`` or the
earlier ``reference``) as ``training/ppo.py`` does (the same collection on the batched engine, the
same PPO update, the same pool of snapshots) from a blank start; in-training evaluation is off.
After one warm-up iteration (kernels loaded), each of ``--repeats`` timed stretches of
``--iterations`` iterations gives learner decisions (stored decisions with a choice, what
``--total-steps`` counts) per second of collection plus update; the table shows the median, the
share of the time spent collecting, and the **network busy share**: the time in the networks'
forward passes and the update over the whole (what a device could at best be kept busy with).
The **plumbing** line times the fast collector with a policy that costs nothing
(:class:`ZeroPolicy`) at ``--plumbing-envs`` games: how fast the collector alone can go, beside
the batched engine alone in the same games. One more, untimed iteration counts the
network's floating-point operations per learner decision (collection's forward passes and the
update's, by torch's FLOP counter); over this machine's measured matrix-product peak
(:func:`matmul_peak`, at the same threads) they give the **arithmetic ceiling**: the most
decisions/s this network and update could reach here if everything else took no time.
``--precisions fp32,bf16`` times each row also with ``ppo.py --precision bf16`` (its ceiling over
the bfloat16 matrix-product peak), ``--tiles free,fixed`` each ``move-tiles`` row also with
``ppo.py --fix-tiles``, ``--hidden`` and ``--move-hidden`` size the networks, and
``--num-minibatches`` sets the update's minibatches.

    python -m training.speed.training_speed --collectors fast,reference --out checkpoints/results/training-speed.json
    python -m training.speed.training_speed --archs move --device cuda --num-envs 2048
    python -m training.speed.training_speed --archs move-tiles --hidden 512 --move-hidden 192 --tiles free,fixed
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from training import ppo
from training.lib.config import run_script
from training.lib.device import DEVICE_HELP, PRECISIONS, cpu_state, host_view, precision, resolve_device
from training.lib.experience import ExperienceSettings, VectorSelfPlay
from training.lib.network import ARCHITECTURES, make_net
from training.lib.reference_collector import SelfPlay, collect_vector

PEAK_SIZE = 1024
"""Side of the square float32 matrices :func:`matmul_peak` multiplies."""


def matmul_peak(device: torch.device, repeats: int = 7, dtype: torch.dtype = torch.float32) -> float:
    """Floating-point operations per second of a square matrix product of ``dtype`` on ``device``
    at torch's present thread count (the median of ``repeats`` timings)."""
    a = torch.randn(PEAK_SIZE, PEAK_SIZE, device=device, dtype=dtype)
    b = torch.randn(PEAK_SIZE, PEAK_SIZE, device=device, dtype=dtype)
    times = []
    for _ in range(repeats + 1):
        t0 = time.perf_counter()
        torch.mm(a, b)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append(time.perf_counter() - t0)
    return 2 * PEAK_SIZE**3 / statistics.median(times[1:])


def stretch(args: ppo.Args, iterations: int, repeats: int, device: torch.device) -> tuple[list[dict[str, float]], float]:
    """``repeats`` timed stretches of ``iterations`` PPO iterations after one warm-up; each gives
    learner decisions and the seconds spent collecting, updating and in the networks' forward
    passes. Also the network's floating-point operations per learner decision, counted over one
    more, untimed iteration."""
    rules = ppo.build_rules(args)
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    sampler = torch.Generator().manual_seed(args.seed + 1)
    play = SelfPlay(ExperienceSettings.of(args), rules, rng, games=False)
    vplay = VectorSelfPlay(
        rules, args.num_envs // 2 if args.overlap else args.num_envs, rng.getrandbits(40), args.reward,
        args.max_hands, args.selfplay_prob, rng, tuple(filter(None, args.builtin_opponents.split(","))),
    )
    net = make_net(rules, args.hidden, args.points_prior, args.arch, args.move_hidden).to(device)
    if args.fix_tiles:
        net.fix_tiles()
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    # 'reference': the earlier per-step collector (training.lib.reference_collector), ppo.py's no longer
    collector = None if args.collector == "reference" else ppo.make_collector(args, vplay, net, device, rng)
    host = host_view(net, device)
    done = 0

    def iteration() -> tuple[int, float, float, float]:
        nonlocal done
        vplay.pool_size = len(play.pool)
        t0 = time.perf_counter()
        forward_s = collector.network_s if collector else 0.0
        with precision(args.precision, device):
            if collector is not None:
                batch, _ = collector.collect(net, play.pool, sampler)
            else:
                batch, _ = collect_vector(ExperienceSettings.of(args), vplay, host, lambda i: host_view(play.frozen(i, net), device), sampler)
        t1 = time.perf_counter()
        with precision(args.precision, device):
            ppo.update(args, net, optimizer, batch, sampler)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t2 = time.perf_counter()
        done += 1
        if done % args.snapshot_every == 0:
            play.pool.append(cpu_state(net.state_dict()))
            del play.pool[: -args.pool_size]
        forward_s = (collector.network_s - forward_s) if collector else float("nan")
        return len(batch["actions"]), t1 - t0, t2 - t1, forward_s

    iteration()  # warm-up: compiled kernels loaded, allocator primed
    results = []
    for _ in range(repeats):
        decisions, collect_s, update_s, forward_s = 0, 0.0, 0.0, 0.0
        for _ in range(iterations):
            d, c, u, f = iteration()
            decisions, collect_s, update_s, forward_s = decisions + d, collect_s + c, update_s + u, forward_s + f
        results.append({"decisions": decisions, "collect_s": collect_s, "update_s": update_s, "forward_s": forward_s})
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        decisions, _, _, _ = iteration()
    vplay.env.close()
    return results, counter.get_total_flops() / decisions


class ZeroPolicy(torch.nn.Module):
    """A policy that costs nothing: zero logits (uniform over the legal moves) and zero values."""

    def __init__(self, num_actions: int) -> None:
        super().__init__()
        self.num_actions = num_actions

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        zeros = torch.zeros(1, self.num_actions + 1, device=obs.device).expand(obs.shape[0], -1)
        return zeros[:, :-1], zeros[:, -1]


def plumbing(args: ppo.Args, iterations: int, repeats: int, device: torch.device) -> dict[str, Any]:
    """The collector alone: engine and learner decisions per second of collection with
    :class:`ZeroPolicy` as the learner (no snapshots, the built-ins as configured), beside the
    batched engine alone stepping random legal moves in the same games (the median of ``repeats``
    stretches of ``iterations`` collections each)."""
    rules = ppo.build_rules(args)
    rng = random.Random(args.seed)
    vplay = VectorSelfPlay(rules, args.num_envs, rng.getrandbits(40), args.reward, args.max_hands,
                           args.selfplay_prob, rng, tuple(filter(None, args.builtin_opponents.split(","))))
    zero = ZeroPolicy(vplay.env.num_actions)
    collector = ppo.make_collector(replace(args, collector="fast"), vplay, make_net(rules, 8, 0.0, "mlp"), device)
    assert collector is not None
    sampler = torch.Generator().manual_seed(args.seed)
    collector.collect(zero, [], sampler)
    engine, learner, alone = [], [], []
    random_actions = np.random.default_rng(args.seed)
    for _ in range(repeats):
        t0, stored = time.perf_counter(), 0
        for _ in range(iterations):
            stored += len(collector.collect(zero, [], sampler)[0]["actions"])
        seconds = time.perf_counter() - t0
        engine.append(iterations * args.num_envs * args.num_steps / seconds)
        learner.append(stored / seconds)
        t0 = time.perf_counter()
        for _ in range(iterations * args.num_steps):
            vplay.env.step(vplay.env.random_actions(random_actions))
        alone.append(iterations * args.num_envs * args.num_steps / (time.perf_counter() - t0))
    vplay.env.close()
    return {"engine_decisions_per_s": statistics.median(engine), "learner_decisions_per_s": statistics.median(learner),
            "engine_alone_decisions_per_s": statistics.median(alone)}


def summary(runs: list[dict[str, float]], flops: float, peak: float) -> dict[str, Any]:
    """Medians over the stretches: learner decisions/s end to end, of collection alone and of
    the update alone, and the share of the time spent collecting; with the network's ``flops``
    per decision and the arithmetic ceiling they allow at ``peak`` operations/s."""
    def med(f: Any) -> float:
        return float(statistics.median(f(r) for r in runs))

    return {
        "decisions_per_s": med(lambda r: r["decisions"] / (r["collect_s"] + r["update_s"])),
        "collect_decisions_per_s": med(lambda r: r["decisions"] / r["collect_s"]),
        "update_decisions_per_s": med(lambda r: r["decisions"] / r["update_s"]),
        "collect_share": med(lambda r: r["collect_s"] / (r["collect_s"] + r["update_s"])),
        "network_share": med(lambda r: (r["forward_s"] + r["update_s"]) / (r["collect_s"] + r["update_s"])),
        "decisions_per_stretch": med(lambda r: r["decisions"]),
        "flops_per_decision": flops,
        "ceiling_decisions_per_s": peak / flops,
        "stretches": runs,
    }


COLLECTORS = (*ppo.COLLECTORS, "overlap")


TILES = ("free", "fixed")
"""``--tiles``: a ``move-tiles`` network's attention trained (``free``) or kept as it is (``fixed``)."""


def variant(base: ppo.Args, arch: str, collector: str, kind: str = "fp32", tiles: str = "free") -> ppo.Args:
    """The run's arguments for ``arch`` with ``collector`` (of :data:`COLLECTORS`) at precision ``kind``,
    its tile attention (``move-tiles``) ``tiles`` (of :data:`TILES`)."""
    fixed = tiles == "fixed"
    if collector == "overlap":
        return replace(base, arch=arch, collector="fast", overlap=True, precision=kind, fix_tiles=fixed)
    return replace(base, arch=arch, collector=collector, precision=kind, fix_tiles=fixed)


def row_name(arch: str, collector: str, kind: str, tiles: str = "free") -> str:
    """A table row's name: ``mlp (fast)``, ``mlp (fast, bf16)``, ``move-tiles (fast, fixed tiles)``."""
    extra = ([kind] if kind != "fp32" else []) + (["fixed tiles"] if tiles == "fixed" else [])
    return f"{arch} ({', '.join([collector, *extra])})"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--archs", default=",".join(ARCHITECTURES), help="networks to time (of mlp, move, move-mobility, move-tiles)")
    parser.add_argument("--preset", default="sniff")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--num-envs", type=int, default=512, help="games at once (the shipped self-play stage's)")
    parser.add_argument("--num-steps", type=int, default=32, help="engine decisions per game per iteration")
    parser.add_argument("--iterations", type=int, default=3, help="iterations per timed stretch")
    parser.add_argument("--repeats", type=int, default=3, help="timed stretches (the median is reported)")
    parser.add_argument("--device", default="auto", help=DEVICE_HELP)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--collectors", default="fast",
                        help=f"collectors to time, each with every network (of {', '.join(COLLECTORS)}; 'overlap' is "
                             f"'fast' with its games in two halves, one stepping while the other is scored)")
    parser.add_argument("--precisions", default="fp32", help=f"precisions to time each row at (of {', '.join(PRECISIONS)})")
    parser.add_argument("--tiles", default="free",
                        help=f"the move-tiles rows' attention (of {', '.join(TILES)}; 'fixed' is ppo.py's --fix-tiles)")
    parser.add_argument("--hidden", type=int, default=ppo.Args.hidden, help="the networks' hidden units (ppo.py's --hidden)")
    parser.add_argument("--move-hidden", type=int, default=ppo.Args.move_hidden,
                        help="the move scorer's units (ppo.py's --move-hidden)")
    parser.add_argument("--num-minibatches", type=int, default=ppo.Args.num_minibatches,
                        help="the update's minibatches per epoch (ppo.py's --num-minibatches)")
    parser.add_argument("--plumbing-envs", type=int, default=8192,
                        help="games of the plumbing row (the collector with a zero-cost policy; 0: no such row)")
    parser.add_argument("--out", type=Path, help="write the figures to this JSON file")
    opts = parser.parse_args(argv)
    collectors = [c for c in opts.collectors.split(",") if c]
    if not collectors or set(collectors) - set(COLLECTORS):
        parser.error(f"--collectors must list some of {', '.join(COLLECTORS)}; got {opts.collectors!r}")
    opts.collectors = collectors
    kinds = [k for k in opts.precisions.split(",") if k]
    if not kinds or set(kinds) - set(PRECISIONS):
        parser.error(f"--precisions must list some of {', '.join(PRECISIONS)}; got {opts.precisions!r}")
    opts.precisions = kinds
    tiles = [t for t in opts.tiles.split(",") if t]
    if not tiles or set(tiles) - set(TILES):
        parser.error(f"--tiles must list some of {', '.join(TILES)}; got {opts.tiles!r}")
    opts.tiles = tiles
    if min(opts.hidden, opts.move_hidden) < 1:
        parser.error("--hidden and --move-hidden must be at least 1")
    if opts.num_minibatches < 1:
        parser.error("--num-minibatches must be at least 1")
    if opts.plumbing_envs < 0:
        parser.error("--plumbing-envs must be 0 or more")
    archs = [a for a in opts.archs.split(",") if a]
    if not archs or set(archs) - set(ARCHITECTURES):
        parser.error(f"--archs must list some of {', '.join(ARCHITECTURES)}; got {opts.archs!r}")
    if min(opts.iterations, opts.repeats, opts.num_envs, opts.num_steps) < 1:
        parser.error("--iterations, --repeats, --num-envs and --num-steps must be at least 1")
    opts.archs = archs
    return opts


def machine(device: torch.device) -> str:
    """The machine in words: CPU cores and, on CUDA, the GPU's name."""
    cpu = f"{os.cpu_count()} CPU cores ({platform.machine()})"
    return f"{cpu}, {torch.cuda.get_device_name(device)}" if device.type == "cuda" else cpu


def main(argv: list[str] | None = None) -> int:
    opts = parse(argv)
    device = resolve_device(opts.device)
    base = replace(
        ppo.Args(), preset=opts.preset, num_players=opts.players, engine="vector", num_envs=opts.num_envs,
        num_steps=opts.num_steps, seed=opts.seed, torch_threads=opts.torch_threads, device=str(device),
        eval_every=0, tensorboard=False, progress=False, num_minibatches=opts.num_minibatches, hidden=opts.hidden,
        move_hidden=opts.move_hidden,
    )
    torch.set_num_threads(opts.torch_threads)
    peaks = {kind: matmul_peak(device, dtype=torch.bfloat16 if kind == "bf16" else torch.float32)
             for kind in opts.precisions}
    peak = peaks["fp32"] if "fp32" in peaks else matmul_peak(device)
    rows = [(arch, collector, kind, tiles) for kind in opts.precisions for collector in opts.collectors
            for arch in opts.archs for tiles in (opts.tiles if arch == "move-tiles" else ["free"])]
    figures = {row_name(*row): summary(*stretch(variant(base, *row), opts.iterations, opts.repeats, device),
                                       peaks[row[2]])
               for row in rows}
    pipe = (plumbing(replace(base, num_envs=opts.plumbing_envs), opts.iterations, opts.repeats, device)
            if opts.plumbing_envs else None)

    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"training/ppo.py --engine vector, {opts.preset} {opts.players}p, {opts.num_envs} games "
                        f"x {opts.num_steps} decisions, on {device} ({machine(device)}); matrix products "
                        f"peak at {peak / 1e9:,.1f} GFLOP/s"
                        + (f" (bfloat16: {peaks['bf16'] / 1e9:,.1f})" if "bf16" in peaks else ""))
    for column in ("network (collector)", "learner decisions/s", "collection share", "network busy share",
                   "collection alone /s", "update alone /s", "MFLOP/decision", "arithmetic ceiling /s"):
        table.add_column(column, justify="left" if column.startswith("network (") else "right")
    for name, f in figures.items():
        table.add_row(name, f"{f['decisions_per_s']:,.0f}", f"{f['collect_share']:.0%}",
                      "-" if f["network_share"] != f["network_share"] else f"{f['network_share']:.0%}",
                      f"{f['collect_decisions_per_s']:,.0f}", f"{f['update_decisions_per_s']:,.0f}",
                      f"{f['flops_per_decision'] / 1e6:,.2f}", f"{f['ceiling_decisions_per_s']:,.0f}")
    console = Console()
    console.print(table)
    if pipe is not None:
        console.print(f"plumbing (the fast collector with a zero-cost policy), {opts.plumbing_envs:,} games: "
                      f"{pipe['engine_decisions_per_s']:,.0f} engine decisions/s "
                      f"({pipe['learner_decisions_per_s']:,.0f} learner decisions stored/s); the engine alone, "
                      f"random legal moves in the same games: {pipe['engine_alone_decisions_per_s']:,.0f}/s")
    if opts.out:
        report = {"command": "python -m training.speed.training_speed " + " ".join(argv or sys.argv[1:]),
                  "device": str(device), "machine": machine(device), "torch": torch.__version__,
                  "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(opts).items()},
                  "matmul_peak_flops": peak, "matmul_peak_flops_by_precision": peaks, "figures": figures, "plumbing": pipe}
        opts.out.parent.mkdir(parents=True, exist_ok=True)
        opts.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    run_script(main)
