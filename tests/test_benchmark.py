"""Benchmark tasks, protocol and reports: named tasks, refusals that say what is wrong, the
standard JSON byte for byte the same on a second run, the comparison table."""

from __future__ import annotations

from pathlib import Path

import pytest

from sniff_env.cli import main
from sniff_env.evaluation.benchmark.protocol import budget, check_agent, run_benchmark
from sniff_env.evaluation.benchmark.report import markdown_table, read_report, to_json
from sniff_env.evaluation.benchmark.tasks import (
    MIN_GAMES,
    OPPONENTS,
    TASKS,
    BenchmarkError,
    UnknownTaskError,
    get_task,
)

TINY = "tiny-2p-v0"


def test_the_named_tasks_exist_with_rules_that_deal() -> None:
    for name in ("sniff-2p-v0", "muggins-2p-v0", "sniff-4p-partnership-v0", "sniff-3p-v0", "sniff-4p-v0", TINY):
        task = get_task(name)
        assert task.version == 0 and task.opponents == OPPONENTS
        assert all(task.games(o) >= MIN_GAMES for o in task.opponents)
        assert task.rules.num_players == task.num_players
    tiny = get_task(TINY).rules
    assert (tiny.max_pip, tiny.num_players, tiny.hand_size, get_task(TINY).max_hands) == (3, 2, 2, 1)
    assert get_task("sniff-4p-partnership-v0").rules.partnership and not get_task("sniff-4p-v0").rules.partnership


def test_an_unknown_task_lists_the_tasks() -> None:
    with pytest.raises(UnknownTaskError) as err:
        get_task("sniff-2p-v9")
    assert "sniff-2p-v9" in str(err.value) and all(name in str(err.value) for name in TASKS)


def test_an_agent_made_for_other_rules_is_refused_with_the_difference() -> None:
    with pytest.raises(BenchmarkError) as err:
        check_agent(get_task("muggins-2p-v0"), "sniff-2p")
    text = str(err.value)
    assert "sniff-2p" in text and "muggins-2p-v0" in text and "sniff spinner (trained) vs none (asked)" in text


def test_an_agent_that_is_an_opponent_must_be_named_apart() -> None:
    with pytest.raises(BenchmarkError, match="heuristic:name=heuristic-agent"):
        check_agent(get_task(TINY), "heuristic")
    check_agent(get_task(TINY), "heuristic:name=mine")


@pytest.mark.parametrize("games", [0, 1, MIN_GAMES - 1])
def test_a_budget_too_small_to_evaluate_is_refused(games: int) -> None:
    with pytest.raises(BenchmarkError, match=f"at least {MIN_GAMES}"):
        budget(get_task(TINY), games)
    assert budget(get_task(TINY), MIN_GAMES + 1)[1] == MIN_GAMES + 2  # rounded up to whole deals


def test_a_run_rates_the_agent_against_every_opponent_with_random_at_zero() -> None:
    result = run_benchmark(get_task(TINY), "heuristic:name=mine", games=MIN_GAMES)
    data = to_json(result, None)
    assert [r["opponent"] for r in data["results"]] == list(OPPONENTS)
    assert all(r["games"] == MIN_GAMES and r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] for r in data["results"])
    assert len(data["pool"]) == 6 and data["ratings"]["random"] == 0.0 and not data["standard"]
    heuristic = next(r for r in data["results"] if r["opponent"] == "heuristic")
    assert heuristic["wins"] == heuristic["losses"]  # the same player on duplicate deals: every deal a split


def test_the_command_writes_the_same_json_twice_and_compares_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["benchmark", "run", "greedy:name=mine", "--task", TINY, "--games", str(MIN_GAMES), "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    a, b = (tmp_path / "a.json").read_bytes(), (tmp_path / "b.json").read_bytes()
    assert a == b  # --out is no input of the report
    assert (tmp_path / "a.png").stat().st_size > 0 and "wall_s" in (tmp_path / "a.run.json").read_text()
    assert main([*args, "--out", str(tmp_path / "a")]) == 2  # never overwritten without --force
    assert "already exists" in capsys.readouterr().err
    report = read_report(tmp_path / "a.json")
    assert report["task"] == TINY and report["agent"]["spec"] == "greedy:name=mine"
    table = markdown_table([report])
    assert f"**{TINY}**" in table and "greedy:name=mine (non-standard)" in table
    assert main(["benchmark", "table", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    capsys.readouterr()
    # a glob of the output folder takes the sidecars too: they are named and left out, not read as reports
    assert main(["benchmark", "table", "--markdown", *sorted(str(p) for p in tmp_path.glob("*.json"))]) == 0
    out, err = capsys.readouterr()
    assert "a.run.json: the run sidecar" in err and out.count("greedy:name=mine") == 2
    assert main(["benchmark", "table", str(tmp_path / "a.run.json")]) == 2
    assert "no benchmark report among the files" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["benchmark", "run", "greedy:name=x", "--task", "nope"], ["unknown task 'nope'", "sniff-2p-v0", TINY]),
        (["benchmark", "run", "greedy:name=x", "--task", TINY, "--games", "3"], ["too small to evaluate"]),
        (["benchmark", "run", "sniff-2p", "--task", TINY], ["other rules", "max_pip 6 (trained) vs 3 (asked)"]),
    ],
)
def test_bad_input_ends_with_one_clear_line(argv: list[str], words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err


def test_a_file_that_is_no_report_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"pairs": []}')
    with pytest.raises(BenchmarkError, match="not a benchmark JSON"):
        read_report(path)
    path.write_text('{"format": "sniff-benchmark/1", "task": "x", "results": [1, 2]}')
    with pytest.raises(BenchmarkError, match="lacks its fields"):
        read_report(path)
    path.write_text("[" * 100_000)
    with pytest.raises(BenchmarkError, match="not a readable benchmark JSON"):
        read_report(path)
