"""The generic check: every preset, player count, set size and partnership, many random games.

At every decision of every game: each tile lies in exactly one place, the count equals an
independent recomputation from the layout (RULES §4), scores move only by legal amounts, and
no seat other than the mover holds a pip it is known to lack. Every game ends.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from sniff_env import PRESET_NAMES, RulesError, make_rules, new_game
from sniff_env.actions import EAST, LEAD, NORTH, SOUTH, WEST
from sniff_env.game import Event, Game, Phase
from sniff_env.rules import Points, Rules, SniffKind
from sniff_env.scoring import scoring_table
from sniff_env.tiles import tile_set

STEPS_PER_HAND = 200  # a hand places or draws each of at most 91 tiles once


class LayoutModel:
    """The layout rebuilt from the placements alone, counting as RULES §4 says.

    Kept apart from ``game.py`` on purpose: it stores each arm's outermost tile and how it lies
    and derives the count from that, instead of updating end values incrementally.
    """

    def __init__(self, rules: Rules) -> None:
        self.ts = tile_set(rules.max_pip)
        self.kind = rules.sniff
        self.lead: int = -1
        self.lead_inline = False
        self.sniff: int = -1
        self.pip: dict[int, int] = {}
        """The pip each end offers."""
        self.outer: dict[int, str] = {}
        """How the outermost tile of each arm lies: plain, cross, inline, spinner, stubby."""

    def place(self, tile: int, slot: int, inline: bool) -> None:
        lo, hi = self.ts.tiles[tile]
        double = lo == hi
        if slot == LEAD:
            self.lead, self.lead_inline = tile, inline
            self.pip = {WEST: lo, EAST: hi}
            if double and self.kind is not SniffKind.NONE:
                self.sniff = tile
                self.pip[NORTH] = self.pip[SOUTH] = lo
            return
        pip = self.pip[slot]
        assert pip in (lo, hi), "a placement must match its end"
        if double and self.sniff < 0 and self.kind is not SniffKind.NONE:
            self.sniff = tile
            self.outer[slot] = self.kind.value
            self.pip[NORTH] = self.pip[SOUTH] = pip
        else:
            self.outer[slot] = ("inline" if inline else "cross") if double else "plain"
        self.pip[slot] = lo + hi - pip

    def count(self) -> int:
        lo, hi = self.ts.tiles[self.lead]
        if not self.outer:
            return lo + hi  # a lone lead: both halves, a double once
        total = 0
        for end in (WEST, EAST):
            pip = self.pip[end]
            way = self.outer.get(end)
            if way is None:  # the lead itself is this end
                if lo != hi:
                    way = "plain"
                elif self.sniff == self.lead:
                    way = self.kind.value
                else:
                    way = "inline" if self.lead_inline else "cross"
            total += _end_value(way, pip)
        if self.sniff >= 0:
            for end in (NORTH, SOUTH):
                way = self.outer.get(end)
                if way is None:
                    total += self.pip[end] if self.kind is SniffKind.SPINNER else 0
                else:
                    total += _end_value(way, self.pip[end])
        return total


def _end_value(way: str, pip: int) -> int:
    return {"plain": pip, "cross": 2 * pip, "inline": pip, "spinner": 0, "stubby": pip}[way]


def combos() -> Iterator[tuple[str, int, int, bool]]:
    """(preset, players, max_pip, partnership) for every combination that can be dealt."""
    for preset in PRESET_NAMES:
        for players in (2, 3, 4):
            for max_pip in (6, 9, 12):
                for partnership in (False, True) if players == 4 else (False,):
                    try:
                        make_rules(preset, players, max_pip=max_pip, partnership=partnership)
                    except RulesError:
                        continue
                    yield preset, players, max_pip, partnership


COMBOS = list(combos())


def combo_id(c: tuple[str, int, int, bool]) -> str:
    return f"{c[0]}-{c[1]}p-d{c[2]}{'-pairs' if c[3] else ''}"


def random_game(
    rules: Rules, seed: int, max_hands: int, check: bool = False, record: bool = True
) -> Game:
    """A game played to its end by a uniform random policy seeded with ``seed``."""
    game = new_game(rules, seed=seed, record=record, max_hands=max_hands)
    rng = random.Random(seed)
    model = LayoutModel(rules)
    steps = 0
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            model = LayoutModel(rules)
            continue
        acts = game.legal_actions()
        assert acts, "the seat to move always has a decision"
        action = acts[rng.randrange(len(acts))]
        if check:
            before = (list(game.scores), len(game.events), len(game.results))
        game.step(action)
        if check:
            tile, slot, inline = game.codec.decode(action)
            if tile >= 0:
                model.place(tile, slot, inline)
            check_step(game, model, *before, hand_over=game.phase is not Phase.PLAY)
        steps += 1
        assert steps <= STEPS_PER_HAND * max_hands, "the game must end"
    return game


def check_tiles(game: Game) -> None:
    """Every tile is in exactly one hand, the layout or the undrawn boneyard."""
    places = [*game.hands, *(1 << t for t, _, _ in game.plays), *(1 << t for t in game.boneyard[game.bone_pos :])]
    union = 0
    for mask in places:
        assert not union & mask, "a tile is in two places"
        union |= mask
    assert union == game.ts.all_mask, "a tile is missing"


def check_step(game: Game, model: LayoutModel, scores: list[int], n_events: int, n_results: int, hand_over: bool) -> None:
    rules = game.rules
    check_tiles(game)
    if game.plays and not hand_over:
        assert game.count == model.count()
    table = scoring_table(rules.scoring)
    div5 = rules.points is Points.COUNT_DIV5
    expected = [0] * rules.num_sides
    new_events: list[Event] = game.events[n_events:]
    for ev in new_events:
        if ev.kind == "play":
            assert ev.total == model.count()
            due = (ev.total // 5 if div5 else ev.total) if table[ev.total] else 0
            taken = sum(e.points for e in new_events if e.kind in ("play", "muggins"))
            assert taken == due, f"count {ev.total} must score {due}"
        if ev.kind in ("play", "muggins"):
            expected[rules.side_of(ev.player)] += ev.points
    if len(game.results) > n_results:
        for side, pts in enumerate(game.results[-1].side_points):
            expected[side] += pts
    assert [b + d for b, d in zip(scores, expected, strict=True)] == game.scores
    if game.phase is Phase.PLAY:
        for seat, hand in enumerate(game.hands):
            if seat == game.turn:
                continue  # a forced draw may have just brought the mover a matching tile
            for pip in range(rules.max_pip + 1):
                if game.lacking[seat] >> pip & 1:
                    assert not hand & game.ts.pip_mask[pip], f"seat {seat} holds a pip {pip} it lacks"


@pytest.mark.parametrize("combo", COMBOS, ids=combo_id)
def test_random_games_keep_every_invariant(combo: tuple[str, int, int, bool]) -> None:
    preset, players, max_pip, partnership = combo
    rules = make_rules(preset, players, max_pip=max_pip, partnership=partnership)
    for seed in range(25):
        game = random_game(rules, seed, max_hands=3, check=True)
        assert game.phase is Phase.GAME_OVER
        assert game.events[-1].kind == "game_end"
        decisions = [a for r in game.records for a, _ in r.actions]
        plays = sum(1 for e in game.events if e.kind == "play")
        assert len(decisions) == plays + decisions.count(game.codec.draw_action)


def test_every_preset_and_size_is_covered() -> None:
    assert {c[0] for c in COMBOS} == set(PRESET_NAMES)
    assert len(COMBOS) >= 9 * 3 * 2
