"""Bradley-Terry ratings and Wilson intervals."""

from __future__ import annotations

import numpy as np

from sniff_env.evaluation.ratings import fit_ratings, wilson_interval


def test_ratings_recover_a_known_order() -> None:
    rng = np.random.default_rng(0)
    true = np.array([-300.0, -100.0, 0.0, 150.0, 400.0])
    k = len(true)
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = 1.0 / (1.0 + 10 ** ((true[j] - true[i]) / 400.0))
            w = rng.binomial(2000, p)
            wins[i, j], wins[j, i] = w, 2000 - w
    fitted = fit_ratings(wins)
    assert list(np.argsort(fitted)) == list(range(k))
    assert np.allclose(fitted, true - true.mean(), atol=40)
    assert abs(fitted.mean()) < 1e-9


def test_ratings_stay_finite_for_a_clean_sweep() -> None:
    fitted = fit_ratings(np.array([[0.0, 100.0], [0.0, 0.0]]))
    assert np.all(np.isfinite(fitted)) and fitted[0] > fitted[1]


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(50, 100)
    assert lo < 0.5 < hi and abs((lo + hi) / 2 - 0.5) < 1e-12
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] > 0.9999
    lo, hi = wilson_interval(950, 1000)
    assert 0.93 < lo < 0.95 < hi < 0.97
