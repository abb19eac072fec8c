"""The committed benchmark reports: each is a standard report of the task its folder names, the
policy file committed beside it is the very file it rated, and the README shows its figures; each
committed best-response report has its row, its figures as the report has them, in the table."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sniff_env.evaluation.benchmark.report import is_run_sidecar, read_report, table_rows
from sniff_env.evaluation.benchmark.tasks import get_task

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "checkpoints" / "results" / "benchmark"
REPORTS = sorted(p for p in RESULTS.glob("*/*.json") if not is_run_sidecar(p))
EXPLOITS = sorted((ROOT / "checkpoints" / "results" / "exploit").glob("*.json"))


def test_there_are_committed_reports() -> None:
    assert len(REPORTS) >= 6


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_committed_report_is_standard_and_of_its_folders_task(path: Path) -> None:
    report = read_report(path)
    assert report["task"] == path.parent.name
    assert report["version"] == get_task(report["task"]).version
    assert report["standard"] is True
    assert path.with_suffix(".run.json").is_file() and path.with_suffix(".png").is_file()


@pytest.mark.parametrize("path", [p for p in REPORTS if p.with_suffix(".onnx").is_file()],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_policy_committed_beside_a_report_is_the_file_it_rated(path: Path) -> None:
    agent = read_report(path)["agent"]
    assert agent["kind"] == "policy file"
    assert agent["sha256"] == hashlib.sha256(path.with_suffix(".onnx").read_bytes()).hexdigest()


def test_the_readme_shows_every_committed_reports_rating_and_win_rates() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    for path in REPORTS:
        for _columns, rows in table_rows([read_report(path)]).values():
            rating, *cells, _games = rows[0][1:]
            assert any(rating in line and all(c in line for c in cells) for line in lines), (
                f"README has no table row with {path.name}'s rating {rating} and win rates {cells}"
            )


def test_there_are_committed_best_responses() -> None:
    assert len(EXPLOITS) >= 10


@pytest.mark.parametrize("path", EXPLOITS, ids=lambda p: p.stem)
def test_the_best_response_table_shows_each_reports_figures(path: Path) -> None:
    """The row with the report's win rate and interval names its frozen player and its margin."""
    report = json.loads(path.read_text())
    ev = report["evaluation"]
    (lo, hi), (mlo, mhi) = ev["win_rate_ci95"], ev["margin_ci95"]
    figure = f"**{ev['win_rate']:.3f}** [{lo:.3f}, {hi:.3f}]"
    rows = [line for line in (RESULTS.parent / "best-response.md").read_text().splitlines()
            if line.startswith("|") and figure in line]
    assert len(rows) == 1, f"{path.name}: no single table row shows {figure}"
    assert f"`{report['opponent']}`" in rows[0] and f"{ev['margin']:+.1f} [{mlo:+.1f}, {mhi:+.1f}]" in rows[0]
    assert f"{ev['games']:,} |" in rows[0] and path.with_suffix(".png").is_file()
