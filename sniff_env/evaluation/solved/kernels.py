"""Compiled passes over a :class:`~sniff_env.evaluation.solved.tree.GameTree`'s arrays.

A *profile* is one probability per information-set action (``tree.actions``' layout): both
seats' strategies in one array. Reach probabilities go down the tree in node order and values
come up in reverse order (the nodes are numbered depth first). Values are in the units of the
``util`` array handed in (one number per node, read at terminals, from seat 0's side; seat 1
gets its negation: the game is zero-sum).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sniff_env.vector import compiled

TERMINAL, CHANCE, DECISION = 0, 1, 2


class Shape(NamedTuple):
    """The tree's structure as the passes read it (:class:`~sniff_env.evaluation.solved.tree.GameTree`'s
    arrays): per node its kind, information set, first edge and number of edges; per edge its child
    and chance probability; per information set its owner and first action."""

    kind: np.ndarray
    infoset: np.ndarray
    first: np.ndarray
    degree: np.ndarray
    child: np.ndarray
    prob: np.ndarray
    owner: np.ndarray
    offset: np.ndarray


class Reach(NamedTuple):
    """Per node, for one seat: ``own`` the product of its probabilities on the way there, ``other``
    that of chance and the other seat, ``depth`` how many of its decisions come before it."""

    own: np.ndarray
    other: np.ndarray
    depth: np.ndarray


@compiled(inline=True)
def expected(n: int, tree: Shape, weights: np.ndarray, w0: int, value: np.ndarray) -> float:
    """Node ``n``'s children's values weighted by ``weights[w0:]`` (chance probabilities or a
    profile's probabilities, one per edge in order)."""
    e0 = tree.first[n]
    v = 0.0
    for j in range(tree.degree[n]):
        v += weights[w0 + j] * value[tree.child[e0 + j]]
    return v


@compiled()
def reach_down(tree: Shape, profile: np.ndarray, seat: int, reach: Reach) -> None:
    """Fill ``reach`` for ``seat`` under ``profile``."""
    kind, infoset, first, degree, child, prob, owner, offset = tree
    own, other, depth = reach
    own[0] = 1.0
    other[0] = 1.0
    depth[0] = 0
    for n in range(kind.size):
        k = kind[n]
        if k == TERMINAL:
            continue
        s, o, d, e0 = own[n], other[n], depth[n], first[n]
        if k == CHANCE:
            for j in range(degree[n]):
                c = child[e0 + j]
                own[c] = s
                other[c] = o * prob[e0 + j]
                depth[c] = d
            continue
        i = infoset[n]
        a0 = offset[i]
        mine = owner[i] == seat
        for j in range(degree[n]):
            c = child[e0 + j]
            p = profile[a0 + j]
            if mine:
                own[c] = s * p
                other[c] = o
                depth[c] = d + 1
            else:
                own[c] = s
                other[c] = o * p
                depth[c] = d


@compiled()
def regret_matching(owner: np.ndarray, offset: np.ndarray, regret: np.ndarray, seat: int, profile: np.ndarray) -> None:
    """``seat``'s part of ``profile``: each information set's positive regrets, normalised (uniform
    where none is positive)."""
    for i in range(owner.size):
        if owner[i] != seat:
            continue
        a0, a1 = offset[i], offset[i + 1]
        total = 0.0
        for a in range(a0, a1):
            if regret[a] > 0.0:
                total += regret[a]
        for a in range(a0, a1):
            if total > 0.0:
                profile[a] = regret[a] / total if regret[a] > 0.0 else 0.0
            else:
                profile[a] = 1.0 / (a1 - a0)


@compiled()
def cfr_plus_update(tree: Shape, util: np.ndarray, profile: np.ndarray, seat: int, weight: float, reach: Reach,
                    value: np.ndarray, delta: np.ndarray, regret: np.ndarray, average: np.ndarray) -> float:
    """One CFR+ update of ``seat`` against ``profile`` (its ``reach`` already filled): its regrets
    grow by the counterfactual regrets of this iteration and are floored at 0, and its average
    strategy gains ``weight`` times its reach-weighted current strategy. Returns the profile's
    value for ``seat``."""
    kind, infoset, first, degree, child, prob, owner, offset = tree
    own, other = reach.own, reach.other
    sign = 1.0 if seat == 0 else -1.0
    for a in range(delta.size):
        delta[a] = 0.0
    for n in range(kind.size - 1, -1, -1):
        k = kind[n]
        if k == TERMINAL:
            value[n] = sign * util[n]
            continue
        e0 = first[n]
        if k == CHANCE:
            value[n] = expected(n, tree, prob, e0, value)
            continue
        i = infoset[n]
        a0 = offset[i]
        v = value[n] = expected(n, tree, profile, a0, value)
        if owner[i] == seat:
            o, s = other[n], own[n]
            for j in range(degree[n]):
                delta[a0 + j] += o * (value[child[e0 + j]] - v)
                average[a0 + j] += weight * s * profile[a0 + j]
    for i in range(owner.size):
        if owner[i] == seat:
            for a in range(offset[i], offset[i + 1]):
                r = regret[a] + delta[a]
                regret[a] = max(0.0, r)
    return value[0]


@compiled()
def profile_value(tree: Shape, util: np.ndarray, profile: np.ndarray, value: np.ndarray) -> float:
    """The expected ``util`` (seat 0's side) when both seats play ``profile``."""
    kind, infoset, first, prob, offset = tree.kind, tree.infoset, tree.first, tree.prob, tree.offset
    for n in range(kind.size - 1, -1, -1):
        k = kind[n]
        if k == TERMINAL:
            value[n] = util[n]
            continue
        if k == CHANCE:
            value[n] = expected(n, tree, prob, first[n], value)
        else:
            value[n] = expected(n, tree, profile, offset[infoset[n]], value)
    return value[0]


@compiled()
def best_response_level(tree: Shape, util: np.ndarray, profile: np.ndarray, seat: int, level: int, reach: Reach,
                        best: np.ndarray, q: np.ndarray, value: np.ndarray) -> float:
    """One level of a best response of ``seat`` to ``profile``: below ``level`` (by ``depth``)
    ``seat`` plays its chosen actions ``best`` (an action index per information set); at
    ``level`` each information set's action values, weighted by the others' reach, are summed
    into ``q``. With ``level`` -1 every decision of ``seat`` plays ``best``, and the return value
    is the best response's value for ``seat`` (``reach``: its other and depth are read)."""
    kind, infoset, first, degree, child, prob, owner, offset = tree
    other, depth = reach.other, reach.depth
    sign = 1.0 if seat == 0 else -1.0
    for n in range(kind.size - 1, -1, -1):
        k = kind[n]
        if k == TERMINAL:
            value[n] = sign * util[n]
            continue
        e0 = first[n]
        if k == CHANCE:
            value[n] = expected(n, tree, prob, e0, value)
            continue
        i = infoset[n]
        a0 = offset[i]
        if owner[i] != seat:
            value[n] = expected(n, tree, profile, a0, value)
        elif depth[n] > level:
            value[n] = value[child[e0 + best[i]]]
        elif depth[n] == level:
            o = other[n]
            for j in range(degree[n]):
                q[a0 + j] += o * value[child[e0 + j]]
            value[n] = 0.0
        else:
            value[n] = 0.0
    return value[0]
