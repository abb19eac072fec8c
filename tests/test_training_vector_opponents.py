"""Training on the batched engine against the compiled built-in players, the batched in-training
evaluation, and keeping the best evaluated policy."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from conftest import play_out_legally

from sniff_env import make_rules
from training.lib.evaluate import win_rate, win_rate_vector
from training.lib.experience import LEARNER, VectorSelfPlay
from training.lib.torchscript import load_checked, load_player
from training.ppo import main

VECTOR = ["--engine", "vector", "--total-steps", "2048", "--num-envs", "32", "--num-steps", "32",
          "--snapshot-every", "1", "--progress", "false", "--tensorboard", "false"]


AGENTS = [("sniff-2p", 2, {}), ("sniff-4p-partnership", 4, {"partnership": True})]


@pytest.mark.parametrize("agent,players,extra", AGENTS, ids=[a[0] for a in AGENTS])
@pytest.mark.parametrize("opponent", ["greedy", "heuristic", "greedy:tiebreak=heuristic"])
def test_batched_evaluation_equals_the_reference_one(
    agent: str, players: int, extra: dict[str, bool], opponent: str
) -> None:
    """Same seeds, same seats, same players: the batched win rate is the reference engine's."""
    rules = make_rules("sniff", players, **extra)
    module, _, _ = load_checked(f"checkpoints/{agent}.pt", rules)
    rates = [fn(module, rules, opponent, 24, 3, 3) for fn in (win_rate_vector, win_rate)]
    assert rates[0] == rates[1]
    assert 0.0 < rates[0] < 1.0  # both sides won games: the comparison means something


def test_tables_seat_the_compiled_builtins() -> None:
    rules = make_rules("sniff", 2)
    play = VectorSelfPlay(rules, 64, 1, "points", 5, 0.0, random.Random(0), ("heuristic", "greedy"))
    play.pool_size = 1
    for g in range(64):
        play.draw_table(g)
    codes = set(play.table[play.table != LEARNER].tolist())
    assert codes == {0, -2, -3}, codes  # the snapshot, the heuristic, greedy
    assert all((row == LEARNER).sum() == 1 for row in play.table)


def test_vector_engine_refuses_builtins_it_cannot_play() -> None:
    with pytest.raises(ValueError, match="the vector engine plays the built-ins random, greedy, heuristic"):
        VectorSelfPlay(make_rules("sniff", 2), 8, 1, "points", 5, 0.5, random.Random(0), ("search",))


def test_training_against_builtins_keeps_the_best_policy(tmp_path: Path) -> None:
    assert main([*VECTOR, "--builtin-opponents", "heuristic,greedy", "--selfplay-prob", "0", "--eval-every", "1",
                 "--eval-games", "20", "--eval-opponents", "heuristic", "--select-on", "heuristic",
                 "--out-dir", str(tmp_path), "--exp-name", "b"]) == 0
    best = tmp_path / "b" / "best.pt"
    rules = make_rules("sniff", 2)
    player = load_player(best, rules)
    assert 0.0 <= player.meta["selected_win_rate"] <= 1.0
    assert play_out_legally(player, rules, seed=4, max_hands=1) > 0


def test_select_on_must_be_an_eval_opponent(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--select-on 'greedy' must be one of --eval-opponents"):
        main([*VECTOR, "--eval-opponents", "heuristic", "--select-on", "greedy", "--out-dir", str(tmp_path)])


def test_the_search_sits_in_the_league(tmp_path: Path) -> None:
    """The compiled rollout search plays a share of the learner's games on the batched engine."""
    assert main([*VECTOR, "--builtin-opponents", "rollouts:samples=4", "--selfplay-prob", "0", "--eval-every", "0",
                 "--total-steps", "512", "--out-dir", str(tmp_path), "--exp-name", "r"]) == 0
    assert (tmp_path / "r" / "checkpoint.pt").is_file()
