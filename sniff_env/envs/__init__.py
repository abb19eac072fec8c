"""The environments over the rules core, one module each.

=====================  =====================================================================
:mod:`.aec`            the PettingZoo AEC environment (``sniff_v0.env``), one seat at a time
:mod:`.parallel`       its parallel form (``sniff_v0.parallel_env``)
:mod:`.single_agent`   :class:`SniffSingleAgentEnv`: Gymnasium, one learning seat, the others played
:mod:`.batch_env`      :class:`SniffVectorEnv`: thousands of games on the batched engine
:mod:`.gym_vector`     :class:`SniffGymVectorEnv`: the batched engine as a ``gymnasium.vector.VectorEnv``
:mod:`.registration`   the Gymnasium and PettingZoo ids
:mod:`.rewards`        the ``points`` and ``win`` reward rules
:mod:`.masks`          where the mask goes, and the mask handed out once an episode is over
:mod:`.drawing`        ``render_mode="rgb_array"``: the table as a picture
=====================  =====================================================================

``SniffSingleAgentEnv``, ``SniffVectorEnv`` and ``SniffGymVectorEnv`` are also names of this package,
imported on first use, so ``import sniff_env.envs`` pulls in neither Gymnasium nor numba.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "SniffSingleAgentEnv": "sniff_env.envs.single_agent",
    "SniffVectorEnv": "sniff_env.envs.batch_env",
    "SniffGymVectorEnv": "sniff_env.envs.gym_vector",
}


def __getattr__(name: str) -> Any:
    """The environment classes, imported on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'sniff_env.envs' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
