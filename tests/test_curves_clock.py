"""The learning curves' wall-clock axis times a run while it ran: a stop and a resume are left out."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tensorboard")


def _log(folder: Path, points: list[tuple[int, float, float]], tag: str = "eval/winrate_vs_greedy") -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(folder))
    for step, value, wall in points:
        writer.add_scalar("charts/SPS", 1000.0, step, walltime=wall - 1)
        writer.add_scalar(tag, value, step, walltime=wall)
    writer.close()


def _events(folder: Path):  # type: ignore[no-untyped-def]
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder))
    events.Reload()
    return events


def test_running_seconds_leave_out_a_pause(tmp_path: Path) -> None:
    from training.curves import running_seconds

    # three points 30 s apart, a stop of an hour, two more points 30 s apart
    _log(tmp_path / "tb", [(10, 0.5, 1000.0), (20, 0.6, 1030.0), (30, 0.55, 1060.0),
                           (40, 0.6, 4660.0), (50, 0.65, 4690.0)])
    clock = running_seconds(_events(tmp_path / "tb"), pause=900)
    evals = [clock[e.wall_time] for e in _events(tmp_path / "tb").Scalars("eval/winrate_vs_greedy")]
    assert evals == pytest.approx([1.0, 31.0, 61.0, 62.0, 92.0])
    # with a longer allowance the hour counts
    clock = running_seconds(_events(tmp_path / "tb"), pause=7200)
    assert clock[4690.0] == pytest.approx(3691.0)  # from the first point, at 999 s


def test_compare_draws_and_checks_pause(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.curves import main

    _log(tmp_path / "a", [(10, 0.5, 1000.0), (20, 0.6, 5000.0)])
    out = tmp_path / "cmp.png"
    assert main(["--compare", "a", "--pause", "600", str(tmp_path / "a"), str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for bad in ("0", "-5", "nan", "x"):
        with pytest.raises(SystemExit) as exc:
            main(["--compare", "a", "--pause", bad, str(tmp_path / "a"), str(tmp_path / "b.png")])
        assert exc.value.code == 2
        assert "--pause" in capsys.readouterr().err
    assert not (tmp_path / "b.png").exists()
