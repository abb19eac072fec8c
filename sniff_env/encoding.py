"""The observation encoder, written once: what each feature of the observation vector is.

:func:`encode_row` writes one seat's observation into a row from plain values: ints and int
sequences (Python lists or tuples, or numpy array views) and float tables. Both engines run it:
:class:`sniff_env.observation.Observer` as Python, over an :class:`~sniff_env.infostate.InfoState`,
and the batched kernels (:mod:`sniff_env.vector.kernels`) compiled, over their state columns; the
count a placement leaves comes from :func:`sniff_env.rulebook.count_after` in both. The code keeps
to the subset of Python that numba compiles and imports nothing heavy.

The layout (which piece starts where) is :class:`~sniff_env.observation.Observer`'s; the float
tables (:class:`Spec`) are built there too, once per rule set, so that every scaled feature is
one table lookup, the same in both engines.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sniff_env.rulebook import count_after, side_of

PIECES = ("hand", "played_by", "end_pip", "end_open", "end_value", "sniff", "count", "lead",
          "hand_sizes", "lacking", "boneyard", "scores", "drawn", "rules", "move_points", "move_count")
"""The observation's pieces, in layout order; ``off[i]`` is where piece ``PIECES[i]`` starts."""
(O_HAND, O_PLAYED_BY, O_END_PIP, O_END_OPEN, O_END_VALUE, O_SNIFF, O_COUNT, O_LEAD, O_HAND_SIZES, O_LACKING,
 O_BONEYARD, O_SCORES, O_DRAWN, O_RULES, O_MOVE_POINTS, O_MOVE_COUNT) = range(len(PIECES))

Ints = Any
"""An int sequence (list, tuple or numpy array): the encoder indexes it and nothing more."""
Floats = Any
"""A float sequence (list or float32 array): likewise."""


class Spec(NamedTuple):
    """What the encoder needs of one rule set (built once, by :class:`~sniff_env.observation.Observer`)."""

    off: Ints
    """Where each piece starts, in the order of :data:`PIECES`."""
    num_players: int
    pips: int
    """``max_pip + 1``."""
    num_sides: int
    partnership: int
    target: int
    sniff_kind: int
    """As :data:`sniff_env.rulebook.SPINNER`, ``STUBBY``, ``NO_SNIFF``."""
    inline_base: int
    """The first action that lays a double in line."""
    draw_action: int
    lo: Ints
    """``lo[t]``, ``hi[t]``: the halves of tile ``t``."""
    hi: Ints
    act_tile: Ints
    """``act_tile[a]``, ``act_slot[a]``: the tile and slot of placement ``a``."""
    act_slot: Ints
    score_tab: Ints
    """``score_tab[c]`` truthy: a count of ``c`` scores."""
    count_val: Floats
    """``count_val[c]``: the feature of a count ``c`` (``count`` and ``move_count``)."""
    points_val: Floats
    """``points_val[c]``: the ``move_points`` feature of a placement leaving count ``c``."""
    tile_frac: Floats
    """``tile_frac[x]``: ``x`` tiles as a fraction of the set (boneyard)."""
    hand_frac: Floats
    """``hand_frac[x]``: ``x`` tiles as a fraction of a dealt hand (hand sizes)."""
    end_frac: Floats
    """``end_frac[v]``: what an end adds to the count, as a fraction of the most it can add."""


class Board(NamedTuple):
    """The layout as the encoder reads it: its ends (pip, value, open; 4 each), the sniff and the
    count (what the ends add up to)."""

    end_pip: Ints
    end_val: Ints
    end_open: Ints
    sniff_tile: int
    sniff_pending: int
    ends_count: int


class Counts(NamedTuple):
    """What every seat may know of the others: per seat ``hand_sizes`` and ``lacking`` (bit mask of
    the pips a seat is known to lack), per side ``scores``, the ``boneyard``'s size and how many
    of its tiles are ``drawable``."""

    hand_sizes: Ints
    lacking: Ints
    scores: Ints
    boneyard: int
    drawable: int


