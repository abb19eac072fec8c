"""The compiled rules: one ``step`` kernel and one ``deal`` kernel over a batch of games.

This is a line-by-line port of :class:`sniff_env.game.Game` (placements, draws, passes, hand
and game end) and of :meth:`sniff_env.observation.Observer.encode`, on flat arrays. The rule
tables (tiles, scoring, actions, observation layout) come from the reference modules through
:mod:`sniff_env.vector.tables`; the differential tests keep the two engines equal.

Per-game scalars live in one int64 matrix ``S[B, NS]`` whose columns are named below; every
rule parameter is a cell of ``P`` (see :mod:`sniff_env.vector.tables`), so one compiled kernel
serves every preset.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .pyrandom import KEY_WORDS, hand_key, mt_seed_group, randbelow, sample_range, shuffle_range

# -- per-game state columns -------------------------------------------------------------------
MAX_SEATS = 8
TURN, LEADER, COUNT, PASSES, DRAWN, LAST_DRAWN, SNIFF_TILE, SNIFF_PENDING = range(8)
BONE_POS, BONE_LEN, NPLAYS, HAND_INDEX, PHASE, FORCED_LEAD, LAST_DOMINO, WINNER = range(8, 16)
STATUS, NLEGAL = 16, 17
END_PIP, END_VAL, END_OPEN = 18, 22, 26
LACKING = 30
SCORES = LACKING + MAX_SEATS
HAND_COUNT = SCORES + MAX_SEATS
NS = HAND_COUNT + MAX_SEATS

PLAY, HAND_OVER, GAME_OVER = 0, 1, 2
"""Values of ``S[:, PHASE]``, as :class:`sniff_env.game.Phase`."""
OK, ILLEGAL = 0, 1
"""Values of ``S[:, STATUS]`` after a step."""
NEXT_HAND, NEW_GAME, SCRIPTED = 1, 2, 4
"""Bits of the ``deal`` kernel's per-game request (any nonzero value deals a hand)."""

# -- rule parameters ---------------------------------------------------------------------------
(P_MAX_PIP, P_N, P_PARTNER, P_HAND_SIZE, P_RESERVE, P_FIRST, P_NEXT, P_LEAD_HD, P_SNIFF, P_SIDES_NOW,
 P_CHOICE, P_DIV5, P_DRAW_LIMIT, P_MUST_PLAY_DRAWN, P_VOLUNTARY, P_HAND_END, P_TARGET, P_WIN_DURING,
 P_MAX_HANDS, P_T, P_INLINE_BASE, P_DRAW_ACTION, P_SIDES) = range(23)
NP = 23
LOTS, RANDOM, HIGHEST_DOUBLE, ROTATE, WINNER_LEADS = range(5)
SPINNER, STUBBY, NO_SNIFF = range(3)
BONUS_DIV5, SUBTRACT_OWN, DOMINO_TAKES_PIPS, BONUS_DIV5_FEWEST = range(4)
WEST, EAST, NORTH, SOUTH, LEAD = range(5)
# observation piece offsets, in the order of ``tables.PIECES``
(O_HAND, O_PLAYED, O_END_PIP, O_END_OPEN, O_END_VALUE, O_SNIFF, O_COUNT, O_LEAD, O_HAND_SIZES,
 O_LACKING, O_BONEYARD, O_SCORES, O_DRAWN, O_RULES, O_MOVE_POINTS, O_MOVE_COUNT) = range(16)

_jit = nb.njit(cache=True, nogil=True)
_inline = _jit


@_inline
def _side(P: np.ndarray, seat: int) -> int:
    return seat & 1 if P[P_PARTNER] else seat


@_inline
def _rel(x: int, n: int) -> int:
    """``x % n`` for ``-n < x < n`` without a division."""
    return x + n if x < 0 else x


@_inline
def _open_pips(S: np.ndarray, b: int) -> int:
    m = 0
    for e in range(4):
        if S[b, END_OPEN + e]:
            m |= 1 << S[b, END_PIP + e]
    return m


