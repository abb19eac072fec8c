"""training/preset_table.py: a policy on every preset of its family, each row the games its
`sniff eval` command plays, and bad input refused with a message."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from sniff_env.evaluation.tournament import run_tournament
from sniff_env.presets import make_rules
from training.preset_table import family_presets, main


def test_a_generalists_family_is_its_presets_in_order() -> None:
    from sniff_env.players.agents import shipped_agents

    assert family_presets("generalist-2p") == [r.name for r in shipped_agents()["generalist-2p"].family]
    assert family_presets("sniff-2p") == ["sniff"]


def test_each_row_is_the_games_of_its_sniff_eval_command(tmp_path: Path) -> None:
    out = tmp_path / "t"
    assert main(["generalist-2p", "greedy", "--presets", "muggins,sniff-us", "--games", "20", "--seed", "3",
                 "--out", str(out)]) == 0
    report = json.loads(out.with_suffix(".json").read_text())
    assert out.with_suffix(".png").stat().st_size > 0
    assert [row["preset"] for row in report["presets"]] == ["muggins", "sniff-us"]
    for row in report["presets"]:
        argv = shlex.split(row["command"])
        assert argv[:4] == ["sniff", "eval", "generalist-2p", "greedy"] and argv[argv.index("--preset") + 1] == row["preset"]
        again = run_tournament(["generalist-2p", "greedy"], make_rules(row["preset"], 2), 20, 3).pairs()[0]
        assert (again.wins_a, again.wins_b, again.games) == (row["wins_a"], row["wins_b"], row["games"])


@pytest.mark.parametrize(("argv", "message"), [
    (["nosuch.onnx", "greedy"], "'nosuch.onnx' is neither a shipped agent (generalist-2p, "),
    (["heuristic", "greedy"], "nor a policy file; name the presets with --presets"),
    (["nosuch.onnx", "greedy", "--presets", "sniff", "--games", "4"], "policy file 'nosuch.onnx' does not exist"),
    (["generalist-2p", "greedy", "--games", "0"], "--games: 0 is out of range: give a whole number, 1 or more"),
    (["generalist-2p", "greedy", "--line", "1.5"], "--line: 1.5 is out of range: give a win rate from 0 to 1"),
    (["generalist-2p", "nobody", "--games", "4"], "unknown player 'nobody'"),
    (["generalist-2p", "greedy", "--presets", "nope"], "unknown preset"),
    (["sniff-2p", "greedy", "--presets", "muggins", "--games", "4"], "sniff-2p was trained for other rules"),
])
def test_bad_input_exits_with_the_reason(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