def encode_row(row: Floats, spec: Spec, seat: int, hand: Ints, plays: Ints, seat_of: Ints, board: Board,
               counts: Counts, last_drawn: int, legal: Ints) -> None:
    """Write the observation of ``seat`` into ``row``: every piece but ``rules``, which the row
    already holds. Outside ``hand`` only the cells that may be nonzero are written, so the
    pieces from ``played_by`` to ``drawn`` and the move features must hold zeros on entry (a
    fresh row does; :func:`clear_row` makes a used one ready).

    ``hand[t]`` is 1 where the seat holds tile ``t``, else 0; ``plays`` are the tiles of the hand in
    play order and ``seat_of[t]`` the seat that played tile ``t``; ``board`` is the layout and
    ``counts`` what is known of every seat; ``last_drawn`` the tile the seat drew last this turn
    (-1: none) and ``legal`` its legal actions. Seats are relative to ``seat``, sides to its side."""
    end_pip, end_val, end_open, sniff_tile, sniff_pending, count = board
    hand_sizes, lacking, scores, boneyard, drawable = counts
    off, n, p, lo, hi = spec.off, spec.num_players, spec.pips, spec.lo, spec.hi
    count_val, points_val, hand_frac = spec.count_val, spec.points_val, spec.hand_frac
    o = off[O_HAND]
    for t in range(len(hand)):
        row[o + t] = hand[t]
    o = off[O_PLAYED_BY]
    for t in plays:
        rel = seat_of[t] - seat
        row[o + t * n + (rel + n if rel < 0 else rel)] = 1.0
    if len(plays) > 0:
        has_sniff = sniff_tile >= 0
        for e in range(4):
            if e < 2 or has_sniff:  # the sniff's sides exist once it is down
                row[off[O_END_PIP] + e * p + end_pip[e]] = 1.0
            if end_open[e]:
                row[off[O_END_OPEN] + e] = 1.0
            row[off[O_END_VALUE] + e] = spec.end_frac[end_val[e]]
        if spec.score_tab[count]:
            row[off[O_COUNT] + 1] = 1.0
    else:
        row[off[O_LEAD]] = 1.0
    if sniff_tile < 0:
        row[off[O_SNIFF]] = 1.0
    elif end_open[2] or end_open[3] or sniff_pending == 0:
        row[off[O_SNIFF] + 2] = 1.0
    else:
        row[off[O_SNIFF] + 1] = 1.0
    row[off[O_COUNT]] = count_val[count]
    for s in range(n):
        rel = s - seat
        if rel < 0:
            rel += n
        row[off[O_HAND_SIZES] + rel] = hand_frac[hand_sizes[s]]
        lack = lacking[s]
        if lack:
            o = off[O_LACKING] + rel * p
            for pip in range(p):
                row[o + pip] = lack >> pip & 1
    row[off[O_BONEYARD]] = spec.tile_frac[boneyard]
    row[off[O_BONEYARD] + 1] = spec.tile_frac[max(0, drawable)]
    sides = spec.num_sides
    own = side_of(seat, spec.partnership)
    for side in range(sides):
        rel = side - own
        row[off[O_SCORES] + (rel + sides if rel < 0 else rel)] = scores[side] / spec.target
    if last_drawn >= 0:
        row[off[O_DRAWN] + last_drawn] = 1.0
    o_points, o_count = off[O_MOVE_POINTS], off[O_MOVE_COUNT]
    draw, inline_base, act_tile, act_slot = spec.draw_action, spec.inline_base, spec.act_tile, spec.act_slot
    for a in legal:
        if a == draw:
            continue
        tile = act_tile[a]
        after = count_after(end_pip, end_val, sniff_tile, lo[tile], hi[tile], act_slot[a], a >= inline_base,
                            spec.sniff_kind)
        row[o_count + a] = count_val[after]
        row[o_points + a] = points_val[after]


def clear_row(row: Floats, spec: Spec, shown: Ints) -> None:
    """Make a row (a float32 array) that holds an earlier observation ready for
    :func:`encode_row`: zero the pieces from ``played_by`` to ``drawn`` and the move features
    of the actions ``shown`` (the legal actions that observation showed; no other is nonzero)."""
    off = spec.off
    row[off[O_PLAYED_BY]:off[O_RULES]] = 0.0  # one fill: a loop of stores costs the kernels ~10%
    o_points, o_count = off[O_MOVE_POINTS], off[O_MOVE_COUNT]
    for a in shown:
        row[o_points + a] = 0.0
        row[o_count + a] = 0.0