@_inline
def _playable(S: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, tile: int) -> bool:
    for e in range(4):
        if S[b, END_OPEN + e] and (lo[tile] == S[b, END_PIP + e] or hi[tile] == S[b, END_PIP + e]):
            return True
    return False


@_inline
def _drawable(S: np.ndarray, b: int, P: np.ndarray) -> int:
    return int(S[b, BONE_LEN] - S[b, BONE_POS] - P[P_RESERVE])


@_inline
def _can_draw(S: np.ndarray, b: int, P: np.ndarray) -> bool:
    return S[b, DRAWN] < P[P_DRAW_LIMIT] and _drawable(S, b, P) > 0


@_inline
def _heavier(lo: np.ndarray, hi: np.ndarray, a: int, c: int) -> bool:
    """Tile ``a`` outranks tile ``c`` for lots and the heaviest lead (pips, then high half)."""
    pa, pc = lo[a] + hi[a], lo[c] + hi[c]
    return bool(pa > pc or (pa == pc and hi[a] > hi[c]))


@_jit
def _forced_lead_tile(hand: np.ndarray, lo: np.ndarray, hi: np.ndarray, T: int) -> int:
    """The highest double held, else the heaviest tile (``deal.forced_lead_tile``)."""
    best_double, best = -1, -1
    for t in range(T):
        if hand[t]:
            if lo[t] == hi[t] and (best_double < 0 or lo[t] > lo[best_double]):
                best_double = t
            if best < 0 or _heavier(lo, hi, t, best):
                best = t
    return best_double if best_double >= 0 else best


@_jit
def _legal(S: np.ndarray, hands: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray,
           pip_tiles: np.ndarray, out: np.ndarray) -> int:
    """Write the legal actions of the seat to act into ``out``; return how many (unsorted)."""
    seat = S[b, TURN]
    hand = hands[b, seat]
    T = P[P_T]
    n = 0
    no_sniff = P[P_SNIFF] == NO_SNIFF
    if S[b, NPLAYS] == 0:
        inline_ok = P[P_CHOICE] and no_sniff
        only = _forced_lead_tile(hand, lo, hi, T) if S[b, FORCED_LEAD] else -1
        for t in range(T):
            if hand[t] and (only < 0 or t == only):
                out[n] = t * 5 + LEAD
                n += 1
                if inline_ok and lo[t] == hi[t]:
                    out[n] = P[P_INLINE_BASE] + lo[t] * 5 + LEAD
                    n += 1
        return n
    last = S[b, LAST_DRAWN]
    only = -1
    if last >= 0 and P[P_MUST_PLAY_DRAWN] and _playable(S, b, P, lo, hi, last):
        only = last
    inline_ok = P[P_CHOICE] and (S[b, SNIFF_TILE] >= 0 or no_sniff)
    for e in range(4):
        if S[b, END_OPEN + e]:
            pip = S[b, END_PIP + e]
            for q in range(P[P_MAX_PIP] + 1):
                t = pip_tiles[pip, q]
                if hand[t] and (only < 0 or t == only):
                    out[n] = t * 5 + e
                    n += 1
                    if inline_ok and lo[t] == hi[t]:
                        out[n] = P[P_INLINE_BASE] + pip * 5 + e
                        n += 1
    if P[P_VOLUNTARY] and n > 0 and only < 0 and _can_draw(S, b, P):
        out[n] = P[P_DRAW_ACTION]
        n += 1
    return n


