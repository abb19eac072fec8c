"""What only training may see: the hidden tiles, for a critic that reads the whole deal and for a
head that learns to guess where the unseen tiles are.

The actor (the policy that is exported and played) reads the seat's observation only. Two
training-time additions may read more, as PerfectDou's critic does:

* ``--critic full``: the value that advantages are computed from comes from a separate network,
  :class:`FullCritic`, over the observation and the *hidden view*: every other seat's hand (in
  turn order from the mover) and the boneyard's tiles, read from the batched engine's arrays
  (:func:`hidden_view`). It is never exported.
* ``--aux-tiles W``: a head on the actor's trunk, :class:`TileGuess`, predicts for each tile the
  mover cannot see where it is (each other seat, or the boneyard), trained by cross-entropy on the
  true deal with weight ``W``. It shapes the trunk's features; the exported policy leaves it out.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from training.lib.layers import linear_layer

CRITICS = ("seat", "full")
"""``seat``: the actor's own value head, on the observation; ``full``: :class:`FullCritic`."""


def hidden_size(num_players: int, num_tiles: int) -> int:
    """The width of a hidden view: a row of tiles per other seat, and one for the boneyard."""
    return num_players * num_tiles


def hidden_view(engine: object, rows: np.ndarray) -> np.ndarray:
    """``[len(rows), n * T]`` uint8: for the seat to act in each game of ``rows``, every other
    seat's tiles (1 where it holds the tile), in turn order from the mover, then the boneyard's."""
    eng = engine
    hands, bone = eng.hands, eng.bone  # type: ignore[attr-defined]
    k, n, T = rows.size, hands.shape[1], hands.shape[2]
    seat = eng.turn[rows]  # type: ignore[attr-defined]
    order = (seat[:, None] + np.arange(1, n)) % n
    out = np.zeros((k, n, T), np.uint8)
    out[:, : n - 1] = hands[rows[:, None], order]
    at = np.arange(bone.shape[1])
    live = (at >= eng.boneyard_first[rows][:, None]) & (at < eng.boneyard_end[rows][:, None])  # type: ignore[attr-defined]
    which, place = np.nonzero(live)
    out[which, n - 1, bone[rows][which, place]] = 1
    return out.reshape(k, n * T)


class FullCritic(nn.Module):
    """The value of a decision from its observation and hidden view (two hidden layers)."""

    def __init__(self, obs_size: int, hidden_width: int, units: int = 256) -> None:
        super().__init__()
        g = 2.0**0.5
        self.body = nn.Sequential(linear_layer(obs_size + hidden_width, units, g), nn.ReLU(),
                                  linear_layer(units, units, g), nn.ReLU(), linear_layer(units, 1, 1.0))

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        return self.body(torch.cat([obs, hidden.to(obs.dtype)], 1)).squeeze(-1)


class TileGuess(nn.Module):
    """From the actor's trunk features: per tile, logits over where it is (``n - 1`` other
    seats in turn order, then the boneyard)."""

    def __init__(self, features: int, num_players: int, num_tiles: int) -> None:
        super().__init__()
        self.num_players, self.num_tiles = num_players, num_tiles
        self.head = linear_layer(features, num_players * num_tiles, 0.01)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.head(h).view(-1, self.num_tiles, self.num_players)


def tile_guess_loss(guess: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of ``guess`` (``[B, T, n]`` logits) against where each unseen tile is
    in ``hidden`` (hidden views); tiles the mover sees (its own, those played) do not count."""
    B, T, n = guess.shape
    where = hidden.view(B, n, T).transpose(1, 2).float()  # [B, T, n], one 1 per unseen tile
    unseen = where.sum(-1) > 0
    if not bool(unseen.any()):
        return guess.sum() * 0.0
    return nn.functional.cross_entropy(guess[unseen], where[unseen].argmax(-1))
