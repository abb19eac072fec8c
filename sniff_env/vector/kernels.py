"""The compiled rules: ``step``, ``env_step`` and ``deal`` kernels over a batch of games.

The rules themselves (the legal ends of a tile, what a placement does to the layout and what
it scores, the hand-end scoring, the lead, the deal's split) are the functions of
:mod:`sniff_env.rulebook` that :class:`sniff_env.game.Game` runs too, compiled
(:mod:`sniff_env.vector.compiled_rules`); this module keeps the game's state in flat arrays
around them, as ``Game`` keeps it in Python objects. The observation is written by the
encoder that :class:`sniff_env.observation.Observer` runs too, :func:`sniff_env.encoding.encode_row`,
compiled likewise. The rule tables (tiles, scoring, actions,
observation layout) come from the reference modules through :mod:`sniff_env.vector.tables`;
the differential tests keep the two engines equal.

A kernel takes a few named structures (:mod:`sniff_env.vector.arrays`): the games' state
(:class:`~sniff_env.vector.arrays.Games`), their observation buffers, the rules as data
(:class:`~sniff_env.vector.arrays.RuleTables`). Per-game scalars live in one int64 matrix
``Games.S[B, NS]`` whose columns are named below; every rule parameter is a cell of
``RuleTables.P`` (see :mod:`sniff_env.vector.tables`), so one compiled kernel serves every preset. A kernel runs over the games ``start:stop`` with its own
:func:`workspace`, so that threads can share a batch.

``Games.played[b, :T]`` holds the seat that played each tile this hand (-1: not played) and
``Games.played[b, T:T + S[b, NPLAYS]]`` the tiles in the order they were played.

Observations are updated in place: a game's row keeps the rules block (written once by the
engine), and ``legal[b, :S[b, SHOWN]]`` are the actions whose move features and mask cells it
has set; an encode clears those (``encoding.clear_row``) and rewrites the rest instead of zeroing
the whole row.
"""

from __future__ import annotations

import numpy as np

from sniff_env.encoding import Board, Counts, Spec, clear_row, encode_row
from sniff_env.rulebook import (  # noqa: F401  (the codes of P cells and slots, for tables and players)
    BONUS_DIV5,
    BONUS_DIV5_FEWEST,
    DOMINO_TAKES_PIPS,
    EAST,
    GAME_GOES_ON,
    HIGHEST_DOUBLE,
    LEAD,
    LOTS,
    NO_SNIFF,
    NORTH,
    RANDOM,
    ROTATE,
    SOUTH,
    SPINNER,
    STUBBY,
    SUBTRACT_OWN,
    WEST,
    WINNER_LEADS,
)
from sniff_env.vector._compile import compiled
from sniff_env.vector.arrays import DealArrays, EnvArrays, Games, RuleTables, StepArrays, Views, new_games
from sniff_env.vector.compiled_rules import (
    dealt_to,
    fits,
    forced_lead_tile,
    game_winner,
    hand_end_points,
    highest_double_holder,
    inline_offered,
    lead_forced,
    lead_method,
    lots_leader,
    open_pips,
    place,
    play_points,
    side_of,
    with_compiled_rules,
)
from sniff_env.vector.pyrandom import (
    HEAD,
    KEY_WORDS,
    MT_ROWS,
    SHA_WORK,
    hand_key,
    mt_seed_lanes,
    randbelow,
    sample_range,
    shuffle_range,
)

# -- per-game state columns -------------------------------------------------------------------
MAX_SEATS = 8
TURN, LEADER, COUNT, PASSES, DRAWN, LAST_DRAWN, SNIFF_TILE, SNIFF_PENDING = range(8)
BONE_POS, BONE_LEN, NPLAYS, HAND_INDEX, PHASE, FORCED_LEAD, LAST_DOMINO, WINNER = range(8, 16)
STATUS, NLEGAL = 16, 17
END_PIP, END_VAL, END_OPEN = 18, 22, 26
LACKING = 30
SCORES = LACKING + MAX_SEATS
HAND_COUNT = SCORES + MAX_SEATS
PIPS = HAND_COUNT + MAX_SEATS
"""Scratch: the pips left in each seat's hand at a hand end, the tiles drawn for lots."""
SHOWN = PIPS + MAX_SEATS
"""How many entries of ``legal[b]`` the game's observation row shows (see above)."""
NS = SHOWN + 1

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
FRAC_TILES, FRAC_HAND, FRAC_END = range(3)
"""Rows of the ``fractions`` table: ``x / num_tiles``, ``x / hand_size``, ``x / (2 * max_pip)``."""

