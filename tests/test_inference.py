"""Inference from the others' plays: the evidence, the deals it keeps, and the players using it."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_win_odds import assert_choices_ignore_hidden_tiles

from sniff_env import PRESET_NAMES, make_rules, new_game
from sniff_env.actions import action_codec
from sniff_env.game import Game, Phase
from sniff_env.infostate import InfoState, determinize, info_state
from sniff_env.players import PlayerSpecError, load
from sniff_env.players.beliefs import evidence, known_hands, layouts_before, no_evidence, tile_points
from sniff_env.players.compiled.rollouts import RolloutSearch
from sniff_env.tiles import tile_set
from sniff_env.vector.engine import VectorEngine

RULES = make_rules("sniff", 2)


def decisions(game: Game, seed: int, limit: int):
    """Each information state a random game reaches, up to ``limit`` of them."""
    rng = random.Random(seed)
    for _ in range(limit):
        if game.phase is Phase.GAME_OVER:
            return
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        yield info_state(game, game.turn)
        game.step(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_hand_is_known_only_where_its_seat_has_drawn_nothing_since(players: int) -> None:
    game, known, plays = new_game(make_rules("sniff", players), seed=players, record=True), 0, 0
    for state in decisions(game, players, 800):
        start = max(i for i, e in enumerate(game.events) if e.kind == "deal")
        hand = game.events[start:]
        play_at = [i for i, e in enumerate(hand) if e.kind == "play"]
        assert len(play_at) == len(state.plays)
        for i, exact in zip(play_at, known_hands(state)):
            drawn_since = any(e.kind == "draw" and e.player == hand[i].player for e in hand[i:])
            assert not (exact and drawn_since)
            known, plays = known + exact, plays + 1
    assert 0.3 * plays < known < plays  # most plays are usable, not all


def test_evidence_tabulates_the_others_plays_from_public_facts() -> None:
    game, rows = new_game(RULES, seed=3, record=False), 0
    for state in decisions(game, 3, 200):
        seen = evidence(state, 0.3)
        twin = determinize(state, random.Random(1))
        assert all(np.array_equal(a, b) for a, b in zip(seen, evidence(info_state(twin, state.seat), 0.3)))
        assert not (set(seen.seats.tolist()) & {state.seat})
        assert np.all(seen.known > 0)  # the played tile fitted
        unseen = np.array([state.unseen_mask >> t & 1 for t in range(seen.odds.shape[1])], bool)
        assert np.all(seen.odds[:, ~unseen] == 0)
        rows += seen.seats.size
    assert rows > 20


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_evidence_is_well_formed_under_every_preset(preset: str, players: int) -> None:
    rules = make_rules(preset, players)
    game, T = new_game(rules, seed=7, record=False), tile_set(rules.max_pip).size
    for state in decisions(game, 7, 150):
        seen = evidence(state, 0.5)
        assert seen.odds.shape == (seen.seats.size, T) and seen.known.shape == (seen.seats.size,)
        assert np.all(seen.known > 0) and np.all(np.isfinite(seen.odds)) and np.all(seen.odds <= 1)
        assert state.seat not in seen.seats.tolist()


def test_no_evidence_at_zero_sharpness_or_before_the_others_play() -> None:
    state = info_state(new_game(RULES, seed=1, record=False), 0)
    assert evidence(state, 0.0).seats.size == 0
    assert evidence(state, 0.5).seats.size == 0  # no play yet


def test_odds_follow_the_points_a_tile_would_score() -> None:
    game, rows = new_game(RULES, seed=8, record=False), 0
    codec = action_codec(RULES.max_pip)
    for state in decisions(game, 8, 60):
        layout = state.layout
        if not layout.is_empty:
            for t in range(28):
                scores = [layout.points_after(codec.encode(t, s)) for s in range(4)
                          if layout.end_open[s] and t in fitting(layout, s)]
                assert tile_points(layout, codec, t) == (max(scores) if scores else -1)
        seen = evidence(state, 0.25)
        for k in range(seen.seats.size):  # relative odds: exp(0.25 * points), the best tile's 1
            row = seen.odds[k][seen.odds[k] > 0]
            assert row.max() <= 1 and np.allclose(np.log(row) / 0.25, np.round(np.log(row) / 0.25))
            rows += 1
    assert rows > 5


def fitting(layout, slot: int) -> set[int]:
    pip = layout.end_pip[slot]
    return {t for t, (a, b) in enumerate(tile_set(layout.rules.max_pip).tiles) if pip in (a, b)}


def declined_scores(seed: int) -> tuple[InfoState, set[int]]:
    """A state of seat 0 after seat 1 laid a tile while an unseen tile would have scored more:
    the state, and those tiles."""
    game = new_game(RULES, seed=seed, record=False)
    codec = action_codec(RULES.max_pip)
    for state in decisions(game, seed, 400):
        if state.seat != 0 or not state.plays or state.plays[-1][1] != 1 or state.plays[-1][2] == 4:
            continue
        if 1 not in evidence(state, 1.0).seats.tolist():
            continue
        before = layouts_before(state)[-1]
        played = tile_points(before, codec, state.plays[-1][0])
        lo, hi = tile_set(RULES.max_pip).lo, tile_set(RULES.max_pip).hi
        better = {t for t in range(28) if state.unseen_mask >> t & 1
                  and tile_points(before, codec, t) >= played + 5
                  and not (state.lacking[1] >> lo[t] & 1 or state.lacking[1] >> hi[t] & 1)}
        if better and state.hand_sizes[1] >= 3:
            return state, better
    raise AssertionError("no declined score found")


@pytest.mark.parametrize("seed", [2, 6])
def test_the_deals_kept_seldom_give_a_seat_the_score_it_declined(seed: int) -> None:
    state, better = declined_scores(seed)
    engine = VectorEngine(RULES, 1, threads=1)
    engine.load_info_state(state)
    search = RolloutSearch(engine, samples=1, seed=5)
    blind = search.deals(0, 2000)
    informed = search.deals(0, 2000, evidence(state, 1.0))
    mask = np.zeros(28, bool)
    mask[list(better)] = True
    held_blind = blind[:, 1, mask].any(axis=1).mean()
    held_informed = informed[:, 1, mask].any(axis=1).mean()
    assert held_blind > 0.2
    assert held_informed < held_blind / 3
    for deals in (blind, informed):  # both keep what the seat knows
        assert np.all(deals[:, 0] == [(state.hand >> t) & 1 for t in range(28)])
        assert np.all(deals[:, 1].sum(axis=1) == state.hand_sizes[1])


def test_evidence_is_for_one_game_and_well_formed() -> None:
    engine = VectorEngine(RULES, 2, threads=1)
    search = RolloutSearch(engine, samples=1)
    with pytest.raises(ValueError, match="one game"):
        search.q_values(np.array([0, 1]), no_evidence(28))
    with pytest.raises(ValueError, match="rows of 28 tile odds"):
        search.deals(0, 1, no_evidence(21))


@pytest.mark.parametrize("spec", ["rollouts:infer=-1", "rollouts:infer=nan", "guided:infer=11"])
def test_a_bad_sharpness_is_refused(spec: str) -> None:
    with pytest.raises((PlayerSpecError, ValueError), match="infer must be a number from 0"):
        load(spec)


@pytest.mark.parametrize("spec", ["rollouts:samples=6,infer=0.3", "guided:samples=4,infer=0.3,value=win"])
def test_choice_with_inference_ignores_hidden_tiles(spec: str) -> None:
    assert_choices_ignore_hidden_tiles(spec, 31, lambda state: evidence(state, 0.3).seats.size > 0)


def test_the_sharpness_study_finds_greedy_sharper_than_random(capsys: pytest.CaptureFixture[str]) -> None:
    from training.studies.inference_sharpness import choices, main, mean_log_likelihood

    greedy, uniform = choices("greedy", 6, 1), choices("random", 6, 1)
    # greedy lays the tile that scores most: the sharpest model fits it best; random, the flattest
    assert mean_log_likelihood(greedy, 1.2) > mean_log_likelihood(greedy, 0.1)
    assert mean_log_likelihood(uniform, 0.0) > mean_log_likelihood(uniform, 0.5)
    main(["greedy", "--games", "2"])
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("B = 1.2") and last.endswith("<- best")
