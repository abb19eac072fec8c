"""Seeds, replays, undo and determinization, checked on random games of every combination."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_invariants import COMBOS, check_tiles, combo_id, random_game

from sniff_env import make_rules, new_game, replay
from sniff_env.game import Game, Phase
from sniff_env.infostate import InfoState, determinize, info_state, sample_hidden


def snapshot(game: Game) -> dict[str, Any]:
    """Every piece of state, copied (the cached legal moves and the hand's start excepted)."""
    out: dict[str, Any] = {}
    for name in Game.__slots__:
        if name in ("_legal", "hand_start") or not hasattr(game, name):
            continue
        value = getattr(game, name)
        out[name] = list(value) if isinstance(value, list) else value
    out["legal"] = list(game.legal_actions())
    return out


@pytest.mark.parametrize("combo", COMBOS, ids=combo_id)
def test_seed_replays_same_game(combo: tuple[str, int, int, bool]) -> None:
    preset, players, max_pip, partnership = combo
    rules = make_rules(preset, players, max_pip=max_pip, partnership=partnership)
    for seed in (3, 4):
        a = random_game(rules, seed, max_hands=3)
        b = random_game(rules, seed, max_hands=3)
        assert a.events == b.events and a.scores == b.scores
        again = replay(rules, seed, a.records)
        assert again.scores == a.scores
        assert again.events[: len(a.events) - 1] == a.events[:-1]  # the replay has no hand limit
        quiet = random_game(rules, seed, max_hands=3, record=False)
        assert quiet.scores == a.scores and not quiet.events


@pytest.mark.parametrize("combo", COMBOS, ids=combo_id)
def test_undo_restores_exact_state(combo: tuple[str, int, int, bool]) -> None:
    preset, players, max_pip, partnership = combo
    rules = make_rules(preset, players, max_pip=max_pip, partnership=partnership)
    game = new_game(rules, seed=11, max_hands=1)
    rng = random.Random(11)
    while game.phase is Phase.PLAY:
        before = snapshot(game)
        action = rng.choice(game.legal_actions())
        game.step(action)
        if game.phase is not Phase.PLAY:
            break
        after = snapshot(game)
        assert game.undo() == action
        assert snapshot(game) == before
        game.step(action)
        assert snapshot(game) == after


@pytest.mark.parametrize("combo", COMBOS, ids=combo_id)
def test_determinize_is_consistent_with_the_view(combo: tuple[str, int, int, bool]) -> None:
    preset, players, max_pip, partnership = combo
    rules = make_rules(preset, players, max_pip=max_pip, partnership=partnership)
    game = new_game(rules, seed=5, max_hands=1)
    rng = random.Random(5)
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        for seat in range(players):
            info = info_state(game, seat)
            check_sample(game, info, *sample_hidden(info, rng))
            check_world(game, determinize(info, rng), seat)
        game.step(rng.choice(game.legal_actions()))


def check_sample(game: Game, info: InfoState, hands: list[int], boneyard: list[int]) -> None:
    """A sampled deal of the hidden tiles fits everything ``info.seat`` knows."""
    seat = info.seat
    assert hands[seat] == game.hands[seat]
    assert [h.bit_count() for h in hands] == [h.bit_count() for h in game.hands]
    assert len(boneyard) == game.boneyard_size
    union = 0
    for mask in [*hands, *(1 << t for t, _, _ in game.plays), *(1 << t for t in boneyard)]:
        assert not union & mask
        union |= mask
    assert union == game.ts.all_mask
    if seat != game.turn and game.drawn_this_turn:
        return  # the mover's lack is stale until it plays the tile it drew, and the sampler may drop all
    for other in range(game.n):
        if other in (seat, game.turn):
            continue
        for pip in range(game.rules.max_pip + 1):
            if info.lacking[other] >> pip & 1:
                assert not hands[other] & game.ts.pip_mask[pip], f"seat {other} lacks {pip}"


def check_world(game: Game, world: Game, seat: int) -> None:
    """The world copies the public state; sampled for the mover, it offers the same moves."""
    check_tiles(world)
    if seat == game.turn:
        assert world.hands[seat] == game.hands[seat] and world.scores == game.scores
        assert world.plays == game.plays and world.count == game.count
        assert (world.end_pip, world.end_val, world.end_open) == (game.end_pip, game.end_val, game.end_open)
        assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in game.hands]
        assert world.boneyard_size == game.boneyard_size and world.turn == game.turn
        assert world.legal_actions() == game.legal_actions()
    else:  # the sampled mover may first have had to draw or pass
        assert world.plays == game.plays
    rng = random.Random(0)
    while world.phase is Phase.PLAY:  # the sampled world plays on to the end of the hand
        world.step(rng.choice(world.legal_actions()))
