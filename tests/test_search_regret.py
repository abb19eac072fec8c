"""The study of players' regret under a many-deal rollout search (training/studies/search_regret.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from training.imitation import centred_q_loss
from training.studies.search_regret import main, measure

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def report() -> dict:
    players = ["greedy", "heuristic", "rollouts:samples=4", "rollouts:samples=64", str(ROOT / "checkpoints/sniff-2p.pt")]
    return measure(players, games=160, seed=3, reference=64)


def test_every_player_is_judged_on_the_same_positions(report: dict) -> None:
    assert report["positions"] > 40
    for row in report["players"].values():
        assert row["regret"] >= 0.0 and row["regret_half_width"] > 0.0
        assert 0.0 <= row["agreement"] <= 1.0
        by_size = sum(report["hand_sizes"][n] * r for n, r in row["by_hand_size"].items()) / report["positions"]
        assert by_size == pytest.approx(row["regret"])
    assert sum(report["hand_sizes"].values()) == report["positions"]
    assert min(report["hand_sizes"]) >= 1


def test_regret_orders_players_as_play_does(report: dict) -> None:
    rows = report["players"]
    assert rows["greedy"]["regret"] > rows["heuristic"]["regret"]
    assert rows["greedy"]["regret"] > rows["rollouts:samples=64"]["regret"]


def test_label_noise_falls_with_more_deals(report: dict) -> None:
    rows = report["players"]
    assert rows["rollouts:samples=4"]["label_noise"] > 2 * rows["rollouts:samples=64"]["label_noise"]
    assert "label_noise" not in rows["heuristic"]


def test_the_same_seed_gives_the_same_figures() -> None:
    assert measure(["heuristic", "rollouts:samples=8"], 60, 9, 16) == measure(["heuristic", "rollouts:samples=8"], 60, 9, 16)


def test_label_noise_ignores_a_constant_shift_and_illegal_moves() -> None:
    legal = np.array([[True, True, False], [True, True, True]])
    values = np.array([[5.0, 7.0, 100.0], [1.0, 1.0, 1.0]])
    q = np.array([[0.0, 0.0, -np.inf], [0.0, 0.0, 0.0]])
    noise = centred_q_loss(torch.from_numpy(values), torch.from_numpy(q), torch.from_numpy(legal))
    assert float(noise) == pytest.approx(0.5 * (1.0 + 0.0))


def test_main_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "regret.json"
    main(["heuristic", "--games", "40", "--reference", "8", "--out", str(out)])
    saved = json.loads(out.read_text())
    assert saved["reference_samples"] == 8 and "heuristic" in saved["players"]
    assert "regret" in capsys.readouterr().out


def test_main_refuses_no_games() -> None:
    with pytest.raises(SystemExit):
        main(["heuristic", "--games", "0"])


@pytest.mark.parametrize(("spec", "says"), [("search", "vector engine plays the built-ins"), ("nosuch.pt", "does not exist")])
def test_main_refuses_a_player_it_cannot_play(spec: str, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([spec, "--games", "4", "--reference", "2"])
    assert says in capsys.readouterr().err
