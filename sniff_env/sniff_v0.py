"""Sniff, version 0, under PettingZoo's module naming: ``from sniff_env import sniff_v0``.

``sniff_v0.env(ruleset="sniff", num_players=2, render_mode=None, **options)``,
``sniff_v0.raw_env(...)`` and ``sniff_v0.parallel_env(...)`` (the turn-based parallel form,
:mod:`sniff_env.envs.parallel`); the documentation page is :mod:`sniff_env.envs.aec`. The registered ids
``pettingzoo.make("aec", "sniff_env/sniff_v0", ...)`` and ``pettingzoo.make("parallel",
"sniff_env/sniff_v0", ...)`` build the same environments. A change that alters what an agent
observes, may do or is paid makes a ``sniff_v1`` beside this module.
"""

from __future__ import annotations

from sniff_env.envs.aec import env, raw_env
from sniff_env.envs.parallel import parallel_env

__all__ = ["env", "parallel_env", "raw_env"]
