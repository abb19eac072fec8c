"""The exact solver: the tree holds the engine's game, CFR+ reaches an equilibrium, best responses
and NashConv agree with OpenSpiel's on the same game, and exact results add up."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from sniff_env.evaluation.benchmark.tasks import get_task
from sniff_env.evaluation.solved.ladder import markdown_table
from sniff_env.evaluation.solved.policies import profile_of
from sniff_env.evaluation.solved.solver import Solver
from sniff_env.evaluation.solved.tree import CHANCE, DECISION, TreeError, all_deals, build_tree, game_at
from sniff_env.infostate import info_state
from sniff_env.presets import make_rules

TINY = get_task("tiny-2p-v0").rules
DRAW = get_task("ladder-d3h3-draw-v0").rules


@pytest.fixture(scope="module")
def tiny() -> Solver:
    return Solver(build_tree(TINY))


@pytest.fixture(scope="module")
def drawing() -> tuple[Solver, dict[int, set[object]]]:
    """Thirty deals of the rung that draws, with every decision node's information state."""
    seen: dict[int, set[object]] = {}

    def visit(node: int, infoset: int, game: object) -> None:
        seen.setdefault(infoset, set()).add(info_state(game, game.turn)._replace(rules=None))  # type: ignore[attr-defined]

    deals = random.Random(3).sample(all_deals(DRAW), 30)
    return Solver(build_tree(DRAW, deals=deals, visit=visit)), seen


def test_chance_sums_to_one_and_children_follow_parents(drawing: tuple[Solver, dict[int, set[object]]]) -> None:
    tree = drawing[0].tree
    chance = np.flatnonzero(tree.kind == CHANCE)
    assert chance.size > 30  # the deal and draws
    for n in chance:
        probs = tree.prob[tree.first[n]: tree.first[n] + tree.degree[n]]
        assert probs.sum() == pytest.approx(1.0)
    for n in range(tree.nodes):
        kids = tree.child[tree.first[n]: tree.first[n] + tree.degree[n]]
        assert (kids > n).all()


def test_an_information_set_is_one_view_of_one_seat(drawing: tuple[Solver, dict[int, set[object]]]) -> None:
    """Every history of an information set shows its seat the same information state: the
    solver's strategies never depend on a hidden tile."""
    tree, seen = drawing[0].tree, drawing[1]
    assert len(seen) == tree.infosets
    merged = [i for i, views in seen.items() if len(views) != 1]
    assert merged == []
    decisions = np.flatnonzero(tree.kind == DECISION)
    sizes = np.diff(tree.offset)
    assert (tree.degree[decisions] == sizes[tree.infoset[decisions]]).all()


def test_replay_paths_reach_their_information_set(drawing: tuple[Solver, dict[int, set[object]]]) -> None:
    tree, seen = drawing[0].tree, drawing[1]
    draws = 0
    for i, path in list(tree.paths.items())[:300]:
        game = game_at(DRAW, tree, path)
        assert game.turn == tree.owner[i]
        assert info_state(game, game.turn)._replace(rules=None) in seen[i]
        draws += game.bone_pos > 0
    assert draws > 0


def test_matches_openspiel_nash_conv(tiny: Solver) -> None:
    """The same players' NashConv as OpenSpiel's best responses on its copy of the same game."""
    pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability

    from training.studies.exploitability import player_choice, prepare, tabular

    setup = prepare("tiny-2p-v0")
    for spec in ("random", "greedy", "heuristic"):
        ours = tiny.nash_conv(profile_of(tiny.tree, spec))
        theirs = exploitability.nash_conv(setup.efg, tabular(setup.efg, setup.tree, player_choice(spec, TINY)))
        assert ours == pytest.approx(theirs, abs=1e-9), spec


def test_cfr_plus_reaches_the_target_and_best_responses_bound_it(tiny: Solver) -> None:
    eq, curve = tiny.cfr_plus([10, 50, 200], target=1e-3)
    assert curve[0]["nash_conv"] > 1e-3 >= curve[-1]["nash_conv"]
    assert tiny.nash_conv(eq) == pytest.approx(curve[-1]["nash_conv"], rel=1e-3)
    heuristic = profile_of(tiny.tree, "heuristic")
    assert tiny.nash_conv(heuristic) > tiny.nash_conv(eq)
    br = tiny.best_response_to(heuristic)
    best, even = tiny.result(br, heuristic), tiny.result(eq, heuristic)
    assert best.win - best.loss >= even.win - even.loss - 1e-12
    # A best response's value is what its pure profile scores: the two passes agree.
    value0, _ = tiny.best_response(heuristic, 0)
    assert tiny.value_of(tiny.combine(br, heuristic)) == pytest.approx(value0)
    by_points = tiny.best_response_to(heuristic, points=True)
    assert tiny.result(by_points, heuristic).margin >= best.margin - 1e-12


