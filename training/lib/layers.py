"""Layers the networks share."""

from __future__ import annotations

from torch import nn


def linear_layer(n_in: int, n_out: int, gain: float) -> nn.Linear:
    """A linear layer with orthogonal weights of ``gain`` and zero bias (the usual policy-gradient init)."""
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer
