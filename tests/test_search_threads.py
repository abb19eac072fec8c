"""The compiled search spread over threads: each game draws from a stream of its own, so the
moves are the same for any number of threads, in the league, in evaluations and in training."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from sniff_env.players import load_compiled
from sniff_env.players.compiled.rollouts import RolloutSearch, stream_seeds
from sniff_env.presets import make_rules
from sniff_env.vector import kernels as K
from sniff_env.vector.engine import VectorEngine
from training.lib.config import ConfigError
from training.lib.evaluate import evaluator, win_rate, win_rate_vector
from training.ppo import main
from training.speed.search_threads import positions as mid_hand


def test_the_moves_do_not_depend_on_the_threads() -> None:
    eng = mid_hand(24, 40)
    games = np.flatnonzero(eng.S[:, K.PHASE] == K.PLAY)
    assert games.size >= 20
    moves = [RolloutSearch(eng, samples=3, seed=9, threads=n).actions(games) for n in (1, 2, 5)]
    assert np.array_equal(moves[0], moves[1]) and np.array_equal(moves[0], moves[2])
    legal = [set(eng.legal[b, : eng.S[b, K.NLEGAL]].tolist()) for b in games]
    assert all(int(a) in ok for a, ok in zip(moves[0], legal, strict=True))


def test_each_game_draws_from_its_own_stream() -> None:
    """Game ``i`` of a threaded call chooses as the one-stream search seeded with its stream's
    first state; the next call draws from new streams."""
    eng = mid_hand(12, 70)
    games = np.flatnonzero((eng.S[:, K.PHASE] == K.PLAY) & (eng.S[:, K.NLEGAL] > 1))
    search = RolloutSearch(eng, samples=2, seed=5, threads=2)
    for call in range(2):
        chosen = search.actions(games)
        seeds = stream_seeds(5, call, games)
        alone = [int(RolloutSearch(eng, samples=2, seed=int(s)).actions(np.array([b]))[0])
                 for b, s in zip(games, seeds, strict=True)]
        assert chosen.tolist() == alone
    assert not np.array_equal(stream_seeds(5, 0, games), stream_seeds(5, 1, games))
    assert stream_seeds(5, 0, games)[1] == stream_seeds(5, 0, games[1:])[0]  # not the other games'


@pytest.mark.parametrize("threads", [-1, True, 2.5, 2000])
def test_bad_threads_are_refused(threads: object) -> None:
    eng = VectorEngine(make_rules("sniff", 2), 1, threads=1)
    with pytest.raises(ValueError, match="threads must be 0 .* or a whole number of threads up to 1024"):
        RolloutSearch(eng, threads=threads)  # type: ignore[arg-type]


def test_players_without_draws_take_no_threads() -> None:
    eng = mid_hand(8, 90)
    games = np.flatnonzero(eng.S[:, K.PHASE] == K.PLAY)
    assert np.array_equal(load_compiled("heuristic", eng, 4)(games), load_compiled("heuristic", eng)(games))


def test_a_spec_cannot_set_the_threads() -> None:
    """The threads are the caller's (``load_compiled(..., threads)``), not an option of the player's spec."""
    eng = mid_hand(4, 95)
    with pytest.raises(ValueError, match="threads"):
        load_compiled("rollouts:samples=2,threads=2", eng)


def test_an_evaluation_against_the_search_on_threads() -> None:
    """With search threads, an evaluation against ``rollouts`` plays on the batched engine, and
    its win rate is the same for any number of threads."""
    assert evaluator("rollouts:samples=2") is win_rate
    assert evaluator("heuristic", 2) is win_rate_vector
    rules = make_rules("sniff", 2)
    torch.manual_seed(0)
    weights = torch.randn(rules_obs_size(rules), 176)

    def policy(x: torch.Tensor) -> torch.Tensor:
        return x @ weights

    rates = [evaluator("rollouts:samples=2", n)(policy, rules, "rollouts:samples=2", 8, 3, 2) for n in (1, 3)]
    assert rates[0] == rates[1]
    assert 0.0 <= rates[0] <= 1.0


def rules_obs_size(rules: object) -> int:
    from sniff_env.observation import Observer

    return Observer(rules).size  # type: ignore[arg-type]


def test_training_with_search_threads_is_the_same_for_any_count(tmp_path: Path) -> None:
    base = ["--engine", "vector", "--total-steps", "512", "--num-envs", "8", "--num-steps", "32",
            "--builtin-opponents", "rollouts:samples=2", "--selfplay-prob", "0", "--eval-every", "2",
            "--eval-games", "4", "--eval-opponents", "rollouts:samples=2", "--tensorboard", "false",
            "--progress", "false", "--out-dir", str(tmp_path)]
    states = []
    for n in (1, 2):
        assert main([*base, "--exp-name", f"t{n}", "--search-threads", str(n)]) == 0
        states.append(torch.load(tmp_path / f"t{n}" / "checkpoint.pt", weights_only=False)["model"])
    for key in states[0]:
        assert torch.equal(states[0][key], states[1][key]), key
    with pytest.raises(ConfigError, match="search_threads"):
        main([*base, "--exp-name", "bad", "--search-threads", "2000"])


def test_the_benchmark_prints_each_count_and_checks_the_moves(capsys: pytest.CaptureFixture[str]) -> None:
    from training.speed.search_threads import main as bench

    assert bench(["--games", "16", "--samples", "2", "--threads", "0,1,2", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "one stream" in out and "2 threads" in out
    assert "the threaded searches chose the same moves: True" in out
