"""The compiled players' random numbers: splitmix64 over an explicit 64-bit state that the caller
seeds (a one-cell ``uint64`` array), so that a search's draws depend on its seed alone."""

from __future__ import annotations

from typing import Any

import numpy as np

from sniff_env.vector import compiled

_inline = compiled(inline=True)


def mix64(z: Any) -> Any:
    """splitmix64's finaliser: 64 well-mixed bits of ``z``, a ``uint64`` or an array of them
    (wrapping as unsigned arithmetic does; numpy warns of the overflow unless told not to)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


_mix64 = _inline(mix64)


@_inline
def _next(state: np.ndarray) -> np.uint64:
    """splitmix64: advance ``state[0]`` and return the next 64 random bits."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    bits: np.uint64 = _mix64(state[0])
    return bits


@_inline
def below(state: np.ndarray, n: int) -> int:
    """A random whole number from 0 to ``n - 1`` from the splitmix64 state ``state[0]``."""
    return int(_next(state) % np.uint64(n))


@_inline
def uniform(state: np.ndarray) -> float:
    """A random number in [0, 1) from the splitmix64 state ``state[0]``."""
    return float(_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@_inline
def shuffle(a: np.ndarray, first: int, end: int, rng: np.ndarray) -> None:
    """Shuffle ``a[first:end]`` in place (Fisher-Yates, from its end)."""
    for i in range(end - 1, first, -1):
        j = first + below(rng, i - first + 1)
        a[i], a[j] = a[j], a[i]