@_jit
def _count_after(S: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, action: int) -> int:
    """The count a placement leaves (``sniff_env.layout.count_after``)."""
    if action >= P[P_INLINE_BASE]:
        pip, slot = (action - P[P_INLINE_BASE]) // 5, (action - P[P_INLINE_BASE]) % 5
        if slot == LEAD:  # a lone lead counts both halves
            return 2 * pip
        return S[b, END_VAL] + S[b, END_VAL + 1] + S[b, END_VAL + 2] + S[b, END_VAL + 3] \
            - S[b, END_VAL + slot] + pip
    tile, slot = action // 5, action % 5
    a, c = lo[tile], hi[tile]
    if slot == LEAD:
        return a + c
    v0, v1, v2, v3 = S[b, END_VAL], S[b, END_VAL + 1], S[b, END_VAL + 2], S[b, END_VAL + 3]
    pip = S[b, END_PIP + slot]
    if a == c:
        if S[b, SNIFF_TILE] < 0 and P[P_SNIFF] != NO_SNIFF:
            spinner = P[P_SNIFF] == SPINNER
            new = 0 if spinner else pip
            side = pip if spinner else 0
            v2 = side
            v3 = side
        else:
            new = 2 * pip
    else:
        new = c if a == pip else a
    if slot == 0:
        v0 = new
    elif slot == 1:
        v1 = new
    elif slot == 2:
        v2 = new
    else:
        v3 = new
    return v0 + v1 + v2 + v3


@_jit
def _encode(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, b: int, P: np.ndarray,
            lo: np.ndarray, hi: np.ndarray,
            score_tab: np.ndarray, rules_vec: np.ndarray, off: np.ndarray, legal: np.ndarray,
            obs: np.ndarray, mask: np.ndarray) -> None:
    """``Observer.encode`` and ``Observer.mask`` for the seat to act in game ``b``."""
    n, T, N = P[P_N], P[P_T], P[P_MAX_PIP]
    p = N + 1
    seat = S[b, TURN]
    o = obs[b]
    o[:] = 0.0
    m = mask[b]
    m[:] = 0
    for i in range(S[b, NLEGAL]):
        m[legal[b, i]] = 1
    for t in range(T):
        if hands[b, seat, t]:
            o[off[O_HAND] + t] = 1.0
        who = played_by[b, t]
        if who >= 0:
            o[off[O_PLAYED] + t * n + _rel(who - seat, n)] = 1.0
    sniff_tile = S[b, SNIFF_TILE]
    if S[b, NPLAYS] > 0:
        for e in range(4):
            if e < 2 or sniff_tile >= 0:
                o[off[O_END_PIP] + e * p + S[b, END_PIP + e]] = 1.0
            if S[b, END_OPEN + e]:
                o[off[O_END_OPEN] + e] = 1.0
            o[off[O_END_VALUE] + e] = np.float32(S[b, END_VAL + e]) / np.float32(2 * N)
        if score_tab[S[b, COUNT]]:
            o[off[O_COUNT] + 1] = 1.0
    else:
        o[off[O_LEAD]] = 1.0
    if sniff_tile < 0:
        o[off[O_SNIFF]] = 1.0
    elif S[b, END_OPEN + 2] or S[b, END_OPEN + 3] or S[b, SNIFF_PENDING] == 0:
        o[off[O_SNIFF] + 2] = 1.0
    else:
        o[off[O_SNIFF] + 1] = 1.0
    o[off[O_COUNT]] = np.float32(S[b, COUNT] / (8 * N))
    for s in range(n):
        rel = _rel(s - seat, n)
        o[off[O_HAND_SIZES] + rel] = np.float32(S[b, HAND_COUNT + s] / P[P_HAND_SIZE])
        lack = S[b, LACKING + s]
        for pip in range(p):
            if lack >> pip & 1:
                o[off[O_LACKING] + rel * p + pip] = 1.0
    o[off[O_BONEYARD]] = np.float32((S[b, BONE_LEN] - S[b, BONE_POS]) / T)
    o[off[O_BONEYARD] + 1] = np.float32(max(_drawable(S, b, P), 0) / T)
    sides = P[P_SIDES]
    own = _side(P, seat)
    for side in range(sides):
        o[off[O_SCORES] + _rel(side - own, sides)] = np.float32(S[b, SCORES + side] / P[P_TARGET])
    if S[b, LAST_DRAWN] >= 0:
        o[off[O_DRAWN] + S[b, LAST_DRAWN]] = 1.0
    for i in range(rules_vec.shape[0]):
        o[off[O_RULES] + i] = rules_vec[i]
    scale = 1.0 / (8 * N)  # float64, as the reference computes it, then rounded to float32
    for i in range(S[b, NLEGAL]):
        a = legal[b, i]
        if a != P[P_DRAW_ACTION]:
            after = _count_after(S, b, P, lo, hi, a)
            o[off[O_MOVE_COUNT] + a] = np.float32(after * scale)
            if score_tab[after]:
                pts = after // 5 if P[P_DIV5] else after
                o[off[O_MOVE_POINTS] + a] = np.float32(pts * scale)


