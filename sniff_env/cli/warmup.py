"""``sniff warmup``: compile every compiled function ahead, so that no later command waits.

Numba compiles a function the first time it runs and keeps it in the disk cache of
:mod:`sniff_env.vector._compile`, which every later process loads from. The functions come in
groups (:data:`GROUPS`): the engine, the Gymnasium vector env with its compiled opponents, the
built-in players' batched twins and the compiled search. Each group is compiled by playing a few
small games with it, the groups in parallel processes (one per usable core); the command first
says which groups are compiled already, then how long each one took. Every rule set and player
count shares the same compiled code, so one warm-up serves them all. With the cache filled it
only loads them (seconds).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context

import numpy as np

from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.presets import make_rules

SEED = 7
TICK_S = 10.0
"""Seconds between the lines that say the warm-up is still going on."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="processes compiling groups side by side (default: the usable cores, at most 4)")


def _engine() -> None:
    """Deals, steps and observations: the engine and the raw vector env, games played to their end."""
    from sniff_env.envs.record_encoder import encode_record  # noqa: F401  (compiled on first use below)
    from sniff_env.envs.vector import SniffVectorEnv
    from sniff_env.vector.engine import VectorEngine

    rng = np.random.default_rng(SEED)
    env = SniffVectorEnv("sniff", 8, seed=SEED, threads=1)
    env.reset()
    for _ in range(400):
        env.step(env.random_actions(rng))
    env.close()
    engine = VectorEngine(make_rules("sniff"), 4, max_hands=2, threads=1)
    engine.deal(np.arange(4), True, np.arange(4))
    while engine.continue_games().size:
        engine.step(engine.sample_actions(rng))
    engine.close()
    _aec_encoder()


def _aec_encoder() -> None:
    """The AEC env's compiled observation encoder, over one game."""
    import sniff_env

    env = sniff_env.env(ruleset="sniff", num_players=2)
    env.reset(seed=SEED)
    for name in env.agent_iter(max_iter=6):
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
    env.close()


def _vector_env() -> None:
    """The Gymnasium vector env with a compiled heuristic, greedy and random opponent, to episode ends."""
    from sniff_env.envs.gym_vector import SniffGymVectorEnv

    env = SniffGymVectorEnv(8, "sniff", 4, opponents=["heuristic", "greedy", "random"], max_hands=2, threads=1)
    obs, _ = env.reset(seed=SEED)
    for _ in range(200):
        obs, _, terminated, _, _ = env.step(obs["action_mask"].argmax(axis=1))
        if terminated.any():
            break
    env.close()


def _players() -> None:
    """The batched greedy and heuristic players of ``sniff eval``, playing whole games."""
    from sniff_env.evaluation.batched import play_out
    from sniff_env.players.compiled.baselines import CompiledBaselines
    from sniff_env.vector.engine import VectorEngine

    engine = VectorEngine(make_rules("sniff"), 4, max_hands=2, threads=1)
    engine.deal(np.arange(4), True, np.arange(4))
    players = CompiledBaselines(engine, greedy_tiebreak="heuristic")
    play_out(engine, np.array([[0, 1]] * 4, np.int64), [players.greedy, players.heuristic])
    engine.close()


def _search() -> None:
    """The compiled search as the ``rollouts`` and ``guided`` players run it: plain, reading the
    others' plays, one reply deeper, valued by the chance of winning, solving the end of a hand
    exactly; and its training targets."""
    from sniff_env.players import load
    from sniff_env.players.compiled.rollouts import SOLVE_MOST, HindsightValues, RolloutSearch, values_at
    from sniff_env.vector.engine import VectorEngine

    game = new_game(make_rules("sniff"), seed=SEED)
    for _ in range(3):
        if game.phase is Phase.PLAY:
            game.step(game.legal_actions()[0])
    state = info_state(game, game.turn)
    for spec in ("rollouts:samples=4", "rollouts:samples=4,infer=0.5", "rollouts:samples=4,depth=2",
                 "rollouts:samples=4,value=win", f"rollouts:samples=4,solve={SOLVE_MOST}"):
        load(spec, seed=SEED).act(None, {"info_state": state})
    engine = VectorEngine(make_rules("sniff"), 2, threads=1)
    engine.deal(np.arange(2), True, np.arange(2))
    games = np.arange(2)
    search = RolloutSearch(engine, samples=4, seed=SEED)
    search.q_values(games)
    search.values(0)
    search.deals(0, 2)
    RolloutSearch(engine, samples=4, seed=SEED, threads=2).actions(games)
    values_at(engine.S, engine.tables.params, 0, engine.S, search._odds, search._low, np.zeros(2))
    HindsightValues(engine).q_values(games)
    HindsightValues(engine, shuffles=1).q_values(games)
    engine.close()


