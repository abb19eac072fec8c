"""The OpenSpiel game ``python_sniff``: OpenSpiel's own checks, Shimmy's PettingZoo view, IS-MCTS."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import sniff_env.integrations.openspiel  # noqa: F401  (registers python_sniff)
from sniff_env import PRESET_NAMES, Rules, RulesError, make_rules
from sniff_env.integrations.openspiel import ChancePlay, Stage
from sniff_env.integrations.openspiel.resample import ResampleError, resample_actions
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


def _decision_plays(rules: Rules, one_hand: bool, count: int, seed: int) -> list[ChancePlay]:
    """``count`` decision nodes of random games (random outcomes, random decisions), in order."""
    rng = random.Random(seed)
    out: list[ChancePlay] = []
    while len(out) < count:
        play = ChancePlay(rules, one_hand=one_hand, max_hands=20)
        while not play.is_over and len(out) < count:
            if play.is_chance:
                play.apply(rng.choice(play.chance_outcomes()))
            else:
                out.append(play.copy())
                play.apply(rng.choice(play.legal_actions()))
    return out


@pytest.mark.parametrize(
    ("preset", "n", "one_hand"),
    [("sniff", 2, False), ("muggins-digital", 2, True), ("sniff-us", 3, True), ("sniff-digital", 4, True)],
)
def test_resampling_finds_a_world_at_every_decision(preset: str, n: int, one_hand: bool) -> None:
    """At 300 decision nodes of random play (forced draws, passes, draws by choice, the highest
    double leading, later hands of a whole game), every seat's resampled world replays to the
    very information state that seat has."""
    rules = make_rules(preset, n)
    rng = random.Random(7)
    plays = _decision_plays(rules, one_hand, 300, seed=n)
    for i, play in enumerate(plays):
        seat = play.game.turn if i % 2 else i // 2 % n  # the mover, or any seat
        history = resample_actions(play, seat, rng)
        world = ChancePlay(rules, one_hand=one_hand, max_hands=20)
        for action in history:
            world.apply(action)
        assert information_state_string(world, seat) == information_state_string(play, seat)
    if not one_hand:
        assert any(p.game.hand_index > 0 for p in plays)  # later hands of the game are covered


def test_resampled_worlds_vary_and_keep_the_information_state() -> None:
    game = pyspiel.load_game("python_sniff", {"ruleset": "sniff", "num_players": 2, "episode": "hand"})
    state = _play_to_decision(game, random.Random(3), 12)
    seat = state.current_player()
    assert any(e.kind == "draw" and e.player != seat for e in state.play.game.events)  # hidden draws
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(seat, sampler) for _ in range(10)]
    assert all(w.information_state_string(seat) == state.information_state_string(seat) for w in worlds)
    hidden = {tuple(h for s, h in enumerate(w.play.game.hands) if s != seat) for w in worlds}
    assert len(hidden) >= 5
    assert information_state_string(state.play, seat).startswith(f"seat {seat}")


def test_resampling_refuses_a_draw_node() -> None:
    rng = random.Random(2)
    play = ChancePlay(make_rules("sniff-us", 2), one_hand=True)
    while play.stage is not Stage.DRAW:
        play.apply(rng.choice(play.chance_outcomes() if play.is_chance else play.legal_actions()))
    with pytest.raises(ResampleError, match="not at a draw"):
        resample_actions(play, 0, random.Random(0))


def test_ismcts_plays_sniff_through_evaluate_bots() -> None:
    from open_spiel.python.algorithms import evaluate_bots

    from sniff_env.integrations.openspiel.bots import ismcts_bot, player_bot

    game = pyspiel.load_game("python_sniff", {"ruleset": "sniff", "num_players": 2, "episode": "hand"})
    bots = [ismcts_bot(game, simulations=10, seed=0), player_bot(game, 1, "heuristic")]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_ismcts_is_reproducible_by_its_seed() -> None:
    """Two searches with one seed visit the same moves as often (the worlds come from the bot's
    generator, not from a sampler seeded by the system)."""
    from open_spiel.python.algorithms import ismcts, mcts

    from sniff_env.integrations.openspiel.bots import ISMCTSBot

    game = pyspiel.load_game("python_sniff", {"ruleset": "sniff", "num_players": 2, "episode": "hand"})
    state = _play_to_decision(game, random.Random(1), 4)

    def visits() -> list[tuple[int, float]]:
        rng = np.random.RandomState(4)
        bot = ISMCTSBot(
            game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0, max_simulations=30, random_state=rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT,
        )
        return list(bot.get_policy(state))

    first = visits()
    assert len(first) > 2 and first == visits()


def test_player_bot_plays_what_the_player_picks_from_the_seat_view() -> None:
    from sniff_env.infostate import info_state
    from sniff_env.integrations.openspiel.bots import player_bot
    from sniff_env.players import load

    game = pyspiel.load_game("python_sniff", {"ruleset": "muggins-digital", "num_players": 3, "episode": "hand"})
    state = _play_to_decision(game, random.Random(2), 4)
    seat = state.current_player()
    bot = player_bot(game, seat, "heuristic")
    expected = load("heuristic", seed=0).act({}, {"info_state": info_state(state.play.game, seat)})
    assert bot.step(state) == expected
    with pytest.raises(ValueError, match=f"seat {seat} is to move"):
        player_bot(game, (seat + 1) % 3).step(state)


def test_shimmy_passes_the_pettingzoo_api_test() -> None:
    shimmy = pytest.importorskip("shimmy")
    from pettingzoo.test import api_test

    # Shimmy's reset reloads the game by name and config, so give those (not a loaded game)
    config = {"ruleset": "sniff", "num_players": 3, "episode": "hand"}
    env = shimmy.OpenSpielCompatibilityV0(game_name="python_sniff", config=config)
    api_test(env, num_cycles=200)
