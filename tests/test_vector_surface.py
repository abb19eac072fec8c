"""The public surface that wrappers of the batched engine build on: kernels run over the engine's
threads, the arguments of the stepping kernels, dealing on after hands end, and the AEC seat lookup."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sniff_env.envs.aec import raw_env
from sniff_env.envs.batch_env import SniffVectorEnv
from sniff_env.game import new_game
from sniff_env.presets import make_rules
from sniff_env.vector import VectorEngine
from sniff_env.vector import kernels as K
from sniff_env.vector.checks import BatchError


def test_run_gives_each_thread_its_range_scratch_and_item() -> None:
    eng = VectorEngine(make_rules("sniff", 2), 600, threads=2)
    calls: list[tuple[str, int, int]] = []

    def kernel(tag: str, work: Any, mine: str, start: int, stop: int) -> int:
        assert len(work) == len(K.workspace(0, eng.num_actions, eng.tables.num_tiles))
        calls.append((tag + mine, start, stop))
        return stop - start

    assert eng.num_threads == 2
    assert eng.run(kernel, "k", per_thread=["0", "1", "spare"]) == 600
    assert sorted(calls) == [("k0", 0, 300), ("k1", 300, 600)]
    with pytest.raises(BatchError, match="at least 2 items"):
        eng.run(kernel, "k", per_thread=["0"])
    eng.close()
    calls.clear()
    assert eng.num_threads == 1 and eng.run(kernel, "k", per_thread=["0", "1"]) == 600
    assert calls == [("k0", 0, 600)]


def _play_until_hands_end(env: SniffVectorEnv, rng: np.random.Generator) -> np.ndarray:
    """Step ``env`` through its public kernel arguments until a hand ends; the games where one did."""
    eng = env.engine
    for _ in range(500):
        out = env.step_arrays()
        if eng.run(K.env_step, *env.env_step_args(eng.check_actions(eng.sample_actions(rng)), out)):
            return np.flatnonzero(eng.requests)
    raise AssertionError("no hand ended in 500 steps")


def test_deal_ended_starts_new_games_with_the_next_seeds() -> None:
    env = SniffVectorEnv("sniff", 4, seed=40, threads=1)
    env.reset()
    ended = _play_until_hands_end(env, np.random.default_rng(1))
    eng = env.engine
    in_play = np.setdiff1d(np.arange(4), ended)
    before = eng.hands[in_play].copy()
    env.deal_ended(ended)
    assert not eng.requests.any()
    assert eng.seeds[ended].tolist() == list(range(44, 44 + ended.size))
    assert (eng.hand_index[ended] == 0).all() and (eng.scores[ended] == 0).all()
    for b in ended.tolist():
        game = new_game(env.rules, seed=int(eng.seeds[b]), record=False)
        assert eng.hands[b].nonzero()[1].tolist() == [t for h in game.deal.hands for t in h]
    assert (eng.hands[in_play] == before).all()


def test_deal_ended_refuses_a_game_in_play_and_changes_nothing() -> None:
    env = SniffVectorEnv("sniff", 4, seed=40, threads=1)
    env.reset()
    ended = _play_until_hands_end(env, np.random.default_rng(1))
    eng = env.engine
    in_play = int(np.setdiff1d(np.arange(4), ended)[0])
    state = (eng.requests.copy(), eng.seeds.copy(), eng.S.copy(), eng.hands.copy())
    for bad in ([in_play], [9], [0.5]):
        with pytest.raises(BatchError, match="new_games"):
            env.deal_ended(bad)
        for a, b in zip(state, (eng.requests, eng.seeds, eng.S, eng.hands), strict=True):
            assert (a == b).all()


def test_seat_of_names_the_agents_it_does_not_know() -> None:
    env = raw_env("sniff", 3)
    assert [env.seat_of(a) for a in env.possible_agents] == [0, 1, 2]
    with pytest.raises(KeyError, match="player_3.*player_0, player_1, player_2"):
        env.seat_of("player_3")
