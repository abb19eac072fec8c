"""Players: objects that choose an action from one seat's observation and information.

A player has a ``name``, ``act(observation, info) -> int`` and ``reset(seed)``. ``observation``
is the dict ``{"observation": vector, "action_mask": mask}`` an environment hands the acting
seat; ``info["info_state"]`` is that seat's :class:`~sniff_env.infostate.InfoState`. No player
reads another seat's hand or the boneyard.

:func:`load` builds one from a spec: ``random``, ``greedy``, ``heuristic``, ``search``,
``rollouts`` (compiled search with heuristic playouts), or the path of an exported policy file;
keyword options may follow a colon, e.g. ``search:simulations=300``,
``search:budget_s=0.2,rollout=greedy`` or ``rollouts:samples=128``.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

BUILTIN: dict[str, tuple[str, str]] = {
    "random": ("sniff_env.players.random", "RandomPlayer"),
    "greedy": ("sniff_env.players.greedy", "GreedyPlayer"),
    "heuristic": ("sniff_env.players.heuristic", "HeuristicPlayer"),
    "search": ("sniff_env.players.search", "SearchPlayer"),
    "rollouts": ("sniff_env.players.rollouts", "RolloutPlayer"),
}


@runtime_checkable
class Player(Protocol):
    """What the environment, the demo and the tournament need of a player."""

    name: str

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        """A legal action for the seat whose turn it is."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new game), reseeding the player's own generator."""
        ...


class PlayerSpecError(ValueError):
    """A player spec names no known player, or its options cannot be parsed."""


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"search:simulations=300,rollout=greedy"`` -> ``("search", {"simulations": 300, ...})``."""
    base, _, opts = spec.partition(":")
    if base not in BUILTIN:  # a path may itself hold a colon (e.g. a drive letter); keep it whole
        return spec, {}
    kwargs: dict[str, Any] = {}
    for item in filter(None, opts.split(",")):
        key, eq, raw = item.partition("=")
        if not eq:
            raise PlayerSpecError(f"player option {item!r} in {spec!r} is not KEY=VALUE")
        try:
            kwargs[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            kwargs[key.strip()] = raw
    return base, kwargs


def load(spec: str, **kwargs: Any) -> Player:
    """The player a spec names (see the module docstring); ``kwargs`` add to its options.

    Built-in players take ``seed=`` (their own generator); policy files also need ``rules=``
    to check that the policy was trained for them.
    """
    base, opts = parse_spec(spec)
    opts.update(kwargs)
    if base in BUILTIN:
        module, cls = BUILTIN[base]
        player: Player = getattr(importlib.import_module(module), cls)(**opts)
        if ":" in spec:
            player.name = spec
        return player
    if Path(base).suffix in (".pt", ".ts", ".jit") or Path(base).exists():
        from .policy import load_policy

        return load_policy(base, **opts)
    raise PlayerSpecError(
        f"unknown player {spec!r}: use one of {', '.join(BUILTIN)} or the path of an exported policy file"
    )


__all__ = ["BUILTIN", "Player", "PlayerSpecError", "load", "parse_spec"]
