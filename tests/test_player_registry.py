"""One registry from a player spec to its player: a player added with one entry in
``sniff_env.players.registry`` (its reference class and its compiled twin) is built by
``players.load``, played on the batched engine by ``players.load_compiled``, the tournament's
batched path and the trainers' opponent table, with the same moves as its reference form."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sniff_env import make_rules
from sniff_env.evaluation import run_tournament
from sniff_env.players import BUILTIN, compiled_builtins, has_compiled, load, load_compiled
from sniff_env.players._base import legal_actions
from sniff_env.players.registry import BUILTIN_PLAYERS, BuiltinPlayer
from sniff_env.vector import VectorEngine


class HighestPlayer:
    """A toy built-in: the highest legal action."""

    def __init__(self, seed: int | None = None, name: str = "highest") -> None:
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset."""

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        return max(legal_actions(observation, info))


def highest_chooser(engine: Any) -> Any:
    """Its twin over the batched engine: the highest of each game's legal actions."""
    return lambda games: np.array([engine.legal[b, : engine.num_legal[b]].max() for b in games], np.int64)


@pytest.fixture
def highest(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(BUILTIN_PLAYERS, "highest",
                        BuiltinPlayer(f"{__name__}:HighestPlayer", f"{__name__}:highest_chooser"))
    return "highest"


def test_one_entry_makes_a_player_everywhere(highest: str) -> None:
    assert highest in BUILTIN and has_compiled(highest) and highest in compiled_builtins()
    assert isinstance(load(highest), HighestPlayer)
    rules = make_rules("sniff", 2)
    engine = VectorEngine(rules, 16)
    engine.deal(np.arange(16), True, np.arange(16))
    choose = load_compiled(highest, engine)
    games = np.arange(16)
    want = [max(engine.legal[b, : engine.num_legal[b]]) for b in games]
    assert choose(games).tolist() == want
    batched = run_tournament([highest, "greedy"], rules, 8, seed=3, engine="batched")
    reference = run_tournament([highest, "greedy"], rules, 8, seed=3, engine="reference")
    assert batched.engine == "batched" and reference.engine == "reference"
    games_of = [sorted((o.deal_index, o.seating, o.winner, o.scores, o.hands) for o in result.outcomes)
                for result in (batched, reference)]
    assert games_of[0] == games_of[1] and len(games_of[0]) == 8


def test_the_trainers_seat_it_as_an_opponent(highest: str) -> None:
    import random

    from training.lib.experience import VectorSelfPlay

    play = VectorSelfPlay(make_rules("sniff", 2), 8, seed=1, reward="points", max_hands=50, selfplay_prob=0.0,
                          rng=random.Random(0), builtins=(highest,))
    assert len(play.builtins) == 1


def test_a_player_without_a_twin_is_refused_on_the_batched_engine() -> None:
    engine = VectorEngine(make_rules("sniff", 2), 2)
    with pytest.raises(ValueError, match="vector engine plays the built-ins random, greedy, heuristic"):
        load_compiled("search", engine)
    with pytest.raises(ValueError, match="the compiled greedy player"):
        load_compiled("greedy:depth=2", engine)


def positions_with_a_choice(rules: Any, seeds: range, most_plies: int) -> Any:
    """``(game, engine)`` pairs of one game each, the same random plays on the reference game and on
    a one-game engine (its hidden hands in place), where the seat to act has a choice."""
    import random

    from sniff_env.game import Phase, new_game

    rng = random.Random(0)
    for seed in seeds:
        game = new_game(rules, seed=seed, record=False)
        engine = VectorEngine(rules, 1, threads=1)
        engine.deal(np.arange(1), True, [seed])
        for _ in range(rng.randrange(0, most_plies)):
            if game.phase is not Phase.PLAY:
                break
            action = rng.choice(game.legal_actions())
            game.step(action)
            engine.step(np.array([action]))
        if game.phase is Phase.PLAY and len(game.legal_actions()) > 1:
            yield game, engine


def test_the_search_twin_reads_only_what_the_seat_may_know() -> None:
    """On an engine's real game (hidden hands in place) the compiled search chooses as the
    reference player does from the seat's information state alone, draw for draw."""
    from sniff_env.infostate import info_state
    from sniff_env.players.rollouts import RolloutPlayer

    compared = 0
    for game, engine in positions_with_a_choice(make_rules("sniff", 2), range(12), 6):
        twin = load_compiled("rollouts:samples=16,seed=7", engine)
        player = RolloutPlayer(seed=7, samples=16)
        assert twin(np.zeros(1, np.int64))[0] == player.act(None, {"info_state": info_state(game, game.turn)})
        compared += 1
    assert compared >= 6


def test_the_guided_twin_chooses_as_the_reference_player() -> None:
    """The network-steered search's twin, on an engine's real game, chooses as the reference
    player does from the seat's information state, draw for draw: the same prior, the same
    chances of winning and the same deals cut by ``work``."""
    from sniff_env.infostate import info_state
    from sniff_env.players.guided import GuidedPlayer

    options = {"agent": "sniff-2p", "samples": 24, "value": "win", "work": 600, "prior": 0.3}
    spec = "guided:seed=7," + ",".join(f"{k}={v}" for k, v in options.items())
    compared, cut = 0, 0
    for game, engine in positions_with_a_choice(make_rules("sniff", 2), range(24), 12):
        player = GuidedPlayer(seed=7, **options)  # type: ignore[arg-type]
        state = info_state(game, game.turn)
        assert load_compiled(spec, engine)(np.zeros(1, np.int64))[0] == player.act(None, {"info_state": state})
        compared, cut = compared + 1, cut + (player.deals_for(state) < options["samples"])
    assert compared >= 6 and cut >= 2


def test_the_guided_twin_draws_alike_on_any_threads_and_refuses_what_it_lacks() -> None:
    """Each game draws from a stream of its own, so 1 and 2 threads choose alike; a second round,
    evidence and the network's playouts belong to the reference player and are refused."""
    rules = make_rules("sniff", 2)
    moves = []
    for threads in (1, 2):
        engine = VectorEngine(rules, 8, threads=1)
        engine.deal(np.arange(8), True, np.arange(8))
        moves.append(load_compiled("guided:samples=16,seed=3", engine, threads=threads)(np.arange(8)).tolist())
    assert moves[0] == moves[1]
    engine = VectorEngine(rules, 1, threads=1)
    for option in ("top=2,extra=8", "infer=0.5", "playouts=policy"):
        with pytest.raises(ValueError, match=f"the compiled guided player takes agent.*got {option.split(',')[0]}"):
            load_compiled(f"guided:samples=16,{option}", engine)