_jit = compiled()
_jit = compiled()
_inline = compiled(inline=True)  # small or hot helpers: a copy in each caller
_encode_row = with_compiled_rules(encode_row)
_clear_row = with_compiled_rules(clear_row)


@_inline
def _side(P: np.ndarray, seat: int) -> int:
    """``rulebook.side_of`` with the rule parameter of ``P``."""
    return side_of(seat, P[P_PARTNER])


@_inline
def _open_pips(S: np.ndarray, b: int) -> int:
    """``rulebook.open_pips`` of game ``b``."""
    return open_pips(S[b, END_PIP:END_PIP + 4], S[b, END_OPEN:END_OPEN + 4])


@_inline
def _playable(S: np.ndarray, b: int, lo: np.ndarray, hi: np.ndarray, tile: int) -> bool:
    """Whether ``tile`` fits an end of game ``b`` (``rulebook.fits``)."""
    end_pip, end_open = S[b, END_PIP:END_PIP + 4], S[b, END_OPEN:END_OPEN + 4]
    for e in range(4):
        if fits(end_pip, end_open, e, lo[tile], hi[tile]):
            return True
    return False


@_inline
def points_for(P: np.ndarray, score_tab: np.ndarray, count: int) -> int:
    """``rulebook.play_points`` with the rule parameter of ``P``."""
    return play_points(count, score_tab, P[P_DIV5])


@_inline
def _drawable(S: np.ndarray, b: int, P: np.ndarray) -> int:
    return int(S[b, BONE_LEN] - S[b, BONE_POS] - P[P_RESERVE])


@_inline
def _can_draw(S: np.ndarray, b: int, P: np.ndarray) -> bool:
    return S[b, DRAWN] < P[P_DRAW_LIMIT] and _drawable(S, b, P) > 0


@_inline
def _legal(games: Games, b: int, rules: RuleTables) -> int:
    """Write the legal actions of the seat to act in game ``b`` into ``games.legal[b]``; return
    how many (unsorted). The lead writes every tile and counts only the held ones (no branch on
    the hand), so it also overwrites cells past the count. The tiles of an end are those
    ``rulebook.fits`` accepts, found through ``pip_tiles``; in-line doubles as
    ``rulebook.inline_offered`` says."""
    S, out = games.S, games.legal[b]
    P, lo, hi, pip_tiles = rules.P, rules.lo, rules.hi, rules.pip_tiles
    seat = S[b, TURN]
    hand = games.hands[b, seat]
    T = P[P_T]
    n = 0
    inline_base = P[P_INLINE_BASE]
    if S[b, NPLAYS] == 0:
        inline_ok = inline_offered(P[P_CHOICE], P[P_SNIFF], -1)
        if S[b, FORCED_LEAD]:
            t = forced_lead_tile(hand[:T], lo, hi)
            out[0] = t * 5 + LEAD
            n = 1
            if inline_ok and lo[t] == hi[t]:
                out[1] = inline_base + lo[t] * 5 + LEAD
                n = 2
            return n
        for t in range(T):
            held = int(hand[t])
            out[n] = t * 5 + LEAD
            n += held
            out[n] = inline_base + lo[t] * 5 + LEAD
            n += held & int(inline_ok and lo[t] == hi[t])
        return n
    last = S[b, LAST_DRAWN]
    only = -1
    if last >= 0 and P[P_MUST_PLAY_DRAWN] and _playable(S, b, lo, hi, last):
        only = last
    inline_ok = inline_offered(P[P_CHOICE], P[P_SNIFF], S[b, SNIFF_TILE])
    for e in range(4):
        if S[b, END_OPEN + e]:
            pip = S[b, END_PIP + e]
            for q in range(P[P_MAX_PIP] + 1):
                t = pip_tiles[pip, q]
                if hand[t] and (only < 0 or t == only):
                    out[n] = t * 5 + e
                    n += 1
                    if inline_ok and q == pip:
                        out[n] = inline_base + pip * 5 + e
                        n += 1
    if P[P_VOLUNTARY] and n > 0 and only < 0 and _can_draw(S, b, P):
        out[n] = P[P_DRAW_ACTION]
        n += 1
    return n


