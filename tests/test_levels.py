"""The difficulty ladder of ``sniff play`` and ``sniff serve``: who each level seats for the
rules at hand, the default, the refusals, and the expert shared by a server's games without
sharing their searches."""

from __future__ import annotations

import argparse
import random
from typing import Any

import pytest

from sniff_env.errors import SniffError
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.play.levels import (
    DEFAULT_LEVEL,
    EXPERT_SAMPLES,
    EXPERT_WORK,
    LEVELS,
    SEARCH_ALONE,
    level_opponent,
)
from sniff_env.play.session import AgentCache, chosen_opponents, load_agent
from sniff_env.players.agents import default_opponent
from sniff_env.players.guided import GuidedPlayer
from sniff_env.presets import make_rules

SNIFF = make_rules("sniff", 2)


def test_the_ladder_runs_from_random_to_the_policy_with_search() -> None:
    assert list(LEVELS) == ["beginner", "easy", "medium", "strong", "expert"]
    specs = [level_opponent(level, SNIFF)[0] for level in LEVELS]
    agent = default_opponent(SNIFF)[0]
    assert agent != "heuristic", "a shipped agent plays 2-player sniff"
    assert specs == ["random", "greedy", "heuristic", agent,
                     f"guided:agent={agent},samples={EXPERT_SAMPLES},prior=0.3,value=win,work={EXPERT_WORK},name=expert"]
    assert DEFAULT_LEVEL == "expert" and chosen_opponents([], SNIFF)[0] == [specs[-1]]


def test_the_expert_values_points_where_no_odds_are_tabled_and_searches_alone_without_an_agent() -> None:
    three = make_rules("sniff", 3)
    spec, note = level_opponent("expert", three)
    assert spec == (f"guided:agent={default_opponent(three)[0]},samples={EXPERT_SAMPLES},prior=0.3,work={EXPERT_WORK},"
                    "name=expert")
    assert "thinks ahead before every move" in note and note.endswith(f"with a search of up to {EXPERT_SAMPLES} guesses)")
    untrained = make_rules("sniff", 2, max_pip=9)  # no shipped agent reads a double-nine set
    assert level_opponent("strong", untrained)[0] == "heuristic"
    spec, note = level_opponent("expert", untrained)
    assert spec == SEARCH_ALONE and "no trained agent fits sniff with 2 players)" in note


def test_an_unknown_level_is_refused_with_the_ladder() -> None:
    with pytest.raises(ValueError, match="there is no level 'grandmaster'; choose one of beginner, easy, medium"):
        level_opponent("grandmaster", SNIFF)
    with pytest.raises(SniffError, match="there is no level 'grandmaster'"):
        chosen_opponents([], SNIFF, "grandmaster")
    assert chosen_opponents(["greedy"], SNIFF, "expert") == (["greedy"], None), "a named opponent wins over the level"


def test_sniff_play_takes_a_level(capsys: pytest.CaptureFixture[str]) -> None:
    from sniff_env.cli.play import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--level", "easy"])
    assert chosen_opponents(args.opponent, SNIFF, args.level) == (
        ["greedy"], "Easy takes the most points it can, move by move (engine: greedy)")
    assert parser.parse_args([]).level is None  # the default level is chosen by chosen_opponents
    with pytest.raises(SystemExit):
        parser.parse_args(["--level", "grandmaster"])
    assert "invalid choice: 'grandmaster'" in capsys.readouterr().err


def test_a_servers_expert_games_share_the_network_not_the_search() -> None:
    cache = AgentCache()
    spec = level_opponent("expert", SNIFF)[0].replace(f"samples={EXPERT_SAMPLES}", "samples=8")
    one, _ = load_agent(spec, SNIFF, seed=1, cache=cache)
    assert one.name == "expert", "the table shows the level, not the spec"
    two, _ = load_agent(spec, SNIFF, seed=2, cache=cache)
    assert isinstance(one, GuidedPlayer) and isinstance(two, GuidedPlayer) and len(cache) == 1
    assert one._networks is two._networks, "one network for the server"
    game, rng = new_game(SNIFF, seed=4), random.Random(4)
    while game.phase not in (Phase.HAND_OVER, Phase.GAME_OVER) and len(game.legal_actions()) < 2:
        game.step(rng.choice(game.legal_actions()))
    state = info_state(game, game.turn)
    assert one.act(None, {"info_state": state}) in state.legal
    assert two.act(None, {"info_state": state}) in state.legal
    assert one._engines and two._engines and one._engines is not two._engines, "each game searches on its own engine"
    engine_one = next(iter(one._engines.values()))[0]
    assert all(engine_one is not searches[0] for searches in two._engines.values())


def test_a_searching_seat_starts_its_compile_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a seat searches and the cache lacks the search, its compile starts in a process of
    its own and the table does not wait; where no seat searches or the cache holds it, nothing starts."""
    from sniff_env.play import levels, warm
    from sniff_env.play.session import SeatPlayer
    from sniff_env.players import load

    started: list[list[str]] = []
    monkeypatch.setattr(warm, "Warming", lambda keys: started.append(keys) or "warming")
    plain = [SeatPlayer("You", "human"), SeatPlayer("heuristic", "heuristic", load("heuristic"))]
    searching = [*plain, SeatPlayer("rollouts", "rollouts:samples=4", load("rollouts:samples=4", seed=1))]
    monkeypatch.setattr(warm, "is_compiled", lambda group: pytest.fail("no seat searches: nothing to check"))
    assert levels.prepare_searches(plain) is None
    monkeypatch.setattr(warm, "is_compiled", lambda group: True)
    assert levels.prepare_searches(searching) is None and started == []
    monkeypatch.setattr(warm, "is_compiled", lambda group: False)
    assert levels.prepare_searches(searching) == "warming" and started == [["search"]]


def test_a_searching_agent_waits_for_its_compile_and_says_so() -> None:
    """The agent that searches waits for the background compile at its move, the table told what
    compiles; an agent that does not search never waits."""
    from sniff_env.play.session import Session
    from sniff_env.players import load

    class Compiling:
        def __init__(self) -> None:
            self.waits = 0

        def wait(self, report: Any) -> None:
            self.waits += 1
            report("compiling the compiled search, once: 3 s of about 40 s so far")

    told: list[str] = []
    plain = Session.start(SNIFF, ["heuristic"], human=1, seed=3)
    plain.warming, plain.on_wait = Compiling(), told.append  # type: ignore[assignment]
    plain.advance()
    assert plain.warming.waits == 0 and told == []  # type: ignore[union-attr]
    session = Session.start(SNIFF, ["rollouts:samples=2"], human=1, seed=3)
    session.seats[0].agent = load("heuristic")  # plays as quickly; the seat's spec still searches
    compiling = Compiling()
    session.warming, session.on_wait = compiling, told.append  # type: ignore[assignment]
    session.advance()
    assert compiling.waits == 1 and session.warming is None and told == [
        "compiling the compiled search, once: 3 s of about 40 s so far"]
    assert session.game.turn == 1  # the agent moved after its wait

