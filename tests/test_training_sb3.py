"""The MaskablePPO script end to end on a tiny budget: train, save, resume, export, play."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from conftest import play_out_legally

from sniff_env import make_rules
from training.lib.torchscript import load_player
from training.libraries.sb3_maskable import main


def test_sb3_train_resume_export_and_play(tmp_path: Path) -> None:
    policy = tmp_path / "sb3.pt"
    common = ["--n-envs", "2", "--n-steps", "64", "--batch-size", "64", "--eval-every", "128",
              "--eval-games", "2", "--out-dir", str(tmp_path), "--exp-name", "s", "--progress", "false",
              "--opponents", "random,greedy"]
    assert main([*common, "--total-timesteps", "256"]) == 0
    model = tmp_path / "s" / "model.zip"
    assert model.is_file()
    assert main([*common, "--total-timesteps", "128", "--resume", str(model), "--export", str(policy)]) == 0
    rules = make_rules("sniff", 2)
    player = load_player(policy, rules)
    assert player.meta["training_steps"] >= 384
    assert play_out_legally(player, rules, seed=3, max_hands=2) > 0


def test_sb3_vector_engine_trains_and_exports(tmp_path: Path) -> None:
    policy = tmp_path / "sb3v.pt"
    args = ["--engine", "vector", "--n-envs", "8", "--n-steps", "16", "--batch-size", "64", "--eval-every", "0",
            "--out-dir", str(tmp_path), "--exp-name", "v", "--progress", "false", "--tensorboard", "false",
            "--opponents", "greedy", "--total-timesteps", "128", "--export", str(policy)]
    assert main(args) == 0
    rules = make_rules("sniff", 2)
    player = load_player(policy, rules)
    assert player.meta["training_steps"] >= 128
    assert play_out_legally(player, rules, seed=3, max_hands=2) > 0


@pytest.mark.parametrize(("flag", "value", "needle"), [
    ("--engine", "gpu", r"engine \(--engine\) must be one of 'python', 'vector'; got 'gpu'"),
    ("--opponents", "random,greedy,heuristic", "opponents"),  # the vector engine: one per other seat
])
def test_sb3_vector_engine_bad_input(tmp_path: Path, flag: str, value: str, needle: str) -> None:
    args = ["--engine", "vector", "--n-envs", "2", "--out-dir", str(tmp_path), "--progress", "false", flag, value]
    with pytest.raises((SystemExit, ValueError), match=needle):
        main(args)
    assert not (tmp_path / "sniff-sb3").exists()
