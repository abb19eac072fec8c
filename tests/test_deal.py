"""Deals: random deals by seed, lots, the highest double, and scripted-deal input checks."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sniff_env import DealError, make_rules, new_game
from sniff_env.deal import draw_lots, forced_lead_tile, heavier_key, highest_double_holder
from sniff_env.tiles import tile_set

TS = tile_set(6)


def _idx(*pairs: tuple[int, int]) -> list[int]:
    return [TS.index(p) for p in pairs]


def test_heavier_key_breaks_pip_ties_by_the_higher_half() -> None:
    six_three, five_four = _idx((6, 3), (5, 4))
    assert heavier_key(TS, six_three) > heavier_key(TS, five_four)
    keys = [heavier_key(TS, t) for t in range(TS.size)]
    assert len(set(keys)) == TS.size, "lots never tie"


def test_draw_lots_heaviest_leads() -> None:
    for seed in range(50):
        leader, drawn = draw_lots(TS, 4, random.Random(seed))
        assert len(set(drawn)) == 4
        assert leader == max(range(4), key=lambda s: heavier_key(TS, drawn[s]))


def test_forced_lead_tile_and_holder() -> None:
    assert forced_lead_tile(TS, _idx((1, 1), (5, 5), (6, 4))) == TS.index((5, 5))
    assert forced_lead_tile(TS, _idx((1, 2), (6, 3), (5, 4))) == TS.index((6, 3))
    hands = [_idx((6, 5), (6, 4)), _idx((0, 0), (1, 2)), _idx((3, 3), (6, 6))]
    assert highest_double_holder(TS, hands) == 2
    assert highest_double_holder(TS, [_idx((5, 4)), _idx((6, 3))]) == 1


@pytest.mark.parametrize("preset", ["sniff", "muggins-digital", "sniff-digital"])
def test_random_deals_depend_on_seed_and_hand_only(preset: str) -> None:
    rules = make_rules(preset, 3)
    a, b, c = (new_game(rules, seed=s) for s in (9, 9, 10))
    assert a.deal == b.deal and a.deal != c.deal
    sizes = [len(h) for h in a.deal.hands]
    assert sizes == [rules.hand_size] * 3 and sum(sizes) + len(a.deal.boneyard) == TS.size
    assert sorted([*(t for h in a.deal.hands for t in h), *a.deal.boneyard]) == list(range(TS.size))


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ([[(0, 0)]], ["a deal is a mapping"]),
        ({"hands": [], "dealer": 0}, ["unknown deal key", "dealer"]),
        ({"boneyard": []}, ["needs 'hands'"]),
        ({"hands": "abc"}, ["hands must be a list"]),
        ({"hands": [["x"] * 7, [(0, 0)] * 7]}, ["hand 0", "a tile is a pair of pips"]),
        ({"hands": [[(0, 0)] * 7, [(1, 1)] * 7]}, ["tile 0-0 appears twice"]),
        ({"hands": [[(0, i) for i in range(7)], [(1, i) for i in range(1, 8)]]}, ["hand 1", "not in the double-6"]),
        ({"hands": [[(0, i) for i in range(7)], [(1, i) for i in range(1, 7)] + [(2, 2)]], "leader": True},
         ["leader must be a seat 0..1"]),
    ],
)
def test_bad_scripted_deals(spec: Any, words: list[str]) -> None:
    with pytest.raises(DealError) as info:
        new_game(make_rules("sniff", 2), seed=0, deal=spec)
    for word in words:
        assert word in str(info.value)


def test_scripted_deal_without_boneyard_or_leader_uses_the_rules() -> None:
    rules = make_rules("muggins-digital", 2)
    hands = [[(0, i) for i in range(7)], [(1, i) for i in range(1, 7)] + [(2, 2)]]
    game = new_game(rules, seed=0, deal={"hands": hands})
    assert game.leader == 1, "the holder of the highest double (2-2) leads"
    assert game.legal_actions() == [TS.index((2, 2)) * 5 + 4], "and must lead it"
    assert len(game.boneyard) == TS.size - 14
