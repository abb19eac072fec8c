"""Batched simulation: many Sniff games stepped at once by compiled kernels (needs numba).

:class:`SniffVectorEnv` is the interface for training; :class:`VectorEngine` the bare batched
state and transitions it is built on; :func:`compiled` the decorator that compiles (and caches)
kernels of one's own over them.
"""

from __future__ import annotations

from ._compile import CACHE_DIR, cache_is_empty, compiled, quiet_announcement
from .engine import VectorEngine
from .env import SniffVectorEnv

__all__ = ["CACHE_DIR", "SniffVectorEnv", "VectorEngine", "cache_is_empty", "compiled", "quiet_announcement"]
