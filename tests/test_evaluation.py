"""Duplicate-deal tournaments: seatings, identical deals, worker independence, reports."""

from __future__ import annotations

import json
from pathlib import Path

from sniff_env import make_rules
from sniff_env.cli.eval import add_arguments, run
from sniff_env.evaluation import run_tournament, seatings


def test_seatings_balance_the_seats() -> None:
    assert seatings(2) == [(0, 1), (1, 0)]
    assert seatings(4) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    three = seatings(3)
    assert len(three) == 6
    for seat in range(3):
        assert sum(s[seat] for s in three) == 3


def test_duplicate_games_replay_identical_deals() -> None:
    rules = make_rules("sniff", 2)
    result = run_tournament(["random", "greedy"], rules, 4, seed=3, keep_deals=True)
    assert len(result.outcomes) == 4
    by_deal: dict[int, list] = {}
    for o in result.outcomes:
        by_deal.setdefault(o.deal_index, []).append(o)
    for games in by_deal.values():
        first, second = games
        assert first.seating == (0, 1) and second.seating == (1, 0)
        assert first.game_seed == second.game_seed
        common = min(len(first.deals), len(second.deals))
        assert common >= 1
        assert first.deals[:common] == second.deals[:common]


def test_results_do_not_depend_on_workers() -> None:
    rules = make_rules("muggins", 3)
    one = run_tournament(["random", "greedy"], rules, 6, seed=1, workers=1, max_hands=3)
    two = run_tournament(["random", "greedy"], rules, 6, seed=1, workers=2, max_hands=3)
    strip = lambda r: [(o.seating, o.winner, o.scores, o.hands) for o in r.outcomes]
    assert strip(one) == strip(two)
    assert len(one.outcomes) == 6


def test_reports_and_cli(tmp_path: Path) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    out = tmp_path / "res"
    args = parser.parse_args(["random", "greedy", "--games", "4", "--no-progress", "--out", str(out),
                              "--preset", "sniff-cribbage", "--players", "4", "--rule", "partnership=true"])
    assert run(args) == 0
    data = json.loads((tmp_path / "res.json").read_text())
    assert data["pairs"][0]["games"] == 4 and data["rules"]["partnership"] is True
    assert set(data["ratings"]) == {"random", "greedy"}
    assert (tmp_path / "res.png").stat().st_size > 0
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_saved_tournament_games_replay_to_their_results(tmp_path: Path) -> None:
    from sniff_env.gamelog import load_game_log

    rules = make_rules("sniff", 2)
    result = run_tournament(["random", "greedy"], rules, 4, seed=3, save_games=tmp_path)
    logs = sorted(tmp_path.glob("*.json"))
    assert len(logs) == len(result.outcomes) == 4
    finals = sorted(tuple(o.scores) for o in result.outcomes)
    replayed = sorted(tuple(load_game_log(p).game.scores) for p in logs)
    assert replayed == finals
