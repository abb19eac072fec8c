"""One compile serves every rule set: after ``sniff warmup``'s games, a game of every preset,
player count and partnership on the batched engine, the vector envs, the compiled players and
the search adds no signature to any compiled function, and each has one signature. It runs in a
process of its own, so that the counts are the warm-up's and the games', not other tests'."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sniff_env
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import Rules

GENERIC = {"sniff_env.players.compiled.playouts.copy_into"}
"""Helpers written for arrays of any shape and type (a copy, element by element): one signature
per kind of array they copy."""


def _tables() -> list[Rules]:
    """Every preset at 2, 3 and 4 players, and 4 players in partnerships."""
    out = []
    for preset in PRESET_NAMES:
        for n in (2, 3, 4):
            out.append(make_rules(preset, n))
        out.append(make_rules(preset, 4, partnership=True))
    return out


def _signatures() -> dict[str, int]:
    from sniff_env.vector import compiled_functions
    from sniff_env.vector.notices import kernel_name

    return {kernel_name(d.py_func): len(d.signatures) for d in compiled_functions()}


def _play(rules: Rules, seed: int) -> None:
    """A few decisions of ``rules`` through every compiled path."""
    from sniff_env.envs.batch_env import SniffVectorEnv
    from sniff_env.envs.gym_vector import SniffGymVectorEnv
    from sniff_env.game import new_game
    from sniff_env.infostate import info_state
    from sniff_env.players import load, load_compiled
    from sniff_env.vector import kernels as K
    from sniff_env.vector.engine import VectorEngine

    rng = np.random.default_rng(seed)
    engine = VectorEngine(rules, 4, threads=1)
    engine.deal(np.arange(4), True, seed + np.arange(4))
    specs = ["greedy", "greedy:tiebreak=heuristic", "heuristic", "rollouts:samples=2",
             "rollouts:samples=2,depth=2"]
    if rules.num_sides == 2:
        specs += ["rollouts:samples=2,value=win", "rollouts:samples=2,solve=16"]
    for spec in specs:
        live = np.flatnonzero(engine.phase == K.PLAY)
        if live.size:
            load_compiled(spec, engine)(live)
    for _ in range(30):
        if not np.flatnonzero(engine.phase == K.PLAY).size:
            break
        engine.step(engine.sample_actions(rng))
    engine.close()
    game = new_game(rules, seed=seed)
    state = info_state(game, game.turn)
    for spec in ("rollouts:samples=2", "rollouts:samples=2,infer=0.5"):
        load(spec, seed=seed).act(None, {"info_state": state})
    env = SniffVectorEnv(rules, 4, seed=seed, threads=1)
    env.reset()
    for _ in range(30):
        env.step(env.random_actions(rng))
    env.close()
    opponents = ["heuristic", "greedy", "random"][: rules.num_players - 1]
    gym = SniffGymVectorEnv(4, rules.name, rules.num_players, opponents=opponents, threads=1,
                            **({"partnership": True} if rules.partnership else {}))
    obs, _ = gym.reset(seed=seed)
    for _ in range(10):
        obs, *_ = gym.step(obs["action_mask"].argmax(axis=1))
    gym.close()
    aec = sniff_env.env(ruleset=rules.name, num_players=rules.num_players,
                        **({"partnership": True} if rules.partnership else {}))
    aec.reset(seed=seed)
    for name in aec.agent_iter(max_iter=8):
        observation, _, termination, truncation, _ = aec.last()
        aec.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
    aec.close()


def measure() -> dict[str, Any]:
    """Run the warm-up's groups, then a game of every table: the functions compiled for several
    argument types after the warm-up, those whose signatures grew after it and the compiles made
    after it."""
    from sniff_env.play.warm import GROUPS
    from sniff_env.vector.notices import NOTICES

    for group in GROUPS:
        group.run()
    before, compiles = _signatures(), len(NOTICES.compiles)
    several = {name: n for name, n in before.items() if n > 1 and name not in GENERIC}
    for seed, rules in enumerate(_tables()):
        _play(rules, seed)
    after = _signatures()
    grew = {name: [before.get(name, 0), n] for name, n in after.items() if n != before.get(name, 0)}
    return {"several": several, "grew": grew, "compiled": [name for name, _ in NOTICES.compiles[compiles:]],
            "tables": len(_tables())}


CHECK = """
import json, sys
sys.path.insert(0, {tests!r})
from test_one_compile import measure
print(json.dumps(measure()))
"""


def test_every_rule_set_and_player_count_runs_on_the_warm_up_compiles() -> None:
    tests = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests.parent), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", CHECK.format(tests=str(tests))], env=env, capture_output=True,
                          text=True, timeout=1200, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["tables"] == 36
    assert result["several"] == {}, f"compiled for several argument types: {result['several']}"
    assert result["compiled"] == [], f"compiled after the warm-up: {result['compiled']}"
    assert result["grew"] == {}, f"signatures after the warm-up (before, after): {result['grew']}"


@pytest.mark.parametrize("preset", ["sniff", "muggins"])
def test_the_tables_cover_every_player_count(preset: str) -> None:
    counts = {(r.num_players, r.partnership) for r in _tables() if r.name == preset}
    assert counts == {(2, False), (3, False), (4, False), (4, True)}
