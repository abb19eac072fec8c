"""The batched engine: many Sniff games stepped at once by compiled kernels (needs numba).

:class:`VectorEngine` holds the games' state as arrays and moves them together; :func:`compiled`
is the decorator that compiles (and caches) kernels of one's own over them. The environments
built on it (:class:`sniff_env.envs.SniffVectorEnv`, the Gymnasium vector env) live in
:mod:`sniff_env.envs`, and the players compiled over it in :mod:`sniff_env.players.compiled`.
"""

from __future__ import annotations

from sniff_env.vector._compile import CACHE_DIR, cache_is_empty, compiled, compiled_functions, is_cached
from sniff_env.vector.engine import VectorEngine

__all__ = ["CACHE_DIR", "VectorEngine", "cache_is_empty", "compiled", "compiled_functions", "is_cached"]
