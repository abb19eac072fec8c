"""Property-based tests: the count against an independent layout model, and scripted deals."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_invariants import LayoutModel

from sniff_env import PRESET_NAMES, DealError, make_rules, new_game
from sniff_env.game import Phase
from sniff_env.rules import Rules
from sniff_env.tiles import tile_set

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def any_rules(draw: st.DrawFn) -> Rules:
    """A preset with the layout knobs and the set size drawn freely."""
    players = draw(st.sampled_from((2, 3, 4)))
    return make_rules(
        draw(st.sampled_from(PRESET_NAMES)),
        players,
        max_pip=draw(st.sampled_from((9, 12) if players == 4 else (6, 9, 12))),
        sniff=draw(st.sampled_from(("spinner", "stubby", "none"))),
        sniff_sides_open=draw(st.sampled_from(("immediately", "after_both_ends"))),
        double_placement=draw(st.sampled_from(("crosswise", "choice"))),
        hand_size=draw(st.integers(5, 7)),
        boneyard_reserve=0,
    )


@FAST
@given(rules=any_rules(), seed=st.integers(0, 2**32), picks=st.lists(st.integers(0, 1000), max_size=60))
def test_count_equals_layout_recomputation(rules: Rules, seed: int, picks: list[int]) -> None:
    game = new_game(rules, seed=seed)
    model = LayoutModel(rules)
    for pick in picks:
        if game.phase is not Phase.PLAY:
            break
        acts = game.legal_actions()
        action = acts[pick % len(acts)]
        game.step(action)
        tile, slot, inline = game.codec.decode(action)
        if tile >= 0:
            model.place(tile, slot, inline)
            if game.phase is Phase.PLAY:
                assert game.count == model.count()
            play = [e for e in game.events if e.kind == "play"][-1]
            assert play.total == model.count()


@st.composite
def valid_deal(draw: st.DrawFn) -> tuple[Rules, dict[str, Any]]:
    """Rules and a scripted deal (pip pairs) built from a random permutation of the set."""
    players = draw(st.sampled_from((2, 3, 4)))
    rules = make_rules(draw(st.sampled_from(PRESET_NAMES)), players, max_pip=draw(st.sampled_from((6, 9))), hand_size=5)
    ts = tile_set(rules.max_pip)
    perm = draw(st.permutations(range(ts.size)))
    pairs = [list(ts.tiles[t]) if draw(st.booleans()) else list(reversed(ts.tiles[t])) for t in perm]
    k = 5
    hands = [pairs[i * k : (i + 1) * k] for i in range(players)]
    deal = {"hands": hands, "boneyard": pairs[players * k :], "leader": draw(st.integers(0, players - 1))}
    return rules, deal


@FAST
@given(case=valid_deal())
def test_valid_scripted_deal_is_reproduced_exactly(case: tuple[Rules, dict[str, Any]]) -> None:
    rules, spec = case
    game = new_game(rules, seed=1, deal=spec)
    ts = game.ts
    assert game.leader == spec["leader"] == game.turn
    assert [sorted(ts.index(t) for t in h) for h in spec["hands"]] == [list(h) for h in game.deal.hands]
    assert [ts.index(t) for t in spec["boneyard"]] == list(game.boneyard)
    assert game.hands == [sum(1 << ts.index(t) for t in h) for h in spec["hands"]]
    again = new_game(rules, seed=2, deal=game.deal.to_json(ts))
    assert again.deal.hands == game.deal.hands and again.boneyard == game.boneyard


MALFORMED = ("duplicate", "not_in_set", "short_hand", "long_hand", "hand_count", "leader", "boneyard_missing")


@FAST
@given(case=valid_deal(), how=st.sampled_from(MALFORMED), where=st.integers(0, 100))
def test_malformed_scripted_deal_is_refused(case: tuple[Rules, dict[str, Any]], how: str, where: int) -> None:
    rules, spec = case
    hands = [list(h) for h in spec["hands"]]
    bone = list(spec["boneyard"])
    seat = where % len(hands)
    leader = spec["leader"]
    if how == "duplicate":
        hands[seat][where % 5] = list(hands[(seat + 1) % len(hands)][0])
        words = ["appears twice"]
    elif how == "not_in_set":
        hands[seat][where % 5] = [0, rules.max_pip + 1 + where % 3]
        words = [f"hand {seat}", "not in the double"]
    elif how == "short_hand":
        bone.append(hands[seat].pop())
        words = [f"hand {seat} has 4 tiles", "deal 5"]
    elif how == "long_hand":
        hands[seat].append(bone.pop())
        words = [f"hand {seat} has 6 tiles", "deal 5"]
    elif how == "hand_count":
        bone.extend(hands.pop())
        words = [f"has {len(hands)} hands", f"{rules.num_players} players"]
    elif how == "leader":
        leader = rules.num_players + where % 3 if where % 2 else -1 - where % 3
        words = ["leader must be a seat", f"0..{rules.num_players - 1}"]
    else:
        missing = bone.pop(where % len(bone))
        words = ["boneyard must hold every tile", f"{min(missing)}-{max(missing)}"]
    with pytest.raises(DealError) as info:
        new_game(rules, seed=1, deal={"hands": hands, "boneyard": bone, "leader": leader})
    for word in words:
        assert word in str(info.value)
