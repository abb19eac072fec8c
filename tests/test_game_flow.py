"""Scripted positions for the flow of a hand: leads, draws, passes, blocks, sniffs and claims."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conftest import action_for

from sniff_env import make_rules, new_game
from sniff_env.actions import EAST, NORTH, SOUTH, WEST
from sniff_env.game import Game, Phase
from sniff_env.rules import Rules
from sniff_env.tiles import tile_set

Tile = tuple[int, int]
TS = tile_set(6)


def deal(hands: Sequence[Sequence[Tile]], bone_head: Sequence[Tile] = (), leader: int = 0) -> dict[str, Any]:
    """A double-six deal: the hands, the boneyard starting with ``bone_head``, the rest in order."""
    used = {TS.index(t) for h in hands for t in h} | {TS.index(t) for t in bone_head}
    rest = [TS.tiles[t] for t in range(TS.size) if t not in used]
    return {"hands": [list(h) for h in hands], "boneyard": [*bone_head, *rest], "leader": leader}


def kinds(game: Game, since: int = 0) -> list[tuple[str, int]]:
    return [(e.kind, e.player) for e in game.events[since:]]


def slots(game: Game) -> set[int]:
    return {a % 5 for a in game.legal_actions() if a < game.codec.inline_base}


# --- who leads -------------------------------------------------------------------------
TWO_TILES = {"hand_size": 2, "draw": "none", "boneyard_reserve": 0}
BLOCKED = deal([[(6, 6), (1, 1)], [(0, 0), (2, 2)]])


def _play_blocked(rules: Rules) -> Game:
    game = new_game(rules, seed=4, deal=BLOCKED)
    game.step(action_for(game, (6, 6), None))
    assert kinds(game)[-4:-1] == [("play", 0), ("pass", 1), ("pass", 0)]
    assert game.phase is Phase.HAND_OVER and game.results[-1].ended_by == "blocked"
    game.start_hand()
    return game


def test_lots_first_hand_heaviest_leads() -> None:
    for seed in range(20):
        game = new_game(make_rules("sniff", 3), seed=seed)
        lots = game.deal.lots
        assert len(lots) == 3 and game.events[0].kind == "lots"
        assert game.leader == max(range(3), key=lambda s: (TS.pips[lots[s]], TS.tiles[lots[s]][1]))


def test_random_first_hand_lead() -> None:
    leaders = {new_game(make_rules("sniff-digital", 4), seed=s).leader for s in range(40)}
    assert leaders == {0, 1, 2, 3}
    assert new_game(make_rules("sniff-digital", 4), seed=1).deal.lots == ()


def test_highest_double_leads_and_must_lead_it() -> None:
    for seed in range(20):
        game = new_game(make_rules("muggins-digital", 3), seed=seed)
        best = max(
            (t for h in game.deal.hands for t in h),
            key=lambda t: (TS.is_double[t], TS.pips[t] if TS.is_double[t] else (TS.pips[t], TS.tiles[t][1])),
        )
        assert best in game.deal.hands[game.leader]
        assert game.legal_actions() == [best * 5 + 4]


def test_rotate_after_a_blocked_hand() -> None:
    game = _play_blocked(make_rules("sniff", 2, **TWO_TILES))
    assert game.leader == 1 and game.deal.lots == ()


def test_winner_rule_draws_lots_after_a_blocked_hand() -> None:
    game = _play_blocked(make_rules("sniff-us", 2, **TWO_TILES))
    lots = game.deal.lots
    assert len(lots) == 2 and game.leader == max((0, 1), key=lambda s: (TS.pips[lots[s]], TS.tiles[lots[s]][1]))


def test_winner_leads_after_a_domino() -> None:
    game = new_game(make_rules("sniff-us", 2, **TWO_TILES), seed=2, deal=deal([[(6, 6), (1, 1)], [(6, 5), (6, 4)]]))
    game.step(action_for(game, (6, 6), None))
    game.step(action_for(game, (6, 5), "west"))
    assert game.count == 5 + 6 + 6
    assert kinds(game)[-1] == ("pass", 0)
    game.step(action_for(game, (6, 4), "east"))
    result = game.results[-1]
    assert (result.ended_by, result.winner, result.pips) == ("domino", 1, (2, 0))
    assert result.side_points == (-0, 0) and game.scores == [0, 0]  # round5(2) = 0
    game.start_hand()
    assert game.leader == 1 and game.deal.lots == ()


def test_highest_double_leads_the_next_hand() -> None:
    game = _play_blocked(make_rules("muggins-digital", 2, **TWO_TILES))
    holder = max(range(2), key=lambda s: max((TS.is_double[t], TS.pips[t]) for t in game.deal.hands[s]))
    assert game.leader == holder
    assert len(game.legal_actions()) == 1


# --- drawing and passing ---------------------------------------------------------------
NO_SIX = deal(
    [[(6, 6), (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)], [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 2), (2, 3)]],
    bone_head=[(2, 4), (3, 3), (5, 6)],
)


def _lead_six(rules: Rules, spec: dict[str, Any] = NO_SIX) -> tuple[Game, int]:
    game = new_game(rules, seed=1, deal=spec)
    n = len(game.events)
    game.step(action_for(game, (6, 6), None))
    return game, n + 1


def test_until_playable_draws_until_a_tile_plays() -> None:
    game, n = _lead_six(make_rules("sniff-us", 2))
    assert kinds(game, n) == [("draw", 1)] * 3
    assert [e.tile for e in game.events[n:]] == [TS.index(t) for t in ((2, 4), (3, 3), (5, 6))]
    assert game.turn == 1 and game.bone_pos == 3
    five_six = TS.index((5, 6))
    assert game.legal_actions() == [five_six * 5 + s for s in (WEST, EAST, NORTH, SOUTH)]
    assert all(e.tile == -1 for e in game.public_events(0)[n:])
    assert [e.tile for e in game.public_events(1)[n:]] == [e.tile for e in game.events[n:]]
    assert game.lacking[1] == 1 << 6


def test_max_two_then_pass() -> None:
    game, n = _lead_six(make_rules("sniff", 2, boneyard_reserve=0))
    assert kinds(game, n)[:3] == [("draw", 1), ("draw", 1), ("pass", 1)]
    assert game.lacking[1] == 1 << 6
    assert kinds(game, n)[3:] == [("draw", 0)], "seat 0 has no 6 either, and draws the 5-6"
    assert game.turn == 0 and {a // 5 for a in game.legal_actions()} == {TS.index((5, 6))}


def test_no_drawing_passes_at_once() -> None:
    game, n = _lead_six(make_rules("muggins-sleepers", 2))
    assert kinds(game, n)[:2] == [("pass", 1), ("pass", 0)]
    assert game.bone_pos == 0 and game.results[-1].ended_by == "blocked"


def test_reserve_is_never_drawn() -> None:
    no_six = [t for t in TS.tiles if 6 not in t]
    p1 = no_six[:13]
    p0 = [(6, 6), *(t for t in TS.tiles if 6 in t and t not in ((6, 6), (5, 6))), *no_six[13:20]]
    spec = {"hands": [p0, p1], "boneyard": [(5, 6), no_six[20]], "leader": 0}
    rules = make_rules("sniff-us", 2, hand_size=13, boneyard_reserve=2)
    game, n = _lead_six(rules, spec)
    assert kinds(game, n) == [("pass", 1)]
    assert game.boneyard_size == 2 and game.drawable == 0


def test_voluntary_draw_only_where_allowed() -> None:
    spec = deal(
        [[(6, 6), (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)], [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 2), (2, 6)]],
        bone_head=[(2, 4), (3, 3), (5, 6)],
    )
    quiet, _ = _lead_six(make_rules("sniff-us", 2), spec)
    assert quiet.codec.draw_action not in quiet.legal_actions()
    lead_only = new_game(make_rules("sniff-digital", 2), seed=1, deal=spec)
    assert lead_only.codec.draw_action not in lead_only.legal_actions(), "the lead is never replaced by a draw"
    game, n = _lead_six(make_rules("sniff-digital", 2), spec)
    draw = game.codec.draw_action
    assert game.legal_actions()[-1] == draw and kinds(game, n) == []
    game.step(draw)
    game.step(draw)
    assert game.lacking[1] == 0, "a voluntary draw reveals nothing"
    game.step(draw)
    tiles = {a // 5 for a in game.legal_actions() if a != draw}
    assert tiles == {TS.index((2, 6)), TS.index((5, 6))} and draw in game.legal_actions()

    strict, _ = _lead_six(make_rules("sniff-digital", 2, must_play_drawn=True), spec)
    for _ in range(3):
        strict.step(draw)
    assert {a // 5 for a in strict.legal_actions()} == {TS.index((5, 6))}, "the drawn tile must be played"


# --- the sniff and the end of a hand -----------------------------------------------------
SNIFF_LEAD = deal(
    [[(5, 5), (5, 3), (0, 0), (0, 1), (0, 2), (1, 1), (1, 2)], [(5, 4), (5, 1), (5, 6), (2, 2), (3, 3), (4, 4), (6, 6)]]
)


def test_stubby_sides_take_one_tile_each() -> None:
    game = new_game(make_rules("sniff-english", 2, draw="none"), seed=1, deal=SNIFF_LEAD)
    game.step(action_for(game, (5, 5), None))
    assert game.count == 10 and slots(game) == {WEST, EAST, NORTH, SOUTH}
    game.step(action_for(game, (5, 4), "north"))
    assert game.count == 5 + 5 + 4 and NORTH not in slots(game) | _slots_for(game, 0)
    game.step(action_for(game, (5, 3), "south"))
    assert game.count == 5 + 5 + 4 + 3
    assert not game.end_open[NORTH] and not game.end_open[SOUTH]
    game.step(action_for(game, (5, 1), "west"))
    assert game.count == 1 + 5 + 4 + 3, "the side tiles count for the rest of the hand"


def _slots_for(game: Game, seat: int) -> set[int]:
    """The ends ``seat`` could play on now, whoever is to move."""
    hand = game.hands[seat]
    return {e for e in range(4) if game.end_open[e] and hand & TS.pip_mask[game.end_pip[e]]}


def test_sides_open_after_both_ends() -> None:
    game = new_game(make_rules("sniff", 2, draw="none", sniff_sides_open="after_both_ends"), seed=1, deal=SNIFF_LEAD)
    game.step(action_for(game, (5, 5), None))
    assert slots(game) == {WEST, EAST} and game.count == 10
    game.step(action_for(game, (5, 4), "west"))
    assert _slots_for(game, 0) == {EAST}
    game.step(action_for(game, (5, 3), "east"))
    assert game.end_open[NORTH] and game.end_open[SOUTH]
    assert NORTH in slots(game) and game.count == 4 + 3 + 5 + 5


def test_muggins_claim_unclaimed_points_go_to_the_next_seat() -> None:
    rules = make_rules("sniff", 2, draw="none", muggins_claims=True)
    claimed = new_game(rules, seed=1, deal=SNIFF_LEAD)
    claimed.step(action_for(claimed, (5, 5), None))
    assert claimed.scores == [10, 0]
    game = new_game(rules, seed=1, deal=SNIFF_LEAD)
    game.step(action_for(game, (5, 5), None), claim=False)
    assert game.scores == [0, 10]
    assert [(e.kind, e.player, e.points) for e in game.events[-2:]] == [("play", 0, 0), ("muggins", 1, 10)]
    assert game.hand_actions == [(action_for(game, (5, 5), None), False)]


def test_win_during_hand_ends_the_game_mid_hand() -> None:
    game = new_game(make_rules("sniff-digital", 2, target=10), seed=1, deal=SNIFF_LEAD)
    game.step(action_for(game, (5, 5), None))
    assert game.phase is Phase.GAME_OVER and game.winner == 0 and game.scores == [10, 0]
    result = game.results[-1]
    assert result.ended_by == "target" and result.side_points == (0, 0)
    assert game.hands[0].bit_count() == 6, "the hand was not played out"
    assert kinds(game)[-2:] == [("hand_end", -1), ("game_end", 0)]


def test_partnership_scores_are_shared() -> None:
    rules = make_rules("sniff", 4, partnership=True, draw="none")
    hands = [
        [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)],
        [(1, 1), (1, 2), (1, 3), (1, 4), (2, 3)],
        [(0, 5), (6, 6), (6, 3), (6, 4), (6, 2)],
        [(2, 2), (3, 3), (4, 4), (2, 4), (3, 4)],
    ]
    game = new_game(rules, seed=1, deal=deal(hands))
    game.step(action_for(game, (0, 0), None))
    assert kinds(game)[-2:] == [("play", 0), ("pass", 1)] and game.turn == 2
    game.step(action_for(game, (0, 5), "west"))
    assert game.count == 5 and game.scores == [5, 0], "seat 2 scores for side 0"
    assert len(game.scores) == 2


def test_starting_a_hand_costs_the_same_however_long_the_game_has_run() -> None:
    """The hand's start kept for undo holds that hand's events only (a log of thousands of hands
    re-runs in time linear in its length), and undo gives back the whole history."""
    game = new_game(make_rules("sniff", 2, target=10**18, max_pip=3, hand_size=3, boneyard_reserve=0), seed=1)
    while True:
        if game.phase is not Phase.PLAY:
            game.start_hand()
        game.step(game.legal_actions()[0])
        if game.phase is Phase.PLAY and game.hand_index >= 20:
            break
        while game.phase is Phase.PLAY:
            game.step(game.legal_actions()[0])
    assert game.hand_start is not None
    assert len(game.hand_start.events) <= 2 and not game.hand_start.results and not game.hand_start.records
    history, results, records = list(game.events), list(game.results), list(game.records)
    game.undo()  # back to the deal of hand 21, every earlier hand's events kept
    assert game.events == history[:len(game.events)] and len(game.events) > 20 * 3
    assert game.events[-1].kind == "deal" and (game.results, game.records) == (results, records)
