"""The layout value object: ``Layout.place`` and ``count_after`` agree with the engine move by move."""

from __future__ import annotations

import random

import pytest

from sniff_env import PRESET_NAMES, make_rules, new_game
from sniff_env.errors import IllegalMoveError
from sniff_env.game import Phase
from sniff_env.infostate import info_state
from sniff_env.layout import Layout


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_place_and_count_after_follow_the_engine(preset: str, players: int) -> None:
    rules = make_rules(preset, players)
    rng = random.Random(f"{preset}:{players}")
    checked = 0
    for seed in range(3):
        game = new_game(rules, seed=seed, max_hands=2)
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            before = game.layout
            assert info_state(game, game.turn).layout == before  # the seat sees the whole layout
            legal = game.legal_actions()
            for a in legal:
                if a != game.codec.draw_action:
                    assert before.place(a).count == before.count_after(a)
            action = rng.choice(legal)
            game.step(action)
            if action != game.codec.draw_action:
                assert game.layout == before.place(action)
                checked += 1
    assert checked > 20


def test_place_refuses_what_cannot_be_laid_and_changes_nothing() -> None:
    game = new_game(make_rules("sniff", 2), seed=5)
    empty = game.layout
    assert empty == Layout(game.rules) and empty.is_empty
    lead = game.legal_actions()[0]
    with pytest.raises(IllegalMoveError, match="not a placement"):
        empty.place(game.codec.draw_action)
    with pytest.raises(IllegalMoveError, match="not a placement"):
        empty.place(True)  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="only a lead"):
        empty.place(lead - 4 if lead % 5 == 4 else lead)  # the same tile on the west end
    after = empty.place(lead)
    with pytest.raises(IllegalMoveError, match="cannot be laid here"):
        after.place(lead)  # a lead on a laid layout
    assert empty == Layout(game.rules) and game.layout == empty
