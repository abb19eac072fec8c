"""A trainer says enough: the time left honours ``--stop-seconds`` and the step budget, whichever
ends first; where the output is no terminal it prints plain progress lines; it ends with a
summary naming the checkpoint, the exported policy, the last evaluation and the curves."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.lib.progress import ProgressLines, clock, closing_summary, time_left

pytest.importorskip("torch")


def test_time_left_is_the_sooner_of_the_budget_and_the_deadline() -> None:
    assert time_left(3600.0, started=100.0, stop_seconds=120.0, now=130.0) == 90.0  # the deadline comes first
    assert time_left(30.0, started=100.0, stop_seconds=120.0, now=130.0) == 30.0  # the budget comes first
    assert time_left(None, started=100.0, stop_seconds=0.0, now=130.0) is None
    assert time_left(None, started=100.0, stop_seconds=120.0, now=300.0) == 0.0
    assert clock(3725.0) == "1:02:05" and clock(None) == "-:--:--"


def test_progress_lines_give_the_step_the_rate_and_the_time_left() -> None:
    lines = ProgressLines("run", total=10_000, started=0.0, stop_seconds=120.0)
    lines.line(0, "", now=0.0)  # the first update: the rate counts from here
    line = lines.line(1_000, "SPS 100", now=10.0)
    assert line == "run: step 1,000/10,000 (10%), 0:00:10 elapsed, 0:01:30 left; SPS 100"  # 90 s budget, 110 s deadline


def test_the_summary_names_every_output(tmp_path: Path) -> None:
    lines = closing_summary("run", 4096, 61.0, tmp_path / "checkpoint.pt", tmp_path / "p.onnx", tmp_path / "tb",
                            {"step": 4096, "rates": {"greedy": 0.61, "heuristic": 0.4}})
    text = "\n".join(lines)
    assert "trained 4,096 learner decisions in 0:01:01" in text and str(tmp_path / "p.onnx") in text
    assert "win rate vs greedy 0.610, heuristic 0.400" in text and f"tensorboard --logdir {tmp_path / 'tb'}" in text
    assert "no evaluation yet" in "\n".join(closing_summary("run", 1, 1.0, tmp_path / "c.pt", None, None, {}))


def test_a_run_into_a_file_prints_progress_lines_and_its_summary(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from training.ppo import main

    policy = tmp_path / "policy.pt"
    assert main(["--total-steps", "512", "--num-envs", "8", "--num-steps", "32", "--eval-every", "2", "--eval-games",
                 "4", "--out-dir", str(tmp_path), "--exp-name", "r", "--export", str(policy),
                 "--stop-seconds", "3600"]) == 0
    out = capsys.readouterr().out  # captured: no terminal
    progress = [line for line in out.splitlines() if line.startswith("r: step ")]
    assert progress and all(" left; " in line for line in progress), out
    assert "r: trained " in out and f"policy: {policy}" in out and "last evaluation, at step " in out
    assert f"tensorboard --logdir {tmp_path / 'r' / 'tb'}" in out


def test_curves_draw_any_run(tmp_path: Path) -> None:
    """A run with no evaluation yet draws its training returns; one with nothing logged, a note."""
    from torch.utils.tensorboard import SummaryWriter

    from training.curves import plot_curves

    returns, empty = tmp_path / "returns", tmp_path / "empty"
    writer = SummaryWriter(str(returns))
    for step in range(5):
        writer.add_scalar("charts/episodic_return", 0.1 * step, step * 100)
    writer.close()
    SummaryWriter(str(empty)).close()
    for folder in (returns, empty):
        png = plot_curves(folder, tmp_path / f"{folder.name}.png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
