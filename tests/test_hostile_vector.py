"""Hostile calls of the batched env and engine: each gets a clear typed error, and nothing changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sniff_env.deal import Deal
from sniff_env.envs.batch_env import SniffVectorEnv
from sniff_env.errors import DealError, GameOverError, IllegalMoveError, RulesError, SniffError
from sniff_env.game import Game
from sniff_env.presets import make_rules
from sniff_env.vector import VectorEngine
from sniff_env.vector.checks import BatchError

B = 4
STATE = ("S", "hands", "_played", "bone", "legal", "_obs", "_mask", "seeds", "_request")
"""The engine arrays that hold the games (the rest is scratch the next call rewrites)."""


def _env() -> SniffVectorEnv:
    env = SniffVectorEnv("sniff", B, seed=11, threads=1)
    env.reset()
    return env


def _snapshot(env: SniffVectorEnv) -> dict[str, Any]:
    state: dict[str, Any] = {name: getattr(env.engine, name).copy() for name in STATE}
    state["hand_start"] = env._hand_start.copy()
    state["next_seed"] = env._next_seed
    return state


def _legal(env: SniffVectorEnv) -> np.ndarray:
    actions: np.ndarray = np.argmax(env.engine.mask, axis=1).astype(np.int64)
    return actions


def _with(env: SniffVectorEnv, game: int, value: Any) -> list[Any]:
    """The legal actions of ``env`` as a list, with entry ``game`` replaced by ``value``."""
    actions: list[Any] = _legal(env).tolist()
    actions[game] = value
    return actions


def _illegal(env: SniffVectorEnv) -> np.ndarray:
    actions = _legal(env)
    actions[1] = int(np.flatnonzero(env.engine.mask[1] == 0)[0])
    return actions


BAD_CONSTRUCTIONS: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"num_envs": 0}, BatchError, "num_envs must be a positive whole number; got 0"),
    ({"num_envs": -3}, BatchError, "got -3"),
    ({"num_envs": 2.5}, BatchError, "got 2.5"),
    ({"num_envs": True}, BatchError, "got True"),
    ({"num_envs": "8"}, BatchError, "got '8'"),
    ({"num_envs": 10**12}, BatchError, "1,000,000,000,000 games need about"),
    ({"num_envs": 64, "max_bytes": 1000}, BatchError, "more than the limit of"),
    ({"max_bytes": 0}, BatchError, "max_bytes must be a positive whole number or None"),
    ({"threads": 0}, BatchError, "threads must be a positive whole number or None; got 0"),
    ({"threads": -3}, BatchError, "got -3"),
    ({"max_hands": 0}, SniffError, "max_hands must be a positive whole number or None; got 0"),
    ({"max_hands": 1.5}, SniffError, "got 1.5"),
    ({"max_hands": True}, SniffError, "got True"),
    ({"max_hands": 2**63}, RulesError, "at most 2**63 - 1"),
    ({"seed": 1.5}, BatchError, "seed must be a whole number"),
    ({"seed": "7"}, BatchError, "got '7'"),
    ({"seed": 2**63}, BatchError, "2**63 - 1"),
    ({"reward": "win"}, BatchError, "reward must be 'points' or 'game'"),
    ({"episode": "round"}, BatchError, "episode must be 'game' or 'hand'"),
    ({"rules": 5}, BatchError, "rules must be a sniff_env.rules.Rules"),
    ({"num_players": 9}, RulesError, "9"),
    ({"no_such_rule": 1}, RulesError, "no_such_rule"),
]


@pytest.mark.parametrize(("options", "error", "message"), BAD_CONSTRUCTIONS)
def test_bad_constructions_are_refused(options: dict[str, Any], error: type[Exception], message: str) -> None:
    options = {"num_envs": B, "threads": 1, **options}
    with pytest.raises(error) as info:
        SniffVectorEnv(**options)
    assert message in str(info.value)


BAD_CALLS: list[tuple[str, Callable[[Any], object], type[Exception], str]] = [
    # each call gets the env as Any: the arguments are wrong on purpose
    # reset
    ("seed float", lambda e: e.reset(seed=1.5), BatchError, "seed must be a whole number"),
    ("seed bool", lambda e: e.reset(seed=True), BatchError, "got True"),
    ("seed too big", lambda e: e.reset(seed=2**63), BatchError, "2**63 - 1"),
    ("seed counter past the top", lambda e: e.reset(seed=2**63 - 2), BatchError, "largest seed"),
    ("seeds short", lambda e: e.reset(seeds=[1, 2]), BatchError, f"shape ({B},); got shape (2,)"),
    ("seeds floats", lambda e: e.reset(seeds=[1.5, 2, 3, 4]), BatchError, "got dtype float64, first 1.5"),
    ("seeds bools", lambda e: e.reset(seeds=[True] * B), BatchError, "got dtype bool"),
    ("seeds strings", lambda e: e.reset(seeds=["a"] * B), BatchError, "whole numbers"),
    ("seeds None inside", lambda e: e.reset(seeds=[None, 1, 2, 3]), BatchError, "dtype object"),
    ("seeds too big", lambda e: e.reset(seeds=[2**63] * B), BatchError, "2**63 - 1"),
    ("seeds lowest int64", lambda e: e.reset(seeds=np.full(B, -(2**63), np.int64)), BatchError, "-(2**63 - 1)"),
    ("seeds ragged", lambda e: e.reset(seeds=[[1], [2, 3], 4, 5]), BatchError, "array of 4 whole numbers"),
    ("deals short", lambda e: e.reset(deals=[None]), BatchError, f"deals must be a list of {B}"),
    ("deals a number", lambda e: e.reset(deals=5), BatchError, "deals must be a list"),
    ("deals a mapping", lambda e: e.reset(deals={"hands": []}), BatchError, "deals must be a list"),
    ("deal malformed", lambda e: e.reset(deals=[{"hands": "x"}, None, None, None]), DealError, "hands"),
    ("deal unknown key", lambda e: e.reset(deals=[None, {"bogus": 1}, None, None]), DealError, "bogus"),
    ("deal bad tiles", lambda e: e.reset(deals=[Deal(((99,), (0,)), (), 0), None, None, None]), DealError, ""),
    ("deal last bad", lambda e: e.reset(seed=5, deals=[None, None, None, 7]), DealError, "mapping"),
    # step
    ("float action", lambda e: e.step(np.array(_with(e, 0, 9.9))), BatchError, "got dtype float64, first"),
    ("float32 actions", lambda e: e.step(_legal(e).astype(np.float32)), BatchError, "dtype float32"),
    ("list with a float", lambda e: e.step(_with(e, 2, 9.9)), BatchError, "nothing is rounded"),
    ("bool actions", lambda e: e.step(np.ones(B, bool)), BatchError, "dtype bool"),
    ("string actions", lambda e: e.step(["1"] * B), BatchError, "whole numbers"),
    ("None action", lambda e: e.step(_with(e, 3, None)), BatchError, "dtype object"),
    ("huge action", lambda e: e.step(_with(e, 3, 2**64)), BatchError, "whole numbers"),
    ("uint64 past int64", lambda e: e.step(np.full(B, 2**63, np.uint64)), BatchError, "2**63 - 1"),
    ("too few actions", lambda e: e.step(_legal(e)[:2]), BatchError, f"shape ({B},); got shape (2,)"),
    ("too many actions", lambda e: e.step(np.zeros(B + 1, np.int64)), BatchError, "got shape (5,)"),
    ("2-D actions", lambda e: e.step(_legal(e)[:, None]), BatchError, "got shape (4, 1)"),
    ("scalar action", lambda e: e.step(3), BatchError, "got shape ()"),
    ("bool scalar action", lambda e: e.step(True), BatchError, "got shape ()"),
    ("numpy bool scalar action", lambda e: e.step(np.bool_(True)), BatchError, "got shape ()"),
    ("float scalar action", lambda e: e.step(2.0), BatchError, "got shape ()"),
    ("negative action", lambda e: e.step(_with(e, 1, -1)), IllegalMoveError, "game 1: action -1 (actions are 0.."),
    ("action past the last", lambda e: e.step(_with(e, 2, 10**6)), IllegalMoveError, "game 2: action 1000000"),
    ("illegal action", lambda e: e.step(_illegal(e)), IllegalMoveError, "game 1: action"),
    ("rng not a generator", lambda e: e.random_actions(5), BatchError, "numpy.random.Generator"),
    # the engine's deal
    ("games out of range", lambda e: e.engine.deal([0, B], True), BatchError, "distinct indices 0..3; got [0, 4]"),
    ("games negative", lambda e: e.engine.deal([-1], True), BatchError, "got [-1]"),
    ("games repeated", lambda e: e.engine.deal([1, 1], True, [5, 6]), BatchError, "got [1, 1]"),
    ("games floats", lambda e: e.engine.deal([0.5], True), BatchError, "dtype float64"),
    ("games ragged", lambda e: e.engine.deal([[0], [1, 2]], True), BatchError, "games must be an array of n"),
    ("games 2-D", lambda e: e.engine.deal([[0], [1]], True), BatchError, "shape (n,); got shape (2, 1)"),
    ("new_game a string", lambda e: e.engine.deal([0], "yes"), BatchError, "new_game must be a bool"),
    ("new_game wrong length", lambda e: e.engine.deal([0, 1], [True] * 3), BatchError, "2 bools"),
    ("next hand in play", lambda e: e.engine.deal([2], False), GameOverError, "game 2 has a hand in play"),
    ("scripted next hand", lambda e: e.engine.deal([0], False, None, [{"hands": []}]), BatchError, "only start a new"),
]


@pytest.mark.parametrize(("name", "call", "error", "message"), BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_calls_are_refused_and_change_nothing(
    name: str, call: Callable[[Any], object], error: type[Exception], message: str
) -> None:
    env = _env()
    before = _snapshot(env)
    with pytest.raises(error) as info:
        call(env)
    assert message in str(info.value)
    after = _snapshot(env)
    assert after.keys() == before.keys()
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value, err_msg=key)
    env.step(_legal(env))  # and the env still plays


def test_max_hands_is_refused_as_the_reference_engine_refuses_it() -> None:
    rules = make_rules("sniff", 2)
    for bad in (0, -1, 2.0):
        with pytest.raises(SniffError) as reference:
            Game(rules, max_hands=bad)  # type: ignore[arg-type]
        with pytest.raises(SniffError) as batched:
            VectorEngine(rules, 2, max_hands=bad)  # type: ignore[arg-type]
        assert str(batched.value) == str(reference.value)



def _read_only(values: np.ndarray) -> np.ndarray:
    out = np.array(values, np.int64)
    out.flags.writeable = False
    return out


def test_read_only_arrays_do_not_compile_the_kernels_anew() -> None:
    from sniff_env.vector import kernels as K

    env = _env()
    env.step(_legal(env))  # the kernels for writable int64 arrays, compiled (or loaded) once
    kernels = [K.env_step, K.first_illegal, K.deal]
    before = [len(k.signatures) for k in kernels]
    actions = _read_only(_legal(env))
    env.step(actions)
    env.reset(seeds=_read_only(np.arange(B)))
    assert [len(k.signatures) for k in kernels] == before
    assert not actions.flags.writeable  # the caller's array is copied, not changed
