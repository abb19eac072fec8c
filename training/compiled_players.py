"""The built-in players compiled over the batched engine's arrays, for the trainers' collectors
and the in-training evaluation (:mod:`sniff_env.vector.baselines`, which chooses exactly as the
reference players do)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

COMPILED_BUILTINS = ("greedy", "heuristic")


def compiled_builtin(engine: Any, spec: str) -> Callable[[np.ndarray], np.ndarray]:
    """The batched choice function of built-in ``spec`` (``greedy``, ``greedy:tiebreak=...``,
    ``heuristic`` or ``heuristic:<weights>``) on ``engine``; other players raise :class:`ValueError`."""
    from sniff_env.players import parse_spec
    from sniff_env.players.heuristic import Weights
    from sniff_env.vector.baselines import CompiledBaselines

    base, opts = parse_spec(spec)
    if base not in COMPILED_BUILTINS or (base == "greedy" and set(opts) - {"tiebreak"}):
        raise ValueError(
            f"the vector engine plays the built-ins {', '.join(COMPILED_BUILTINS)} (greedy with its tiebreak, "
            f"heuristic with any weights); got {spec!r}: use engine='python' for it"
        )
    if base == "greedy":
        return CompiledBaselines(engine, greedy_tiebreak=str(opts.get("tiebreak", "lowest"))).greedy
    return CompiledBaselines(engine, Weights.from_kwargs(**opts)).heuristic