@_inline
def _encode_as(games: Games, b: int, rules: RuleTables, spec: Spec, row: np.ndarray, seat: int, last_drawn: int,
               legal: np.ndarray) -> None:
    """``encoding.encode_row`` of ``seat`` in game ``b`` (its drawn tile ``last_drawn``, its legal
    actions ``legal``) from the state columns."""
    S, P = games.S, rules.P
    n, T, sides = P[P_N], P[P_T], P[P_SIDES]
    board = Board(S[b, END_PIP:END_PIP + 4], S[b, END_VAL:END_VAL + 4], S[b, END_OPEN:END_OPEN + 4],
                  S[b, SNIFF_TILE], S[b, SNIFF_PENDING], S[b, COUNT])
    counts = Counts(S[b, HAND_COUNT:HAND_COUNT + n], S[b, LACKING:LACKING + n], S[b, SCORES:SCORES + sides],
                    S[b, BONE_LEN] - S[b, BONE_POS], _drawable(S, b, P))
    _encode_row(row, spec, seat, games.hands[b, seat], games.played[b, T:T + S[b, NPLAYS]], games.played[b], board,
                counts, last_drawn, legal)


@_inline
def _encode(games: Games, views: Views, b: int, rules: RuleTables, prev: np.ndarray, nprev: int) -> None:
    """``Observer.encode`` and ``Observer.mask`` for the seat to act in game ``b``, written over
    the row of its previous observation: ``prev[:nprev]`` are the legal actions that row shows
    (``encoding.clear_row`` clears their move features; their mask cells are cleared here), the
    rules block is already in place (the engine writes it once) and ``encoding.encode_row``
    rewrites the rest. ``S[b, SHOWN]`` then counts the entries of ``legal[b]`` that the row shows."""
    S, legal = games.S, games.legal
    m = views.mask[b]
    for i in range(nprev):
        m[prev[i]] = 0
    _clear_row(views.obs[b], views.spec, prev[:nprev])
    nlegal = S[b, NLEGAL]
    _encode_as(games, b, rules, views.spec, views.obs[b], S[b, TURN], S[b, LAST_DRAWN], legal[b, :nlegal])
    for i in range(nlegal):
        m[legal[b, i]] = 1
    S[b, SHOWN] = nlegal


@_jit
def _end_hand(games: Games, b: int, rules: RuleTables, domino: int, reached_target: bool) -> None:
    """``Game._end_hand``: the hand-end scoring of ``rulebook.hand_end_points`` added to the
    scores, then the game end of ``rulebook.game_winner``; ``domino`` -1 when blocked."""
    S, hands, P, lo, hi = games.S, games.hands, rules.P, rules.lo, rules.hi
    n, T = P[P_N], P[P_T]
    pips = S[b, PIPS:PIPS + MAX_SEATS]
    for s in range(n):
        total = 0
        for t in range(T):
            total += hands[b, s, t] * (lo[t] + hi[t])
        pips[s] = total
    S[b, LAST_DOMINO] = domino if not reached_target else -1
    if not reached_target:
        hand_end_points(P[P_HAND_END], pips, S[b, HAND_COUNT:HAND_COUNT + MAX_SEATS], n, P[P_PARTNER], domino,
                        S[b, SCORES:SCORES + MAX_SEATS])
    winner = game_winner(S[b, SCORES:SCORES + MAX_SEATS], P[P_SIDES], P[P_TARGET], S[b, HAND_INDEX] + 1,
                         P[P_MAX_HANDS])
    if winner == GAME_GOES_ON:
        S[b, PHASE] = HAND_OVER
    else:
        S[b, WINNER] = winner
        S[b, PHASE] = GAME_OVER


