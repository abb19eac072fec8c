"""Tournaments on the batched engine: the same games as the reference engine, chosen automatically."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sniff_env import make_rules
from sniff_env.evaluation import run_tournament
from sniff_env.evaluation.tournament import GameOutcome, engine_refusal
from sniff_env.evaluation.tournament_report import to_json
from sniff_env.rules import Rules


def played(outcome: GameOutcome) -> tuple[Any, ...]:
    """Everything a game's outcome records but the time spent thinking."""
    return dataclasses.astuple(dataclasses.replace(outcome, think_s=(0.0, 0.0)))


def same_report(a: dict[str, Any], b: dict[str, Any]) -> None:
    timing = "seconds_per_decision"
    assert {k: v for k, v in a.items() if k != timing} == {k: v for k, v in b.items() if k != timing}
    assert a[timing].keys() == b[timing].keys()


@pytest.mark.parametrize(("specs", "rules", "games", "max_hands"), [
    (["greedy", "greedy:tiebreak=heuristic"], make_rules("sniff", 2), 300, 200),
    (["muggins-2p", "greedy"], make_rules("muggins", 2), 40, 200),
    (["sniff-2p", "heuristic"], make_rules("sniff", 2, target=30), 40, 200),
    (["sniff-4p-partnership", "greedy"], make_rules("sniff", 4, partnership=True), 40, 200),
    (["heuristic", "greedy:tiebreak=heuristic"], make_rules("sniff-cribbage", 3), 60, 2),
], ids=["300-games", "muggins-2p", "sniff-2p-target-30", "partnership", "3-players-hand-cap"])
def test_batched_games_are_the_reference_games(specs: list[str], rules: Rules, games: int, max_hands: int) -> None:
    reference = run_tournament(specs, rules, games, seed=9, max_hands=max_hands, engine="reference")
    batched = run_tournament(specs, rules, games, seed=9, max_hands=max_hands, workers=2)
    assert (reference.engine, batched.engine) == ("reference", "batched")
    assert [played(o) for o in batched.outcomes] == [played(o) for o in reference.outcomes]
    assert len({o.winner for o in batched.outcomes}) > 1, "both sides win some games"
    same_report(to_json(batched), to_json(reference))


def test_the_engine_is_chosen_by_the_players() -> None:
    rules = make_rules("sniff", 2)
    assert engine_refusal(["sniff-2p", "greedy", "heuristic:pip=0.5"], rules) is None
    assert "search has no batched form" in str(engine_refusal(["greedy", "search"], rules))
    assert "random" in str(engine_refusal(["random", "greedy"], rules))
    assert engine_refusal(["heuristic:counter=0.5", "greedy"], rules) is not None
    assert engine_refusal(["greedy", "heuristic"], rules, keep_deals=True) is not None
    result = run_tournament(["random", "greedy"], rules, 2, seed=1)
    assert result.engine == "reference"
    with pytest.raises(ValueError, match="batched engine cannot play this tournament: random has no batched form"):
        run_tournament(["random", "greedy"], rules, 2, engine="batched")
    with pytest.raises(ValueError, match="engine must be one of auto, batched, reference"):
        run_tournament(["greedy", "heuristic"], rules, 2, engine="fast")


def test_results_do_not_depend_on_workers_or_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    from sniff_env.evaluation import batched

    rules = make_rules("sniff", 2)
    one = run_tournament(["greedy", "heuristic"], rules, 60, seed=4)
    monkeypatch.setattr(batched, "BATCH_DEALS", 7)
    done: list[tuple[int, int]] = []
    many = run_tournament(["greedy", "heuristic"], rules, 60, seed=4, workers=2,
                          progress=lambda d, t: done.append((d, t)))
    assert [played(o) for o in many.outcomes] == [played(o) for o in one.outcomes]
    assert done[-1] == (30, 30) and len(done) == 5, "the progress counts deals, batch by batch"


def test_eval_says_which_engine_and_reads_the_target(capsys: pytest.CaptureFixture[str]) -> None:
    from sniff_env.cli import main

    assert main(["eval", "sniff-2p", "greedy", "--rule", "target=30", "--games", "4", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "sniff-2p was trained for target 100; it plays target 30 here" in out
    assert "playing on the batched engine" in out
    assert main(["eval", "sniff-2p", "greedy", "--games", "2", "--no-progress", "--engine", "reference"]) == 0
    assert "playing on the reference engine" in capsys.readouterr().out


@pytest.mark.parametrize("engine", ["--engine=batched", "--engine=reference"])
def test_a_policy_file_plays_in_worker_processes(engine: str) -> None:
    """``sniff eval`` of a policy file with 2 workers finishes on either engine (a forked worker
    plays on one thread)."""
    root = Path(__file__).resolve().parents[1]
    games = "600" if engine.endswith("batched") else "8"  # the batched engine: more than one batch of deals
    run = subprocess.run(
        [sys.executable, "-m", "sniff_env.cli", "eval", "checkpoints/sniff-2p.onnx", "heuristic", engine,
         "--games", games, "--seed", "3", "--workers", "2"],
        cwd=root, capture_output=True, text=True, timeout=240, env={**os.environ, "COLUMNS": "200"}, check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"playing on the {engine.partition('=')[2]} engine" in run.stdout
    row = next(line for line in run.stdout.splitlines() if "│ heuristic" in line and "checkpoints/" in line)
    assert [cell.strip() for cell in row.split("│")][3] == games  # every game played
