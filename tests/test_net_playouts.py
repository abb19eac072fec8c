"""Playouts by a network: on a given deal each move's value is the reference engine's playout
with the network in every seat; the guided player's ``playouts=policy`` plays legally, never
reads the hidden tiles, and refuses bad options."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sniff_env import make_rules, new_game
from sniff_env.game import Game, Phase
from sniff_env.infostate import determinize, info_state
from sniff_env.players import PlayerSpecError, load
from sniff_env.players.guided import GuidedPlayer
from sniff_env.players.heuristic import HeuristicPlayer
from sniff_env.players.net_playouts import NetPlayouts
from sniff_env.players.policy import PolicyError, PolicyPlayer
from sniff_env.rules import Rules
from sniff_env.tiles import mask_tiles
from sniff_env.vector.checks import BatchError
from sniff_env.vector.engine import VectorEngine


def positions(rules: Rules, seed: int, count: int) -> list[Game]:
    """Up to ``count`` positions with a choice, from games played at random."""
    game, rng, out = new_game(rules, seed=seed, record=False), random.Random(seed), []
    while game.phase is not Phase.GAME_OVER and len(out) < count:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        if len(game.legal_actions()) > 1 and rng.random() < 0.5:
            out.append(game.copy())
        game.step(rng.choice(game.legal_actions()))
    return out


def reference_margin(game: Game, action: int, network: PolicyPlayer, plies: int) -> float:
    """On the reference engine: ``action``, then the hand played out by ``network`` in every
    seat (its first ``plies`` decisions, then the heuristic; 0: all of them); what the mover's
    side gained less the mean of what the other sides gained."""
    side, before, heuristic = game.rules.side_of(game.turn), list(game.scores), HeuristicPlayer()
    game.step(action)
    ply = 0
    while game.phase is Phase.PLAY:
        player = heuristic if plies and ply >= plies else network
        game.step(player.act(None, {"info_state": info_state(game, game.turn)}))
        ply += 1
    gains = [game.scores[s] - before[s] for s in range(game.rules.num_sides)]
    others = [x for s, x in enumerate(gains) if s != side]
    return gains[side] - sum(others) / len(others)


CASES = [("sniff", 2, {}, "sniff-2p"), ("sniff", 4, {"partnership": True}, "sniff-4p-partnership")]


@pytest.mark.parametrize("plies", [0, 2])
@pytest.mark.parametrize("preset,players,extra,agent", CASES, ids=["sniff-2p", "sniff-4p-partnership"])
def test_a_deal_is_the_reference_playout(preset: str, players: int, extra: dict[str, bool], agent: str,
                                         plies: int) -> None:
    """On the real deal (hands and the boneyard's order), each move's value is the margin of the
    reference engine's playout by the network in every seat, its first ``plies`` decisions only
    where ``plies`` is set."""
    rules = make_rules(preset, players, **extra)
    network = load(agent)
    assert isinstance(network, PolicyPlayer)
    playouts = NetPlayouts(rules, network.network, plies=plies)
    checked = 0
    for game in positions(rules, 17, 6):
        root = VectorEngine(rules, 1, threads=1)
        state = info_state(game, game.turn)
        root.load_info_state(state)
        T = root.tables.num_tiles
        hands = np.zeros((1, players, T), np.uint8)
        for s in range(players):
            hands[0, s, mask_tiles(game.hands[s])] = 1
        rest = game.boneyard[game.bone_pos :]
        bone = np.zeros((1, T), np.int64)
        bone[0, : len(rest)] = rest
        values = playouts.play(root, hands, bone)[0]
        assert values.shape == (len(state.legal),)
        for a, v in zip(state.legal, values, strict=True):
            assert v == pytest.approx(reference_margin(game.copy(), a, network, plies)), (a, values)
            checked += 1
    assert checked > 8


def test_sampled_boneyards_hold_the_unseen_tiles() -> None:
    """Each sampled deal's boneyard holds exactly the tiles neither played nor in a hand."""
    rules = make_rules("sniff", 2)
    network = load("sniff-2p")
    assert isinstance(network, PolicyPlayer)
    playouts = NetPlayouts(rules, network.network, seed=3)
    from sniff_env.players.compiled.rollouts import RolloutSearch

    for game in positions(rules, 5, 4):
        root = VectorEngine(rules, 1, threads=1)
        root.load_info_state(info_state(game, game.turn))
        hands = RolloutSearch(root, 8, seed=1).deals(0, 8)
        bone = playouts.boneyards(root, hands)
        played = {tile for tile, _, _ in game.plays}
        size = len(game.boneyard) - game.bone_pos
        for d in range(8):
            held = set(np.flatnonzero(hands[d].any(axis=0)).tolist())
            assert sorted(bone[d, :size].tolist()) == sorted(set(range(root.tables.num_tiles)) - played - held)


SPEC = "guided:agent=sniff-2p,samples=4,prior=0.3,playouts=policy"


@pytest.mark.parametrize("spec", [SPEC, SPEC + ",net_plies=1,value=win", SPEC + ",infer=1"])
def test_choice_ignores_hidden_tiles(spec: str) -> None:
    """Same public history and own hand, other hidden tiles: the same choice."""
    rules, compared = make_rules("sniff", 2), 0
    for game in positions(rules, 11, 12):
        state = info_state(game, game.turn)
        twin = determinize(state, random.Random(compared))
        assert info_state(twin, state.seat) == state
        if twin.hands != game.hands:
            first = load(spec, seed=42).act({}, {"info_state": state})
            assert first in state.legal
            assert load(spec, seed=42).act({}, {"info_state": info_state(twin, state.seat)}) == first
            compared += 1
    assert compared >= 3


def test_options_are_kept() -> None:
    player = load(SPEC + ",net_plies=3,playout_agent=sniff-2p-tiles")
    assert isinstance(player, GuidedPlayer)
    assert (player.playouts, player.net_plies, player.playout_agent) == ("policy", 3, "sniff-2p-tiles")


def test_the_playout_agent_plays_the_playouts() -> None:
    """With one deal and no prior, naming the prior's network as the playout agent changes
    nothing, and another network changes some choices; one for other rules is refused."""
    rules = make_rules("sniff", 2)
    states = [info_state(g, g.turn) for g in positions(rules, 23, 24)]
    spec = "guided:agent=sniff-2p,samples=1,prior=0,playouts=policy"
    plain = [load(spec, seed=5).act({}, {"info_state": s}) for s in states]
    assert [load(spec + ",playout_agent=sniff-2p", seed=5).act({}, {"info_state": s}) for s in states] == plain
    assert [load(spec + ",playout_agent=sniff-2p-tiles", seed=5).act({}, {"info_state": s}) for s in states] != plain
    with pytest.raises(PolicyError, match="other rules"):
        load(spec + ",playout_agent=muggins-2p").act({}, {"info_state": states[0]})


@pytest.mark.parametrize("spec,words", [
    ("guided:playouts=random", "playouts must be 'heuristic' .* or 'policy'"),
    ("guided:playouts=policy,net_plies=-1", "net_plies must be a whole number of 0"),
    ("guided:net_plies=2", "net_plies applies to playouts=policy"),
    ("guided:playouts=policy,net_plies=1.5", "net_plies=1.5 of .guided. must be a whole number"),
    ("guided:playouts=policy,depth=2", "depth=2 shape the compiled search's playouts"),
    ("guided:playouts=policy,solve=8,top=2,extra=4", "solve=8, top=2 shape the compiled search's playouts"),
    ("guided:playouts=policy,playout_reply=1.5", "playout_reply=1.5 shape the compiled search's playouts"),
    ("guided:playout_agent=sniff-2p", "playout_agent applies to playouts=policy only"),
    ("guided:playouts=policy,playout_agent=nobody", "no shipped agent is named 'nobody'"),
])
def test_bad_options_are_refused(spec: str, words: str) -> None:
    with pytest.raises(PlayerSpecError, match=words):
        load(spec)


def test_set_positions_refuses_a_deal_that_does_not_hold_each_tile_once() -> None:
    """A deal with a tile twice, or of the wrong shape, is refused before any game changes."""
    rules = make_rules("sniff", 2)
    game = positions(rules, 5, 1)[0]
    root = VectorEngine(rules, 1, threads=1)
    root.load_info_state(info_state(game, game.turn))
    T = root.tables.num_tiles
    hands = np.zeros((2, 2, T), np.uint8)
    for s in range(2):
        hands[:, s, mask_tiles(game.hands[s])] = 1
    rest = game.boneyard[game.bone_pos :]
    bone = np.zeros((2, T), np.int64)
    bone[:, : len(rest)] = rest
    eng = VectorEngine(rules, 2, threads=1)
    eng.set_positions(root, 0, hands, bone)  # the real deal is accepted
    assert (eng.S[:, :-1] == root.S[0, :-1]).all()
    before = eng.S.copy()
    twice = bone.copy()
    twice[1, 0] = twice[1, 1]
    with pytest.raises(BatchError, match="game 1: its hands, boneyard and the tiles played must hold each tile once"):
        eng.set_positions(root, 0, hands, twice)
    with pytest.raises(BatchError, match=r"hands must be \[2, 2, 28\] and bone \[2, 28\]"):
        eng.set_positions(root, 0, hands[:1], bone)
    assert (eng.S == before).all()