def test_results_add_up_and_a_player_ties_itself(tiny: Solver) -> None:
    greedy = profile_of(tiny.tree, "greedy")
    r = tiny.result(greedy, greedy)
    assert r.win + r.tie + r.loss == pytest.approx(1.0)
    assert r.win_rate == pytest.approx(0.5) and r.margin == pytest.approx(0.0)
    uniform = tiny.uniform()
    better = tiny.result(greedy, uniform)
    worse = tiny.result(uniform, greedy)
    assert better.win_rate > 0.5 and better.win_rate == pytest.approx(1 - worse.win_rate)


def test_refuses_games_it_cannot_hold() -> None:
    with pytest.raises(TreeError, match="2 players"):
        build_tree(make_rules("sniff", 3, max_pip=3, hand_size=2, first_hand_lead="highest_double"))
    with pytest.raises(TreeError, match="highest_double"):
        build_tree(make_rules("sniff", 2, max_pip=3, hand_size=2))


def test_sniff_solve_writes_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sniff_env.cli import main

    out = tmp_path / "tiny.json"
    assert main(["solve", "tiny-2p-v0", "--players", "random,greedy", "--max-iterations", "50", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["histories"] == 13386 and data["cfr_plus"][-1]["iterations"] <= 50
    assert [p["player"] for p in data["players"]] == ["CFR+ equilibrium", "random", "greedy"]
    assert main(["solve", "--table", str(out)]) == 0
    table = capsys.readouterr().out
    assert "| NashConv: greedy | 0.02063 |" in table
    extra = tmp_path / "tiny-heuristic.json"
    assert main(["solve", "tiny-2p-v0", "--players", "heuristic", "--no-equilibrium", "--out", str(extra)]) == 0
    added = json.loads(extra.read_text())
    assert added["cfr_plus"] == [] and [p["player"] for p in added["players"]] == ["heuristic"]
    assert set(added["exact_results"][0]) == {"opponent", "best_response", "best_response_for_points"}
    capsys.readouterr()
    assert main(["solve", "--table", str(extra), str(out)]) == 0  # the solved run leads, whatever the order
    merged = capsys.readouterr().out
    assert "| NashConv: heuristic | 0.00317 |" in merged and "| NashConv: greedy | 0.02063 |" in merged
    assert "not solved" not in merged and "| best response vs heuristic: win rate, points | 50.08%, " in merged
    assert main(["solve", "--table", str(extra)]) == 0
    assert "not solved" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="none of these results ran CFR"):
        main(["solve", "--plot", str(extra), "--out", str(tmp_path / "curves.png")])
    one = {**added, "players": [{"player": "a/ppo.onnx", "nash_conv": 0.1, "seconds": 1.0},
                                {"player": "guided:agent=a/ppo.onnx", "nash_conv": 0.2, "seconds": 1.0}]}
    assert "| NashConv: the PPO trained on the rung | 0.1 |" in markdown_table([one])
    two = {**one, "players": [*one["players"], {"player": "b/ppo.onnx", "nash_conv": 0.3, "seconds": 1.0}]}
    rows = markdown_table([two])  # two policy files on one rung keep a row each
    assert "| NashConv: the policy a/ppo.onnx | 0.1 |" in rows and "| NashConv: the policy b/ppo.onnx | 0.3 |" in rows
    assert "| NashConv: guided search steered by the policy a/ppo.onnx | 0.2 |" in rows
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(SystemExit, match="no result of sniff solve"):
        main(["solve", "--table", str(bad)])
    bad.write_text('{"cfr_plus": []}')
    with pytest.raises(SystemExit, match="lacks task, histories"):
        main(["solve", "--table", str(bad)])


def test_psro_with_exact_best_responses_lowers_nash_conv(tiny: Solver) -> None:
    from sniff_env.evaluation.solved.psro import meta_equilibrium, psro

    rps = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    assert meta_equilibrium(rps) == pytest.approx(np.full(3, 1 / 3), abs=1e-3)
    mixed, curve = psro(tiny, 3)
    assert [c["population"] for c in curve] == [1, 2, 3]
    assert curve[0]["nash_conv"] == pytest.approx(tiny.nash_conv(tiny.uniform()), rel=1e-3)
    assert curve[-1]["nash_conv"] < 0.1 * curve[0]["nash_conv"]
    assert tiny.nash_conv(mixed) == pytest.approx(curve[-1]["nash_conv"], rel=1e-3, abs=1e-9)
