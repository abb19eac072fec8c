"""Sniff and the Fives family of domino games: a rules engine and reinforcement-learning environments.

The rules core (``rules``, ``presets``, ``game``, ``infostate``, ``observation``) needs only
numpy and the standard library. ``env``, ``raw_env``, ``envs`` and ``players`` are
imported on first use, so ``import sniff_env`` never pulls in PettingZoo, Gymnasium or torch.
It registers ``sniff_env/Sniff-v0`` with Gymnasium and ``sniff_env/sniff_v0`` with PettingZoo
as soon as those are imported (see :mod:`sniff_env.envs.registration`).
"""

from __future__ import annotations

import importlib
from typing import Any

from sniff_env.envs.registration import register_all
from sniff_env.errors import DealError, GameOverError, IllegalMoveError, RulesError, SniffError
from sniff_env.game import Event, Game, Phase, new_game, replay
from sniff_env.presets import PRESET_NAMES, PRESETS, make_rules
from sniff_env.rules import Rules

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "PRESET_NAMES",
    "DealError",
    "Event",
    "Game",
    "GameOverError",
    "IllegalMoveError",
    "Phase",
    "Rules",
    "RulesError",
    "SniffError",
    "env",
    "make_rules",
    "new_game",
    "raw_env",
    "replay",
    "sniff_v0",
]

_LAZY = {"env": ("sniff_env.envs.aec", "env"), "raw_env": ("sniff_env.envs.aec", "raw_env")}
_LAZY_MODULES = {"envs", "players", "evaluation", "vector", "sniff_v0"}

register_all()


def __getattr__(name: str) -> Any:
    """The lazy names, imported on first use and kept (so that later lookups find them)."""
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
    elif name in _LAZY_MODULES:
        value = importlib.import_module(f"sniff_env.{name}")
    else:
        raise AttributeError(f"module 'sniff_env' has no attribute {name!r}")
    globals()[name] = value
    return value
