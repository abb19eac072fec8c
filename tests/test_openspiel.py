"""The OpenSpiel game ``python_sniff``: OpenSpiel's own checks, Shimmy's PettingZoo view, IS-MCTS."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import sniff_env.integrations.openspiel  # noqa: F401  (registers python_sniff)
from sniff_env import PRESET_NAMES, RulesError, make_rules
from sniff_env.integrations.openspiel import Stage
from sniff_env.integrations.openspiel.text import information_state_string

CASES = [(preset, n) for preset in PRESET_NAMES for n in (2, 3, 4)]


def _allowed(preset: str, n: int) -> bool:
    try:
        make_rules(preset, n)
    except RulesError:
        return False
    return True


@pytest.mark.parametrize(("preset", "n"), [(p, n) for p, n in CASES if _allowed(p, n)])
def test_random_sim_one_hand(preset: str, n: int) -> None:
    game = pyspiel.load_game("python_sniff", {"ruleset": preset, "num_players": n, "episode": "hand"})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "params",
    [
        {"ruleset": "sniff", "num_players": 2},
        {"ruleset": "sniff-digital", "num_players": 4, "partnership": 1, "scoring": "primes"},
    ],
)
def test_random_sim_whole_game(params: dict[str, object]) -> None:
    game = pyspiel.load_game("python_sniff", params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_parameters_override_the_ruleset_and_round_trip() -> None:
    game = pyspiel.load_game(
        "python_sniff", {"ruleset": "sniff-us", "num_players": 3, "must_play_drawn": 0, "max_pip": 9}
    )
    rules = game.rules
    assert (rules.must_play_drawn, rules.max_pip, rules.target) == (False, 9, 200)
    assert game.num_distinct_actions() == rules_actions(rules)
    again = pyspiel.load_game(str(game))
    assert again.rules == rules
    with pytest.raises(RulesError, match="must_play_drawn"):
        pyspiel.load_game("python_sniff", {"must_play_drawn": 2})
    with pytest.raises(RulesError, match="unknown preset"):
        pyspiel.load_game("python_sniff", {"ruleset": "nope"})


def rules_actions(rules: object) -> int:
    from sniff_env.observation import Observer

    return Observer(rules).codec.num_actions  # type: ignore[arg-type]


def _play_to_decision(game: object, rng: random.Random, decisions: int) -> object:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    done = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        if done == decisions:
            break
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1
    return state


def test_chance_nodes_are_the_lots_the_deal_and_the_draws() -> None:
    game = pyspiel.load_game("python_sniff", {"ruleset": "sniff-us", "num_players": 2, "episode": "hand"})
    state = game.new_initial_state()
    seen = []
    rng = random.Random(3)
    while not state.is_terminal():
        if state.is_chance_node():
            seen.append(state.play.stage)
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert seen[:2] == [Stage.LOTS, Stage.LOTS]
    assert seen[2:16] == [Stage.DEAL] * 14
    drawn = [e for e in state.play.game.events if e.kind == "draw"]
    assert seen[16:] == [Stage.DRAW] * len(drawn)


def test_info_state_does_not_show_hidden_tiles() -> None:
    """Two states that differ only in the other seat's tiles (swapped with the boneyard) look
    the same to seat 0, in its string and its tensor."""
    game = pyspiel.load_game("python_sniff", {"ruleset": "sniff", "num_players": 2, "episode": "hand"})
    a, b = game.new_initial_state(), game.new_initial_state()
    deal0 = list(range(7))
    for state, other in ((a, list(range(7, 14))), (b, list(range(14, 21)))):
        for tile in (27, 26):  # the lots: seat 0 draws 6-6 and leads
            state.apply_action(tile)
        for tile in deal0 + other:
            state.apply_action(tile)
    assert a.play.game.hands != b.play.game.hands
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.observation_string(0) == b.observation_string(0)
    assert a.information_state_tensor(0) == b.information_state_tensor(0)
    assert a.information_state_string(1) != b.information_state_string(1)


def test_resampled_worlds_keep_the_information_state() -> None:
    game = pyspiel.load_game("python_sniff", {"ruleset": "muggins-sleepers", "num_players": 3, "episode": "hand"})
    state = _play_to_decision(game, random.Random(5), 6)
    seat = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(seat, sampler) for _ in range(5)]
    assert all(w.information_state_string(seat) == state.information_state_string(seat) for w in worlds)
    assert any(w.play.game.hands != state.play.game.hands for w in worlds)
    assert information_state_string(state.play, seat).startswith(f"seat {seat}")


def test_ismcts_plays_through_evaluate_bots() -> None:
    from open_spiel.python.algorithms import evaluate_bots

    from sniff_env.integrations.openspiel.bots import ismcts_bot

    game = pyspiel.load_game("python_sniff", {"ruleset": "muggins-sleepers", "num_players": 2, "episode": "hand"})
    bots = [ismcts_bot(game, simulations=10, seed=0), pyspiel.make_uniform_random_bot(1, 1)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_shimmy_passes_the_pettingzoo_api_test() -> None:
    shimmy = pytest.importorskip("shimmy")
    from pettingzoo.test import api_test

    # Shimmy's reset reloads the game by name and config, so give those (not a loaded game)
    config = {"ruleset": "sniff", "num_players": 3, "episode": "hand"}
    env = shimmy.OpenSpielCompatibilityV0(game_name="python_sniff", config=config)
    api_test(env, num_cycles=200)
