"""Hostile actions given to the environments (AEC, Gymnasium, batched): each check is an explicit
``if``, so it holds under ``python -O`` too. A bool or a number that is no whole number is a
typed error and changes nothing; a whole number out of range is an illegal move (through
``sniff_env.env()``: the game ends with -1 for its mover)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hostile import deadline  # noqa: F401  (a time limit per test: a hang fails the test)

import sniff_env
from sniff_env import IllegalMoveError
from sniff_env.envs.single_agent import SniffSingleAgentEnv

NOT_WHOLE: list[Any] = [True, False, np.bool_(True), 2.0, np.float64(3.0), "1", None, np.array([1]), 1 + 0j]


@pytest.mark.parametrize("action", NOT_WHOLE, ids=repr)
def test_an_action_that_is_no_whole_number_is_refused_and_changes_nothing(action: Any) -> None:
    raw = sniff_env.raw_env()
    raw.reset(seed=3)
    before = raw.state().tobytes()
    with pytest.raises(IllegalMoveError, match="an action is a whole number 0..175; got"):
        raw.step(action)
    assert raw.state().tobytes() == before
    wrapped = sniff_env.env()
    wrapped.reset(seed=3)
    with pytest.raises(IllegalMoveError, match="an action is a whole number"):
        wrapped.step(action)
    assert not any(wrapped.terminations.values())
    for illegal in ("penalty", "raise"):
        single = SniffSingleAgentEnv(illegal=illegal)  # type: ignore[arg-type]
        single.reset(seed=3)
        with pytest.raises(IllegalMoveError, match="an action is a whole number"):
            single.step(action)


@pytest.mark.parametrize("action", [10**6, -1, np.int64(176), np.uint8(200)], ids=repr)
def test_a_whole_number_out_of_range_is_an_illegal_move(action: Any) -> None:
    wrapped = sniff_env.env()
    wrapped.reset(seed=3)
    mover = wrapped.agent_selection
    wrapped.step(action)  # the documented ending, not an IndexError
    assert all(wrapped.terminations.values()) and wrapped._cumulative_rewards[mover] == -1
    wrapped.step(None)  # the dead steps go on as PettingZoo's convention has them
    raw = sniff_env.raw_env()
    raw.reset(seed=3)
    with pytest.raises(IllegalMoveError, match="actions are 0..175"):
        raw.step(action)
    single = SniffSingleAgentEnv()
    single.reset(seed=3)
    _, reward, terminated, _, info = single.step(action)
    assert reward == -1.0 and terminated and info["illegal_action"] == int(action)


def test_numpy_integers_are_actions() -> None:
    raw = sniff_env.raw_env()
    raw.reset(seed=3)
    legal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])[0])
    raw.step(np.int16(legal))
    assert len(raw.game.hand_actions) >= 1


OPTIMISED = """
import numpy as np
import sniff_env
from sniff_env import IllegalMoveError
from sniff_env.envs.batch_env import SniffVectorEnv
from sniff_env.vector.checks import BatchError
from sniff_env.envs.single_agent import SniffSingleAgentEnv

assert not __debug__, "run with python -O"
out = []
def outcome(call):
    try:
        call()
        return "ok"
    except Exception as exc:
        return type(exc).__name__

for action in (10**6, -1, True, 2.0):
    e = sniff_env.env()
    e.reset(seed=3)
    mover = e.agent_selection
    result = outcome(lambda: e.step(action))
    ended = all(e.terminations.values()) and e._cumulative_rewards[mover] == -1
    out.append(f"env {action!r}: {result} {ended}")
    raw = sniff_env.raw_env()
    raw.reset(seed=3)
    out.append(f"raw {action!r}: {outcome(lambda: raw.step(action))}")
    single = SniffSingleAgentEnv()
    single.reset(seed=3)
    out.append(f"single {action!r}: {outcome(lambda: single.step(action))}")
vec = SniffVectorEnv("sniff", 4, seed=11, threads=1)
vec.reset()
for actions in (True, np.full(4, 10**6), np.ones(4, bool)):
    out.append(f"vector {actions!r}: {outcome(lambda: vec.step(actions))}")
print("\\n".join("= " + line for line in out))  # PettingZoo prints its warning to stdout too
"""


def test_the_checks_hold_under_python_dash_o() -> None:
    run = subprocess.run([sys.executable, "-O", "-c", OPTIMISED], check=False, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert [line[2:] for line in run.stdout.splitlines() if line.startswith("= ")] == [
        "env 1000000: ok True", "raw 1000000: IllegalMoveError", "single 1000000: ok",
        "env -1: ok True", "raw -1: IllegalMoveError", "single -1: ok",
        "env True: IllegalMoveError False", "raw True: IllegalMoveError", "single True: IllegalMoveError",
        "env 2.0: IllegalMoveError False", "raw 2.0: IllegalMoveError", "single 2.0: IllegalMoveError",
        "vector True: BatchError", "vector array([1000000, 1000000, 1000000, 1000000]): IllegalMoveError",
        "vector array([ True,  True,  True,  True]): BatchError",
    ]
