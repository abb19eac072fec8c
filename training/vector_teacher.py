"""Recording a compiled teacher's decisions on the batched engine, for ``training/imitation.py``.

The teacher is ``heuristic`` or ``rollouts:samples=N`` (:class:`sniff_env.vector.rollouts.
RolloutSearch`: the heuristic improved by playing every move out on sampled deals), seated on
one side of each game against a compiled built-in drawn per game from ``opponents``. Games run
in one batch; the search is split over ``workers`` threads (its kernels release the GIL), each
with its own generator, so the data depends on ``seed`` and ``workers`` only.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from sniff_env.players import parse_spec
from sniff_env.rules import Rules
from training.advantages import points_returns
from training.vector_rollout import compiled_builtin

Batch = dict[str, np.ndarray]
TEACHERS = ("heuristic", "rollouts")


def teacher_fn(engine: Any, spec: str, workers: int, seed: int) -> tuple[Any, bool]:
    """For the teacher ``spec`` on ``engine``: ``(fn, values)`` where ``fn(games)`` gives the
    actions (``values`` False: the heuristic) or every action's value (True: the search)."""
    from sniff_env.vector.rollouts import RolloutSearch

    if parse_spec(spec)[0] == "heuristic":
        return compiled_builtin(engine, spec), False
    base, _, opts = spec.partition(":")
    key, _, value = opts.partition("=")
    if base != "rollouts" or (opts and (key != "samples" or not value.isdigit())):
        raise ValueError(f"the vector engine's teachers are heuristic and rollouts:samples=N; got {spec!r}")
    samples = int(value) if opts else 64
    searches = [RolloutSearch(engine, samples, seed + k) for k in range(workers)]
    pool = ThreadPoolExecutor(workers) if workers > 1 else None

    def q_values(games: np.ndarray) -> np.ndarray:
        if pool is None:
            return searches[0].q_values(games)
        parts = np.array_split(games, workers)
        return np.concatenate(list(pool.map(lambda k: searches[k].q_values(parts[k]), range(workers))))

    return q_values, True


def record_vector(rules: Rules, args: Any, progress: Any = None) -> Batch:
    """``args.games`` games: the teacher's observations, masks, choices and discounted points
    returns (as ``training/imitation.py`` records them), in game order; with the search as
    teacher also ``values``, every action's mean margin (``-inf`` where illegal)."""
    from sniff_env.vector import kernels as K
    from sniff_env.vector.engine import VectorEngine

    rng = random.Random(f"imitation:{args.seed}")
    G = args.games
    eng = VectorEngine(rules, G, max_hands=args.max_hands, threads=1)
    eng.deal(np.arange(G), True, [rng.getrandbits(62) for _ in range(G)])
    teacher, valued = teacher_fn(eng, args.teacher, args.workers, rng.getrandbits(63))
    opponents = [s.strip() for s in args.opponents.split(",") if s.strip()]
    opp_fns = [compiled_builtin(eng, spec) for spec in opponents]
    opp_of = np.array([rng.randrange(len(opponents)) for _ in range(G)])
    sides = np.array([rules.side_of(s) for s in range(rules.num_players)])
    side = sides[np.array([rng.randrange(rules.num_players) for _ in range(G)])]
    explore = np.random.default_rng(rng.getrandbits(63))
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    games: list[np.ndarray] = []
    margins: list[np.ndarray] = []
    qs: list[np.ndarray] = []
    done = 0
    while (live := eng.continue_games()).size:
        act = np.zeros(G, np.int64)
        ours = sides[eng.turn[live]] == side[live]
        rows = live[ours]
        if rows.size:
            keep = eng.num_legal[rows] > 1  # single legal actions are played, not recorded
            if valued:
                choice = eng.legal[rows, 0].astype(np.int64)
                if keep.any():
                    q = teacher(rows[keep])
                    choice[keep] = np.argmax(q, axis=1)  # the first (lowest) of equal bests, as the search plays
                    qs.append(q.astype(np.float32))
            else:
                choice = teacher(rows)
            obs.append(eng.obs[rows[keep]].copy())
            masks.append(eng.mask[rows[keep]].copy())
            actions.append(choice[keep])
            games.append(rows[keep])
            margins.append(_margins(eng.scores[rows[keep]], side[rows[keep]]))
            wander = explore.random(rows.size) < args.explore
            act[rows] = np.where(wander, eng.sample_actions(explore)[rows], choice)
        for k, fn in enumerate(opp_fns):
            theirs = live[~ours][opp_of[live[~ours]] == k]
            if theirs.size:
                act[theirs] = fn(theirs)
        eng.step(act)
        finished = int((eng.phase == K.GAME_OVER).sum())
        if progress is not None and finished > done:
            progress(finished - done)
        done = finished
    eng.close()
    game_ids = np.concatenate(games)
    order = np.argsort(game_ids, kind="stable")  # game order; within a game, decision order
    data = {
        "obs": np.concatenate(obs)[order],
        "masks": np.concatenate(masks)[order],
        "actions": np.concatenate(actions)[order],
        "games": game_ids[order],
    }
    if valued:
        data["values"] = np.concatenate(qs)[order]
    margin = np.concatenate(margins)[order]
    end = _margins(eng.scores, side)
    data["returns"] = points_returns(data["games"], margin, end, args.gamma, args.reward_scale)
    return data


def _margins(scores: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Each row's side score less the mean of the other sides' scores."""
    scores = np.asarray(scores, np.float64)
    mine = scores[np.arange(len(side)), side]
    return mine - (scores.sum(1) - mine) / (scores.shape[1] - 1)
