"""``Game.from_position``: a game built from one seat's information and the hidden tiles."""

from __future__ import annotations

import random

import pytest

from sniff_env.errors import DealError
from sniff_env.game import Game, Phase, forced_lead, new_game
from sniff_env.infostate import InfoState, info_state
from sniff_env.presets import make_rules


def _positions(preset: str, n: int, seed: int) -> list[tuple[Game, InfoState]]:
    """Decisions of the first hands of a game of random legal moves, with the seat to move's
    information."""
    game = new_game(make_rules(preset, n), seed=seed, record=False)
    rng, out = random.Random(seed), []
    while game.phase is not Phase.GAME_OVER and game.hand_index < 2:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        out.append((game.copy(), info_state(game, game.turn)))
        game.step(rng.choice(game.legal_actions()))
    return out


@pytest.mark.parametrize(("preset", "n"), [("sniff", 2), ("sniff-us", 3), ("muggins", 4)])
def test_the_true_hidden_tiles_rebuild_the_game(preset: str, n: int) -> None:
    """Given the real hands and the undrawn tiles, the game plays on exactly as the real one."""
    for real, info in _positions(preset, n, seed=5)[::7]:
        g = Game.from_position(info, list(real.hands), real.boneyard[real.bone_pos:], seed=1)
        assert g.legal_actions() == real.legal_actions() and g.turn == real.turn
        rng = random.Random(3)
        while real.phase is Phase.PLAY:
            a = rng.choice(real.legal_actions())
            real.step(a)
            g.step(a)
            assert (g.scores, g.hands, g.turn, g.phase) == (real.scores, real.hands, real.turn, real.phase)


def test_hidden_tiles_that_do_not_fit_the_information_are_refused() -> None:
    real, info = _positions("sniff", 2, seed=2)[6]
    hands, bone = list(real.hands), real.boneyard[real.bone_pos:]
    other = 1 - info.seat
    swapped = list(hands)
    swapped[info.seat], swapped[other] = hands[other], hands[info.seat]
    moved = list(hands)
    moved[other] |= 1 << bone[0]
    played = list(hands)
    played[other] |= 1 << info.plays[0][0]
    for bad_hands, bad_bone, why in [
        (swapped, bone, "must hold its own hand"),
        (moved, bone, "also placed or dealt"),
        (moved, bone[1:], f"seat {other} holds {info.hand_sizes[other]} tiles"),
        (played, bone, "also placed or dealt"),
        (hands, (*bone, bone[0]), "also placed or dealt"),
        (hands[:1], bone, "bit masks"),
        (hands, (*bone[:-1], 999), "must list tiles"),
    ]:
        with pytest.raises(DealError, match=why):
            Game.from_position(info, bad_hands, bad_bone)


def test_a_partial_position_may_hide_fewer_tiles_but_no_more() -> None:
    _, info = _positions("sniff", 2, seed=2)[6]
    own = [info.hand if s == info.seat else 0 for s in range(2)]
    sketch = Game.from_position(info, own, (), partial=True)
    assert sketch.legal_actions() == list(info.legal) and sketch.boneyard_size == 0
    too_many = list(own)
    too_many[1 - info.seat] = info.unseen_mask  # its hand and the boneyard
    with pytest.raises(DealError, match="at most"):
        Game.from_position(info, too_many, (), partial=True)


def test_forced_lead_follows_the_rules() -> None:
    by_deal = make_rules("sniff", 2, first_hand_lead="highest_double", next_hand_lead="rotate")
    assert forced_lead(by_deal, 0) and not forced_lead(by_deal, 1)
    assert forced_lead(make_rules("sniff", 2, lead_tile="highest_double"), 3)
