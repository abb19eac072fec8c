"""The training-speed benchmark: its figures are consistent, and its arithmetic ceiling counts
what the network really computes."""

from __future__ import annotations

import json
from pathlib import Path

from sniff_env.presets import make_rules
from training import ppo
from training.lib.network import make_net
from training.speed.training_speed import main


def test_a_small_run_reports_rates_and_an_arithmetic_ceiling_above_them(tmp_path: Path) -> None:
    out = tmp_path / "speed.json"
    assert main(["--archs", "mlp", "--num-envs", "16", "--num-steps", "4", "--iterations", "1", "--repeats", "1",
                 "--collectors", "fast,reference", "--plumbing-envs", "64", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["figures"]) == {"mlp (fast)", "mlp (reference)"}
    mlp = report["figures"]["mlp (fast)"]
    assert 0 < mlp["network_share"] <= 1
    pipe = report["plumbing"]
    assert 0 < pipe["learner_decisions_per_s"] < pipe["engine_decisions_per_s"]
    assert pipe["engine_alone_decisions_per_s"] > 0
    assert report["matmul_peak_flops"] > 1e8
    # collection's forward pass and, per epoch, the update's forward and backward (about 3 forwards):
    # about 2 operations per weight per row each
    weights = sum(p.numel() for p in make_net(make_rules("sniff", 2)).parameters())
    expected = 2 * weights * (1 + 3 * ppo.Args().update_epochs)
    assert 0.5 * expected < mlp["flops_per_decision"] < 1.5 * expected
    assert mlp["ceiling_decisions_per_s"] == report["matmul_peak_flops"] / mlp["flops_per_decision"]
    assert 0 < mlp["decisions_per_s"] < mlp["ceiling_decisions_per_s"]
    assert mlp["decisions_per_s"] <= min(mlp["collect_decisions_per_s"], mlp["update_decisions_per_s"])


def test_bfloat16_rows_use_the_bfloat16_peak_and_the_minibatches_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "speed.json"
    assert main(["--archs", "mlp", "--num-envs", "16", "--num-steps", "4", "--iterations", "1", "--repeats", "1",
                 "--precisions", "fp32,bf16", "--num-minibatches", "2", "--plumbing-envs", "0",
                 "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["figures"]) == {"mlp (fast)", "mlp (fast, bf16)"}
    assert report["settings"]["num_minibatches"] == 2
    peaks = report["matmul_peak_flops_by_precision"]
    row = report["figures"]["mlp (fast, bf16)"]
    assert row["ceiling_decisions_per_s"] == peaks["bf16"] / row["flops_per_decision"]
    assert report["plumbing"] is None


def test_fixed_tiles_rows_time_the_tile_network_with_its_attention_fixed(tmp_path: Path) -> None:
    """``--tiles free,fixed`` times each move-tiles row both ways (other networks once), at the size
    asked for; with the attention fixed, the update differentiates fewer operations a decision."""
    out = tmp_path / "speed.json"
    assert main(["--archs", "move,move-tiles", "--num-envs", "16", "--num-steps", "4", "--iterations", "1",
                 "--repeats", "1", "--tiles", "free,fixed", "--hidden", "32", "--move-hidden", "16",
                 "--plumbing-envs", "0", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    figures = report["figures"]
    assert set(figures) == {"move (fast)", "move-tiles (fast)", "move-tiles (fast, fixed tiles)"}
    assert report["settings"]["hidden"] == 32 and report["settings"]["move_hidden"] == 16
    free, fixed = figures["move-tiles (fast)"], figures["move-tiles (fast, fixed tiles)"]
    assert fixed["flops_per_decision"] < 0.8 * free["flops_per_decision"]
    assert figures["move (fast)"]["flops_per_decision"] < free["flops_per_decision"]