@_inline
def lay(S: np.ndarray, b: int, P: np.ndarray, lo: np.ndarray, hi: np.ndarray, tile: int, slot: int,
        inline: bool) -> int:
    """The layout part of ``Game._place`` (``rulebook.place``): put ``tile`` on ``slot`` in the
    ends, the sniff and the count of game ``b`` (nothing else changes); return the new count."""
    count, S[b, SNIFF_TILE], S[b, SNIFF_PENDING] = place(
        S[b, END_PIP:END_PIP + 4], S[b, END_VAL:END_VAL + 4], S[b, END_OPEN:END_OPEN + 4], S[b, SNIFF_TILE],
        S[b, SNIFF_PENDING], tile, lo[tile], hi[tile], slot, inline, P[P_SNIFF], P[P_SIDES_NOW] != 0)
    S[b, COUNT] = count
    return count


@_inline
def _place(games: Games, b: int, rules: RuleTables, tile: int, slot: int, inline: bool) -> None:
    """``Game._place`` (points always claimed)."""
    S, P = games.S, rules.P
    seat = S[b, TURN]
    games.hands[b, seat, tile] = 0
    S[b, HAND_COUNT + seat] -= 1
    count = lay(S, b, P, rules.lo, rules.hi, tile, slot, inline)
    games.played[b, tile] = seat
    games.played[b, P[P_T] + S[b, NPLAYS]] = tile
    S[b, NPLAYS] += 1
    points = points_for(P, rules.score_tab, count)
    S[b, PASSES] = 0
    if points:
        side = _side(P, seat)
        S[b, SCORES + side] += points
        if P[P_WIN_DURING] and S[b, SCORES + side] >= P[P_TARGET]:
            _end_hand(games, b, rules, -1, True)
            return
    if S[b, HAND_COUNT + seat] == 0:
        _end_hand(games, b, rules, seat, False)
        return
    S[b, TURN] = (seat + 1) % P[P_N]
    S[b, DRAWN] = 0
    S[b, LAST_DRAWN] = -1


@_inline
def _draw(games: Games, b: int, voluntary: bool) -> None:
    S = games.S
    seat = S[b, TURN]
    S[b, LACKING + seat] = 0 if voluntary else _open_pips(S, b)
    tile = games.bone[b, S[b, BONE_POS]]
    S[b, BONE_POS] += 1
    games.hands[b, seat, tile] = 1
    S[b, HAND_COUNT + seat] += 1
    S[b, DRAWN] += 1
    S[b, LAST_DRAWN] = tile


@_inline
def _advance(games: Games, b: int, rules: RuleTables) -> None:
    """Forced draws and passes until a seat has a decision (``legal`` then holds it) or the hand ends."""
    S, P = games.S, rules.P
    while True:
        k = _legal(games, b, rules)
        if k > 0:
            S[b, NLEGAL] = k
            return
        if _can_draw(S, b, P):
            _draw(games, b, False)
            continue
        seat = S[b, TURN]
        if S[b, DRAWN]:
            S[b, LACKING + seat] = _open_pips(S, b)
        else:
            S[b, LACKING + seat] |= _open_pips(S, b)
        S[b, PASSES] += 1
        if S[b, PASSES] >= P[P_N] and not (P[P_DRAW_LIMIT] > 0 and _drawable(S, b, P) > 0):
            S[b, NLEGAL] = 0
            _end_hand(games, b, rules, -1, False)
            return
        S[b, TURN] = (seat + 1) % P[P_N]
        S[b, DRAWN] = 0
        S[b, LAST_DRAWN] = -1


@_jit
def apply_action(games: Games, b: int, rules: RuleTables, a: int) -> None:
    """``Game.step`` of the legal action ``a`` in game ``b``, without encoding: the draw or the
    placement, then the forced draws and passes after it (``games.legal[b]``: the next decision's)."""
    P = rules.P
    if a == P[P_DRAW_ACTION]:
        _draw(games, b, True)
    else:
        _place(games, b, rules, rules.act_tile[a], rules.act_slot[a], a >= P[P_INLINE_BASE])
    if games.S[b, PHASE] == PLAY:
        _advance(games, b, rules)


