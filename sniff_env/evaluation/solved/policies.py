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
from sniff_env.observation import Observer
from sniff_env.players import load
from sniff_env.players.agents import policy_path
from sniff_env.players.policy import load_network
from sniff_env.players.specs import BUILTIN, split_spec
from sniff_env.rules import Rules

Choose = Callable[[InfoState], int]
BATCH = 1024
"""Information states a policy network is asked about at once."""


def chooser(spec: str, rules: Rules, seed: int = 0) -> Choose | None:
    """The choice of the player ``spec`` (``None`` for ``random``: uniform over the legal moves)."""
    if spec == "random":
        return None
    player = load(spec) if split_spec(spec)[0] in BUILTIN else load(spec, rules=rules)

    def choose(info: InfoState) -> int:
        player.reset(seed)
        return int(player.act({}, {"info_state": info}))

    return choose


def _one_hot(tree: GameTree, profile: np.ndarray, i: int, action: int, spec: str) -> None:
    a0, a1 = int(tree.offset[i]), int(tree.offset[i + 1])
    legal = tree.actions[a0:a1]
    hit = np.flatnonzero(legal == action)
    if hit.size != 1:
        raise ValueError(f"player {spec!r} played {action}, which is not legal there ({legal.tolist()})")
    profile[a0:a1] = 0.0
    profile[a0 + int(hit[0])] = 1.0


def profile_of(tree: GameTree, spec: str, seed: int = 0,
               progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """The profile of player ``spec`` (a built-in spec, a shipped agent or a policy file made for
    the tree's rules) in both seats. A policy file's network is asked in batches (its masked
    argmax, as it plays). ``progress(done, total)`` hears about every 10 seconds."""
    sizes = np.diff(tree.offset)
    profile = np.repeat(1.0 / sizes, sizes)
    rules = tree.rules
    if spec == "random":
        return profile
    network = None
    if split_spec(spec)[0] not in BUILTIN:
        network, _, _ = load_network(policy_path(spec) or spec, rules)
        observer = Observer(rules)
    choose = None if network is not None else chooser(spec, rules, seed)
    last = time.perf_counter()
    batch: list[tuple[int, InfoState]] = []

    def flush() -> None:
        obs = np.stack([observer.encode(info) for _, info in batch]).astype(np.float32)
        logits = network.logits(obs)  # type: ignore[union-attr]
        for row, (i, info) in enumerate(batch):
            legal = list(info.legal)
            _one_hot(tree, profile, i, legal[int(np.argmax(logits[row][legal]))], spec)
        batch.clear()

    for done, (i, path) in enumerate(sorted(tree.paths.items())):
        info = info_state(game_at(rules, tree, path), int(tree.owner[i]))
        if choose is not None:
            _one_hot(tree, profile, i, choose(info), spec)
        else:
            batch.append((i, info))
            if len(batch) == BATCH:
                flush()
        now = time.perf_counter()
        if progress is not None and now - last >= 10.0:
            last = now
            progress(done + 1, len(tree.paths))
    if batch:
        flush()
    return profile
