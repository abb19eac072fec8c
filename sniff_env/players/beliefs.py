"""What a seat may infer from the others' plays: the evidence a sampled deal is weighed by.

A seat that could have scored more and did not probably lacked the tile. Under a simple model
of the others (a seat lays tile ``y`` with odds ``exp(beta * points(y))``, ``points(y)`` the
most ``y`` would have scored on the layout it faced), the deals of the unseen tiles are not all
alike: one that gives another seat a tile it would rather have played is less likely. For each
play of another seat whose hand at the time is known from its hand now (no tile can have
entered it since, :func:`known_hands`), :func:`evidence` tabulates that model, and a search keeps a sampled deal
with probability

    prod_k  C_k / (C_k + sum over the tiles t the deal gives seat s_k of E_k[t])

where ``E_k[t] = exp(beta * points_k(t))`` for a tile that fitted the layout of play ``k`` (else
0; :func:`tile_points`) and ``C_k`` is that sum over the tiles the seat has played since, the
played one included (all odds of play ``k`` are divided by those of its best tile, which
changes no ratio and keeps them finite).
The product is the likelihood of the seat's plays given the deal, over its largest value, so
keeping deals with it samples the posterior (see :class:`~sniff_env.players.compiled.rollouts.RolloutSearch`).

Only the seat's information state is read: the plays, the layout and the hand sizes are public.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from sniff_env import rulebook
from sniff_env.actions import LEAD, ActionCodec, action_codec
from sniff_env.infostate import InfoState
from sniff_env.layout import Layout
from sniff_env.tiles import tile_set


class Evidence(NamedTuple):
    """The plays a deal is weighed by: for each, the seat that made it, ``C_k`` and ``E_k``."""

    seats: np.ndarray
    """``[K]`` int64: the seat of each play."""
    known: np.ndarray
    """``[K]`` float64: ``C_k``, the odds of the tiles known to have been in that seat's hand."""
    odds: np.ndarray
    """``[K, T]`` float64: ``E_k[t]``, the odds of laying tile ``t`` then (0 where it did not fit)."""


def no_evidence(num_tiles: int = 0) -> Evidence:
    """Evidence of nothing: every deal kept."""
    return Evidence(np.zeros(0, np.int64), np.zeros(0, np.float64), np.zeros((0, num_tiles), np.float64))


def checked_sharpness(beta: object) -> float:
    """``beta`` if it is a finite number from 0 to 10, else a ValueError saying so."""
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not math.isfinite(beta) \
            or not 0 <= beta <= 10:
        raise ValueError(f"infer must be a number from 0 (no inference) to 10 (odds per point of the others' "
                         f"plays); got {beta!r}")
    return float(beta)


def evidence(state: InfoState, beta: float) -> Evidence:
    """The evidence in ``state``'s plays for the search of ``state.seat`` (see the module); none
    when ``beta`` is 0 or when the plays cannot be replayed as laid (a double laid in line)."""
    rules, T = state.rules, tile_set(state.rules.max_pip).size
    beta = checked_sharpness(beta)
    if beta == 0 or not state.plays:
        return no_evidence(T)
    layouts = layouts_before(state)
    if layouts is None:
        return no_evidence(T)
    codec = action_codec(rules.max_pip)
    known = known_hands(state)
    unseen = [t for t in range(T) if state.unseen_mask >> t & 1]
    seats, held, rows = [], [], []
    for k, (_tile, seat, slot) in enumerate(state.plays):
        if seat == state.seat or slot == LEAD or not known[k]:
            continue
        before = layouts[k]
        points = np.full(T, -1.0)
        for t in unseen:
            points[t] = tile_points(before, codec, t)
        later = [tile for tile, s, _ in state.plays[k:] if s == seat]
        mine = np.array([tile_points(before, codec, t) for t in later], np.float64)
        top = max(points.max(), mine.max())  # odds relative to the best, so that none overflows
        odds = np.where(points >= 0, np.exp(beta * (points - top)), 0.0)
        seats.append(seat)
        held.append(float(np.exp(beta * (mine[mine >= 0] - top)).sum()))
        rows.append(odds)
    if not seats:
        return no_evidence(T)
    return Evidence(np.asarray(seats, np.int64), np.asarray(held, np.float64), np.stack(rows))


def layouts_before(state: InfoState) -> list[Layout] | None:
    """The layout before each of ``state``'s plays, replayed from the empty layout; None when
    the replay does not reach ``state``'s layout (the plays do not record a double laid in line)."""
    codec = action_codec(state.rules.max_pip)
    layouts, layout = [], Layout(state.rules)
    for tile, _seat, slot in state.plays:
        layouts.append(layout)
        layout = layout.place(codec.encode(tile, slot))
    return layouts if layout == Layout.of(state) else None


def known_hands(state: InfoState) -> list[bool]:
    """For each play, whether its seat's hand then is known from its hand now: no tile can have
    entered that hand since. A seat that has drawn nothing this hand (its hand size, plays and
    the deal's size tell) held then its hand now and what it has laid since; one that has drawn
    is known so at its latest play only if it is the latest play and the seat has not passed
    since (a seat draws only in its own turns, which end in a play or a pass)."""
    rules, plays, n = state.rules, state.plays, state.rules.num_players
    laid = [0] * n
    for _tile, seat, _slot in plays:
        laid[seat] += 1
    drew = [state.hand_sizes[s] + laid[s] - (rules.hand_size or 0) for s in range(n)]
    last = len(plays) - 1
    return [drew[seat] == 0 or (k == last and state.passes < n) for k, (_tile, seat, _slot) in enumerate(plays)]


def tile_points(layout: Layout, codec: ActionCodec, tile: int) -> int:
    """The most ``tile`` would score on ``layout`` (a double laid across), -1 if it fits no open end."""
    lo, hi = tile_set(layout.rules.max_pip).tiles[tile]
    return max((layout.points_after(codec.encode(tile, slot)) for slot in range(LEAD)
                if rulebook.fits(layout.end_pip, layout.end_open, slot, lo, hi)), default=-1)
