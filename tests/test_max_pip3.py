"""The double-3 set (10 tiles): hand sizes that fit, refusals that say what would, and both
engines playing it move for move under every preset."""

from __future__ import annotations

import random

import pytest
from test_vector_engine import play_lockstep

from sniff_env.errors import RulesError
from sniff_env.game import Phase, new_game
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import Rules
from sniff_env.tiles import tile_set

SMALL = {2: {"hand_size": 3, "boneyard_reserve": 0}, 3: {"hand_size": 2, "boneyard_reserve": 0},
         4: {"hand_size": 2, "boneyard_reserve": 0}}


def test_the_set_has_ten_tiles_and_its_own_default_hand_sizes() -> None:
    ts = tile_set(3)
    assert ts.size == 10 and ts.tiles[-1] == (3, 3) and sum(ts.is_double) == 4
    assert [Rules(max_pip=3, num_players=n).hand_size for n in (2, 3, 4)] == [3, 2, 2]
    assert Rules(max_pip=6, num_players=2).hand_size == 7


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: make_rules("sniff", 2, max_pip=3), ["double-3 set has 10", "need 16", "hand_size at most 4",
                                                     "max_pip 5, 6, 9 or 12"]),
        (lambda: Rules(max_pip=3, num_players=4, hand_size=2, boneyard_reserve=9), ["reserve of at most 6"]),
        (lambda: Rules(max_pip=3, num_players=3, hand_size=4), ["need 12", "hand_size at most 3", "fewer players"]),
        (lambda: Rules(max_pip=7), ["max_pip=7", "(3, 4, 5, 6, 9, 12)"]),
    ],
)
def test_a_deal_the_set_cannot_hold_is_refused_with_what_fits(make: object, words: list[str]) -> None:
    with pytest.raises(RulesError) as err:
        make()  # type: ignore[operator]
    for word in words:
        assert word in str(err.value)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_hand_plays_out_on_the_reference_engine(players: int) -> None:
    rules = make_rules("sniff", players, max_pip=3, **SMALL[players])
    for seed in range(20):
        game = new_game(rules, seed=seed, max_hands=3)
        rng = random.Random(seed)
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            assert 0 < game.hands[game.turn] < 1 << 10  # a non-empty hand of the ten tiles
            game.step(rng.choice(game.legal_actions()))
        assert 1 <= len(game.results) <= 3


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("players,extra", [(2, {}), (3, {}), (4, {"partnership": True})], ids=["2p", "3p", "4p-partners"])
def test_batched_engine_matches_reference_on_the_double_3_set(preset: str, players: int, extra: dict[str, bool]) -> None:
    rules = make_rules(preset, players, max_pip=3, **SMALL[players], **extra)
    assert play_lockstep(rules, [11 * players + k for k in range(6)], random.Random(3)) > 0