@_inline
def _round5(x: int) -> int:
    return 5 * ((x + 2) // 5)


@_jit
def _end_hand(S: np.ndarray, hands: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray,
              domino: int, reached_target: bool) -> None:
    """``Game._end_hand`` with ``scoring.score_hand_end``; ``domino`` -1 when blocked."""
    n, T, mode = P[P_N], P[P_T], P[P_HAND_END]
    pips = np.zeros(MAX_SEATS, np.int64)
    for s in range(n):
        for t in range(T):
            if hands[b, s, t]:
                pips[s] += lo[t] + hi[t]
    S[b, LAST_DOMINO] = domino if not reached_target else -1
    if not reached_target:
        if mode == SUBTRACT_OWN:
            for s in range(n):
                S[b, SCORES + _side(P, s)] -= _round5(pips[s])
        elif mode == DOMINO_TAKES_PIPS:
            if domino >= 0:
                total = 0
                for o in range(n):
                    if _side(P, o) != _side(P, domino):
                        total += pips[o]
                S[b, SCORES + _side(P, domino)] += total
            else:
                for s in range(n):
                    for o in range(n):
                        if _side(P, o) != _side(P, s) and pips[o] > pips[s]:
                            S[b, SCORES + _side(P, s)] += pips[o] - pips[s]
        else:
            fewest = mode == BONUS_DIV5_FEWEST
            winner = domino
            if winner < 0:
                best = 1 << 30
                for s in range(n):
                    v = S[b, HAND_COUNT + s] if fewest else pips[s]
                    if v < best:
                        best, winner = v, s
                for s in range(n):
                    v = S[b, HAND_COUNT + s] if fewest else pips[s]
                    if v == best and _side(P, s) != _side(P, winner):
                        winner = -1
                        break
            if winner >= 0:
                opp = 0
                for o in range(n):
                    if _side(P, o) != _side(P, winner):
                        opp += pips[o]
                bonus = _round5(opp) // 5 if fewest else _round5(opp - pips[winner]) // 5
                S[b, SCORES + _side(P, winner)] += bonus
    best, leaders, first = -(1 << 40), 0, -1
    for side in range(P[P_SIDES]):
        v = S[b, SCORES + side]
        if v > best:
            best, leaders, first = v, 1, side
        elif v == best:
            leaders += 1
    out_of_hands = P[P_MAX_HANDS] > 0 and S[b, HAND_INDEX] + 1 >= P[P_MAX_HANDS]
    if (best >= P[P_TARGET] and leaders == 1) or out_of_hands:
        S[b, WINNER] = first if leaders == 1 else -1
        S[b, PHASE] = GAME_OVER
    else:
        S[b, PHASE] = HAND_OVER


@_jit
def _sniff_side_reached(S: np.ndarray, b: int, slot: int) -> None:
    S[b, SNIFF_PENDING] &= ~(1 << slot)
    if S[b, SNIFF_PENDING] == 0:
        S[b, END_OPEN + NORTH] = 1
        S[b, END_OPEN + SOUTH] = 1


@_jit
def _place(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, b: int, P: np.ndarray,
           lo: np.ndarray, hi: np.ndarray, score_tab: np.ndarray, tile: int, slot: int, inline: bool) -> None:
    """``Game._place`` (points always claimed)."""
    seat = S[b, TURN]
    hands[b, seat, tile] = 0
    S[b, HAND_COUNT + seat] -= 1
    a, c = lo[tile], hi[tile]
    kind = P[P_SNIFF]
    has_sniff = kind != NO_SNIFF
    sides_now = P[P_SIDES_NOW]
    if slot == LEAD:
        if a == c and has_sniff:
            S[b, SNIFF_TILE] = tile
            side_val = a if kind == SPINNER else 0
            line_val = 0 if kind == SPINNER else a
            for e in range(4):
                S[b, END_PIP + e] = a
                S[b, END_VAL + e] = line_val if e < 2 else side_val
                S[b, END_OPEN + e] = 1 if (e < 2 or sides_now) else 0
            S[b, SNIFF_PENDING] = 0 if sides_now else (1 << WEST) | (1 << EAST)
        else:
            vw, ve = (2 * a, 2 * a) if (a == c and not inline) else (a, c)
            S[b, END_PIP + WEST], S[b, END_PIP + EAST] = a, c
            S[b, END_VAL + WEST], S[b, END_VAL + EAST] = vw, ve
            S[b, END_OPEN + WEST] = 1
            S[b, END_OPEN + EAST] = 1
        count = a + c
    else:
        pip = S[b, END_PIP + slot]
        if a == c:
            if S[b, SNIFF_TILE] < 0 and has_sniff:
                S[b, SNIFF_TILE] = tile
                S[b, END_VAL + slot] = 0 if kind == SPINNER else pip
                side_val = pip if kind == SPINNER else 0
                for e in (NORTH, SOUTH):
                    S[b, END_PIP + e] = pip
                    S[b, END_VAL + e] = side_val
                    S[b, END_OPEN + e] = sides_now
                S[b, SNIFF_PENDING] = 0 if sides_now else 1 << slot
            else:
                S[b, END_VAL + slot] = pip if inline else 2 * pip
                if S[b, SNIFF_PENDING] >> slot & 1:
                    _sniff_side_reached(S, b, slot)
        else:
            other = c if a == pip else a
            S[b, END_PIP + slot] = other
            S[b, END_VAL + slot] = other
            if S[b, SNIFF_PENDING] >> slot & 1:
                _sniff_side_reached(S, b, slot)
        if kind == STUBBY and slot >= NORTH:
            S[b, END_OPEN + slot] = 0
        count = S[b, END_VAL] + S[b, END_VAL + 1] + S[b, END_VAL + 2] + S[b, END_VAL + 3]
    S[b, COUNT] = count
    S[b, NPLAYS] += 1
    played_by[b, tile] = seat
    points = 0
    if score_tab[count]:
        points = count // 5 if P[P_DIV5] else count
    S[b, PASSES] = 0
    if points:
        side = _side(P, seat)
        S[b, SCORES + side] += points
        if P[P_WIN_DURING] and S[b, SCORES + side] >= P[P_TARGET]:
            _end_hand(S, hands, b, P, lo, hi, -1, True)
            return
    if S[b, HAND_COUNT + seat] == 0:
        _end_hand(S, hands, b, P, lo, hi, seat, False)
        return
    S[b, TURN] = (seat + 1) % P[P_N]
    S[b, DRAWN] = 0
    S[b, LAST_DRAWN] = -1


@_jit
def _draw(S: np.ndarray, hands: np.ndarray, bone: np.ndarray, b: int, voluntary: bool) -> None:
    seat = S[b, TURN]
    S[b, LACKING + seat] = 0 if voluntary else _open_pips(S, b)
    tile = bone[b, S[b, BONE_POS]]
    S[b, BONE_POS] += 1
    hands[b, seat, tile] = 1
    S[b, HAND_COUNT + seat] += 1
    S[b, DRAWN] += 1
    S[b, LAST_DRAWN] = tile


@_jit
def _advance(S: np.ndarray, hands: np.ndarray, bone: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray,
             hi: np.ndarray, pip_tiles: np.ndarray, legal: np.ndarray) -> None:
    """Forced draws and passes until a seat has a decision (``legal`` then holds it) or the hand ends."""
    while True:
        k = _legal(S, hands, b, P, lo, hi, pip_tiles, legal[b])
        if k > 0:
            S[b, NLEGAL] = k
            return
        if _can_draw(S, b, P):
            _draw(S, hands, bone, b, False)
            continue
        seat = S[b, TURN]
        if S[b, DRAWN]:
            S[b, LACKING + seat] = _open_pips(S, b)
        else:
            S[b, LACKING + seat] |= _open_pips(S, b)
        S[b, PASSES] += 1
        if S[b, PASSES] >= P[P_N] and not (P[P_DRAW_LIMIT] > 0 and _drawable(S, b, P) > 0):
            S[b, NLEGAL] = 0
            _end_hand(S, hands, b, P, lo, hi, -1, False)
            return
        S[b, TURN] = (seat + 1) % P[P_N]
        S[b, DRAWN] = 0
        S[b, LAST_DRAWN] = -1


@_jit
def step(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, bone: np.ndarray, P: np.ndarray,
         lo: np.ndarray, hi: np.ndarray, pip_tiles: np.ndarray, score_tab: np.ndarray,
         rules_vec: np.ndarray, off: np.ndarray, actions: np.ndarray, legal: np.ndarray,
         obs: np.ndarray, mask: np.ndarray, start: int, stop: int) -> None:
    """Apply ``actions[b]`` in every game in play, then the forced moves that follow; encode the
    next observation and mask where the hand goes on. An action that is not legal leaves its game
    untouched with ``S[b, STATUS] = ILLEGAL``."""
    for b in range(start, stop):
        S[b, STATUS] = OK
        if S[b, PHASE] != PLAY:
            continue
        a = actions[b]
        ok = False
        for i in range(S[b, NLEGAL]):
            if legal[b, i] == a:
                ok = True
        if not ok:
            S[b, STATUS] = ILLEGAL
            continue
        if a == P[P_DRAW_ACTION]:
            _draw(S, hands, bone, b, True)
        elif a >= P[P_INLINE_BASE]:
            pip = (a - P[P_INLINE_BASE]) // 5
            _place(S, hands, played_by, b, P, lo, hi, score_tab, pip_tiles[pip, pip], (a - P[P_INLINE_BASE]) % 5, True)
        else:
            _place(S, hands, played_by, b, P, lo, hi, score_tab, a // 5, a % 5, False)
        if S[b, PHASE] == PLAY:
            _advance(S, hands, bone, b, P, lo, hi, pip_tiles, legal)
        if S[b, PHASE] == PLAY:
            _encode(S, hands, played_by, b, P, lo, hi, score_tab, rules_vec, off, legal, obs, mask)
        else:
            S[b, NLEGAL] = 0


SEED_GROUP = 8
"""Games whose generators are seeded together: independent chains keep the core busy."""


@_jit
def deal(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, bone: np.ndarray, P: np.ndarray,
         lo: np.ndarray, hi: np.ndarray, pip_tiles: np.ndarray, score_tab: np.ndarray,
         rules_vec: np.ndarray, off: np.ndarray, request: np.ndarray, seeds: np.ndarray,
         order: np.ndarray, leaders: np.ndarray, legal: np.ndarray,
         obs: np.ndarray, mask: np.ndarray, start: int, stop: int) -> None:
    """Deal the next hand of every game with ``request[b] != 0`` (``NEW_GAME``: the first hand of
    a new game) and encode its first observation. The deal is ``Game._deal_by_rules`` drawn from
    ``random.Random(f"sniff:{seeds[b]}:{hand_index}")``, or with ``SCRIPTED`` the tile order
    ``order[b]`` (hands then boneyard) and the leader ``leaders[b]``. Games ``start:stop`` only."""
    todo = np.empty(stop - start, np.int64)
    count = 0
    for b in range(start, stop):
        if request[b]:
            todo[count] = b
            count += 1
    keys = np.zeros((SEED_GROUP, KEY_WORDS), np.uint32)
    key_len = np.ones(SEED_GROUP, np.int64)
    mt = np.empty((SEED_GROUP, 625), np.uint64)
    for g0 in range(0, count, SEED_GROUP):
        g1 = min(count, g0 + SEED_GROUP)
        for i in range(g0, g1):
            b = todo[i]
            if request[b] & NEW_GAME:
                S[b, :] = 0
                S[b, HAND_INDEX] = -1
                S[b, LAST_DOMINO] = -1
                S[b, WINNER] = -1
            S[b, HAND_INDEX] += 1
            key_len[i - g0] = hand_key(seeds[b], S[b, HAND_INDEX], keys[i - g0])
        mt_seed_group(mt, keys, key_len, g1 - g0)
        for i in range(g0, g1):
            _deal_one(S, hands, played_by, bone, P, lo, hi, pip_tiles, todo[i], request[todo[i]],
                      mt[i - g0], order, leaders, legal)
            _encode(S, hands, played_by, todo[i], P, lo, hi, score_tab, rules_vec, off, legal, obs, mask)


@_jit
def _deal_one(S: np.ndarray, hands: np.ndarray, played_by: np.ndarray, bone: np.ndarray, P: np.ndarray,
              lo: np.ndarray, hi: np.ndarray, pip_tiles: np.ndarray, b: int, req: int, mt: np.ndarray,
              order: np.ndarray, leaders: np.ndarray, legal: np.ndarray) -> None:
    """``Game._deal_by_rules`` and ``Game._setup_hand`` for game ``b`` (hand index already set)."""
    n, T, k = P[P_N], P[P_T], P[P_HAND_SIZE]
    method = P[P_FIRST] if S[b, HAND_INDEX] == 0 else P[P_NEXT]
    raw_method = method
    leader = -1
    scripted = req & SCRIPTED
    if scripted:
        leader = leaders[b]
    else:
        if method == ROTATE:
            leader = (S[b, LEADER] + 1) % n
        elif method == WINNER_LEADS:
            if S[b, LAST_DOMINO] >= 0:
                leader = S[b, LAST_DOMINO]
            else:
                method = LOTS
        if method == LOTS:
            drawn = np.empty(MAX_SEATS, np.int64)
            sample_range(mt, T, n, drawn)
            leader = 0
            for s in range(1, n):
                if _heavier(lo, hi, drawn[s], drawn[leader]):
                    leader = s
        elif method == RANDOM:
            leader = randbelow(mt, n)
        shuffle_range(mt, order[b], T)
    hands[b, :, :] = 0
    played_by[b, :] = -1
    for s in range(n):
        for i in range(k):
            hands[b, s, order[b, s * k + i]] = 1
    if leader < 0:  # the holder of the highest double (or of the heaviest tile)
        best_rank, best_tile = -1, -1
        for s in range(n):
            t = _forced_lead_tile(hands[b, s], lo, hi, T)
            rank = 1 if lo[t] == hi[t] else 0
            if leader < 0 or rank > best_rank or (rank == best_rank and _heavier(lo, hi, t, best_tile)):
                leader, best_rank, best_tile = s, rank, t
    for i in range(T - n * k):
        bone[b, i] = order[b, n * k + i]
    S[b, BONE_LEN] = T - n * k
    S[b, BONE_POS] = 0
    S[b, LEADER] = leader
    S[b, TURN] = leader
    S[b, NPLAYS] = 0
    for e in range(4):
        S[b, END_PIP + e] = 0
        S[b, END_VAL + e] = 0
        S[b, END_OPEN + e] = 0
    S[b, SNIFF_TILE] = -1
    S[b, SNIFF_PENDING] = 0
    S[b, COUNT] = 0
    S[b, PASSES] = 0
    S[b, DRAWN] = 0
    S[b, LAST_DRAWN] = -1
    for s in range(MAX_SEATS):
        S[b, LACKING + s] = 0
        S[b, HAND_COUNT + s] = k if s < n else 0
    S[b, FORCED_LEAD] = 1 if (P[P_LEAD_HD] or raw_method == HIGHEST_DOUBLE) else 0
    S[b, PHASE] = PLAY
    S[b, STATUS] = OK
    S[b, NLEGAL] = _legal(S, hands, b, P, lo, hi, pip_tiles, legal[b])
