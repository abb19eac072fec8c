"""The compiled functions in groups, compiled ahead: by ``sniff warmup``, or in the background
while a table opens.

Numba compiles a function the first time it runs and keeps it in the disk cache of
:mod:`sniff_env.vector._compile`, which every later process loads from. :data:`GROUPS` are the
engine, the Gymnasium vector env with its compiled opponents, the built-in players' batched
twins and the compiled search; each is compiled by playing a few small games with it. Every rule
set and player count shares the same compiled code, so one warm-up serves them all.
:class:`Warming` compiles groups in a process of its own, so that a table opens at once and
waits, saying so, only where an agent needs what is still compiling.

    python -m sniff_env.play.warm KEY [KEY ...]    # compile those groups, quietly
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import sniff_env
from sniff_env.atomic import write_json_atomic
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.players import load
from sniff_env.presets import make_rules

SEED = 7


def _engine() -> None:
    """Deals, steps and observations: the engine and the raw vector env, games played to their end."""
    from sniff_env.envs.batch_env import SniffVectorEnv
    from sniff_env.envs.record_encoder import encode_record  # noqa: F401  (compiled on first use below)
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
    """The batched greedy and heuristic players of ``sniff eval``, on the engine's arrays before any
    deal (so that this group compiles only the players, beside the engine's group)."""
    from sniff_env.players.compiled.baselines import CompiledBaselines
    from sniff_env.vector.engine import VectorEngine

    engine = VectorEngine(make_rules("sniff"), 4, max_hands=2, threads=1)
    players = CompiledBaselines(engine, greedy_tiebreak="heuristic")
    players.greedy(np.arange(4))
    players.heuristic(np.arange(4))
    engine.close()


def _search() -> None:
    """The compiled search as the ``rollouts`` and ``guided`` players run it: plain, reading the
    others' plays, one reply deeper, valued by the chance of winning, solving the end of a hand
    exactly; and its training targets."""
    from sniff_env.players.compiled.rollouts import (
        SOLVE_MOST,
        HindsightValues,
        RolloutSearch,
        value_odds,
        values_at,
    )
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
    values_at(engine.S, engine.tables.params, 0, engine.S, *value_odds(engine.rules, "win"), np.zeros(2))
    HindsightValues(engine).q_values(games)
    HindsightValues(engine, shuffles=1).q_values(games)
    engine.close()


@dataclass(frozen=True)
class Group:
    """A group of compiled functions, compiled together by ``run``; ``modules``: where they are."""

    key: str
    label: str
    short: str
    """The group's name in a sentence ("the search")."""
    run: Callable[[], None]
    modules: tuple[str, ...]


GROUPS: tuple[Group, ...] = (
    Group("search", "the compiled search and its options", "the search", _search,
          ("sniff_env.players.compiled.rollouts", "sniff_env.players.compiled.deals", "sniff_env.players.compiled.playouts",
           "sniff_env.players.compiled.endgame", "sniff_env.players.compiled.splitmix",
           "sniff_env.players.compiled.win_odds")),
    Group("engine", "the engine: deals, steps, observations", "the engine", _engine,
          ("sniff_env.vector.kernels", "sniff_env.vector.pyrandom", "sniff_env.vector.compiled_rules",
           "sniff_env.envs.record_encoder")),
    Group("players", "the built-in players' batched twins", "the built-in players", _players,
          ("sniff_env.players.compiled.baselines",)),
    Group("vector-env", "the Gymnasium vector env and its compiled opponents", "the vector env", _vector_env,
          ("sniff_env.envs.gym_vector", "sniff_env.players.compiled.opponents")),
)
"""The groups, the longest to compile first (so that the others share the cores beside it), then
each before the groups that call its functions (which then load them from the cache)."""


def group(key: str) -> Group:
    """The group named ``key``; ``ValueError`` naming the groups for another."""
    for g in GROUPS:
        if g.key == key:
            return g
    raise ValueError(f"there is no group {key!r}; the groups are {', '.join(g.key for g in GROUPS)}")


def _manifest(key: str) -> Path | None:
    """The file where a warm-up of group ``key`` lists the functions it compiled (None: no cache)."""
    from sniff_env.vector import CACHE_DIR

    return None if CACHE_DIR is None else CACHE_DIR / f"warmed-{key}.json"


def _functions(g: Group) -> dict[str, Any]:
    """The group's compiled functions by name (``module.qualname``)."""
    from sniff_env.vector import compiled_functions
    from sniff_env.vector.notices import kernel_name

    for module in g.modules:
        importlib.import_module(module)
    return {kernel_name(d.py_func): d for d in compiled_functions() if d.py_func.__module__ in g.modules}


def _cached(functions: dict[str, Any]) -> set[str]:
    """The names of ``functions`` (:func:`_functions`) whose compiled code the cache holds."""
    from sniff_env.vector import is_cached

    return {name for name, function in functions.items() if is_cached(function)}


def group_state(g: Group) -> tuple[int, int, bool]:
    """How many of the group's compiled functions the cache holds, of how many, and whether a
    warm-up compiled the group (then only the functions it compiled count: a module may hold
    helpers its games never call)."""
    functions = _functions(g)
    manifest = _manifest(g.key)
    try:
        names = set(json.loads(manifest.read_text())) if manifest is not None else None
    except (OSError, ValueError, TypeError):
        names = None
    warmed = names is not None
    if names is not None:
        functions = {k: d for k, d in functions.items() if k in names}
    return len(_cached(functions)), len(functions), warmed


def is_compiled(g: Group) -> bool:
    """Whether a warm-up compiled the group and the cache still holds all it compiled."""
    cached, total, warmed = group_state(g)
    return warmed and cached == total


def compile_group(key: str) -> tuple[float, int]:
    """Run the group ``key`` without compile notices, then list what it compiled beside the cache
    (:func:`group_state`); its seconds and how many compiles it made."""
    from sniff_env.vector.notices import NOTICES, quiet

    before = len(NOTICES.compiles)
    start = time.perf_counter()
    with quiet():
        group(key).run()
    seconds = time.perf_counter() - start
    manifest = _manifest(key)
    if manifest is not None:
        write_json_atomic(manifest, sorted(_cached(_functions(group(key)))))
    return seconds, len(NOTICES.compiles) - before


def estimate_s(keys: list[str]) -> float | None:
    """The measured seconds the groups ``keys`` take to compile one after another on an idle
    2-core machine (:data:`sniff_env.vector.notices.ESTIMATES_FILE`), None where not measured."""
    from sniff_env.vector.notices import GROUP_ESTIMATES

    seconds = [GROUP_ESTIMATES.get(k) for k in keys]
    return None if None in seconds else float(sum(s for s in seconds if s is not None))


class Warming:
    """Groups compiled in a process of their own (``python -m sniff_env.play.warm``)."""

    def __init__(self, keys: list[str]) -> None:
        self.label = " and ".join(group(k).short for k in keys)
        self.estimate = estimate_s(keys)
        self.started = time.monotonic()
        self._process = subprocess.Popen([sys.executable, "-m", "sniff_env.play.warm", *keys],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def ready(self) -> bool:
        """Whether the compile is over (done, or failed: then the first use compiles, saying so)."""
        return self._process.poll() is not None

    def progress(self) -> str:
        """One line: what compiles, for how long so far, and the estimate."""
        about = f" of about {self.estimate:.0f} s" if self.estimate else ""
        return f"compiling {self.label} (once): {self.elapsed:.0f} s{about} so far"

    def wait(self, report: Callable[[str], None] | None = None, every_s: float = 5.0) -> None:
        """Wait until :meth:`ready`, calling ``report`` with :meth:`progress` at once and every ``every_s``."""
        while not self.ready():
            if report is not None:
                report(self.progress())
            try:
                self._process.wait(timeout=every_s)
            except subprocess.TimeoutExpired:
                continue

    def stop(self) -> None:
        """End the compiling process (what it cached stays cached)."""
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()


def warm_in_background(keys: list[str]) -> Warming | None:
    """A :class:`Warming` of the groups ``keys`` that the cache does not hold yet, None if it holds them all."""
    todo = [k for k in keys if not is_compiled(group(k))]
    return Warming(todo) if todo else None


def main(argv: list[str] | None = None) -> int:
    """Compile the groups named in ``argv``; print a JSON line per group: its seconds, how many
    compiles it made and each outermost compile's function and seconds."""
    from sniff_env.vector.notices import NOTICES

    keys = sys.argv[1:] if argv is None else argv
    for key in keys:
        first = len(NOTICES.compiles)
        seconds, compiles = compile_group(key)
        kernels = {name: round(s, 2) for name, s in NOTICES.compiles[first:]}
        print(json.dumps({"group": key, "seconds": round(seconds, 2), "compiles": compiles, "kernels": kernels}),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
