"""The compiled rollout search: its playouts are the reference engine's, its deals respect what
the seat knows, and it never reads the hidden tiles."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sniff_env.game import Game, Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.players.compiled.rollouts import HindsightValues, RolloutSearch, determinize, workspace
from sniff_env.players.heuristic import HeuristicPlayer
from sniff_env.presets import make_rules
from sniff_env.rules import Rules
from sniff_env.tiles import mask_tiles
from sniff_env.vector import kernels as K
from sniff_env.vector.engine import VectorEngine

CASES = [("sniff", 2, {}), ("sniff", 3, {}), ("muggins", 4, {"partnership": True}), ("sniff-digital", 2, {})]


def positions(rules: Rules, seed: int, count: int) -> list[tuple[VectorEngine, Game]]:
    """``count`` mid-hand positions, each in a one-game engine and the reference engine alike."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        g = new_game(rules, seed=seed + k, record=False)
        eng = VectorEngine(rules, 1, threads=1)
        eng.deal(np.arange(1), True, [seed + k])
        for _ in range(rng.randrange(0, 9)):
            a = rng.choice(g.legal_actions())
            g.step(a)
            eng.step(np.array([a]))
            if g.phase is not Phase.PLAY:
                break
        if g.phase is Phase.PLAY and len(g.legal_actions()) > 1:
            out.append((eng, g))
    return out


def playout_margin(game: Game, action: int, side: int, heuristic: HeuristicPlayer) -> float:
    """On the reference engine: ``action`` played in ``game`` and the hand played out by the
    heuristic; what ``side`` gained less the mean of what the other sides gained."""
    before = list(game.scores)
    game.step(action)
    while game.phase is Phase.PLAY:
        game.step(heuristic.act(None, {"info_state": info_state(game, game.turn)}))
    gains = [game.scores[s] - before[s] for s in range(game.rules.num_sides)]
    others = [x for s, x in enumerate(gains) if s != side]
    return gains[side] - sum(others) / len(others)


@pytest.mark.parametrize("preset,players,extra", CASES, ids=[f"{p}-{n}p" for p, n, _ in CASES])
def test_one_sample_is_the_reference_playout_of_its_deal(preset: str, players: int, extra: dict[str, bool]) -> None:
    """With one sample, each move's value is the margin the reference engine gives when that
    move is played on the sampled deal and the heuristic plays out the hand."""
    rules = make_rules(preset, players, **extra)
    heuristic = HeuristicPlayer()
    checked = 0
    for eng, g in positions(rules, 40, 6):
        t = eng.tables
        search = RolloutSearch(eng, samples=1, seed=7)
        work = workspace(eng)
        DH, DB, pool, taken = work[0], work[1], work[10], work[11]
        rng = search._rng.copy()
        determinize(eng.S, eng.hands, eng.play_record, t.params, t.lo, t.hi, 0, rng, DH, DB, pool, taken)
        values = search.values(0)
        hands = [sum(1 << int(x) for x in np.flatnonzero(DH[0, s])) for s in range(players)]
        bone = [int(x) for x in DB[0, eng.S[0, K.BONE_POS] : eng.S[0, K.BONE_LEN]]]
        assert hands[g.turn] == g.hands[g.turn]
        played = {tile for tile, _, _ in g.plays}
        assert sorted(mask_tiles(sum(hands)) + bone) == sorted(set(range(t.num_tiles)) - played)
        me = rules.side_of(g.turn)
        for a, v in values.items():
            d = g.copy()
            d.hands = list(hands)
            d.boneyard = tuple(d.boneyard[: d.bone_pos]) + tuple(bone)
            d._legal = None
            assert v == pytest.approx(playout_margin(d, a, me, heuristic)), (a, values)
            checked += 1
    assert checked > 5


