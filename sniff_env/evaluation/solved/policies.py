"""Players as profiles over a solved tree: at every information set, what the player would play.

A player is asked at one history of each information set where its seat has a choice (forced
moves need no asking), through that seat's :class:`~sniff_env.infostate.InfoState` only, so it
plays there as it would in a game. A player that breaks ties at random is reset to one seed
before each question: one fixed deterministic strategy.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from sniff_env.evaluation.solved.tree import GameTree, game_at
from sniff_env.infostate import InfoState, info_state
from sniff_env.players import load

Choose = Callable[[InfoState], int]


def chooser(spec: str, seed: int = 0) -> Choose | None:
    """The choice of the player ``spec`` (``None`` for ``random``: uniform over the legal moves)."""
    if spec == "random":
        return None
    player = load(spec)

    def choose(info: InfoState) -> int:
        player.reset(seed)
        return int(player.act({}, {"info_state": info}))

    return choose


def profile_of(tree: GameTree, spec: str, seed: int = 0,
               progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """The profile of player ``spec`` (a built-in spec, a shipped agent or a policy file made for
    the tree's rules) in both seats. ``progress(done, total)`` hears about every 10 seconds."""
    sizes = np.diff(tree.offset)
    profile = np.repeat(1.0 / sizes, sizes)
    choose = chooser(spec, seed)
    if choose is None:
        return profile
    rules = tree.rules
    last = time.perf_counter()
    for done, (i, path) in enumerate(sorted(tree.paths.items())):
        game = game_at(rules, tree, path)
        action = choose(info_state(game, int(tree.owner[i])))
        a0, a1 = int(tree.offset[i]), int(tree.offset[i + 1])
        legal = tree.actions[a0:a1]
        hit = np.flatnonzero(legal == action)
        if hit.size != 1:
            raise ValueError(f"player {spec!r} played {action}, which is not legal there ({legal.tolist()})")
        profile[a0:a1] = 0.0
        profile[a0 + int(hit[0])] = 1.0
        now = time.perf_counter()
        if progress is not None and now - last >= 10.0:
            last = now
            progress(done + 1, len(tree.paths))
    return profile
