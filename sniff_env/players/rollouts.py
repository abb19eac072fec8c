"""The rollout player: compiled determinized search with heuristic playouts.

For every legal move it samples ``samples`` deals of the tiles the seat cannot see (consistent
with the hand sizes and the pips each seat is known to lack), plays the move and the rest of
the hand with the heuristic in every seat on each, and plays the move with the best mean margin
(:mod:`sniff_env.players.compiled.rollouts`). It is built from the seat's information state alone: the
state is loaded into a one-game batched engine with every other hand empty and the boneyard
unknown, and the search deals those itself. Needs numba (compiled on first use).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sniff_env.players._base import info_of, positive_count
from sniff_env.players.beliefs import checked_sharpness, evidence
from sniff_env.players.specs import MAX_SAMPLES
from sniff_env.players.strategy import Weights
from sniff_env.rules import Rules


class RolloutPlayer:
    """``samples`` deals per move (spec ``rollouts:samples=64``); seeded by ``seed``. ``value``:
    what a playout is worth, ``margin`` (the hand's points) or ``win`` (the chance of winning
    the game from the scores it ends on; two sides only), see
    :class:`~sniff_env.players.compiled.rollouts.RolloutSearch`. ``infer``: how sharply the others are taken
    to play for points, 0 for not at all; above 0, deals are sampled in proportion to how likely
    they make the others' plays so far (:mod:`sniff_env.players.beliefs`). ``depth=2``: every reply of
    the next seat is played out on each deal and a move is worth its least (see
    :class:`~sniff_env.players.compiled.rollouts.RolloutSearch`). ``playout_NAME=X`` sets weight ``NAME``
    of the heuristic that plays the playouts (:class:`~sniff_env.players.strategy.Weights`, ``counter``
    aside; the others keep their stock values). ``solve=N``: where at most ``N`` tiles are still
    to play, each deal's hand is solved exactly (every seat seeing the deal) instead of played
    out by the heuristic (two sides only; see
    :class:`~sniff_env.players.compiled.rollouts.RolloutSearch`)."""

    def __init__(self, seed: int | None = None, name: str = "rollouts", samples: int = 64,
                 value: str = "margin", infer: float = 0.0, depth: int = 1, solve: int = 0,
                 **playout: float) -> None:
        from sniff_env.players.compiled.rollouts import checked_depth, checked_solve, checked_value

        self.name, self.samples, self.value = name, positive_count("samples", samples, MAX_SAMPLES), checked_value(value)
        self.infer, self.depth = checked_sharpness(infer), checked_depth(depth)
        self.solve = checked_solve(solve, 2)  # the rules' sides are checked when it meets them
        self.playout = playout_weights(playout)
        self._seed = seed or 0
        self._engines: dict[Rules, Any] = {}

    @classmethod
    def keyword_options(cls) -> dict[str, Any]:
        """The playout weights a spec may give (``playout_reply=1.2``), each a number."""
        return PLAYOUT_OPTIONS

    def reset(self, seed: int | None = None) -> None:
        self._seed = seed or 0
        self._engines = {}  # a new dict: a copy of this player searches on engines of its own

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info, observation)
        if len(state.legal) == 1:
            return state.legal[0]
        engine, search = self._engine(state.rules)
        engine.load_info_state(state)
        return int(search.actions(np.zeros(1, np.int64), evidence(state, self.infer))[0])

    def _engine(self, rules: Rules) -> tuple[Any, Any]:
        if rules not in self._engines:
            from sniff_env.players.compiled.rollouts import RolloutSearch
            from sniff_env.vector.engine import VectorEngine

            engine = VectorEngine(rules, 1, threads=1)
            self._engines[rules] = (engine, RolloutSearch(engine, self.samples, self._seed, self.playout,
                                                          value=self.value, depth=self.depth, solve=self.solve))
        return self._engines[rules]


PLAYOUT_OPTIONS: dict[str, Any] = {f"playout_{n}": float for n in Weights.field_names() if n != "counter"}
"""The playout weights' spec options: every compiled heuristic weight, prefixed ``playout_``."""


def playout_weights(options: dict[str, Any]) -> Weights:
    """The stock heuristic weights with ``options`` (``playout_NAME: X``) replaced; an unknown
    name or a value that is no finite number raises :class:`ValueError` naming what is allowed."""
    unknown = sorted(set(options) - set(PLAYOUT_OPTIONS))
    if unknown:
        raise ValueError(f"unknown playout weight option(s) {', '.join(unknown)}; allowed: {', '.join(PLAYOUT_OPTIONS)}")
    try:
        return Weights.from_kwargs(**{k.removeprefix("playout_"): v for k, v in options.items()})
    except TypeError as exc:
        raise ValueError(str(exc)) from exc


def rollouts_search(engine: Any, threads: int = 0, /, seed: int = 0, samples: int = 64, value: str = "margin",
                    depth: int = 1, solve: int = 0, **playout: float) -> Any:
    """The compiled :class:`~sniff_env.players.compiled.rollouts.RolloutSearch` on the games of
    ``engine`` from a spec's options (``playout_NAME=X`` its playouts' weights, checked by
    :func:`playout_weights`); ``threads`` is the caller's and no option of a spec."""
    from sniff_env.players.compiled.rollouts import RolloutSearch

    return RolloutSearch(engine, samples, seed, playout_weights(playout), value, depth, solve, threads)


def rollouts_chooser(engine: Any, threads: int = 0, /, seed: int = 0, samples: int = 64, value: str = "margin",
                     depth: int = 1, solve: int = 0, **playout: float) -> Any:
    """The compiled search on the games of ``engine`` itself, as the trainers' league seats it:
    ``choose(games)`` gives each game's move by :class:`RolloutPlayer`'s search, from what the
    seat to act may know only, with draws of its own (seeded by ``seed``; ``threads``, as for
    :func:`rollouts_search`). ``infer`` is the one option of the player it does not take."""
    return rollouts_search(engine, threads, seed=seed, samples=samples, value=value, depth=depth, solve=solve,
                           **playout).actions
