"""The playout weights of the rollout and guided searches (``playout_*`` options), and the study
that fits the heuristic's weights to a player's choices."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sniff_env import make_rules
from sniff_env.players import PlayerSpecError, load
from sniff_env.players.compiled.rollouts import RolloutSearch
from sniff_env.players.heuristic import HeuristicPlayer, Weights
from training.studies import fit_playouts

RULES = make_rules("sniff", 2)
WEIGHTS = {"playout_reply": 0.4, "playout_double": 4.0, "playout_variety": -0.5, "playout_block": 3.0}


def positions(count: int) -> list:
    """Info states with a choice of placements, from a heuristic game."""
    from test_guided_player import decisions

    return [state for _, state in decisions(17, count)]


@pytest.mark.parametrize("base", ["rollouts:samples=8", "guided:samples=8,prior=0"])
def test_playout_weights_reach_the_search(base: str) -> None:
    """The player's search plays its playouts with the weights its spec gives: its choices are
    those of the compiled search built with them, and on some position not the stock search's."""
    spec = base + "," + ",".join(f"{k}={v}" for k, v in WEIGHTS.items())
    player = load(spec, seed=5)
    weights = Weights.from_kwargs(**{k.removeprefix("playout_"): v for k, v in WEIGHTS.items()})
    assert player.playout == weights
    assert player.name == spec
    differ = 0
    for state in positions(30):
        player = load(spec, seed=5)  # a fresh search: its first deals are those of seed 5
        chosen = player.act({}, {"info_state": state})
        engine = player._engine(RULES)[0]  # holds the position the player loaded
        with_weights = RolloutSearch(engine, 8, 5, weights).values(0)
        differ += with_weights != RolloutSearch(engine, 8, 5).values(0)
        assert with_weights[chosen] == max(with_weights.values())
    assert differ > 0


@pytest.mark.parametrize("spec,words", [
    ("rollouts:playout_counter=1", "no option 'playout_counter'.*playout_reply"),
    ("rollouts:playout_reply=nan", "reply must be a finite number"),
    ("rollouts:playout_pip=fast", "must be a number"),
    ("guided:playout_weight=2", "no option 'playout_weight'"),
    ("guided:playout_double=inf", "double must be a finite number"),
])
def test_bad_playout_weights_are_refused(spec: str, words: str) -> None:
    with pytest.raises(PlayerSpecError, match=words):
        load(spec)


def test_choices_with_playout_weights_ignore_hidden_tiles() -> None:
    from test_win_odds import assert_choices_ignore_hidden_tiles

    assert_choices_ignore_hidden_tiles("rollouts:samples=6,playout_block=2,playout_variety=-0.3", 43)


def test_terms_are_linear_in_the_weights() -> None:
    """A placement's terms, dotted with ``(1, *weights)``, are the heuristic's value of it."""
    weights = Weights(reply=0.7, follow_up=0.5, pip=0.2, pip_late=0.9, double=2.0, variety=-0.4, playable=0.3,
                      block=1.5)
    vector = np.array([1.0] + [getattr(weights, n) for n in fit_playouts.TERMS])
    for state in positions(20):
        actions, x = fit_playouts.terms(state)
        values = HeuristicPlayer(weights=weights).evaluate(state)
        assert actions == sorted(values)
        np.testing.assert_allclose(x @ vector, [values[a] for a in actions], rtol=1e-9, atol=1e-9)


def test_fitting_the_heuristic_recovers_its_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fitted to the stock heuristic's own choices, the weights come back near the stock ones and
    agree with the heuristic on nearly every held-out decision."""
    out = tmp_path / "fit.json"
    assert fit_playouts.main(["heuristic", "--games", "12", "--seed", "3", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    stock = Weights()
    for name in ("reply", "double", "variety", "playable"):
        assert data["weights"][name] == pytest.approx(getattr(stock, name), abs=0.25), name
    assert data["held_out_agreement"]["fitted"] >= 0.9
    assert "playout_reply=" in capsys.readouterr().out


def test_bad_study_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        fit_playouts.main(["heuristic", "--games", "1"])
