"""The search's exact endgame (``solve``): on each deal it is the minimax of the reference engine,
repeated deals are looked up not solved again, it reads the seat's information only, and bad
values are refused."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sniff_env.game import Game, Phase, new_game
from sniff_env.infostate import determinize as deal_again
from sniff_env.infostate import info_state
from sniff_env.players import load
from sniff_env.players.compiled.rollouts import SOLVE_MOST, RolloutSearch, determinize, workspace
from sniff_env.players.rollouts import RolloutPlayer
from sniff_env.presets import make_rules
from sniff_env.rules import Rules
from sniff_env.vector import kernels as K
from sniff_env.vector.engine import VectorEngine

CASES = [("sniff", 2, {}), ("muggins", 4, {"partnership": True}), ("sniff-digital", 2, {})]


def tiles_left(game: Game) -> int:
    """The tiles in every hand and those still to be drawn."""
    return sum(h.bit_count() for h in game.hands) + max(0, game.drawable)


def late_positions(rules: Rules, seed: int, count: int, most: int, no_draws: bool = False) -> list[tuple[VectorEngine, Game]]:
    """Up to ``count`` positions with a choice and at most ``most`` tiles still to play (none to
    draw with ``no_draws``), reached by random play, in a one-game engine and the reference engine alike."""
    rng = random.Random(seed)
    out = []
    for k in range(count * 4):
        g = new_game(rules, seed=seed + k, record=False)
        eng = VectorEngine(rules, 1, threads=1)
        eng.deal(np.arange(1), True, [seed + k])
        while g.phase is Phase.PLAY and not (tiles_left(g) <= most and len(g.legal_actions()) > 1
                                             and (g.drawable <= 0 or not no_draws)):
            a = rng.choice(g.legal_actions())
            g.step(a)
            eng.step(np.array([a]))
        if g.phase is Phase.PLAY:
            out.append((eng, g))
        if len(out) == count:
            break
    return out


def minimax(game: Game, side: int, before: list[int]) -> float:
    """What ``side`` gains to the end of the hand less the other side's, every seat seeing every
    tile and playing its best (plain minimax on the reference engine)."""
    if game.phase is not Phase.PLAY:
        gains = [game.scores[s] - before[s] for s in range(2)]
        return float(gains[side] - gains[1 - side])
    values = []
    for a in game.legal_actions():
        child = game.copy()
        child.step(a)
        values.append(minimax(child, side, before))
    return max(values) if game.rules.side_of(game.turn) == side else min(values)


def on_deal(game: Game, hands: list[int], bone: list[int]) -> Game:
    """``game`` with its unseen tiles dealt as ``hands`` and ``bone`` (from the draw position on)."""
    d = game.copy()
    d.hands = list(hands)
    d.boneyard = tuple(d.boneyard[: d.bone_pos]) + tuple(bone)
    d._legal = None
    return d


@pytest.mark.parametrize("preset,players,extra", CASES, ids=[f"{p}-{n}p" for p, n, _ in CASES])
def test_one_solved_deal_is_the_minimax_of_the_reference_engine(preset: str, players: int,
                                                               extra: dict[str, bool]) -> None:
    """With one sample and ``solve`` at or above the tiles still to play, each move's value is
    the reference engine's minimax of that move on the sampled deal (the search's deal, re-made
    from its seed); below the tiles still to play, the hand is played out as before."""
    rules = make_rules(preset, players, **extra)
    checked = 0
    for eng, g in late_positions(rules, 70, 6, most=8):
        t = eng.tables
        search = RolloutSearch(eng, samples=1, seed=9, solve=8)
        work = workspace(eng)
        rng = search._rng.copy()
        determinize(eng.S, eng.hands, eng.play_record, t.params, t.lo, t.hi, 0, rng, work[0], work[1], work[10],
                    work[11])
        values = search.values(0)
        hands = [sum(1 << int(x) for x in np.flatnonzero(work[0][0, s])) for s in range(players)]
        bone = [int(x) for x in work[1][0, eng.S[0, K.BONE_POS]: eng.S[0, K.BONE_LEN]]]
        side, before = rules.side_of(g.turn), list(g.scores)
        for a, v in values.items():
            d = on_deal(g, hands, bone)
            d.step(a)
            assert v == pytest.approx(minimax(d, side, before)), (a, values)
            checked += 1
        unsolved = RolloutSearch(eng, samples=1, seed=9, solve=tiles_left(g) - 1).values(0)
        assert unsolved == RolloutSearch(eng, samples=1, seed=9).values(0)
    assert checked > 5


def test_a_deal_sampled_again_is_worth_what_it_was() -> None:
    """Late in a 2-player hand with nothing left to draw, few deals are possible; over 40
    samples, each move is worth the mean of its minimax over the deals the search drew (it looks
    repeated deals up rather than solving them again, and gets the same figures)."""
    rules = make_rules("sniff", 2)
    checked = 0
    for eng, g in late_positions(rules, 300, 8, most=8, no_draws=True):
        deals = RolloutSearch(eng, samples=40, seed=3, solve=8).deals(0, 40)
        values = RolloutSearch(eng, samples=40, seed=3, solve=8).values(0)
        distinct = {deal.tobytes() for deal in deals}
        assert len(distinct) < len(deals)
        side, before = rules.side_of(g.turn), list(g.scores)
        T = eng.tables.num_tiles
        unseen = set(range(T)) - set(np.flatnonzero(eng.hands[0, g.turn]).tolist()) - {t for t, _, _ in g.plays}
        for a, v in values.items():
            total = 0.0
            for deal in deals:
                hands = [sum(1 << int(x) for x in np.flatnonzero(deal[s])) for s in range(2)]
                reserve = sorted(unseen - set(np.flatnonzero(deal[1 - g.turn]).tolist()))  # never drawn: no order
                d = on_deal(g, hands, reserve)
                d.step(a)
                total += minimax(d, side, before)
            assert v == pytest.approx(total / len(deals)), a
            checked += 1
    assert checked > 3


def test_the_solved_choice_ignores_hidden_tiles() -> None:
    """Two games with the same public history and own hand but other hidden tiles: the same
    choice, late in the hand where the search solves."""
    rules = make_rules("sniff", 2)
    compared = 0
    for _eng, g in late_positions(rules, 500, 8, most=10):
        state = info_state(g, g.turn)
        twin = deal_again(state, random.Random(compared))
        if twin.hands == g.hands:
            continue
        twin_state = info_state(twin, g.turn)
        assert twin_state == state
        first = RolloutPlayer(seed=4, samples=16, solve=10).act({}, {"info_state": state})
        second = RolloutPlayer(seed=4, samples=16, solve=10).act({}, {"info_state": twin_state})
        assert first == second
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("solve", [-1, SOLVE_MOST + 1, True, 2.0, "4", None])
def test_a_bad_solve_is_refused(solve: object) -> None:
    eng = VectorEngine(make_rules("sniff", 2), 1, threads=1)
    with pytest.raises(ValueError, match=f"solve must be 0 .* up to {SOLVE_MOST}"):
        RolloutSearch(eng, samples=4, solve=solve)  # type: ignore[arg-type]


@pytest.mark.parametrize("spec", ["rollouts:samples=4,solve=-1", f"guided:samples=4,solve={SOLVE_MOST + 1}",
                                  "rollouts:solve=2.5", "guided:solve=all"])
def test_a_spec_with_a_bad_solve_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="solve"):
        load(spec)


def test_solving_needs_two_sides() -> None:
    eng = VectorEngine(make_rules("sniff", 3), 1, threads=1)
    with pytest.raises(ValueError, match="solve needs two sides .* these rules have 3 sides"):
        RolloutSearch(eng, samples=4, solve=8)
    assert RolloutSearch(eng, samples=4).solve == 0
    four = VectorEngine(make_rules("sniff", 4, partnership=True), 1, threads=1)
    assert RolloutSearch(four, samples=4, solve=8).solve == 8


@pytest.mark.parametrize("spec", ["rollouts:samples=8,solve=12", "guided:samples=8,solve=12,value=win"])
def test_specs_with_solve_play_a_game(spec: str) -> None:
    rules = make_rules("sniff", 2)
    game = new_game(rules, seed=21, record=False, max_hands=1)
    players = [load(spec, seed=s) for s in range(2)]
    while game.phase is Phase.PLAY:
        state = info_state(game, game.turn)
        action = players[game.turn].act({}, {"info_state": state})
        assert action in game.legal_actions()
        game.step(action)
    assert game.phase in (Phase.HAND_OVER, Phase.GAME_OVER)
