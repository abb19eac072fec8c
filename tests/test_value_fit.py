"""The study of a network's fit to the search's move values by situation (training/studies/value_fit.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from training.imitation import main as imitation
from training.studies.value_fit import SITUATIONS, main, measure_fit

ROOT = Path(__file__).resolve().parent.parent
NET = str(ROOT / "checkpoints/sniff-2p.pt")


def record(tmp: Path, name: str, samples: int, seed: int = 4) -> str:
    """Heuristic games (the heuristic plays the recorded seat, so the labels do not change play)."""
    assert imitation(["--engine", "vector", "--teacher", f"rollouts:samples={samples}", "--actor", "heuristic",
                      "--opponents", "heuristic", "--games", "24", "--seed", str(seed), "--epochs", "0",
                      "--eval-games", "1", "--workers", "1", "--progress", "false", "--out-dir", str(tmp),
                      "--exp-name", name]) == 0
    return str(tmp / name / "teacher-data.npz")


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("fit")
    return {"many": record(tmp, "many", 32), "few": record(tmp, "few", 4), "other": record(tmp, "other", 4, seed=5)}


def test_the_situations_add_up_and_the_noise_follows_the_control(recordings: dict[str, str]) -> None:
    report = measure_fit([NET], recordings["many"], recordings["few"], ratio=8, holdout=0.5)
    row = report["networks"][NET]
    assert report["decisions"] > 50 and row["error"] > 0 and row["regret"] >= 0
    for name in SITUATIONS:
        cells = row["by"][name].values()
        assert sum(c["positions"] for c in cells) == report["decisions"]
        assert sum(c["positions"] * c["error"] for c in cells) / report["decisions"] == pytest.approx(row["error"])
        assert sum(c["positions"] * c["regret"] for c in cells) / report["decisions"] == pytest.approx(row["regret"])
    assert report["noise"] > 0
    assert max(row["by"]["mover's tiles"]) <= 7 + 2 and min(row["by"]["legal moves"]) >= 2
    same = measure_fit([NET], recordings["many"], recordings["many"], ratio=1, holdout=0.5)
    assert same["noise"] == 0.0 and same["networks"][NET]["error"] == pytest.approx(row["error"])
    assert "noise" not in measure_fit([NET], recordings["many"], holdout=0.5)


def test_a_control_of_other_positions_and_bad_arguments_are_refused(recordings: dict[str, str],
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="other positions"):
        measure_fit([NET], recordings["many"], recordings["other"], ratio=8, holdout=0.5)
    for argv, message in (
        ([NET, "--data", recordings["many"], "--control", recordings["other"], "--ratio", "8"], "other positions"),
        ([NET, "--data", recordings["many"], "--control", recordings["few"]], "go together"),
        ([NET, "--data", recordings["many"], "--holdout", "0"], "--holdout must be"),
        ([NET, "--data", str(ROOT / "missing.npz")], "missing.npz"),
        ([NET, "--data", str(ROOT / "README.md")], "is not a recording of the search's move values"),
    ):
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err


def test_the_command_prints_and_writes_its_figures(recordings: dict[str, str], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fit.json"
    main([NET, "--data", recordings["many"], "--control", recordings["few"], "--ratio", "8", "--holdout", "0.5",
          "--min-positions", "1", "--out", str(out)])
    text = capsys.readouterr().out
    assert "held-out decisions" in text and "by tiles to draw" in text and "the labels' own noise" in text
    saved = json.loads(out.read_text())
    assert saved["decisions"] > 50 and np.isfinite(saved["noise"])
