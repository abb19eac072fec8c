"""Atomic writes: the target is replaced whole or not at all, and is readable by everyone."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from sniff_env.atomic import atomic_path, save_figure, write_json_atomic


def test_complete_write_replaces_the_target(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "results.json"
    write_json_atomic(target, {"a": 1})
    write_json_atomic(target, {"a": 2})
    assert target.read_text().strip().replace(" ", "").replace("\n", "") == '{"a":2}'
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["results.json"]


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_save_figure_writes_the_png_in_one_step_and_closes_the_figure(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    assert save_figure(fig, tmp_path / "f.png") == tmp_path / "f.png"
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.png"]
    assert not plt.fignum_exists(fig.number)
