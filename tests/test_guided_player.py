"""The guided player: its spec and errors, legal play in the PettingZoo env, seeding, no peeking,
and a network prior that really steers it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sniff_env import make_rules, new_game, sniff_v0
from sniff_env.game import Game, Phase
from sniff_env.infostate import InfoState, determinize, info_state
from sniff_env.players import PlayerSpecError, load
from sniff_env.players.compiled.rollouts import RolloutSearch
from sniff_env.players.guided import GuidedPlayer, keep_moves
from sniff_env.players.policy import PolicyError
from sniff_env.vector.engine import VectorEngine

RULES = make_rules("sniff", 2)


def decisions(seed: int, count: int) -> list[tuple[Game, InfoState]]:
    """Up to ``count`` positions with a choice, from a game played at random."""
    game, rng, out = new_game(RULES, seed=seed, record=False), random.Random(seed), []
    while game.phase is not Phase.GAME_OVER and len(out) < count:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        if len(game.legal_actions()) > 1:
            out.append((game.copy(), info_state(game, game.turn)))
        game.step(rng.choice(game.legal_actions()))
    return out


def test_spec_options_and_name() -> None:
    player = load("guided:agent=sniff-2p,samples=8,prior=2.5,top=2,extra=4", seed=3)
    assert isinstance(player, GuidedPlayer)
    assert (player.agent, player.samples, player.prior, player.top, player.extra) == ("sniff-2p", 8, 2.5, 2, 4)
    assert player.name == "guided:agent=sniff-2p,samples=8,prior=2.5,top=2,extra=4"
    assert load("guided").name == "guided"


@pytest.mark.parametrize("spec,words", [
    ("guided:samples=0", "samples must be a whole number from 1"),
    ("guided:samples=2.5", "must be a whole number"),
    ("guided:prior=-1", "prior must be a finite number of 0 or more"),
    ("guided:prior=inf", "prior must be a finite number of 0 or more"),
    ("guided:top=2", "both 0 .* or both 1 or more"),
    ("guided:top=-1,extra=4", "both 0 .* or both 1 or more"),
    ("guided:work=-1", "work must be 0 .no bound. or a whole number of playout moves"),
    ("guided:work=true", "work=true of .guided. must be a whole number"),
    ("guided:work=1.5", "work=1.5 of .guided. must be a whole number"),
    ("guided:width=3", "no option 'width'.*agent, samples, prior, top, extra, value, infer, depth"),
    ("guided:agent=nobody", "no shipped agent is named 'nobody'; installed agents: .*sniff-2p"),
    ("guided:agent=missing.onnx", "does not exist"),
])
def test_bad_options_are_refused(spec: str, words: str) -> None:
    with pytest.raises(PlayerSpecError, match=words):
        load(spec)


def test_an_agent_for_other_rules_is_refused() -> None:
    player = load("guided:samples=4")
    game = new_game(make_rules("muggins", 2), seed=1, record=False)
    with pytest.raises(PolicyError, match="other rules"):
        player.act({}, {"info_state": info_state(game, game.turn)})
    with pytest.raises(PolicyError, match="other rules"):
        load("guided:agent=muggins-2p,samples=4").act({}, {"info_state": decisions(1, 1)[0][1]})


def test_plays_a_whole_game_in_the_pettingzoo_env() -> None:
    env = sniff_v0.env("sniff", 2, max_hands=2, infos="full")
    env.reset(seed=5)
    players = {env.possible_agents[0]: load("guided:samples=4,top=2,extra=4", seed=1),
               env.possible_agents[1]: load("heuristic")}
    moves = 0
    for agent in env.agent_iter(400):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = players[agent].act(obs, info)
        assert obs["action_mask"][action] == 1
        env.step(action)
        moves += 1
    assert moves > 10 and not env.agents  # the game ended without an illegal move


def test_a_seed_fixes_its_choices() -> None:
    positions = [state for _, state in decisions(2, 8)]
    spec = "guided:samples=3,top=2,extra=3"
    fresh = load(spec, seed=9)
    first = [fresh.act({}, {"info_state": s}) for s in positions]
    player = load(spec, seed=4)
    other = [player.act({}, {"info_state": s}) for s in positions]
    player.reset(9)
    assert [player.act({}, {"info_state": s}) for s in positions] == first
    assert other != first  # the seed matters: three deals a move leave room for chance


def test_choice_ignores_hidden_tiles() -> None:
    """Same public history and own hand, other hidden tiles: the same choice."""
    compared = 0
    for game, state in decisions(11, 10):
        twin = determinize(state, random.Random(compared))
        twin_state = info_state(twin, state.seat)
        assert twin_state == state
        if twin.hands != game.hands:
            spec = "guided:samples=4,top=2,extra=4"
            assert load(spec, seed=42).act({}, {"info_state": state}) == load(spec, seed=42).act(
                {}, {"info_state": twin_state})
            compared += 1
    assert compared >= 3


def test_the_prior_steers_the_choice() -> None:
    """With one deal per move, a huge prior plays the network's choice; without it, not always."""
    network = load("sniff-2p")
    positions = [state for _, state in decisions(3, 20)]
    steered = [load("guided:samples=1,prior=1000", seed=1).act({}, {"info_state": s}) for s in positions]
    assert steered == [network.act({}, {"info_state": s}) for s in positions]
    plain = [load("guided:samples=1,prior=0", seed=1).act({}, {"info_state": s}) for s in positions]
    assert plain != steered


def test_work_cuts_the_deals_of_costly_positions_only() -> None:
    """``work`` plays out ``work // (legal moves x tiles to play)`` deals where that is fewer than
    ``samples``: the same choice as a player given that many deals, and no cut where it fits."""
    positions = [state for _, state in decisions(8, 30)]
    bounded = load("guided:samples=64,work=3000")
    assert isinstance(bounded, GuidedPlayer)
    cuts = [bounded.deals_for(s) for s in positions]
    for state, deals in zip(positions, cuts):
        cost = len(state.legal) * (sum(state.hand_sizes) + state.drawable)
        assert deals == max(1, min(64, 3000 // cost))
        assert load(f"guided:samples={deals}", seed=5).act({}, {"info_state": state}) == load(
            "guided:samples=64,work=3000", seed=5).act({}, {"info_state": state})
    assert min(cuts) < 64 and max(cuts) == 64  # both cut and uncut positions were played
    assert load("guided:samples=64").deals_for(positions[0]) == 64  # no work: every deal


def test_keep_moves_limits_what_the_search_values() -> None:
    state = next(s for _, s in decisions(6, 20) if len(s.legal) >= 3)
    engine = VectorEngine(RULES, 1, threads=1)
    engine.load_info_state(state)
    kept = np.asarray(state.legal[1:3], np.int64)
    keep_moves(engine, kept)
    q = RolloutSearch(engine, 4, 0).q_values(np.zeros(1, np.int64))[0]
    assert np.isfinite(q[kept]).all()
    assert np.isneginf(np.delete(q, kept)).all()


def test_an_unknown_keyword_is_a_type_error_naming_the_options() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'width'.*agent, samples, prior"):
        GuidedPlayer(width=3)
