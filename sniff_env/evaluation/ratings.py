"""Confidence intervals and Bradley-Terry ratings fitted to pairwise results."""

from __future__ import annotations

import math

import numpy as np

ELO_SCALE = 400.0 / math.log(10.0)


def wilson_interval(successes: float, trials: float, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a proportion; draws may count as halves."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def fit_ratings(wins: np.ndarray, prior: float = 1.0, iterations: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths on the Elo scale (mean 0) from ``wins[i, j]``, the games i won
    against j (a draw counts half to each).

    The MM algorithm (Hunter, 2004). ``prior`` adds that many virtual games, split evenly,
    between every pair that met, so a player who won every game still gets a finite rating.
    """
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    if w.shape != (k, k):
        raise ValueError(f"wins must be a square matrix; got shape {w.shape}")
    games = w + w.T
    met = games > 0
    w = w + np.where(met, prior / 2.0, 0.0)
    games = w + w.T
    total_wins = w.sum(axis=1)
    strength = np.ones(k)
    for _ in range(iterations):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1.0), strength)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(new - strength)) < tol:
            strength = new
            break
        strength = new
    elo: np.ndarray = ELO_SCALE * np.log(strength)
    centred: np.ndarray = elo - elo.mean()
    return centred