@pytest.mark.parametrize("preset,players,extra", CASES, ids=[f"{p}-{n}p" for p, n, _ in CASES])
def test_hindsight_values_are_the_reference_playouts_of_the_real_deal(
    preset: str, players: int, extra: dict[str, bool]
) -> None:
    """Each legal move's hindsight value is the margin the reference engine gives when that move
    is played on the real game and the heuristic plays out the hand; illegal moves get -inf, and
    the engine's games are left as they were."""
    rules = make_rules(preset, players, **extra)
    heuristic = HeuristicPlayer()
    checked = 0
    for eng, g in positions(rules, 140, 6):
        before_state = (eng.S.copy(), eng.hands.copy(), eng.bone.copy(), eng.play_record.copy())
        q = HindsightValues(eng).q_values(np.zeros(1, np.int64))[0]
        for a, b in zip(before_state, (eng.S, eng.hands, eng.bone, eng.play_record), strict=True):
            assert np.array_equal(a, b)
        legal = set(g.legal_actions())
        assert {int(a) for a in np.flatnonzero(np.isfinite(q))} == legal
        me = rules.side_of(g.turn)
        for a in legal:
            assert q[a] == pytest.approx(playout_margin(g.copy(), a, me, heuristic)), a
            checked += 1
    assert checked > 5


def test_shuffled_hindsight_sees_the_hands_but_not_the_order_of_the_draws() -> None:
    """With boneyard shuffles, a move's value is blind to the real order of the tiles still to
    draw (the same values with that order reversed), yet it reads the real hands (other values
    once another seat's hand is swapped with the boneyard); the engine's games are untouched."""
    rules = make_rules("sniff", 2)
    moved = swapped = 0
    for eng, g in positions(rules, 300, 12):
        first, end = int(eng.S[0, K.BONE_POS]), int(eng.S[0, K.BONE_LEN])
        kept = (eng.S.copy(), eng.hands.copy(), eng.bone.copy(), eng.play_record.copy())
        q = HindsightValues(eng, shuffles=16, seed=3).q_values(np.zeros(1, np.int64))[0]
        for a, b in zip(kept, (eng.S, eng.hands, eng.bone, eng.play_record), strict=True):
            assert np.array_equal(a, b)
        assert {int(a) for a in np.flatnonzero(np.isfinite(q))} == set(g.legal_actions())
        eng.bone[0, first:end] = eng.bone[0, first:end][::-1].copy()
        assert np.array_equal(q, HindsightValues(eng, shuffles=16, seed=3).q_values(np.zeros(1, np.int64))[0])
        moved += end - first > 1
        other = 1 - int(eng.S[0, K.TURN])
        theirs, pile = np.flatnonzero(eng.hands[0, other]), eng.bone[0, first:end].copy()
        if len(pile) >= len(theirs):
            eng.hands[0, other] = 0
            eng.hands[0, other, pile[: len(theirs)]] = 1
            eng.bone[0, first : first + len(theirs)] = theirs
            swapped += not np.array_equal(q, HindsightValues(eng, shuffles=16, seed=3).q_values(np.zeros(1, np.int64))[0])
    assert moved > 5 and swapped > 3


@pytest.mark.parametrize("shuffles", [-1, 1.5, True, "4"])
def test_hindsight_refuses_a_bad_number_of_shuffles(shuffles: object) -> None:
    eng = VectorEngine(make_rules("sniff", 2), 1, threads=1)
    with pytest.raises(ValueError, match="shuffles must be a whole number"):
        HindsightValues(eng, shuffles=shuffles)  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [2, 3])
def test_deals_keep_sizes_and_known_missing_pips(players: int) -> None:
    """Every deal gives each seat its known number of tiles (the seat to act its own), deals
    every unseen tile once, and (two players) never gives the opponent a pip it is known to lack
    while enough unseen tiles lack it."""
    rules = make_rules("sniff", players)
    constrained = 0
    for eng, g in positions(rules, 60, 16):
        t = eng.tables
        work = workspace(eng)
        rng = np.array([123], np.uint64)
        info = info_state(g, g.turn)
        unseen = set(mask_tiles(info.unseen_mask))
        for _ in range(10):
            determinize(eng.S, eng.hands, eng.play_record, t.params, t.lo, t.hi, 0, rng, work[0], work[1], work[10],
                        work[11])
            dealt = [set(np.flatnonzero(work[0][0, s]).tolist()) for s in range(players)]
            assert [len(h) for h in dealt] == list(info.hand_sizes)
            assert dealt[g.turn] == set(mask_tiles(info.hand))
            bone = work[1][0, eng.S[0, K.BONE_POS] : eng.S[0, K.BONE_LEN]].tolist()
            others = [x for s in range(players) if s != g.turn for x in dealt[s]]
            assert sorted(others + bone) == sorted(unseen)
            if players == 2:
                opp = 1 - g.turn
                fits = [x for x in unseen if not (info.lacking[opp] >> t.lo[x] & 1 or info.lacking[opp] >> t.hi[x] & 1)]
                if info.lacking[opp] and len(fits) >= info.hand_sizes[opp]:
                    assert dealt[opp] <= set(fits)
                    constrained += 1
    if players == 2:
        assert constrained > 0


