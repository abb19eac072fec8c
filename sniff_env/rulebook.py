"""The rules of the game, each written once, as plain functions over plain values.

Both engines run these functions: :class:`sniff_env.game.Game` calls them as Python, the batched
kernels (:mod:`sniff_env.vector.kernels`) call their compiled versions
(:mod:`sniff_env.vector.compiled_rules`), so a rule changed here changes both engines.

Arguments are ints and int sequences: Python lists or tuples, or numpy array views such as a
kernel's ``S[b, END_PIP:END_PIP + 4]``. A function that changes the layout writes into the
sequences it is given and returns the new scalars. The code keeps to the subset of Python that
numba compiles (no classes, no dicts, no allocation) and imports nothing, so the core stays
free of numba and numpy.

Codes: a tile is its two halves ``lo <= hi`` (and its index where the rule needs it); a slot is
``WEST, EAST, NORTH, SOUTH`` or ``LEAD``; ``held[t]`` is 1 where tile ``t`` is held.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "count_after",
    "dealt_to",
    "fits",
    "forced_lead_tile",
    "game_winner",
    "hand_end_points",
    "heavier",
    "highest_double_holder",
    "inline_offered",
    "lead_forced",
    "lead_method",
    "lots_leader",
    "matches",
    "open_pips",
    "place",
    "play_points",
    "round5",
    "side_of",
]

Ints = Any
"""An int sequence (list, tuple or numpy array): the rules index it and nothing more."""

WEST, EAST, NORTH, SOUTH, LEAD = range(5)
"""Slots: the ends of the line, the sniff's sides, and the lead."""
SPINNER, STUBBY, NO_SNIFF = range(3)
"""``sniff_kind``: as :class:`sniff_env.rules.SniffKind`."""
BONUS_DIV5, SUBTRACT_OWN, DOMINO_TAKES_PIPS, BONUS_DIV5_FEWEST = range(4)
"""``mode`` of :func:`hand_end_points`: as :class:`sniff_env.rules.HandEnd`."""
GAME_GOES_ON = -2
"""What :func:`game_winner` returns while the game goes on (-1: it ended in a draw)."""
LOTS, RANDOM, HIGHEST_DOUBLE, ROTATE, WINNER_LEADS = range(5)
"""How a hand's leader is chosen: as :class:`sniff_env.rules.FirstLead` and ``NextLead``."""


# -- sides and scoring -------------------------------------------------------------------------
def side_of(seat: int, partnership: int) -> int:
    """The side of ``seat``: seats 0 and 2 (and 1 and 3) are partners in a partnership game."""
    return seat & 1 if partnership else seat


