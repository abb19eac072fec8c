"""The heuristic player's weights as keywords and specs, and the weight tuner on a tiny budget."""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path

import pytest

from sniff_env import make_rules, new_game
from sniff_env.game import Game, Phase
from sniff_env.infostate import InfoState, info_state
from sniff_env.players import PlayerSpecError, load
from sniff_env.players.heuristic import HeuristicPlayer, Weights
from training.studies.tune_heuristic import load_weights, main, proposals, spec_of

STOCK = {
    "reply": 1.0, "follow_up": 0.3, "pip": 0.15, "pip_late": 0.6, "double": 1.5, "variety": 0.6,
    "playable": 0.4, "draw_threshold": -8.0,
}


def _states(preset: str = "sniff", seed: int = 4, count: int = 12) -> list[InfoState]:
    """Decisions with a choice, from a game played by random legal moves."""
    game: Game = new_game(make_rules(preset, 2), seed=seed, record=False)
    rng = random.Random(seed)
    out: list[InfoState] = []
    while game.phase is not Phase.GAME_OVER and len(out) < count:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        if len(game.legal_actions()) > 1:
            out.append(info_state(game, game.turn))
        game.step(rng.choice(game.legal_actions()))
    return out


def _weights(spec: str) -> Weights:
    player = load(spec)
    assert isinstance(player, HeuristicPlayer)
    return player.weights


def test_stock_defaults_are_unchanged() -> None:
    w = Weights()
    assert {k: getattr(w, k) for k in STOCK} == STOCK
    assert all(getattr(w, k) == 0.0 for k in Weights.field_names() if k not in STOCK), "new terms start off"
    assert HeuristicPlayer().weights == w == HeuristicPlayer(weights=Weights()).weights


def test_keyword_weights_reach_the_evaluation() -> None:
    stock, other = HeuristicPlayer(), HeuristicPlayer(reply=2.5, follow_up=0.0, counter=0.4, block=1)
    assert other.weights == Weights(reply=2.5, follow_up=0.0, counter=0.4, block=1.0)
    assert isinstance(other.weights.block, float)
    differ = 0
    for state in _states():
        a, b = stock.evaluate(state), other.evaluate(state)
        assert a.keys() == b.keys() == set(state.legal)
        differ += a != b
    assert differ > 0
    # stock weights given explicitly, or defaults given as keywords, play exactly as the stock player
    same = HeuristicPlayer(reply=1.0, block=0.0, counter=0)
    assert all(stock.evaluate(s) == same.evaluate(s) for s in _states(seed=9))


def test_unknown_or_bad_keywords_are_refused() -> None:
    with pytest.raises(TypeError, match="unknown heuristic weight.*replay.*allowed: reply"):
        HeuristicPlayer(replay=1.0)
    with pytest.raises(TypeError, match="must be a number"):
        HeuristicPlayer(reply="high")
    with pytest.raises(TypeError, match="not both"):
        HeuristicPlayer(weights=Weights(), reply=1.2)


def test_spec_string_through_load() -> None:
    player = load("heuristic:reply=1.2,follow_up=0.5", seed=3)
    assert isinstance(player, HeuristicPlayer)
    assert player.weights == Weights(reply=1.2, follow_up=0.5)
    assert player.name == "heuristic:reply=1.2,follow_up=0.5"
    with pytest.raises(PlayerSpecError, match="its options are: .*reply"):
        load("heuristic:nonsense=1")
    w = Weights(reply=0.75, counter=0.3)
    assert _weights(spec_of(w, ["reply"])) == w  # a spec keeps every non-default weight


def test_proposals_move_one_weight_each() -> None:
    props = proposals(Weights(), ["reply", "block"], 2.0, 0.3)
    assert [w for _, w in props] == [Weights(reply=2.0), Weights(reply=0.5), Weights(block=0.3), Weights(block=-0.3)]


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_tuner_end_to_end_writes_a_readable_file(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"tuned{suffix}"
    argv = ["--rounds", "1", "--screen-games", "2", "--confirm-games", "2", "--final-games", "2",
            "--fields", "reply,block", "--max-hands", "3", "--out", str(out)]
    assert main(argv) == 0
    text = out.read_text()
    data = json.loads(text) if suffix == ".json" else tomllib.loads(text)
    assert data["spec"].startswith("heuristic:reply=")
    assert _weights(data["spec"]) == load_weights(out) == Weights(**data["weights"])
    assert data["result"]["rounds"] == 1 and 0.0 <= data["result"]["final_win_rate"] <= 1.0
    assert main([*argv, "--start", str(out), "--rounds", "0", "--final-games", "0"]) == 0  # resumes from it
    with pytest.raises(SystemExit):
        main(["--fields", "reply,bogus"])