def swap_hidden_tile(eng: VectorEngine) -> bool:
    """In game 0 of a 2-player ``eng``, swap a tile of the opponent of the seat to act with a
    boneyard tile it may hold (none of the pips it is known to lack): the hidden tiles change,
    what the seat knows does not. False where no such swap exists."""
    opp = 1 - int(eng.S[0, K.TURN])
    lack, t = int(eng.S[0, K.LACKING + opp]), eng.tables
    held = [int(x) for x in np.flatnonzero(eng.hands[0, opp])]
    lo, hi = int(eng.S[0, K.BONE_POS]), int(eng.S[0, K.BONE_LEN])
    ok = [i for i in range(lo, hi) if not (lack >> t.lo[eng.bone[0, i]] & 1 or lack >> t.hi[eng.bone[0, i]] & 1)]
    if not held or not ok:
        return False
    i, x = ok[0], held[0]
    y = int(eng.bone[0, i])
    eng.hands[0, opp, x], eng.hands[0, opp, y] = 0, 1
    eng.bone[0, i] = x
    return True


def test_choice_ignores_the_hidden_tiles() -> None:
    """Swapping tiles between the opponent's hand and the boneyard (within what the seat knows)
    leaves the search's values, with the same seed, unchanged."""
    rules = make_rules("sniff", 2)
    swapped = 0
    for eng, g in positions(rules, 80, 10):
        seat, opp = int(eng.S[0, K.TURN]), 1 - int(eng.S[0, K.TURN])
        first = RolloutSearch(eng, samples=8, seed=3).values(0)
        if not swap_hidden_tile(eng):
            continue
        assert RolloutSearch(eng, samples=8, seed=3).values(0) == first
        assert seat != opp
        swapped += 1
    assert swapped > 3


@pytest.mark.parametrize("samples", [0, True, 2.5])
def test_samples_must_be_positive(samples: object) -> None:
    eng = VectorEngine(make_rules("sniff", 2), 1)
    with pytest.raises(ValueError, match="samples must be a positive whole number"):
        RolloutSearch(eng, samples=samples)  # type: ignore[arg-type]


@pytest.mark.parametrize("preset,players,extra", CASES, ids=[f"{p}-{n}p" for p, n, _ in CASES])
def test_player_from_the_information_state_searches_the_same_position(
    preset: str, players: int, extra: dict[str, bool]
) -> None:
    """The ``rollouts`` player, given only the seat's information state, finds the values the
    search finds on the real game's engine (same seed): the state it loads is the same position."""
    from sniff_env.players import load

    rules = make_rules(preset, players, **extra)
    compared = 0
    for eng, g in positions(rules, 90, 8):
        real = RolloutSearch(eng, samples=6, seed=11).values(0)
        player = load("rollouts:samples=6", seed=11)
        own, _ = player._engine(rules)
        own.load_info_state(info_state(g, g.turn))
        assert RolloutSearch(own, samples=6, seed=11).values(0) == real
        best = max(real.values())
        assert real[player.act({}, {"info_state": info_state(g, g.turn)})] == best
        compared += 1
    assert compared > 3


def test_q_values_rank_as_the_search_plays() -> None:
    rules = make_rules("sniff", 2)
    for eng, _ in positions(rules, 120, 6):
        games = np.zeros(1, np.int64)
        q = RolloutSearch(eng, samples=5, seed=2).q_values(games)
        chosen = RolloutSearch(eng, samples=5, seed=2).actions(games)
        legal = set(eng.legal[0, : eng.S[0, K.NLEGAL]].tolist())
        assert {int(a) for a in np.flatnonzero(np.isfinite(q[0]))} == legal
        assert int(np.argmax(q[0])) == int(chosen[0])


