"""The Gymnasium vector env's compiled opponents: the loop that plays every seat but the learner's
inside one compiled call, and the learner's view of a game it is not asked to act in.

Each game's seats are listed in :class:`Seating` (``who[b, seat]``: the learner, or an opponent's
number); an opponent is a built-in player's in-kernel form, as the player registry
(:mod:`sniff_env.players.registry`, :attr:`~sniff_env.players.registry.BuiltinPlayer.opponent`)
gives it: an :class:`Opponent` with its kind (:data:`HEURISTIC`, :data:`GREEDY`, :data:`RANDOM`)
and its options as numbers, or :data:`EXTERNAL` for a policy that plays from Python.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from sniff_env.players.compiled.baselines import (
    HeuristicSpace,
    greedy_actions,
    heuristic_choice,
    weight_vector,
)
from sniff_env.players.compiled.splitmix import below
from sniff_env.players.strategy import Weights, checked_tiebreak
from sniff_env.vector import compiled
from sniff_env.vector.arrays import EnvArrays, Games, RuleTables, StepArrays, Views
from sniff_env.vector.kernels import NLEGAL, TURN, Workspace, encode_seat, env_step

LEARNER = -1
"""``who[b, seat]`` of the learner's seat (the others hold their opponent's number)."""
EXTERNAL, HEURISTIC, GREEDY, RANDOM = -1, 0, 1, 2
"""What an opponent is: a policy run from Python, or a compiled built-in."""
SKIP, CONTINUE, APPLY = 0, 1, 2
"""What :func:`advance` does with a game: nothing; play its other seats; apply ``actions[b]`` first."""


class Opponent(NamedTuple):
    """A built-in player as the compiled loop plays it."""

    kind: int
    """:data:`HEURISTIC`, :data:`GREEDY` or :data:`RANDOM`."""
    weights: np.ndarray
    """The heuristic's weights (:func:`~sniff_env.players.compiled.baselines.weight_vector`; zeros for the others)."""
    by_value: bool
    """Greedy's tie-break by the heuristic's value (``tiebreak="heuristic"``)."""


def _no_weights() -> np.ndarray:
    return np.zeros(len(weight_vector(Weights())), np.float64)


def heuristic_opponent(**options: Any) -> Opponent:
    """The compiled heuristic with the weights ``options`` (any but ``counter``)."""
    return Opponent(HEURISTIC, weight_vector(Weights.from_kwargs(**options)), False)


def greedy_opponent(**options: Any) -> Opponent:
    """The compiled greedy player; its one option is ``tiebreak``."""
    if set(options) - {"tiebreak"}:
        raise ValueError("the compiled greedy player takes ['tiebreak']")
    return Opponent(GREEDY, _no_weights(), checked_tiebreak(str(options.get("tiebreak", "lowest"))) == "heuristic")


def random_opponent(**options: Any) -> Opponent:
    """The uniform random player (drawing from the env's own generators); it takes no options."""
    if options:
        raise ValueError("the compiled random player takes no options")
    return Opponent(RANDOM, _no_weights(), False)


class Seating(NamedTuple):
    """Who plays each seat of each game, and what :func:`advance` keeps per game."""

    todo: np.ndarray
    """int64: :data:`SKIP`, :data:`CONTINUE` or :data:`APPLY` for each game."""
    who: np.ndarray
    """``[B, num_players]`` int64: :data:`LEARNER` or the opponent's number."""
    learner: np.ndarray
    """int64: the learner's seat."""
    kinds: np.ndarray
    """int64: each opponent's kind (:data:`EXTERNAL` for a policy played from Python)."""
    weights: np.ndarray
    """``[opponents, weights]`` float64: each opponent's :attr:`Opponent.weights`."""
    by_value: np.ndarray
    """bool: each opponent's :attr:`Opponent.by_value`."""
    stock: np.ndarray
    """The stock weights, for greedy's tie-break by value."""
    counting: np.ndarray
    """bool: whether the learner's rewards add to ``ret`` in each game."""
    ret: np.ndarray
    """float32: the learner's rewards since its decision."""
    rng: np.ndarray
    """``[B, 1]`` uint64: each game's splitmix64 state, for the random opponent."""


