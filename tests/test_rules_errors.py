"""Clear errors: illegal moves leave the game untouched; impossible rules say what is allowed."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_determinism import snapshot

from sniff_env import GameOverError, IllegalMoveError, Rules, RulesError, make_rules, new_game
from sniff_env.game import Phase

SNIFF = make_rules("sniff", 2)


def _midgame() -> Any:
    game = new_game(SNIFF, seed=7)
    rng = random.Random(7)
    for _ in range(5):
        game.step(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("bad", ["not in hand", "draw", -1, 10**6, "x", None, 2.5])
def test_illegal_move_names_move_and_legal_moves_and_changes_nothing(bad: Any) -> None:
    game = _midgame()
    legal = game.legal_actions()
    if bad == "not in hand":
        bad = next(a for a in range(game.codec.draw_action) if a not in legal)
    elif bad == "draw":
        bad = game.codec.draw_action
    before = snapshot(game)
    events = list(game.events)
    with pytest.raises(IllegalMoveError) as info:
        game.step(bad)
    msg = str(info.value)
    assert "not legal" in msg and f"seat {game.turn}" in msg
    assert all(str(a) in msg and game.codec.describe(a) in msg for a in legal)
    assert info.value.action == bad and list(info.value.legal) == legal
    assert snapshot(game) == before and game.events == events


def test_moves_after_the_hand_or_game_raise_game_over() -> None:
    game = new_game(SNIFF, seed=3, max_hands=1)
    rng = random.Random(3)
    while game.phase is Phase.PLAY:
        game.step(rng.choice(game.legal_actions()))
    assert game.phase is Phase.GAME_OVER and game.legal_actions() == []
    with pytest.raises(GameOverError, match="over"):
        game.step(0)
    with pytest.raises(GameOverError):
        game.start_hand()
    with pytest.raises(GameOverError, match="undo"):
        new_game(SNIFF, seed=3).undo()


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: make_rules("sniff", 5), ["hand_size"]),
        (lambda: make_rules("muggins", 4, max_pip=6, hand_size=8), ["need 32 tiles", "28", "max_pip 9 or 12"]),
        (lambda: make_rules("muggins", 8, hand_size=7, target=200), ["need 56 tiles", "double-6"]),
        (lambda: make_rules("sniff", 8), ["no hand_size or boneyard_reserve for 8 players", "only for 2, 3, 4", "override"]),
        (lambda: make_rules("nope"), ["unknown preset 'nope'", "sniff-english"]),
        (lambda: make_rules("sniff", 2, sniff="huge"), ["sniff='huge'", "'spinner'", "'stubby'", "'none'"]),
        (lambda: make_rules("sniff", 2, scoring="sevens"), ["'fives'", "'fibonacci'"]),
        (lambda: make_rules("sniff", 2, max_pip=7), ["max_pip=7", "(3, 4, 5, 6, 9, 12)"]),
        (lambda: make_rules("sniff", 3, partnership=True), ["partnership needs exactly 4 players"]),
        (lambda: make_rules("sniff", 2, target="100"), ["target must be a whole number", "'100'"]),
        (lambda: make_rules("sniff", 2, hand_size=7.0), ["hand_size must be a whole number"]),
        (lambda: make_rules("sniff", 2, max_pip=True), ["max_pip must be a whole number"]),
        (lambda: make_rules("sniff", 2, voluntary_draw="yes"), ["voluntary_draw must be True or False"]),
        (lambda: make_rules("sniff", 2, colour="red"), ["unknown rules field", "colour", "max_pip"]),
        (lambda: Rules(num_players=1, hand_size=7), ["num_players=1", "2, 3 or 4", "up to 8"]),
        (lambda: make_rules("sniff", 2, hand_size=0), ["at least 1"]),
        (lambda: make_rules("sniff", 2, boneyard_reserve=-1), ["0 or more"]),
        (lambda: make_rules("sniff", 2, target=0), ["at least 1"]),
        (lambda: Rules.from_dict({"first_hand_lead": "winner"}), ["first_hand_lead", "'lots'", "'random'", "'highest_double'"]),
        (lambda: SNIFF.replace(spinner=True), ["unknown rules field"]),
    ],
)
def test_impossible_rules_say_what_is_allowed(make: Any, words: list[str]) -> None:
    with pytest.raises(RulesError) as info:
        make()
    for word in words:
        assert word in str(info.value)


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        make_rules("sniff", 2, draw="sometimes")


def test_numpy_and_non_integer_actions() -> None:
    import numpy as np

    from sniff_env import IllegalMoveError, make_rules, new_game

    game = new_game(make_rules("sniff", 2, max_pip=12), seed=4)
    legal = game.legal_actions()
    with pytest.raises(IllegalMoveError, match="not legal"):
        game.step(float(legal[0]))  # type: ignore[arg-type]
    game.step(np.int64(legal[0]))  # type: ignore[arg-type]
    assert all(type(h) is int for h in game.hands)