@_inline
def _step_one(games: Games, views: Views, rules: RuleTables, a: int, prev: np.ndarray, b: int) -> None:
    """``step`` for game ``b`` (``prev``: scratch for the legal actions its row shows)."""
    S, legal = games.S, games.legal
    S[b, STATUS] = OK
    if S[b, PHASE] != PLAY:
        return
    if a < 0 or a > rules.P[P_DRAW_ACTION] or views.mask[b, a] != 1:
        S[b, STATUS] = ILLEGAL
        return
    nprev = S[b, SHOWN]
    for i in range(nprev):
        prev[i] = legal[b, i]
    apply_action(games, b, rules, a)
    if S[b, PHASE] == PLAY:
        _encode(games, views, b, rules, prev, nprev)
    else:  # the row keeps showing the last decision: put back the list it shows, for the next deal
        S[b, NLEGAL] = 0
        for i in range(nprev):
            legal[b, i] = prev[i]


LANES = 64
"""Games whose generators are seeded side by side (see :func:`pyrandom.mt_seed_lanes`)."""
Workspace = tuple[np.ndarray, ...]


def workspace(games: int, num_actions: int, num_tiles: int) -> Workspace:
    """Scratch arrays for one thread running the kernels over at most ``games`` games."""
    return (
        np.zeros(num_actions, np.int64),  # the legal actions a game's last observation shows
        np.zeros(MAX_SEATS, np.int64),  # a game's scores before a step
        np.zeros(games, np.int64),  # games to deal
        np.zeros((games, KEY_WORDS), np.uint32),  # their generator keys
        np.zeros(games, np.int64),  # and the keys' lengths
        np.zeros(SHA_WORK, np.uint64),
        np.zeros((MT_ROWS, LANES), np.uint32),  # generators seeded side by side
        np.zeros((KEY_WORDS, LANES), np.uint32),  # their keys, one column each
        np.zeros(LANES, np.int64),  # the games they deal
        np.zeros(max(num_tiles, MAX_SEATS), np.int64),  # Random.sample's pool
    )


def new_state(B: int, num_players: int, num_tiles: int, num_actions: int) -> Games:
    """Zeroed :class:`~sniff_env.vector.arrays.Games` for ``B`` games (no tile played)."""
    return new_games(B, num_players, num_tiles, num_actions, NS)


@_jit
def step(games: Games, views: Views, rules: RuleTables, actions: np.ndarray, work: Workspace, start: int,
         stop: int) -> int:
    """Apply ``actions[b]`` in every game in play, then the forced moves that follow; encode the
    next observation and mask where the hand goes on. An action that is not legal leaves its game
    untouched with ``S[b, STATUS] = ILLEGAL``. Games ``start:stop`` only; returns 0."""
    prev = work[0]
    for b in range(start, stop):
        _step_one(games, views, rules, actions[b], prev, b)
    return 0


@_jit
def encode_seat(games: Games, views: Views, rules: RuleTables, seat: int) -> None:
    """The observation of ``seat`` in game 0 as the seat sees it when it is not to act (no legal
    moves, no drawn tile), written into ``views.obs[0]``, which must hold zeros and the rules
    block. The game's state is left as it was; the mask is not written."""
    _encode_as(games, 0, rules, views.spec, views.obs[0], seat, -1, games.legal[0, :0])


REWARD_GAME, EPISODE_HAND = 1, 2
"""Bits of ``env_step``'s ``mode``: rewards per game (else points), episodes per hand (else game)."""


