"""Imitation warm-start end to end on a tiny budget: record, train, export, play, and PPO from it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import play_out_legally

from sniff_env import make_rules
from sniff_env.players import load
from training.imitation import Args, main, play_games
from training.ppo import main as ppo_main

TINY = ["--games", "8", "--epochs", "2", "--eval-games", "4", "--workers", "1", "--progress", "false"]


def test_imitation_checkpoint_exports_and_starts_ppo(tmp_path: Path) -> None:
    policy = tmp_path / "im.pt"
    assert main([*TINY, "--out-dir", str(tmp_path), "--exp-name", "im", "--export", str(policy)]) == 0
    ckpt = torch.load(tmp_path / "im" / "checkpoint.pt", weights_only=False)
    assert ckpt["imitation_decisions"] > 0 and 0.0 <= ckpt["imitation"]["win_rate_vs_greedy"] <= 1.0
    rules = make_rules("sniff", 2)
    player = load(str(policy), rules=rules)
    assert player.meta["trainer"] == "imitation"
    assert play_out_legally(player, rules, seed=3, max_hands=3) > 0

    ppo = ["--total-steps", "256", "--num-envs", "8", "--num-steps", "32", "--eval-every", "0",
           "--checkpoint-every", "1", "--progress", "false", "--tensorboard", "false", "--out-dir", str(tmp_path)]
    assert ppo_main([*ppo, "--exp-name", "ft", "--init", str(tmp_path / "im" / "checkpoint.pt")]) == 0
    start = torch.load(tmp_path / "ft" / "checkpoint.pt", weights_only=False)
    assert len(start["pool"]) >= 1  # the starting network is the first opponent
    assert torch.equal(start["pool"][0]["trunk.0.weight"], ckpt["model"]["trunk.0.weight"])
    with pytest.raises(ValueError, match="other rules"):
        ppo_main([*ppo, "--exp-name", "bad", "--preset", "muggins", "--init",
                  str(tmp_path / "im" / "checkpoint.pt")])


def test_records_are_the_teachers_legal_choices_and_reproducible() -> None:
    rules = make_rules("sniff", 2)
    args = Args(games=4, explore=0.2, seed=3)
    a = play_games(rules, args, 0, 4)
    b = play_games(rules, args, 0, 4)
    assert len(a["actions"]) > 0
    assert all(np.array_equal(a[k], b[k]) for k in a)
    rows = np.arange(len(a["actions"]))
    assert (a["masks"][rows, a["actions"]] == 1).all(), "every label is a legal action"
    assert (a["masks"].sum(1) > 1).all(), "forced moves are not recorded"
    # a chunk boundary does not change the games: records of games 2-3 equal the tail of 0-3
    tail = play_games(rules, args, 2, 2)
    assert np.array_equal(tail["actions"], a["actions"][a["games"] >= 2])


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        main(["--explore", "1.5"])
    with pytest.raises(SystemExit):
        main(["--games", "0"])


def test_vector_teacher_records_trains_from_a_policy_and_reuses_its_data(tmp_path: Path) -> None:
    """The compiled search as teacher on the batched engine, starting from a shipped policy; the
    recorded decisions are saved and a second run trains on them without playing."""
    vec = ["--engine", "vector", "--teacher", "rollouts:samples=2", "--opponents", "heuristic,greedy",
           "--arch", "move", "--init", "checkpoints/sniff-2p.pt", "--games", "6", "--epochs", "1",
           "--eval-games", "4", "--progress", "false", "--out-dir", str(tmp_path)]
    assert main([*vec, "--exp-name", "v"]) == 0
    saved = tmp_path / "v" / "teacher-data.npz"
    with np.load(saved) as data:
        assert len(data["actions"]) > 20 and set(data["games"].tolist()) == set(range(6))
        legal = data["masks"][np.arange(len(data["actions"])), data["actions"]]
        assert legal.all()  # every recorded teacher move is legal where it was recorded
    assert main([*vec, "--exp-name", "w", "--data", str(saved)]) == 0
    assert not (tmp_path / "w" / "teacher-data.npz").exists()
    first = torch.load(tmp_path / "v" / "checkpoint.pt", weights_only=False)
    second = torch.load(tmp_path / "w" / "checkpoint.pt", weights_only=False)
    assert first["imitation_decisions"] == second["imitation_decisions"]
    for key, value in first["model"].items():  # same decisions, same seed: the same network
        assert torch.equal(value, second["model"][key]), key
    with pytest.raises(ValueError, match="teachers are heuristic and rollouts:samples=N"):
        main([*vec, "--exp-name", "x", "--teacher", "search"])