@dataclass(frozen=True)
class Group:
    """A group of compiled functions, compiled together by ``run``; ``modules``: where they are."""

    label: str
    run: Callable[[], None]
    modules: tuple[str, ...]


GROUPS: tuple[Group, ...] = (
    Group("the compiled search and its options", _search,
          ("sniff_env.players.compiled.rollouts", "sniff_env.players.compiled.win_odds")),
    Group("the engine: deals, steps, observations", _engine,
          ("sniff_env.vector.kernels", "sniff_env.vector.pyrandom", "sniff_env.vector.compiled_rules",
           "sniff_env.envs.record_encoder")),
    Group("the Gymnasium vector env and its compiled opponents", _vector_env, ("sniff_env.envs.gym_vector",)),
    Group("the built-in players' batched twins", _players, ("sniff_env.players.compiled.baselines",)),
)
"""The groups, the longest to compile first (so that the others share the cores beside it)."""


def group_state(group: Group) -> tuple[int, int]:
    """How many of the group's compiled functions the cache holds, and how many there are."""
    import importlib

    from sniff_env.vector._compile import DISPATCHERS

    for module in group.modules:
        importlib.import_module(module)
    mine = [d for d in DISPATCHERS if d.py_func.__module__ in group.modules]
    cached = sum(1 for d in mine if getattr(d._cache, "index_path", None) is not None and d._cache.index_path.exists())
    return cached, len(mine)


def _compile_group(index: int) -> tuple[float, int]:
    """Run group ``index`` (in a worker process); its seconds and how many compiles it made."""
    from sniff_env.vector.notices import NOTICES, quiet

    before = len(NOTICES.compiles)
    start = time.perf_counter()
    with quiet():
        GROUPS[index].run()
    return time.perf_counter() - start, len(NOTICES.compiles) - before


def default_jobs() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, len(GROUPS)))


def run(args: argparse.Namespace) -> int:
    from sniff_env.vector import CACHE_DIR

    jobs = default_jobs() if args.jobs is None else args.jobs
    if not 1 <= jobs <= 16:
        print(f"sniff warmup: --jobs must be a whole number from 1 to 16; got {jobs}", file=sys.stderr)
        return 2
    states = [group_state(g) for g in GROUPS]
    print(f"the compiled functions' cache: {CACHE_DIR or 'none writable (they compile in every process)'}", flush=True)
    for i, (group, (cached, total)) in enumerate(zip(GROUPS, states, strict=True), 1):
        state = "compiled already" if cached == total else f"to compile ({cached} of {total} functions cached)"
        print(f"[{i}/{len(GROUPS)}] {group.label}: {state}", flush=True)
    todo = [i for i, (cached, total) in enumerate(states) if cached < total]
    if not todo:
        print("ready: every group is compiled; later processes load them from the cache", flush=True)
        return 0
    print(f"compiling {len(todo)} group(s) in {min(jobs, len(todo))} process(es)...", flush=True)
    start = time.perf_counter()
    stop = threading.Event()
    running: dict[Future[tuple[float, int]], int] = {}

    def tick() -> None:
        while not stop.wait(TICK_S):
            names = ", ".join(GROUPS[i].label.split(":")[0] for i in sorted(running.values()))
            print(f"  {time.perf_counter() - start:.0f} s: still compiling {names}", flush=True)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        with ProcessPoolExecutor(min(jobs, len(todo)), mp_context=get_context("spawn")) as pool:
            running.update({pool.submit(_compile_group, i): i for i in todo})
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
