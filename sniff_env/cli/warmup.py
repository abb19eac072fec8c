"""``sniff warmup``: compile the batched engine's kernels ahead, so that no later command waits.

Numba compiles a kernel the first time it runs and keeps it in the disk cache of
:mod:`sniff_env.vector._compile`, which every later process loads from. This command runs each
family of kernels once on a few small games, stage by stage with the time each took: the engine
(deals, steps, observations), the vector env with every compiled opponent, the built-in players'
batched twins, and the compiled search with each of its options. With the cache already filled
it only loads them (seconds).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.presets import make_rules

SEED = 7


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: the kernels serve every rule set."""


def _engine_stage() -> None:
    """Deals, steps and observations: the engine and the raw vector env, games played to their end."""
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


def _vector_env_stage() -> None:
    """The Gymnasium vector env with a compiled heuristic, greedy and random opponent, to episode ends."""
    from sniff_env.envs.gym_vector import SniffGymVectorEnv

    env = SniffGymVectorEnv(8, "sniff", 4, opponents=["heuristic", "greedy", "random"], max_hands=2, threads=1)
    obs, _ = env.reset(seed=SEED)
    for _ in range(200):
        obs, _, terminated, _, _ = env.step(obs["action_mask"].argmax(axis=1))
        if terminated.any():
            break
    env.close()


def _baselines_stage() -> None:
    """The batched greedy and heuristic players of ``sniff eval``, playing whole games."""
    from sniff_env.evaluation.batched import play_out
    from sniff_env.players.compiled.baselines import CompiledBaselines
    from sniff_env.vector.engine import VectorEngine

    engine = VectorEngine(make_rules("sniff"), 4, max_hands=2, threads=1)
    engine.deal(np.arange(4), True, np.arange(4))
    players = CompiledBaselines(engine)
    play_out(engine, np.array([[0, 1]] * 4, np.int64), [players.greedy, players.heuristic])
    engine.close()


def _search_stage() -> None:
    """The compiled search as the ``rollouts`` and ``guided`` players run it: plain, reading the
    others' plays, one reply deeper, valued by the chance of winning, solving the end of a hand
    exactly; and its training targets."""
    from sniff_env.players import load
    from sniff_env.players.compiled.rollouts import SOLVE_MOST, HindsightValues, RolloutSearch
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
    HindsightValues(engine).q_values(games)
    HindsightValues(engine, shuffles=1).q_values(games)
    engine.close()


STAGES: tuple[tuple[str, Callable[[], None]], ...] = (
    ("the engine: deals, steps, observations", _engine_stage),
    ("the vector env and its compiled opponents", _vector_env_stage),
    ("the built-in players' batched twins", _baselines_stage),
    ("the compiled search and its options", _search_stage),
)


def run(args: argparse.Namespace) -> int:
    from sniff_env.vector import CACHE_DIR, cache_is_empty, quiet_announcement

    where = CACHE_DIR
    cold = cache_is_empty()
    print(("compiling" if cold else "loading") + f" the batched engine's kernels ({where or 'no writable cache'}); "
          + ("a few minutes, once" if cold else "they are compiled already"), flush=True)
    quiet_announcement()  # this command says what it does itself
    start = time.perf_counter()
    for i, (label, stage) in enumerate(STAGES, 1):
        print(f"[{i}/{len(STAGES)}] {label} ...", end="", flush=True)
        t0 = time.perf_counter()
        stage()
        print(f" {time.perf_counter() - t0:.1f} s", flush=True)
    total = time.perf_counter() - start
    print(f"ready in {total:.0f} s: every later process loads the kernels from the cache", flush=True)
    if where is None:
        print("no writable place for the cache: the kernels compile again in every process", file=sys.stderr)
    return 0
