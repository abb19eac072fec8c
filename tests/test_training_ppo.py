"""The self-play PPO script end to end on a tiny budget: train, checkpoint, resume, export, play."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from conftest import play_out_legally

from sniff_env import make_rules
from training.lib.config import ConfigError
from training.lib.torchscript import load_player
from training.ppo import main

TINY = ["--total-steps", "512", "--num-envs", "8", "--num-steps", "32", "--eval-every", "2",
        "--eval-games", "4", "--snapshot-every", "1", "--checkpoint-every", "1", "--progress", "false"]


def test_train_resume_export_and_play(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    policy = tmp_path / "policy.pt"
    args = [*TINY, "--out-dir", str(out), "--exp-name", "t", "--export", str(policy)]
    assert main(args) == 0
    ckpt = out / "t" / "checkpoint.pt"
    first = torch.load(ckpt, weights_only=False)
    assert first["global_step"] > 0 and len(first["pool"]) >= 1
    assert any((out / "t" / "tb").iterdir()), "TensorBoard events written"

    with pytest.raises(ConfigError, match="policy.pt already exists; give another name, or --force"):
        main([*args[:1], "1024", *args[2:], "--resume", str(ckpt)])  # the export would be replaced
    assert main([*args[:1], "1024", *args[2:], "--resume", str(ckpt), "--force"]) == 0
    second = torch.load(ckpt, weights_only=False)
    assert second["iteration"] > first["iteration"]
    assert second["global_step"] > first["global_step"]

    rules = make_rules("sniff", 2)
    player = load_player(policy, rules)
    assert player.meta["training_steps"] == second["global_step"]
    assert play_out_legally(player, rules, seed=5, max_hands=3) > 0


def test_resume_auto_goes_on_from_the_runs_own_checkpoint(tmp_path: Path) -> None:
    """A stopped run, started again with ``--resume auto``, goes on where it stopped; with no
    checkpoint in its folder, the same command starts a new run."""
    args = [*TINY, "--total-steps", "1024", "--eval-every", "0", "--tensorboard", "false", "--out-dir", str(tmp_path),
            "--exp-name", "a", "--resume", "auto"]
    assert main([*args, "--stop-after", "1"]) == 0
    ckpt = tmp_path / "a" / "checkpoint.pt"
    assert torch.load(ckpt, weights_only=False)["iteration"] == 1
    assert main(args) == 0
    assert torch.load(ckpt, weights_only=False)["iteration"] == 4  # 1024 decisions of 8 x 32: the three left ran


def test_stop_seconds_ends_a_sitting_with_a_checkpoint(tmp_path: Path) -> None:
    """``--stop-seconds`` ends the run after the first iteration past the allowance, with a
    checkpoint that ``--resume auto`` goes on from."""
    args = [*TINY, "--total-steps", "1024", "--eval-every", "0", "--tensorboard", "false", "--out-dir", str(tmp_path),
            "--exp-name", "s", "--resume", "auto", "--checkpoint-every", "0"]
    assert main([*args, "--stop-seconds", "1e-6"]) == 0
    ckpt = tmp_path / "s" / "checkpoint.pt"
    assert torch.load(ckpt, weights_only=False)["iteration"] == 1
    assert main(args) == 0
    assert torch.load(ckpt, weights_only=False)["iteration"] == 4


def test_same_seed_same_training(tmp_path: Path) -> None:
    states = []
    for run in ("a", "b"):
        assert main([*TINY, "--eval-every", "0", "--out-dir", str(tmp_path), "--exp-name", run,
                     "--tensorboard", "false"]) == 0
        states.append(torch.load(tmp_path / run / "checkpoint.pt", weights_only=False)["model"])
    for key in states[0]:
        assert torch.equal(states[0][key], states[1][key]), key


def test_resume_refuses_other_rules(tmp_path: Path) -> None:
    assert main([*TINY, "--eval-every", "0", "--out-dir", str(tmp_path), "--exp-name", "r",
                 "--tensorboard", "false"]) == 0
    with pytest.raises(ValueError, match="other rules"):
        main([*TINY, "--out-dir", str(tmp_path), "--exp-name", "r2", "--tensorboard", "false",
              "--preset", "muggins", "--resume", str(tmp_path / "r" / "checkpoint.pt")])


def test_unknown_config_field_is_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text('preset = "sniff"\nlearning_rat = 0.1\n')
    with pytest.raises(ConfigError, match="learning_rat"):
        main(["--config", str(cfg)])
    with pytest.raises(SystemExit):
        main(["--no-such-flag", "1"])


def test_shipped_training_configs_parse() -> None:
    """Every run in configs/training parses with its own trainer's fields (named by its prefix)."""
    import importlib

    from training.lib.config import parse_config

    trainers = {"sb3": "training.libraries.sb3_maskable", "imitation": "training.imitation", "rllib": "training.libraries.rllib_selfplay",
                "tianshou": "training.libraries.tianshou_dqn", "expert": "training.studies.expert_iteration",
                "torchrl": "training.libraries.torchrl_mappo", "benchmarl": "training.libraries.benchmarl_mappo"}
    configs = sorted(Path("configs/training").glob("*.toml"))
    assert configs
    for cfg in configs:
        module = trainers.get(cfg.name.split("-")[0], "training.ppo")
        args = parse_config(importlib.import_module(module).Args, ["--config", str(cfg)], "")
        if module == "training.studies.expert_iteration":  # its rounds run this imitation config
            args = parse_config(importlib.import_module("training.imitation").Args, ["--config", args.base], "")
        make_rules(args.preset, args.num_players)


