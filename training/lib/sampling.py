"""Drawing actions from masked logits over each game's short list of legal actions.

A game has a handful of legal placements out of ``num_actions``; the compiled sampler reads only
those (the engine's ``legal`` lists), so one call costs a few operations per game instead of a
softmax over every action. It draws from exactly the distribution of ``torch.multinomial`` over
the masked softmax (inverse transform over the legal list, one uniform number per row from the
trainer's generator), and returns each draw's log-probability in float64 arithmetic.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np
import torch


@nb.njit(cache=True, nogil=True)
def sample_legal(logits: np.ndarray, games: np.ndarray, legal: np.ndarray, nlegal: np.ndarray, u: np.ndarray,
                 actions: np.ndarray, logp: np.ndarray) -> None:  # pragma: no cover - compiled
    """For each row ``r`` (game ``games[r]``): an action drawn from the softmax of ``logits[r]``
    over that game's legal list ``legal[g, :nlegal[g]]`` by the uniform number ``u[r]``, into
    ``actions[r]``, and its log-probability into ``logp[r]``."""
    for r in range(games.size):
        g = games[r]
        k = nlegal[g]
        top = -np.inf
        for j in range(k):
            x = logits[r, legal[g, j]]
            top = max(top, x)
        total = 0.0
        for j in range(k):
            total += math.exp(logits[r, legal[g, j]] - top)
        target = u[r] * total
        acc = 0.0
        pick = k - 1
        for j in range(k):
            acc += math.exp(logits[r, legal[g, j]] - top)
            if acc > target:
                pick = j
                break
        a = legal[g, pick]
        actions[r] = a
        logp[r] = logits[r, a] - top - math.log(total)


def draw(logits: torch.Tensor, games: np.ndarray, legal: np.ndarray, nlegal: np.ndarray,
         sampler: torch.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Actions (int64) and their log-probabilities (float32) for the rows of CPU ``logits``
    (row ``r`` for game ``games[r]``), one uniform number per row from ``sampler``."""
    rows = games.size
    u = torch.rand(rows, generator=sampler, dtype=torch.float64).numpy()
    actions = np.empty(rows, np.int64)
    logp = np.empty(rows, np.float64)
    sample_legal(logits.detach().numpy(), games, legal, nlegal, u, actions, logp)
    return actions, logp.astype(np.float32)