def margin_since(before: list[int], game: Game, side: int) -> float:
    """What ``side`` gained since the scores ``before`` less the mean of what the other sides gained."""
    gains = [game.scores[s] - before[s] for s in range(game.rules.num_sides)]
    others = [x for s, x in enumerate(gains) if s != side]
    return gains[side] - sum(others) / len(others)


@pytest.mark.parametrize("preset,players,extra", CASES, ids=[f"{p}-{n}p" for p, n, _ in CASES])
def test_depth_two_is_the_least_reply_on_its_deal(preset: str, players: int, extra: dict[str, bool]) -> None:
    """With ``depth=2`` and one sample, a move after which another side's seat has a choice is
    worth the least, over that seat's legal replies, of the reference playout of the reply on the
    sampled deal; any other move is worth its plain playout. On the same deals no move is worth
    more than at depth 1 (the heuristic's reply is one of the replies)."""
    rules = make_rules(preset, players, **extra)
    heuristic = HeuristicPlayer()
    branched = plain = 0
    for eng, g in positions(rules, 40, 8):
        t = eng.tables
        work = workspace(eng)
        search = RolloutSearch(eng, samples=1, seed=7, depth=2)
        rng = search._rng.copy()
        determinize(eng.S, eng.hands, eng.play_record, t.params, t.lo, t.hi, 0, rng, work[0], work[1], work[10],
                    work[11])
        values = search.values(0)
        shallow = RolloutSearch(eng, samples=1, seed=7).values(0)
        hands = [sum(1 << int(x) for x in np.flatnonzero(work[0][0, s])) for s in range(players)]
        bone = [int(x) for x in work[1][0, eng.S[0, K.BONE_POS] : eng.S[0, K.BONE_LEN]]]
        me, before = rules.side_of(g.turn), list(g.scores)
        for a, v in values.items():
            d = g.copy()
            d.hands = list(hands)
            d.boneyard = tuple(d.boneyard[: d.bone_pos]) + tuple(bone)
            d._legal = None
            d.step(a)
            if d.phase is Phase.PLAY and rules.side_of(d.turn) != me and len(d.legal_actions()) > 1:
                replies = []
                for r in d.legal_actions():
                    e = d.copy()
                    e.step(r)
                    while e.phase is Phase.PLAY:
                        e.step(heuristic.act(None, {"info_state": info_state(e, e.turn)}))
                    replies.append(margin_since(before, e, me))
                assert v == pytest.approx(min(replies)), (a, values)
                branched += 1
            else:
                while d.phase is Phase.PLAY:
                    d.step(heuristic.act(None, {"info_state": info_state(d, d.turn)}))
                assert v == pytest.approx(margin_since(before, d, me)), (a, values)
                plain += 1
            assert v <= shallow[a] + 1e-9
    assert branched > 5 and plain > 0


@pytest.mark.parametrize("depth", [0, 3, True, 2.0, "2", None])
def test_a_bad_depth_is_refused(depth: object) -> None:
    eng = VectorEngine(make_rules("sniff", 2), 1, threads=1)
    with pytest.raises(ValueError, match="depth must be one of 1, 2"):
        RolloutSearch(eng, samples=4, depth=depth)  # type: ignore[arg-type]


@pytest.mark.parametrize("spec", ["rollouts:samples=6,depth=2", "guided:samples=4,depth=2,value=win"])
def test_depth_two_choices_ignore_hidden_tiles(spec: str) -> None:
    from test_win_odds import assert_choices_ignore_hidden_tiles

    assert_choices_ignore_hidden_tiles(spec, 41)


@pytest.mark.parametrize("spec", ["rollouts:depth=3", "guided:depth=0"])
def test_a_bad_depth_in_a_spec_is_refused(spec: str) -> None:
    from sniff_env.players import load
    from sniff_env.players.specs import PlayerSpecError

    with pytest.raises((PlayerSpecError, ValueError), match="depth must be one of 1, 2"):
        load(spec)
