"""Exact play over a :class:`~sniff_env.evaluation.solved.tree.GameTree`: CFR+, best responses,
NashConv and the exact result of any two strategies.

Strategies are *profiles*: one probability per information-set action, both seats in one array
(:func:`profile_of` makes one from a player). The game solved is one hand for the win: +1 to the
seat with more points at the end, -1 to the other, 0 on a tie; :meth:`Solver.result` also gives
the exact points margin.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from sniff_env.evaluation.solved import kernels as k
from sniff_env.evaluation.solved.tree import GameTree


@dataclass(frozen=True)
class Result:
    """The exact outcome of seat strategies ``a`` against ``b``, averaged over both seatings, from ``a``'s side."""

    win: float
    tie: float
    loss: float
    margin: float
    """Expected points of ``a`` less those of ``b``."""

    @property
    def win_rate(self) -> float:
        """Wins plus half the ties (the project's duplicate-game win rate)."""
        return self.win + 0.5 * self.tie

    def to_json(self) -> dict[str, float]:
        return {"win_rate": round(self.win_rate, 5), "win": round(self.win, 5), "tie": round(self.tie, 5),
                "loss": round(self.loss, 5), "margin": round(self.margin, 4)}


class Solver:
    """The arrays and work space of one tree, and the exact computations over them."""

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        t = tree
        self.reward = np.sign(t.margin)
        """The solved game's payoff: seat 0 wins (+1), loses (-1) or ties (0) the hand."""
        self.win0 = (t.margin > 0).astype(float)
        self.tie = (t.margin == 0).astype(float)
        self.action_owner = np.repeat(t.owner, np.diff(t.offset)).astype(np.int8)
        nodes, acts = t.nodes, int(t.actions.size)
        self.reach = k.Reach(np.zeros(nodes), np.zeros(nodes), np.zeros(nodes, np.int32))
        self.value = np.zeros(nodes)
        self.q = np.zeros(acts)
        self.shape = k.Shape(t.kind, t.infoset, t.first, t.degree, t.child, t.prob, t.owner, t.offset)

    def uniform(self) -> np.ndarray:
        """The profile that picks uniformly among the legal moves everywhere."""
        sizes = np.diff(self.tree.offset)
        return np.repeat(1.0 / sizes, sizes)

    def combine(self, seat0: np.ndarray, seat1: np.ndarray) -> np.ndarray:
        """The profile playing ``seat0``'s strategy in seat 0 and ``seat1``'s in seat 1."""
        return np.where(self.action_owner == 0, seat0, seat1)

    def value_of(self, profile: np.ndarray, util: np.ndarray | None = None) -> float:
        """The expected ``util`` (default: the reward) of seat 0 under ``profile``."""
        return float(k.profile_value(self.shape, self.reward if util is None else util, profile, self.value))

    def best_response(self, profile: np.ndarray, seat: int, util: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """``seat``'s best response to the other seat's part of ``profile``, for ``util`` (default:
        the reward): its value for ``seat`` and its action index in each information set (-1
        where ``seat`` does not move)."""
        t = self.tree
        util = self.reward if util is None else util
        k.reach_down(self.shape, profile, seat, self.reach)
        best = np.zeros(t.infosets, np.int32)
        mine = t.owner == seat
        levels = np.full(t.infosets, -1, np.int32)
        decisions = t.kind == k.DECISION
        levels[t.infoset[decisions]] = self.reach.depth[decisions]
        for level in range(int(levels.max(initial=-1)), -1, -1):
            self.q[:] = 0.0
            k.best_response_level(self.shape, util, profile, seat, level, self.reach, best, self.q, self.value)
            at = np.flatnonzero(mine & (levels == level))
            for i in at:
                a0, a1 = t.offset[i], t.offset[i + 1]
                best[i] = int(np.argmax(self.q[a0:a1]))
        v = k.best_response_level(self.shape, util, profile, seat, -1, self.reach, best, self.q, self.value)
        best[~mine] = -1
        return float(v), best

    def pure(self, best: np.ndarray, seat: int, base: np.ndarray) -> np.ndarray:
        """``base`` with ``seat`` playing the action indices ``best``."""
        out = base.copy()
        t = self.tree
        for i in np.flatnonzero(t.owner == seat):
            a0, a1 = t.offset[i], t.offset[i + 1]
            out[a0:a1] = 0.0
            out[a0 + best[i]] = 1.0
        return out

    def nash_conv(self, profile: np.ndarray) -> float:
        """What best responses gain over ``profile``, summed over the seats (0 at an equilibrium)."""
        b0, _ = self.best_response(profile, 0)
        b1, _ = self.best_response(profile, 1)
        return b0 + b1

    def result(self, a: np.ndarray, b: np.ndarray) -> Result:
        """``a`` against ``b`` (profiles; each plays its own seat's part), both seatings averaged."""
        out = np.zeros(4)
        for seat_a in (0, 1):
            prof = self.combine(a, b) if seat_a == 0 else self.combine(b, a)
            w = self.value_of(prof, self.win0)
            ti = self.value_of(prof, self.tie)
            m = self.value_of(prof, self.tree.margin)
            lose = 1.0 - w - ti
            out += (w, ti, lose, m) if seat_a == 0 else (lose, ti, w, -m)
        out /= 2
        return Result(*(float(x) for x in out))

    def best_response_to(self, b: np.ndarray, points: bool = False) -> np.ndarray:
        """A best response to ``b`` in both seats, as a profile: for the win, or with ``points``
        for the points margin."""
        util = self.tree.margin if points else None
        _, best0 = self.best_response(b, 0, util)
        _, best1 = self.best_response(b, 1, util)
        return self.pure(best1, 1, self.pure(best0, 0, b))

    def cfr_plus(self, checkpoints: Iterable[int], target: float = 0.0,
                 report: Callable[[int, float, float], None] | None = None) -> tuple[np.ndarray, list[dict[str, float]]]:
        """CFR+ (alternating updates, regret matching+, linear averaging) for up to the last of
        ``checkpoints`` iterations, stopping at the first checkpoint whose average profile's
        NashConv is at most ``target``. Returns the average profile and the curve (iterations,
        NashConv, seconds) at each checkpoint; ``report`` hears each point."""
        t = self.tree
        acts = int(t.actions.size)
        regret, average, delta = np.zeros(acts), np.zeros(acts), np.zeros(acts)
        profile = self.uniform()
        curve: list[dict[str, float]] = []
        start, done = time.perf_counter(), 0
        for stop in sorted(set(checkpoints)):
            while done < stop:
                done += 1
                for seat in (0, 1):
                    k.regret_matching(t.owner, t.offset, regret, seat, profile)
                    k.reach_down(self.shape, profile, seat, self.reach)
                    k.cfr_plus_update(self.shape, self.reward, profile, seat, float(done), self.reach, self.value, delta,
                                      regret, average)
            avg = self.normalise(average)
            conv = self.nash_conv(avg)
            secs = time.perf_counter() - start
            curve.append({"iterations": done, "nash_conv": float(f"{conv:.4g}"), "seconds": round(secs, 1)})
            if report is not None:
                report(done, conv, secs)
            if conv <= target:
                break
        return self.normalise(average), curve

    def normalise(self, weights: np.ndarray) -> np.ndarray:
        """Per information set, ``weights`` as probabilities (uniform where all are 0)."""
        t = self.tree
        sums = np.add.reduceat(weights, t.offset[:-1])
        sizes = np.diff(t.offset)
        sums_rep, sizes_rep = np.repeat(sums, sizes), np.repeat(sizes, sizes)
        safe = np.where(sums_rep > 0, sums_rep, 1.0)
        return np.where(sums_rep > 0, weights / safe, 1.0 / sizes_rep)
