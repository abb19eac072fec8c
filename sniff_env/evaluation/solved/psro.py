"""PSRO with exact best responses over a solved tree (extensive-form double oracle).

The population starts with the uniform strategy. Each round solves the meta-game among the
population (each strategy plays both seats; a strategy's payoff against another is the average
of its two seatings, so the meta-game is symmetric and zero-sum), mixes the population by the
meta-equilibrium's weights into one behaviour strategy (realization-weighted: at each information
set each member counts by the chance its own moves lead there), and adds an exact best
response to that mixture. The mixture's NashConv after each round is the curve.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from sniff_env.evaluation.solved import kernels as k
from sniff_env.evaluation.solved.solver import Solver


def meta_equilibrium(payoff: np.ndarray, iterations: int = 20_000) -> np.ndarray:
    """An approximate equilibrium of the symmetric zero-sum matrix game ``payoff`` (row player's
    payoff), by regret matching+ with linear averaging."""
    n = payoff.shape[0]
    regret, average = np.zeros(n), np.zeros(n)
    for t in range(1, iterations + 1):
        pos = np.maximum(regret, 0.0)
        x = pos / pos.sum() if pos.sum() > 0 else np.full(n, 1.0 / n)
        values = payoff @ x
        regret = np.maximum(regret + values - x @ values, 0.0)
        average += t * x
    return average / average.sum()


def own_reach(solver: Solver, profile: np.ndarray) -> np.ndarray:
    """Per information set, the chance that its owner's own moves under ``profile`` lead there."""
    t = solver.tree
    out = np.zeros(t.infosets)
    decisions = np.flatnonzero(t.kind == k.DECISION)
    for seat in (0, 1):
        k.reach_down(solver.shape, profile, seat, solver.reach)
        mine = decisions[t.owner[t.infoset[decisions]] == seat]
        out[t.infoset[mine]] = solver.reach.own[mine]
    return out


def mixture(solver: Solver, members: list[np.ndarray], reaches: list[np.ndarray], weights: np.ndarray) -> np.ndarray:
    """The behaviour strategy that plays like choosing one member by ``weights`` before the deal."""
    sizes = np.diff(solver.tree.offset)
    num = np.zeros_like(members[0])
    den = np.zeros(sizes.size)
    for w, m, r in zip(weights, members, reaches, strict=True):
        if w <= 0:
            continue
        num += w * np.repeat(r, sizes) * m
        den += w * r
    den_rep = np.repeat(den, sizes)
    return np.where(den_rep > 0, num / np.where(den_rep > 0, den_rep, 1.0), 1.0 / np.repeat(sizes, sizes))


def psro(solver: Solver, rounds: int, report: Callable[[int, float, float], None] | None = None
         ) -> tuple[np.ndarray, list[dict[str, float]]]:
    """``rounds`` of PSRO (see the module docstring): the last mixture and the curve (round,
    population size, NashConv, seconds)."""
    start = time.perf_counter()
    members = [solver.uniform()]
    reaches = [own_reach(solver, members[0])]
    payoff = np.zeros((1, 1))
    curve: list[dict[str, float]] = []
    mixed = members[0]
    for r in range(1, rounds + 1):
        weights = meta_equilibrium(payoff)
        mixed = mixture(solver, members, reaches, weights)
        conv = solver.nash_conv(mixed)
        secs = time.perf_counter() - start
        curve.append({"round": r, "population": len(members), "nash_conv": float(f"{conv:.4g}"),
                      "seconds": round(secs, 1)})
        if report is not None:
            report(r, conv, secs)
        new = solver.best_response_to(mixed)
        row = np.array([_payoff(solver, new, m) for m in members])
        payoff = np.block([[payoff, -row[:, None]], [row[None, :], np.zeros((1, 1))]])
        members.append(new)
        reaches.append(own_reach(solver, new))
    return mixed, curve


def _payoff(solver: Solver, a: np.ndarray, b: np.ndarray) -> float:
    """``a``'s expected payoff against ``b``, both seatings averaged."""
    return 0.5 * (solver.value_of(solver.combine(a, b)) - solver.value_of(solver.combine(b, a)))
