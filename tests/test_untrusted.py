"""Files and text from outside: bounded reads of regular files only, text escaped before it is
printed, and the leftovers of interrupted atomic writes cleaned from the folders written."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hostile import deadline  # noqa: F401  (a time limit per test: a hang fails the test)

from sniff_env.atomic import atomic_path, clean_stale_temps, is_temp_name
from sniff_env.cli import main
from sniff_env.gamelog import GameLogError, load_game_log
from sniff_env.untrusted import InputFileError, printable, read_bounded


def test_printable_escapes_what_a_terminal_obeys() -> None:
    assert printable("\x1b]0;title\x07\x1b[2J\x9b1m\x7f\u202eok\u2028") == \
        "\\x1b]0;title\\x07\\x1b[2J\\x9b1m\\x7f\\u202eok\\u2028"
    assert printable("sniff-2p · héllo [bold]") == "sniff-2p · héllo [bold]"
    assert printable(Path("a\nb")) == "a\\x0ab"


def test_read_bounded_reads_regular_files_up_to_the_limit(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.write_bytes(b"x" * 10)
    assert read_bounded(small, 10) == b"x" * 10
    with pytest.raises(InputFileError, match=r"cannot read the log '.*small': it holds 10 bytes, more than the 9 "):
        read_bounded(small, 9, "the log")
    sparse = tmp_path / "sparse"
    with open(sparse, "wb") as f:
        f.truncate(2**40)  # a terabyte that takes no room: refused by its size, never read
    with pytest.raises(InputFileError, match="holds 1,099,511,627,776 bytes"):
        read_bounded(sparse, 2**20)
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "missing", 10)


@pytest.mark.parametrize(("make", "kind"), [
    (lambda p: p.mkdir(), "a folder"),
    (lambda p: os.mkfifo(p), "a pipe"),
])
def test_read_bounded_refuses_what_is_no_regular_file(tmp_path: Path, make: object, kind: str) -> None:
    path = tmp_path / "odd"
    make(path)  # type: ignore[operator]
    with pytest.raises(InputFileError, match=f"it is {kind}, not a regular file"):
        read_bounded(path, 100)
    with pytest.raises(GameLogError, match=f"cannot read the game log '.*odd': it is {kind}"):
        load_game_log(path)


def test_a_game_log_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(33 * 2**20)
    with pytest.raises(GameLogError, match="holds 34,603,008 bytes, more than the 33,554,432"):
        load_game_log(path)


def test_serve_resume_refuses_a_pipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SNIFF_HOME", str(tmp_path / "home"))
    os.mkfifo(tmp_path / "fifo")
    assert main(["serve", "--opponent", "random", "--port", "0", "--resume", str(tmp_path / "fifo")]) == 2
    assert "it is a pipe, not a regular file" in capsys.readouterr().err


def test_temp_names_are_those_of_atomic_writes(tmp_path: Path) -> None:
    with atomic_path(tmp_path / "game.json") as tmp:
        assert is_temp_name(tmp.name)
    with atomic_path(tmp_path / "chart.png", suffix=".png") as tmp:
        assert is_temp_name(tmp.name)
    for name in (".game.json.abcd_123.tmp", ".run.png.abcdefgh.png"):
        assert is_temp_name(name)
    for name in ("game.json", ".game.json.abc.tmp", "game.json.abcdefgh.tmp", ".notes.abcdefgh.png", ".bashrc"):
        assert not is_temp_name(name)


def _aged(path: Path, seconds: float, text: str = "{") -> Path:
    path.write_text(text)
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_stale_leftovers_are_cleaned_and_nothing_else(tmp_path: Path) -> None:
    stale = _aged(tmp_path / ".g.json.abcdefgh.tmp", 120)
    fresh = _aged(tmp_path / ".h.json.abcdefgh.tmp", 1)  # a write in progress
    mine = _aged(tmp_path / "g.json", 120)
    hidden = _aged(tmp_path / ".notes.abcdefgh.png", 120)
    (tmp_path / ".k.json.abcdefgh.tmp").mkdir()
    os.symlink(mine, tmp_path / ".l.json.abcdefgh.tmp")
    assert clean_stale_temps(tmp_path) == [stale]
    assert not stale.exists() and fresh.exists() and mine.exists() and hidden.exists()
    assert (tmp_path / ".k.json.abcdefgh.tmp").is_dir() and (tmp_path / ".l.json.abcdefgh.tmp").is_symlink()
    assert clean_stale_temps(tmp_path / "missing") == [] and clean_stale_temps(mine) == []


def test_writers_clean_their_folders_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sniff_env.play.terminal.Terminal.run", lambda self: 0)
    (tmp_path / "games").mkdir()
    left = _aged(tmp_path / "games" / ".old.json.abcdefgh.tmp", 120)
    assert main(["play", "--opponent", "random", "--save", str(tmp_path / "games" / "new.json")]) == 0
    assert not left.exists() and (tmp_path / "games" / "new.json").is_file()
    (tmp_path / "out").mkdir()
    chart = _aged(tmp_path / "out" / ".run.png.abcdefgh.png", 120)
    assert main(["eval", "random", "greedy", "--games", "2", "--max-hands", "1", "--no-progress",
                 "--out", str(tmp_path / "out" / "run")]) == 0
    assert not chart.exists() and (tmp_path / "out" / "run.json").is_file()
