"""OpenSpiel's NFSP on the small variant (training/studies/nfsp.py): its average policy becomes a
tabular policy of the extensive-form copy, fed each information state's own tensor, that plays
legal moves only; its NashConv is a figure of the game's range, the same for a seed."""

from __future__ import annotations

import contextlib
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("torch")
nfsp = pytest.importorskip("open_spiel.python.pytorch.nfsp")

from open_spiel.python import rl_agent, rl_environment

from sniff_env.infostate import info_state
from training.studies import nfsp as study

FAST = {"min_buffer_size_to_learn": 32, "batch_size": 16, "learn_every": 16, "anticipatory_param": 0.5}
"""Settings under which the networks learn within a few hundred episodes."""


@pytest.fixture(scope="module")
def setup() -> study.Setup:
    return study.prepare("tiny-2p-v0")


@pytest.fixture(scope="module")
def trained(setup: study.Setup) -> list[Any]:
    with study.seeded(1):
        env = rl_environment.Environment(setup.game, chance_event_sampler=rl_environment.ChanceEventSampler(1))
        agents = study.make_agents(env, 16, 1, 200, **FAST)
        study.train(env, agents, 200)
    return agents


def test_a_short_run_rates_within_the_game_and_repeats_for_a_seed(setup: study.Setup) -> None:
    rows = study.run(setup, 300, 150, seed=3, hidden=16, **FAST)
    assert [r["episodes"] for r in rows] == [150, 300]
    convs = [r["nash_conv"] for r in rows]
    assert all(math.isfinite(c) and 0 <= c <= 2.0 for c in convs)
    assert convs[0] != convs[1]  # the average policy learned between the checkpoints
    assert [r["nash_conv"] for r in study.run(setup, 300, 150, seed=3, hidden=16, **FAST)] == convs
    assert study.run(setup, 300, 300, seed=3, hidden=16, **FAST)[0]["nash_conv"] == convs[1]  # rating draws nothing
    assert study.run(setup, 150, 150, seed=4, hidden=16, **FAST)[0]["nash_conv"] != convs[0]


def test_the_average_policy_sums_to_one_over_legal_moves(setup: study.Setup, trained: list[Any]) -> None:
    table = study.average_policy(setup, trained)
    assert len(table.states) == len(setup.tree.infostates)
    seat_tensors = {(info.seat, setup.game.observer.encode(info).tobytes()) for info, _ in setup.tree.infostates.values()}
    assert len(seat_tensors) == len(setup.tree.infostates)  # a seat's network can tell its information states apart
    for state in table.states:
        probs = table.action_probability_array[table.state_lookup[state.information_state_string()]]
        legal = state.legal_actions()
        assert probs.sum() == pytest.approx(1.0, abs=1e-9)
        assert (probs >= 0).all() and not np.delete(probs, legal).any()


def test_each_information_state_is_fed_its_own_tensor(setup: study.Setup, trained: list[Any]) -> None:
    """Random histories played in the python game and its copy side by side: at every decision
    the table holds what the seat's agent gives for the python state's information-state tensor."""
    table = study.average_policy(setup, trained)
    rng = random.Random(0)
    decisions = 0
    for _ in range(40):
        py, efg = setup.game.new_initial_state(), setup.efg.new_initial_state()
        while not py.is_terminal():
            if py.is_chance_node():
                action, name = (a := rng.choice([o for o, _ in py.chance_outcomes()])), f"c{a}"
            else:
                seat, legal = py.current_player(), py.legal_actions()
                tensor = py.information_state_tensor(seat)
                assert np.array_equal(tensor, setup.game.observer.encode(info_state(py.play.game, seat)))
                observations = {"info_state": [tensor] * 2, "legal_actions": [legal] * 2, "current_player": seat}
                step = rl_environment.TimeStep(observations=observations, rewards=None, discounts=None, step_type=None)
                with trained[seat].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                    expected = trained[seat].step(step, is_evaluation=True).probs
                got = {int(efg.action_to_string(seat, a)[1:]): p for a, p in table.action_probabilities(efg).items()}
                assert sorted(got) == sorted(legal)
                assert [got[a] for a in legal] == pytest.approx([expected[a] for a in legal], abs=1e-6)
                action, name = (a := rng.choice(legal)), f"a{a}"
                decisions += 1
            ids = {efg.action_to_string(efg.current_player(), a): a for a in efg.legal_actions()}
            efg.apply_action(ids[name])
            py.apply_action(action)
        assert efg.is_terminal() and efg.returns() == pytest.approx(py.returns())
    assert decisions > 40


def test_an_illegal_probability_is_refused(setup: study.Setup) -> None:
    n = setup.game.num_distinct_actions()

    class Sloppy:
        """An agent that spreads its choice over every action, legal or not."""

        @contextlib.contextmanager
        def temp_mode_as(self, mode: Any) -> Iterator[None]:
            yield

        def step(self, time_step: Any, is_evaluation: bool = False) -> Any:
            return rl_agent.StepOutput(action=0, probs=np.full(n, 1.0 / n))

    with pytest.raises(RuntimeError, match="illegal"):
        study.average_policy(setup, [Sloppy(), Sloppy()])


def test_main_writes_the_json_and_the_plot(setup: study.Setup, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(study, "prepare", lambda task: setup)
    out, png = tmp_path / "nfsp.json", tmp_path / "nfsp.png"
    assert study.main(["--episodes", "60", "--eval-every", "40", "--hidden", "8", "--cfr-iterations", "2",
                       "--out", str(out), "--plot", str(png)]) == 0
    result = json.loads(out.read_text())
    assert [r["episodes"] for r in result["checkpoints"]] == [40, 60]
    assert result["command"].startswith("python -m training.studies.nfsp --episodes 60")
    assert result["options"]["hidden"] == 8 and result["machine"]["cpu_count"] >= 1
    assert set(result["references"]) == {"heuristic", "CFR+ 2"}
    assert 0 < result["references"]["heuristic"] < 0.01
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nfsp.json", "nfsp.png"]


@pytest.mark.parametrize("argv, message", [
    (["--episodes", "0"], "error: --episodes must be at least 1"),
    (["--episodes", "10", "--eval-every", "0"], "error: --eval-every must be from 1 to --episodes"),
    (["--episodes", "10", "--eval-every", "11"], "error: --eval-every must be from 1 to --episodes"),
    (["--task", "no-such-task"], "error: unknown task 'no-such-task'"),
    (["--task", "sniff-2p-v0"], "error: sniff-2p-v0 is no one-hand 2-player task"),
])
def test_bad_options_are_refused(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        study.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