class Scratch(NamedTuple):
    """One thread's work space for :func:`advance`."""

    heuristic: HeuristicSpace
    tied: np.ndarray
    """int64, one per action: greedy's keys."""
    one: np.ndarray
    """int64, one cell: the game greedy chooses in."""
    out: np.ndarray
    """int64, one cell: greedy's choice."""


_jit = compiled()


@_jit
def advance(games: Games, views: Views, rules: RuleTables, actions: np.ndarray, env: EnvArrays, out: StepArrays,
            seating: Seating, work: Workspace, mine: Scratch, start: int, stop: int) -> int:
    """For each game ``b`` of ``start:stop`` with ``seating.todo[b]``: apply ``actions[b]``
    (``APPLY``), then play the seats of compiled opponents (``j = who[b, seat] >= 0`` with
    ``kinds[j]``, ``weights[j]``, ``by_value[j]``) until a seat played from Python is to act or
    the hand ends (``env.request[b]`` set, ``out.done[b]`` if the episode ended too). Each step is
    ``kernels.env_step`` of that game; the learner's rewards add to ``ret[b]`` where
    ``counting[b]``. Returns how many games stopped at a hand end."""
    S, legal = games.S, games.legal
    todo, who, kinds = seating.todo, seating.who, seating.kinds
    ended = 0
    for b in range(start, stop):
        t = todo[b]
        todo[b] = SKIP
        while t != SKIP:
            if t == CONTINUE:
                j = who[b, S[b, TURN]]
                if j == LEARNER or kinds[j] == EXTERNAL:
                    break
                code = kinds[j]
                if code == HEURISTIC:
                    actions[b] = heuristic_choice(games, rules, b, seating.weights[j], mine.heuristic)
                elif code == GREEDY:
                    mine.one[0] = b
                    greedy_actions(games, rules, mine.one, seating.stock, mine.heuristic, mine.tied,
                                   seating.by_value[j], mine.out)
                    actions[b] = mine.out[0]
                else:
                    actions[b] = legal[b, below(seating.rng[b], S[b, NLEGAL])]
            env_step(games, views, rules, actions, env, out, work, b, b + 1)
            if seating.counting[b]:
                seating.ret[b] += out.rewards[b, seating.learner[b]]
            if env.request[b]:
                ended += 1
                break
            t = CONTINUE
    return ended


@_jit
def seat_views(games: Games, rules: RuleTables, ids: np.ndarray, seats: np.ndarray, one: Games, views: Views,
               rules_at: int, out: np.ndarray) -> None:
    """``out[i]``: the observation of ``seats[i]`` in game ``ids[i]`` as a seat not asked to act
    sees it (``kernels.encode_seat`` on the one-game copy ``one``, ``views``, so the batch is
    left as it was); the observation's rules block starts at ``rules_at``."""
    S, hands, played, legal = games.S, games.hands, games.played, games.legal
    obs1, rules_vec = views.obs, views.rules_vec
    for i in range(ids.size):  # element by element: a slice copy would need numba's runtime
        b = ids[i]
        for k in range(S.shape[1]):
            one.S[0, k] = S[b, k]
        for s in range(hands.shape[1]):
            for k in range(hands.shape[2]):
                one.hands[0, s, k] = hands[b, s, k]
        for k in range(played.shape[1]):
            one.played[0, k] = played[b, k]
        for k in range(legal.shape[1]):
            one.legal[0, k] = legal[b, k]
        for k in range(obs1.shape[1]):
            obs1[0, k] = 0.0
        for k in range(rules_vec.size):
            obs1[0, rules_at + k] = rules_vec[k]
        encode_seat(one, views, rules, seats[i])
        for k in range(obs1.shape[1]):
            out[i, k] = obs1[0, k]
