"""Built-in players: legal choices under every preset and player count, and no peeking."""

from __future__ import annotations

import random

import pytest

from sniff_env import PRESET_NAMES, make_rules, new_game
from sniff_env.game import Game, Phase
from sniff_env.infostate import determinize, info_state
from sniff_env.layout import count_after
from sniff_env.players import BUILTIN, Player, PlayerSpecError, load, parse_spec
from sniff_env.rules import Rules

FAST_SPECS = ["random", "greedy", "heuristic", "search:simulations=8", "rollouts:samples=4"]


def _play(game: Game, players: list[Player], max_decisions: int = 400) -> int:
    decisions = 0
    while game.phase is not Phase.GAME_OVER and decisions < max_decisions:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        seat = game.turn
        state = info_state(game, seat)
        action = players[seat].act({}, {"info_state": state})
        assert action in game.legal_actions()
        game.step(action)
        decisions += 1
    return decisions


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_players_choose_legal_actions(preset: str, num_players: int) -> None:
    rules = make_rules(preset, num_players)
    for k, spec in enumerate(FAST_SPECS):
        players = [load(spec, seed=seat) for seat in range(num_players)]
        # a mix: the player under test in seat k % n, random elsewhere, and all of them alike
        mixed = [players[s] if s == k % num_players else load("random", seed=s) for s in range(num_players)]
        limit = 60 if spec.startswith("search") else 400
        assert _play(new_game(rules, seed=k, record=False, max_hands=2), mixed, limit) > 0
        assert _play(new_game(rules, seed=100 + k, record=False, max_hands=1), players, limit) > 0


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_count_after_matches_the_engine(preset: str) -> None:
    for num_players in (2, 4):
        rules = make_rules(preset, num_players)
        game = new_game(rules, seed=3, record=False, max_hands=2)
        rng = random.Random(0)
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            state = info_state(game, game.turn)
            for a in game.legal_actions():
                if a == game.codec.draw_action:
                    continue
                after = game.copy()
                after.step(a)
                assert count_after(game, a) == count_after(state, a) == after.count
            game.step(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("spec", [*FAST_SPECS, "generalist-3p", "generalist-4p"])
@pytest.mark.parametrize("preset", ["sniff", "muggins-sniff", "sniff-digital"])
def test_choice_ignores_hidden_tiles(spec: str, preset: str) -> None:
    """Two games with the same public history and own hand but other hidden tiles: same choice."""
    _same_choice_whatever_is_hidden(spec, make_rules(preset, 4 if spec == "generalist-4p" else 3))


@pytest.mark.parametrize("spec", ["sniff-2p", "sniff-2p-large", "sniff-2p-tiles"])
def test_two_player_sniff_agents_ignore_hidden_tiles(spec: str) -> None:
    """The shipped 2-player agents, whose move scorers also reason about the tiles the next seat
    may hold, choose alike whatever the hidden tiles are."""
    _same_choice_whatever_is_hidden(spec, make_rules("sniff", 2))


def _same_choice_whatever_is_hidden(spec: str, rules: Rules) -> None:
    game = new_game(rules, seed=11, record=False)
    rng = random.Random(5)
    compared = 0
    for _ in range(12):
        if game.phase is not Phase.PLAY:
            break
        seat = game.turn
        state = info_state(game, seat)
        twin = determinize(state, random.Random(compared))
        assert twin.hands[seat] == game.hands[seat]
        twin_state = info_state(twin, seat)
        assert twin_state == state
        if twin.hands != game.hands:
            agent_rules = {} if parse_spec(spec)[0] in BUILTIN else {"rules": rules}  # an agent plays the rules it is loaded for
            first = load(spec, seed=42, **agent_rules).act({}, {"info_state": state})
            second = load(spec, seed=42, **agent_rules).act({}, {"info_state": twin_state})
            assert first == second
            compared += 1
        game.step(rng.choice(game.legal_actions()))
    assert compared >= 3


def test_greedy_takes_the_most_points() -> None:
    rules = make_rules("sniff", 2)
    game = new_game(rules, deal={"hands": [[(5, 5), (6, 6), (0, 1), (1, 2), (2, 3), (3, 4), (1, 1)],
                                           [(0, 0), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 3)]], "leader": 0})
    action = load("greedy").act({}, {"info_state": info_state(game, 0)})
    assert game.codec.describe(action) == "5-5 lead"  # 10 points; 2-3 scores 5, 6-6 is heavier but scores nothing


def test_load_specs_and_errors() -> None:
    assert parse_spec("search:simulations=30,budget_s=0.1") == ("search", {"simulations": 30, "budget_s": 0.1})
    assert load("search:simulations=30").name == "search:simulations=30"
    assert load("heuristic").name == "heuristic"
    with pytest.raises(PlayerSpecError):
        load("nobody")
    with pytest.raises(PlayerSpecError):
        load("search:simulations")
    with pytest.raises(ValueError):
        load("search", simulations=0)


def test_players_are_seeded() -> None:
    rules = make_rules("sniff", 2)
    game = new_game(rules, seed=4)
    game.step(game.legal_actions()[0])
    state = info_state(game, game.turn)
    picks = {load("search:simulations=20", seed=1).act({}, {"info_state": state}) for _ in range(3)}
    assert len(picks) == 1
    randoms = [load("random", seed=9).act({}, {"info_state": state}) for _ in range(3)]
    assert len(set(randoms)) == 1