def round5(x: int) -> int:
    """Round to the nearest multiple of 5 (whole numbers never tie): 3 -> 5, 2 -> 0, 26 -> 25."""
    return 5 * ((x + 2) // 5)


def play_points(count: int, score_tab: Ints, div5: int) -> int:
    """The points a placement leaving ``count`` scores: the count where ``score_tab[count]`` is
    truthy (a fifth of it with ``div5``), else nothing."""
    if score_tab[count]:
        return count // 5 if div5 else count
    return 0


# -- placements --------------------------------------------------------------------------------
def matches(pip: int, lo: int, hi: int) -> bool:
    """Whether tile ``(lo, hi)`` can be laid on an end showing ``pip``: a half matches it."""
    return lo == pip or hi == pip


def fits(end_pip: Ints, end_open: Ints, slot: int, lo: int, hi: int) -> bool:
    """Whether tile ``(lo, hi)`` can be laid on ``slot``: the end is open and the tile matches it."""
    return bool(end_open[slot]) and matches(end_pip[slot], lo, hi)


def open_pips(end_pip: Ints, end_open: Ints) -> int:
    """Bit mask of the pips that can be played on now (bit ``p``: an open end shows ``p``)."""
    m = 0
    for e in range(4):
        if end_open[e]:
            m |= 1 << end_pip[e]
    return m


def inline_offered(choice: int, sniff_kind: int, sniff_tile: int) -> bool:
    """Whether a double may be laid in line (counting its pips once): only with the
    ``double_placement="choice"`` rule, and never as a double that becomes the sniff."""
    return bool(choice) and (sniff_tile >= 0 or sniff_kind == NO_SNIFF)


def count_after(end_pip: Ints, end_val: Ints, sniff_tile: int, lo: int, hi: int, slot: int,
                inline: int, sniff_kind: int) -> int:
    """The count after laying tile ``(lo, hi)`` on ``slot`` (``inline``: a double laid in line),
    without changing the layout; :func:`place` makes the same change."""
    if slot == LEAD:
        return lo + hi
    pip: int = end_pip[slot]
    rest: int = end_val[WEST] + end_val[EAST] + end_val[NORTH] + end_val[SOUTH] - end_val[slot]
    if lo != hi:
        return rest + (hi if lo == pip else lo)
    if sniff_tile < 0 and sniff_kind != NO_SNIFF:  # this double is the sniff: it opens two sides
        sides: int = end_val[NORTH] + end_val[SOUTH]
        return rest - sides + (2 * pip if sniff_kind == SPINNER else pip)
    return rest + (pip if inline else 2 * pip)


def place(end_pip: Ints, end_val: Ints, end_open: Ints, sniff_tile: int, sniff_pending: int, tile: int,
          lo: int, hi: int, slot: int, inline: int, sniff_kind: int, sides_now: bool) -> tuple[int, int, int]:
    """Lay tile ``tile`` = ``(lo, hi)`` on ``slot``: update the ends' pips, values (what each
    end adds to the count) and open flags in place; return ``(count, sniff_tile,
    sniff_pending)`` after it. The first double (with a sniff) is the sniff: a spinner counts on
    its two sides, a stubby in line; its sides open at once (``sides_now``) or once both ends of
    the line have been played on (``sniff_pending``: a bit per end still to reach)."""
    has_sniff = sniff_kind != NO_SNIFF
    spinner = sniff_kind == SPINNER
    if slot == LEAD:
        if lo == hi and has_sniff:
            for e in range(4):
                end_pip[e] = lo
                end_val[e] = (0 if spinner else lo) if e < NORTH else (lo if spinner else 0)
                end_open[e] = True if e < NORTH else sides_now
            return lo + hi, tile, 0 if sides_now else (1 << WEST) | (1 << EAST)
        end_pip[WEST], end_pip[EAST] = lo, hi
        if lo == hi and not inline:
            end_val[WEST], end_val[EAST] = 2 * lo, 2 * lo
        else:
            end_val[WEST], end_val[EAST] = lo, hi
        end_open[WEST], end_open[EAST] = True, True
        return lo + hi, sniff_tile, sniff_pending
    pip = end_pip[slot]
    if lo == hi and sniff_tile < 0 and has_sniff:
        end_val[slot] = 0 if spinner else pip
        for e in range(NORTH, LEAD):
            end_pip[e] = pip
            end_val[e] = pip if spinner else 0
            end_open[e] = sides_now
        sniff_tile = tile
        sniff_pending = 0 if sides_now else 1 << slot
    else:
        if lo == hi:
            end_val[slot] = pip if inline else 2 * pip
        else:
            end_pip[slot] = hi if lo == pip else lo
            end_val[slot] = end_pip[slot]
        if sniff_pending >> slot & 1:  # an end of the line reached past the sniff
            sniff_pending &= ~(1 << slot)
            if sniff_pending == 0:
                end_open[NORTH], end_open[SOUTH] = True, True
    if sniff_kind == STUBBY and slot >= NORTH:  # a stubby's side takes one tile only
        end_open[slot] = False
    return end_val[WEST] + end_val[EAST] + end_val[NORTH] + end_val[SOUTH], sniff_tile, sniff_pending


# -- the end of a hand -------------------------------------------------------------------------
def _opponents_pips(pips: Ints, n: int, partnership: int, seat: int) -> int:
    total = 0
    for o in range(n):
        if side_of(o, partnership) != side_of(seat, partnership):
            total += pips[o]
    return total


def _unique_least(values: Ints, n: int, partnership: int) -> int:
    """The first seat with the least value, or -1 when seats of two sides share the least."""
    best = 0
    for s in range(1, n):
        if values[s] < values[best]:
            best = s
    for s in range(n):
        if values[s] == values[best] and side_of(s, partnership) != side_of(best, partnership):
            return -1
    return best


def hand_end_points(mode: int, pips: Ints, tiles_left: Ints, n: int, partnership: int, domino: int,
                    gain: Ints) -> int:
    """The end-of-hand scoring: add each side's points (negative: a subtraction) into
    ``gain[side]``; return the seat that won the hand's bonus or dominoed (-1: none).

    ``pips[s]`` and ``tiles_left[s]`` are what seat ``s`` holds at the end, ``domino`` the seat
    that went out (-1: the hand is blocked), ``mode`` one of ``BONUS_DIV5``, ``SUBTRACT_OWN``,
    ``DOMINO_TAKES_PIPS``, ``BONUS_DIV5_FEWEST``."""
    if mode == SUBTRACT_OWN:  # everyone loses their own pips
        for s in range(n):
            gain[side_of(s, partnership)] -= round5(pips[s])
        return domino
    if mode == DOMINO_TAKES_PIPS:
        if domino >= 0:  # the domino takes the opponents' pips
            gain[side_of(domino, partnership)] += _opponents_pips(pips, n, partnership, domino)
            return domino
        for s in range(n):  # blocked: each seat takes the difference from every heavier opponent
            for o in range(n):
                if side_of(o, partnership) != side_of(s, partnership) and pips[o] > pips[s]:
                    gain[side_of(s, partnership)] += pips[o] - pips[s]
        return domino
    fewest = mode == BONUS_DIV5_FEWEST
    winner = domino
    if winner < 0:  # blocked: the fewest tiles (or the lightest hand) wins, if on one side only
        winner = _unique_least(tiles_left if fewest else pips, n, partnership)
    if winner >= 0:
        opp = _opponents_pips(pips, n, partnership, winner)
        gain[side_of(winner, partnership)] += round5(opp if fewest else opp - pips[winner]) // 5
    return winner


def game_winner(scores: Ints, sides: int, target: int, hands_played: int, max_hands: int) -> int:
    """After a hand: the side that won the game, -1 for a draw, or ``GAME_GOES_ON``. The game is
    won by the one side ahead of all others at ``target`` or more (sides tied for the lead play
    on); a harness's ``max_hands`` (0: none) ends it after that many hands, the side ahead
    winning and a tie for the lead a draw."""
    best, leaders, first = scores[0], 1, 0
    for side in range(1, sides):
        if scores[side] > best:
            best, leaders, first = scores[side], 1, side
        elif scores[side] == best:
            leaders += 1
    if (best >= target and leaders == 1) or (max_hands > 0 and hands_played >= max_hands):
        return first if leaders == 1 else -1
    return GAME_GOES_ON


# -- the lead and the deal ---------------------------------------------------------------------
def heavier(lo: Ints, hi: Ints, a: int, c: int) -> bool:
    """Whether tile ``a`` outranks tile ``c`` for lots and the heaviest lead: more pips, then the
    higher half."""
    pa, pc = lo[a] + hi[a], lo[c] + hi[c]
    return bool(pa > pc or (pa == pc and hi[a] > hi[c]))


def forced_lead_tile(held: Ints, lo: Ints, hi: Ints) -> int:
    """The tile a forced lead plays: the highest double held, else the heaviest tile (-1: none)."""
    best_double, best = -1, -1
    for t in range(len(held)):
        if held[t]:
            if lo[t] == hi[t] and (best_double < 0 or lo[t] > lo[best_double]):
                best_double = t
            if best < 0 or heavier(lo, hi, t, best):
                best = t
    return best_double if best_double >= 0 else best


def highest_double_holder(held: Ints, n: int, lo: Ints, hi: Ints) -> int:
    """The seat holding the highest double (with no double out, the heaviest tile);
    ``held[s][t]`` is 1 where seat ``s`` holds tile ``t``."""
    leader, best_rank, best_tile = -1, -1, -1
    for s in range(n):
        t = forced_lead_tile(held[s], lo, hi)
        rank = 1 if lo[t] == hi[t] else 0
        if leader < 0 or rank > best_rank or (rank == best_rank and heavier(lo, hi, t, best_tile)):
            leader, best_rank, best_tile = s, rank, t
    return leader


def lots_leader(drawn: Ints, n: int, lo: Ints, hi: Ints) -> int:
    """The seat whose lot ``drawn[seat]`` is the heaviest tile: it leads."""
    leader = 0
    for s in range(1, n):
        if heavier(lo, hi, drawn[s], drawn[leader]):
            leader = s
    return leader


def lead_method(hand_index: int, first: int, after: int, last_leader: int, last_domino: int,
                n: int) -> tuple[int, int]:
    """How hand ``hand_index`` finds its leader: ``(method, seat)``. ``first`` and ``after`` are
    the methods of the first hand and of the later ones; a rotation passes the lead on from
    ``last_leader``, the winner's rule gives it to ``last_domino`` (-1: the last hand was blocked,
    and lots decide). ``seat`` is the leader where the method names one, else -1 (the draw or
    the deal decides)."""
    method = first if hand_index == 0 else after
    if method == ROTATE:
        return method, (last_leader + 1) % n
    if method == WINNER_LEADS:
        if last_domino >= 0:
            return method, last_domino
        return LOTS, -1
    return method, -1


def lead_forced(highest_double_lead: int, method: int) -> bool:
    """Whether a hand's leader must lead the highest double (else the heaviest tile): by the
    ``lead_tile`` rule, or because the hand's lead ``method`` is ``HIGHEST_DOUBLE``."""
    return bool(highest_double_lead) or method == HIGHEST_DOUBLE


def dealt_to(position: int, n: int, hand_size: int) -> int:
    """Who gets the tile at ``position`` of the shuffled order: seat ``position // hand_size``
    for the first ``n * hand_size`` tiles, then the boneyard (-1), in draw order."""
    return position // hand_size if position < n * hand_size else -1
