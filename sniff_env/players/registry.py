"""The one registry of built-in players: for each name, its reference player and, where it has
one, its compiled twin over the batched engine.

A reference player (``"module:Class"``) plays one game at a time through ``act(obs, info)``.
A compiled twin (``"module:factory"``) is built as ``factory(engine, **options)`` over a
:class:`~sniff_env.vector.engine.VectorEngine` and returns ``choose(games) -> actions``: the move
of the seat to act in each listed game, exactly the reference player's. Everything that maps a
spec to a player reads this table: :func:`sniff_env.players.load`, the batched tournament, the
trainers' opponents and evaluation. Adding a player is its module(s) and one entry here.

Entries are strings, imported when asked for, so reading this table imports no player.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Choose = Callable[[npt.NDArray[np.int64]], npt.NDArray[np.int64]]
"""A batched player: the action of the seat to act in each of the given games of an engine."""


@dataclass(frozen=True)
class BuiltinPlayer:
    """A built-in player: where its reference form lives, and its compiled twin if it has one."""

    reference: str
    """``"module:Class"`` of the reference player."""
    compiled: str | None = None
    """``"module:factory"`` of the compiled twin: ``factory(engine, **options) -> choose``."""
    exact: bool = True
    """Whether the twin makes the reference player's very moves (so a tournament may play it in
    its place); a sampling search's twin plays the same search with draws of its own, and the
    random player's the same uniform choice with draws of its own."""
    threaded: bool = False
    """Whether the twin is a search that spreads its games over threads: its factory is then
    ``factory(engine, threads, **options)``, ``threads`` positional, so that no spec sets it."""
    opponent: str | None = None
    """``"module:factory"`` of its form inside a compiled loop over the engine (the Gymnasium vector
    env's opponents, :mod:`sniff_env.players.compiled.opponents`): ``factory(**options) ->
    Opponent``, the player's kind and options as numbers."""


BUILTIN_PLAYERS: dict[str, BuiltinPlayer] = {
    "random": BuiltinPlayer("sniff_env.players.random:RandomPlayer",
                            "sniff_env.players.compiled.baselines:random_chooser", exact=False,
                            opponent="sniff_env.players.compiled.opponents:random_opponent"),
    "greedy": BuiltinPlayer("sniff_env.players.greedy:GreedyPlayer",
                            "sniff_env.players.compiled.baselines:greedy_chooser",
                            opponent="sniff_env.players.compiled.opponents:greedy_opponent"),
    "heuristic": BuiltinPlayer("sniff_env.players.heuristic:HeuristicPlayer",
                               "sniff_env.players.compiled.baselines:heuristic_chooser",
                               opponent="sniff_env.players.compiled.opponents:heuristic_opponent"),
    "search": BuiltinPlayer("sniff_env.players.search:SearchPlayer"),
    "rollouts": BuiltinPlayer("sniff_env.players.rollouts:RolloutPlayer",
                              "sniff_env.players.rollouts:rollouts_chooser", exact=False, threaded=True),
    "guided": BuiltinPlayer("sniff_env.players.guided:GuidedPlayer",
                            "sniff_env.players.guided:guided_chooser", exact=False, threaded=True),
}
"""The built-in players by name, weakest first (a listing that names the strongest first, as the
vector env's refusal does, reverses it)."""


def compiled_builtins() -> tuple[str, ...]:
    """The built-in players with a compiled twin."""
    return tuple(name for name, entry in BUILTIN_PLAYERS.items() if entry.compiled)


def has_compiled(name: str, exact: bool = False) -> bool:
    """Whether the built-in player ``name`` has a compiled twin (``exact``: one that makes the
    reference player's very moves)."""
    entry = BUILTIN_PLAYERS.get(name)
    return entry is not None and entry.compiled is not None and (entry.exact or not exact)


def _resolve(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def reference_class(name: str) -> type:
    """The reference player class of built-in ``name`` (a key of :data:`BUILTIN_PLAYERS`)."""
    cls: type = _resolve(BUILTIN_PLAYERS[name].reference)
    return cls


def compiled_chooser(engine: Any, name: str, options: dict[str, Any], threads: int = 0) -> Choose:
    """The compiled twin of built-in ``name`` with ``options`` on ``engine`` (a ``name`` option,
    the player's label, plays no part); a player without one, or options its twin does not take,
    raise :class:`ValueError` naming what it does take. ``threads`` above 0 goes to a twin that
    searches (:attr:`BuiltinPlayer.threaded`); the others make their moves without draws and
    take no threads of their own."""
    entry = BUILTIN_PLAYERS.get(name)
    if entry is None or entry.compiled is None:
        raise ValueError(
            f"the vector engine plays the built-ins {', '.join(compiled_builtins())} (greedy with its tiebreak, "
            f"heuristic with any weights, rollouts without infer, guided without a second round, infer or the "
            f"network's playouts); got {name!r}: use engine='python' for it"
        )
    play = {key: value for key, value in options.items() if key != "name"}
    factory = _resolve(entry.compiled)
    try:
        choose: Choose = factory(engine, threads, **play) if entry.threaded else factory(engine, **play)
    except TypeError as exc:  # an option the twin's factory has no parameter for
        raise ValueError(f"the compiled {name} player: {exc}") from None
    return choose


def opponent_builtins() -> tuple[str, ...]:
    """The built-in players with an in-kernel form (:attr:`BuiltinPlayer.opponent`)."""
    return tuple(name for name, entry in BUILTIN_PLAYERS.items() if entry.opponent)


def kernel_opponent(name: str, options: dict[str, Any]) -> Any:
    """The in-kernel form of built-in ``name`` with ``options``: a
    :class:`sniff_env.players.compiled.opponents.Opponent`. A player without one raises
    :class:`KeyError`; options it does not take, :class:`ValueError` (or the heuristic's
    :class:`TypeError` for an unknown weight)."""
    entry = BUILTIN_PLAYERS.get(name)
    if entry is None or entry.opponent is None:
        raise KeyError(name)
    return _resolve(entry.opponent)(**options)
