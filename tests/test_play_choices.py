"""Who plays, and what a game's points add up to: the shipped agent plays muggins claims (a claim
changes none of its moves), a loaded network serves every rule set it can play, and the score
sheet's running total is the game's score."""

from __future__ import annotations

import dataclasses
import random

from sniff_env.game import Phase, new_game
from sniff_env.play.session import AgentCache, Session
from sniff_env.play.sheet import hand_end_note, score_sheet
from sniff_env.players.agents import default_opponent, shipped_agents
from sniff_env.players.compat import FieldKind, compare_rules
from sniff_env.presets import make_rules


def test_muggins_claims_keep_the_shipped_agent() -> None:
    plain = make_rules("sniff", 2)
    claims = dataclasses.replace(plain, muggins_claims=True)
    fit = compare_rules(plain, claims)
    assert fit.ok and [(d.field, d.kind) for d in fit.readable] == [("muggins_claims", FieldKind.MOOT)]
    assert "a claim changes none of its moves" in (fit.notice("sniff-2p") or "")
    if not shipped_agents():
        return
    assert default_opponent(claims)[0] == default_opponent(plain)[0] != "heuristic"
    spec, note = default_opponent(make_rules("muggins", 4, muggins_claims=True))
    assert spec == "generalist-4p" and "no shipped agent" not in note
    session = Session.start(claims, [], seed=3)
    assert session.seats[1].spec == default_opponent(plain)[0]
    assert not compare_rules(plain, dataclasses.replace(claims, scoring="threes")).ok, "other rules still refuse"


def test_a_network_is_loaded_once_for_every_rule_set_it_plays() -> None:
    if "sniff-2p" not in shipped_agents():
        return
    cache = AgentCache()
    one = cache.load("sniff-2p", make_rules("sniff", 2), 1)
    other = cache.load("sniff-2p", make_rules("sniff", 2, target=50, muggins_claims=True), 2)
    assert one.network is other.network and other.rules.target == 50  # type: ignore[attr-defined]


def test_the_score_sheet_adds_up_to_the_scores() -> None:
    for preset, players, extra in [("sniff", 2, {}), ("muggins", 4, {"muggins_claims": True}),
                                   ("sniff-digital", 2, {}), ("sniff", 4, {"partnership": True})]:
        game = new_game(make_rules(preset, players, **extra), seed=3)
        rng = random.Random(3)
        while game.phase is not Phase.GAME_OVER and game.hand_index < 6:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
            else:
                game.step(rng.choice(game.legal_actions()), claim=rng.random() < 0.5)
        sheet = score_sheet(game)
        assert list(sheet[-1].total) == list(game.scores), preset
        assert len(sheet) == game.hand_index + 1
        for before, row in zip([(0,) * len(game.scores), *[r.total for r in sheet]], sheet):
            assert [b + g for b, g in zip(before, row.gained)] == list(row.total)
    assert "one point for every 5 pips" in (hand_end_note(make_rules("sniff", 2)) or "")
    assert hand_end_note(make_rules("sniff-digital", 2)) is None