def test_vector_engine_training_exports_a_playable_policy(tmp_path: Path) -> None:
    policy = tmp_path / "v.pt"
    assert main(["--engine", "vector", "--total-steps", "2048", "--num-envs", "32", "--num-steps", "32",
                 "--eval-every", "0", "--snapshot-every", "1", "--selfplay-prob", "0.5", "--progress", "false",
                 "--tensorboard", "false", "--out-dir", str(tmp_path), "--export", str(policy)]) == 0
    player = load_player(policy, make_rules("sniff", 2))
    assert play_out_legally(player, make_rules("sniff", 2), seed=9, max_hands=1) > 0


def test_export_from_checkpoint(tmp_path: Path) -> None:
    from training.export import export_checkpoint

    assert main([*TINY, "--eval-every", "0", "--out-dir", str(tmp_path), "--exp-name", "x",
                 "--tensorboard", "false"]) == 0
    path = export_checkpoint(tmp_path / "x" / "checkpoint.pt", tmp_path / "x.pt")
    player = load_player(path, make_rules("sniff", 2))
    assert play_out_legally(player, make_rules("sniff", 2), seed=2, max_hands=1) > 0
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a readable training checkpoint"):
        export_checkpoint(bad, tmp_path / "y.pt")


def test_learning_curve_png(tmp_path: Path) -> None:
    from training.curves import plot_curves

    assert main([*TINY, "--out-dir", str(tmp_path), "--exp-name", "c", "--eval-opponents", "random"]) == 0
    png = plot_curves(tmp_path / "c" / "tb", tmp_path / "curve.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stage_comparison_plays_each_policy(tmp_path: Path) -> None:
    """``curves.py --stages`` plays each exported file on the batched engine: its figures are the
    in-training evaluator's on the same seeds, and it writes the PNG and the JSON beside it."""
    import json

    import torch

    from training.curves import main as curves_main
    from training.curves import stage_rates
    from training.lib.evaluate import win_rate_vector

    rates = stage_rates(["checkpoints/sniff-2p.pt"], ["greedy"], 20, [3, 4])
    row = rates["checkpoints/sniff-2p.pt"]["greedy"]
    module = torch.jit.load("checkpoints/sniff-2p.pt")
    rules = make_rules("sniff", 2)
    expected = (win_rate_vector(module, rules, "greedy", 20, 3, 40) + win_rate_vector(module, rules, "greedy", 20, 4, 40)) / 2
    assert row["games"] == 40 and row["win_rate"] == pytest.approx(expected)
    assert row["low"] <= row["win_rate"] <= row["high"]
    out = tmp_path / "stages.png"
    assert curves_main(["--stages", "--opponents", "greedy", "--games", "10", "--seeds", "5",
                        "checkpoints/sniff-2p.pt", "checkpoints/sniff-2p.pt", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads(out.with_suffix(".json").read_text())
    assert set(saved) == {"checkpoints/sniff-2p.pt"} and saved["checkpoints/sniff-2p.pt"]["greedy"]["games"] == 10
    with pytest.raises(SystemExit):
        curves_main(["--stages", "--seeds", "x", "checkpoints/sniff-2p.pt", str(out)])


def test_shipped_imitation_configs_parse() -> None:
    from training.imitation import Args as ImitationArgs
    from training.lib.config import parse_config

    configs = sorted(Path("configs/training").glob("imitation*.toml"))
    assert configs
    for cfg in configs:
        args = parse_config(ImitationArgs, ["--config", str(cfg)], "")
        make_rules(args.preset, args.num_players)


def test_init_from_an_exported_policy_starts_from_its_weights(tmp_path: Path) -> None:
    policy = tmp_path / "p.pt"
    base = [*TINY, "--eval-every", "0", "--tensorboard", "false", "--out-dir", str(tmp_path)]
    assert main([*base, "--exp-name", "a", "--export", str(policy)]) == 0
    trained = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=False)["model"]
    # no update at all (one rollout, learning rate 0): the new run's network is the exported one
    assert main([*base, "--exp-name", "b", "--init", str(policy), "--learning-rate", "0", "--total-steps", "256",
                 "--checkpoint-every", "1"]) == 0
    started = torch.load(tmp_path / "b" / "checkpoint.pt", weights_only=False)["model"]
    for key in trained:
        assert torch.equal(trained[key], started[key]), key
    with pytest.raises(ValueError, match="other rules"):
        main([*base, "--exp-name", "c", "--preset", "muggins", "--init", str(policy)])


def test_bfloat16_training_keeps_float32_weights_repeats_and_resumes(tmp_path: Path) -> None:
    """``--precision bf16``: matrix products in bfloat16, the weights, optimizer and checkpoint in
    float32; the same seed gives the same run, and a resumed run keeps the precision."""
    base = ["--engine", "vector", "--num-envs", "16", "--num-steps", "16", "--eval-every", "0",
            "--snapshot-every", "1", "--progress", "false", "--tensorboard", "false", "--out-dir", str(tmp_path),
            "--precision", "bf16"]
    models = []
    for run in ("a", "b"):
        assert main([*base, "--total-steps", "512", "--exp-name", run]) == 0
        ckpt = torch.load(tmp_path / run / "checkpoint.pt", weights_only=False)
        assert ckpt["args"]["precision"] == "bf16"
        assert all(v.dtype == torch.float32 for v in ckpt["model"].values() if v.is_floating_point())
        models.append(ckpt["model"])
    assert all(torch.equal(models[0][k], models[1][k]) for k in models[0])
    fp32 = ["--precision" if a == "--precision" else ("fp32" if a == "bf16" else a) for a in base]
    assert main([*fp32, "--total-steps", "512", "--exp-name", "c"]) == 0
    other = torch.load(tmp_path / "c" / "checkpoint.pt", weights_only=False)["model"]
    assert any(not torch.equal(models[0][k], other[k]) for k in other)  # bfloat16 products change the update
    assert main([*base, "--total-steps", "1024", "--exp-name", "a", "--resume", str(tmp_path / "a" / "checkpoint.pt"),
                 "--force"]) == 0
    assert torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=False)["global_step"] > 0


def test_an_unknown_precision_is_refused_naming_the_choices() -> None:
    from training.lib.device import precision

    with pytest.raises(ConfigError, match="precision .* must be one of 'fp32', 'bf16'; got 'fp8'"):
        main(["--precision", "fp8"])
    with pytest.raises(ConfigError, match="fp32, bf16"):
        precision("fp8", torch.device("cpu"))