@_jit
def env_step(games: Games, views: Views, rules: RuleTables, actions: np.ndarray, env: EnvArrays,
             out: StepArrays, work: Workspace, start: int, stop: int) -> int:
    """``step`` plus the bookkeeping of :meth:`SniffVectorEnv.step` for games ``start:stop``: the
    per-seat ``out.rewards``, ``out.done``, the episode ``out.winner`` (side, -1 none),
    ``out.final_scores`` and ``out.seed`` (0 and -1 where not done), ``out.game_over``; a game
    whose hand ended gets its ``env.request`` for ``deal`` (0 elsewhere) and its new
    ``env.hand_start``. Returns how many hands ended."""
    S, P = games.S, rules.P
    side_of_seat, hand_start, request = env.side_of_seat, env.hand_start, env.request
    prev, before = work[0], work[1]
    sides, n = P[P_SIDES], P[P_N]
    per_game, per_hand = env.mode & REWARD_GAME, env.mode & EPISODE_HAND
    loss = np.float32(-1.0 / (sides - 1))
    ended = 0
    for b in range(start, stop):
        for side in range(sides):
            before[side] = S[b, SCORES + side]
        _step_one(games, views, rules, actions[b], prev, b)
        phase = S[b, PHASE]
        hand_end = phase != PLAY
        game_end = phase == GAME_OVER
        over = hand_end if per_hand else game_end
        best = -1
        if over:
            if per_hand:  # the side that gained most in the hand, if it is the only one
                top, count = -(1 << 62), 0
                for side in range(sides):
                    gain = S[b, SCORES + side] - hand_start[b, side]
                    if gain > top:
                        top, count, best = gain, 1, side
                    elif gain == top:
                        count += 1
                if count > 1:
                    best = -1
            else:
                best = S[b, WINNER]
        total = 0
        for side in range(sides):
            total += S[b, SCORES + side] - before[side]
        for s in range(n):
            side = side_of_seat[s]
            if per_game:
                r = np.float32(0.0) if best < 0 else (np.float32(1.0) if side == best else loss)
            else:  # the side's change minus the mean change of the other sides
                delta = S[b, SCORES + side] - before[side]
                r = np.float32(delta - (total - delta) / (sides - 1))
            out.rewards[b, s] = r
        out.done[b] = over
        out.winner[b] = best
        for side in range(sides):
            out.final_scores[b, side] = S[b, SCORES + side] if over else 0
        out.seed[b] = env.seeds[b] if over else -1
        out.game_over[b] = game_end
        request[b] = 0
        if hand_end:
            ended += 1
            request[b] = NEW_GAME if game_end else NEXT_HAND
            for side in range(sides):
                hand_start[b, side] = 0 if game_end else S[b, SCORES + side]
    return ended


