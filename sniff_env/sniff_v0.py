"""Sniff, version 0, under PettingZoo's module naming: ``from sniff_env import sniff_v0``.

``sniff_v0.env(ruleset="sniff", num_players=2, render_mode=None, **options)`` and
``sniff_v0.raw_env(...)``; the documentation page is :mod:`sniff_env.aec`. The registered id
``pettingzoo.make("aec", "sniff_env/sniff_v0", ...)`` builds the same ``env``. A change that
alters what an agent observes, may do or is paid makes a ``sniff_v1`` beside this module.
"""

from __future__ import annotations

from .aec import env, raw_env

__all__ = ["env", "raw_env"]
