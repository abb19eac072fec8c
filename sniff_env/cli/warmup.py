"""``sniff warmup``: compile every compiled function ahead, so that no later command waits.

The groups of :mod:`sniff_env.play.warm` (the engine, the Gymnasium vector env, the built-in
players' batched twins, the compiled search) are compiled in parallel processes, one per usable
core: the command first says which groups are compiled already, then how long each one took.
Every rule set and player count shares the same compiled code, so one warm-up serves them all.
With the cache filled it only checks (a second).
"""

from __future__ import annotations

import argparse
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context

from sniff_env.options import worker_count
from sniff_env.play.warm import GROUPS, compile_group, estimate_s, group_state
from sniff_env.workers import cores

TICK_S = 10.0
"""Seconds between the lines that say the warm-up is still going on."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=worker_count, default=None, metavar="N",
                        help="processes compiling groups side by side (default: the usable cores, at most 4)")


def run(args: argparse.Namespace) -> int:
    from sniff_env.vector import CACHE_DIR

    jobs = min(cores(), len(GROUPS)) if args.jobs is None else args.jobs
    states = [group_state(g) for g in GROUPS]
    ready = [warmed and cached == total for cached, total, warmed in states]
    print(f"the compiled functions' cache: {CACHE_DIR or 'none writable (they compile in every process)'}", flush=True)
    for i, (group, (cached, total, _), done) in enumerate(zip(GROUPS, states, ready, strict=True), 1):
        state = ("compiled already" if done
                 else f"to compile ({cached} of {total} functions cached)" if cached < total
                 else f"cached but not warmed up yet ({total} functions): to load and check")
        print(f"[{i}/{len(GROUPS)}] {group.label}: {state}", flush=True)
    todo = [g.key for g, done in zip(GROUPS, ready, strict=True) if not done]
    left = {g.key: 1 - cached / max(total, 1) for g, (cached, total, _) in zip(GROUPS, states, strict=True)}
    if not todo:
        print("ready: every group is compiled; later processes load them from the cache", flush=True)
        return 0
    workers = min(jobs, len(todo))
    alone = [estimate_s([key]) for key in todo]
    serial = None if None in alone else sum(s * left[k] for s, k in zip(alone, todo, strict=True) if s is not None)
    about = f", at most about {max(serial / min(workers, 2), 1):.0f} s on an idle 2-core machine" if serial else ""
    print(f"warming up {len(todo)} group(s) in {workers} process(es){about}...", flush=True)
    start = time.perf_counter()
    stop = threading.Event()
    running: dict[Future[tuple[float, int]], int] = {}

    def tick() -> None:
        while not stop.wait(TICK_S):
            names = ", ".join(GROUPS[i].label.split(":")[0] for f, i in sorted(running.items(), key=lambda p: p[1])
                              if f.running())
            print(f"  {time.perf_counter() - start:.0f} s: still compiling {names}", flush=True)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    index = {g.key: i for i, g in enumerate(GROUPS)}
    try:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            running.update({pool.submit(compile_group, key): index[key] for key in todo})
            while running:
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    i = running.pop(future)
                    seconds, compiles = future.result()
                    what = f"compiled in {seconds:.0f} s" if compiles else f"loaded in {seconds:.1f} s"
                    print(f"[{i + 1}/{len(GROUPS)}] {GROUPS[i].label}: {what}", flush=True)
    finally:
        stop.set()
        ticker.join()
    print(f"ready in {time.perf_counter() - start:.0f} s: every later process loads the kernels from the cache",
          flush=True)
    return 0