@_jit
def first_illegal(S: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> int:
    """The first game in play whose action is not legal, -1 if none."""
    A = mask.shape[1]
    for b in range(S.shape[0]):
        a = actions[b]
        if S[b, PHASE] == PLAY and (a < 0 or a >= A or mask[b, a] != 1):
            return b
    return -1


@_jit
def sample_actions(S: np.ndarray, legal: np.ndarray, r: np.ndarray, out: np.ndarray) -> None:
    """``out[b]``: entry ``int(r[b] * n)`` of the ``n`` legal actions of game ``b`` (0 if none)."""
    for b in range(S.shape[0]):
        nl = S[b, NLEGAL]
        out[b] = legal[b, int(r[b] * nl)] if nl > 0 else 0


@_jit
def deal(games: Games, views: Views, rules: RuleTables, deals: DealArrays, work: Workspace, start: int,
         stop: int) -> int:
    """Deal the next hand of every game with ``deals.request[b] != 0`` (``NEW_GAME``: the first
    hand of a new game) and encode its first observation. The deal is ``Game._deal_by_rules``
    drawn from ``random.Random(f"sniff:{seeds[b]}:{hand_index}")``, or with ``SCRIPTED`` the tile
    order ``deals.order[b]`` (hands then boneyard) and the leader ``deals.leaders[b]``. Games
    ``start:stop`` only; returns 0."""
    S, request = games.S, deals.request
    prev, _, todo, keys, key_len, sha, mt, lane_keys, group, pool = work
    count = 0
    shortest, longest = KEY_WORDS, 0
    for b in range(start, stop):
        if not request[b]:
            continue
        if request[b] & NEW_GAME:
            shown = S[b, SHOWN]
            S[b, :] = 0
            S[b, SHOWN] = shown
            S[b, HAND_INDEX] = -1
            S[b, LAST_DOMINO] = -1
            S[b, WINNER] = -1
        S[b, HAND_INDEX] += 1
        if request[b] & SCRIPTED:  # no generator needed
            _start_hand(games, views, rules, deals, b, prev)
            continue
        todo[count] = b
        key_len[count] = hand_key(deals.seeds[b], S[b, HAND_INDEX], keys[count], sha)
        shortest, longest = min(shortest, key_len[count]), max(longest, key_len[count])
        count += 1
    # generators whose keys have the same length are seeded together, up to LANES at a time
    ahead = min(HEAD, 2 * rules.P[P_T])  # outputs drawn side by side: most deals need no more
    for length in range(shortest, longest + 1):
        i = 0
        while i < count:
            lanes = 0
            while i < count and lanes < LANES:
                if key_len[i] == length:
                    group[lanes] = todo[i]
                    for w in range(length):
                        lane_keys[w, lanes] = keys[i, w]
                    lanes += 1
                i += 1
            if lanes == 0:
                break
            mt_seed_lanes(mt, lane_keys, length, lanes, ahead)
            for g in range(lanes):  # all draws first, while the generators are in cache
                _draw_hand(S, rules, group[g], mt[:, g], pool, deals)
            for g in range(lanes):
                _start_hand(games, views, rules, deals, group[g], prev)
    return 0


@_jit
def _start_hand(games: Games, views: Views, rules: RuleTables, deals: DealArrays, b: int, prev: np.ndarray) -> None:
    """Set up game ``b``'s hand from ``deals.order[b]`` and ``deals.leaders[b]`` and encode its
    first observation over the row of its last one."""
    shown = games.S[b, SHOWN]
    for i in range(shown):
        prev[i] = games.legal[b, i]
    _deal_one(games, b, rules, deals)
    _encode(games, views, b, rules, prev, shown)


@_jit
def _draw_hand(S: np.ndarray, rules: RuleTables, b: int, mt: np.ndarray, pool: np.ndarray, deals: DealArrays) -> None:
    """The draws of ``Game._deal_by_rules`` for game ``b`` (hand index already set) from generator
    ``mt``: the tile order into ``deals.order[b]``, the leader into ``deals.leaders[b]`` (-1: the
    holder of the highest double, found by ``_deal_one``). The method is ``rulebook.lead_method``'s,
    the lots' winner ``rulebook.lots_leader``'s."""
    P = rules.P
    n, T = P[P_N], P[P_T]
    method, leader = lead_method(S[b, HAND_INDEX], P[P_FIRST], P[P_NEXT], S[b, LEADER], S[b, LAST_DOMINO], n)
    if method == LOTS:
        drawn = S[b, PIPS:PIPS + MAX_SEATS]  # scratch
        sample_range(mt, T, n, drawn, pool)
        leader = lots_leader(drawn, n, rules.lo, rules.hi)
    elif method == RANDOM:
        leader = randbelow(mt, n)
    shuffle_range(mt, deals.order[b], T)
    deals.leaders[b] = leader


@_jit
def _deal_one(games: Games, b: int, rules: RuleTables, deals: DealArrays) -> None:
    """``Game._setup_hand`` for game ``b`` from the tile order ``deals.order[b]`` (split into hands
    and the boneyard by ``rulebook.dealt_to``) and the leader ``deals.leaders[b]`` (-1: the holder
    of the highest double, ``rulebook.highest_double_holder``)."""
    S, hands, order, P = games.S, games.hands, deals.order, rules.P
    n, T, k = P[P_N], P[P_T], P[P_HAND_SIZE]
    method = P[P_FIRST] if S[b, HAND_INDEX] == 0 else P[P_NEXT]
    leader = deals.leaders[b]
    hands[b, :, :] = 0
    games.played[b, :T] = -1
    nbone = 0
    for i in range(T):
        seat = dealt_to(i, n, k)
        if seat >= 0:
            hands[b, seat, order[b, i]] = 1
        else:
            games.bone[b, nbone] = order[b, i]
            nbone += 1
    if leader < 0:
        leader = highest_double_holder(hands[b], n, rules.lo, rules.hi)
    S[b, BONE_LEN] = nbone
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
    S[b, FORCED_LEAD] = 1 if lead_forced(P[P_LEAD_HD], method) else 0
    S[b, PHASE] = PLAY
    S[b, STATUS] = OK
    S[b, NLEGAL] = _legal(games, b, rules)
