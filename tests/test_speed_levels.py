"""``sniff speed levels`` times the ladder's levels and any other player spec on the same positions,
and refuses a spec that names no player in one line."""

from __future__ import annotations

import pytest

from sniff_env.speed.levels import main


def test_a_level_and_a_spec_are_timed_on_the_same_positions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--levels", "beginner", "--spec", "greedy", "--spec", "heuristic", "--positions", "6"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert "over 6 positions with a choice" in lines[0] and len(lines) == 4
    assert [line.split()[0] for line in lines[1:]] == ["beginner", "spec", "spec"]
    assert [line.split()[-1] for line in lines[2:]] == ["greedy", "heuristic"]
    assert all(float(line.split()[1]) >= 0 for line in lines[1:])


def test_a_spec_that_names_no_player_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--levels", "", "--spec", "rollouts:samples=0", "--positions", "3"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--spec rollouts:samples=0: " in err and "samples must be a whole number from 1" in err
