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
    assert "steering a search" in note
    untrained = make_rules("sniff", 2, max_pip=9)  # no shipped agent reads a double-nine set
    assert level_opponent("strong", untrained)[0] == "heuristic"
    spec, note = level_opponent("expert", untrained)
    assert spec == SEARCH_ALONE and "the search alone" in note


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
    assert chosen_opponents(args.opponent, SNIFF, args.level) == (["greedy"], "Easy: greedy plays")
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


def test_the_searching_players_are_readied_before_the_table_opens(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each searching spec seated chooses once, on a copy of its seated player (no second load of
    its network), and the seated players are left as they were."""
    from sniff_env.play.levels import compile_searches
    from sniff_env.play.session import SeatPlayer
    from sniff_env.players import load
    from sniff_env.players.rollouts import RolloutPlayer

    specs = ["random", "rollouts:samples=4", "heuristic", "rollouts:samples=4", "guided:agent=sniff-2p,samples=2"]
    seats = [SeatPlayer("You", "human"), *(SeatPlayer(spec, spec, load(spec, seed=1)) for spec in specs)]
    acted: list[tuple[str, int]] = []
    for cls in (RolloutPlayer, GuidedPlayer):
        real = cls.act

        def spying(self: Any, observation: Any, info: dict[str, Any], real: Any = real) -> int:
            acted.append((type(self).__name__, id(self)))
            return int(real(self, observation, info))

        monkeypatch.setattr(cls, "act", spying)
    monkeypatch.setattr("sniff_env.players.load", lambda *a, **k: pytest.fail("a seated player was loaded again"))
    compile_searches(seats, SNIFF)
    assert [name for name, _ in acted] == ["RolloutPlayer", "GuidedPlayer"], "each searching spec once, no other"
    seated = {id(seat.agent) for seat in seats}
    assert not seated & {who for _, who in acted}, "copies chose, not the seated players"
    assert all(not getattr(seat.agent, "_engines", {}) for seat in seats), "the seated players' searches untouched"
