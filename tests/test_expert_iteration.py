"""Expert iteration on a tiny budget: each round records its network's own positions, learns the
guided scores from its own weights, is measured on one seed, and the rounds stop when one does not
improve; a rerun goes on from the rounds already written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from training.studies.expert_iteration import improved, main

BASE = """
preset = "sniff"
num_players = 2
engine = "vector"
opponents = "heuristic,greedy"
workers = 1
arch = "move"
q_scale = 0.3
epochs = 1
progress = false
"""


def test_rounds_improve_or_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "base.toml"
    base.write_text(BASE)
    rates = iter([0.40, 0.45, 0.44, 0.99])  # round 0, 1 (better), 2 (not better: the last)
    monkeypatch.setattr("training.studies.expert_iteration.measure",
                        lambda policy, args, rules: {"games": 2, "win_rate": next(rates), "ci95": [0.0, 1.0]})
    argv = ["--base", str(base), "--start", "checkpoints/sniff-2p.pt", "--games", "3", "--samples", "2",
            "--rounds", "5", "--workers", "1", "--out-dir", str(tmp_path), "--exp-name", "x"]
    assert main(argv) == 0
    log = json.loads((tmp_path / "x" / "rounds.json").read_text())
    assert [r["round"] for r in log["rounds"]] == [0, 1, 2] and log["rounds"][2]["win_rate"] == 0.44
    assert log["rounds"][1]["network"] == str(tmp_path / "x-1.pt") and (tmp_path / "x-2.onnx").exists()
    first = torch.load(tmp_path / "x-1" / "checkpoint.pt", weights_only=False)["args"]
    second = torch.load(tmp_path / "x-2" / "checkpoint.pt", weights_only=False)["args"]
    assert (first["init"], first["actor"], first["prior"]) == ("checkpoints/sniff-2p.pt",) * 2 + (0.3,)
    assert second["init"] == second["actor"] == str(tmp_path / "x-1.pt"), "a round starts from and plays the last"
    assert first["seed"] != second["seed"] and first["teacher"] == "rollouts:samples=2"
    assert main([*argv, "--rounds", "3"]) == 0  # round 2 did not improve: nothing more is run
    assert len(json.loads((tmp_path / "x" / "rounds.json").read_text())["rounds"]) == 3


def test_improved_means_above_every_earlier_round() -> None:
    rounds = [{"win_rate": w} for w in (0.45, 0.50, 0.48)]
    assert improved(rounds[:2]) and not improved(rounds) and not improved([*rounds[:2], {"win_rate": 0.50}])
