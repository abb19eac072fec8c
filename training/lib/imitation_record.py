"""Imitation's collector: the teacher's decisions recorded for ``training/imitation.py``.

A teacher plays one side of each game against opponents drawn per game; its observations,
masks, choices and discounted ``points`` returns are recorded (decisions with a single legal
action are played, not recorded), in game order. Two engines play the games:

- the reference engine (:func:`record`): any players, games split into chunks over worker
  processes, each game seeded on its own, so the data depends on ``seed`` only;
- the batched engine (:func:`record_vector`): the teacher is ``heuristic``, ``rollouts:samples=N``
  (:class:`sniff_env.players.compiled.rollouts.RolloutSearch`: the heuristic improved by playing
  every move out on sampled deals; ``value=win`` values a move by the chance of winning the game,
  not the hand's points; ``playout_NAME=X`` sets a weight of the heuristic that plays the
  playouts) or ``hindsight`` (:class:`sniff_env.players.compiled.rollouts.HindsightValues`: every
  move played out once on the real deal, an unbiased sample of its value to the heuristic),
  against compiled built-ins. The moves in its seat are played by ``actor``: the teacher itself
  by default, or a compiled built-in, or an exported policy (the student's own positions);
  ``hindsight`` reads hidden tiles, so it only labels and never plays. The teacher is split over
  ``workers`` threads (its kernels release the GIL), each with its own generator,
  so the data depends on ``seed`` and ``workers`` only.
"""

from __future__ import annotations

import multiprocessing as mp
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import observer_for
from sniff_env.players import BUILTIN, load, load_compiled, parse_spec
from sniff_env.players.rollouts import rollouts_search
from sniff_env.rules import Rules
from training.lib.advantages import points_returns
from training.lib.config import settings_of
from training.lib.evaluate import policy_actions
from training.lib.torchscript import load_checked

Batch = dict[str, np.ndarray]
TEACHERS = ("heuristic", "rollouts", "hindsight")
ROWS_PER_GAME = 48
"""Recorded decisions a game is first given room for (a two-hand game of two players records about 20)."""


@dataclass(frozen=True)
class RecordSettings:
    """What the recorders read of an imitation run's settings (``imitation.Args`` has these
    fields; :meth:`of` takes them from it)."""

    games: int
    seed: int
    teacher: str
    """The player whose choices are the labels."""
    opponents: str
    """Comma-separated players at the other seats (empty: the teacher everywhere)."""
    explore: float
    """Share of the recorded seat's moves played at random (labels stay the teacher's)."""
    actor: str
    """A policy that plays the recorded seat instead of the teacher (empty: the teacher)."""
    engine: str
    max_hands: int
    gamma: float
    reward_scale: float
    workers: int
    progress: bool
    trust_code: bool = False
    """Load a TorchScript ``actor`` that is neither shipped nor this machine's own export."""

    @classmethod
    def of(cls, settings: Any) -> RecordSettings:
        """These fields of ``settings`` (any object that has them, e.g. a run's arguments)."""
        return settings_of(cls, settings)


class Rows:
    """Columns of recorded rows, allocated up front and doubled when full (a few times a run at
    most), written in place by each step: no per-step lists to join at the end."""

    def __init__(self, capacity: int, columns: dict[str, tuple[tuple[int, ...], Any]]) -> None:
        self.size = 0
        self._cols = {name: np.empty((max(capacity, 1), *shape), dtype) for name, (shape, dtype) in columns.items()}

    def extend(self, count: int) -> slice:
        """Room for ``count`` more rows; the slice to write them to."""
        need = self.size + count
        capacity = len(next(iter(self._cols.values())))
        if need > capacity:
            grown = max(need, 2 * capacity)
            for name, col in self._cols.items():
                bigger = np.empty((grown, *col.shape[1:]), col.dtype)
                bigger[: self.size] = col[: self.size]
                self._cols[name] = bigger
        at = slice(self.size, need)
        self.size = need
        return at

    def __getitem__(self, name: str) -> np.ndarray:
        return self._cols[name]

    def filled(self) -> dict[str, np.ndarray]:
        """The rows written so far, per column."""
        return {name: col[: self.size] for name, col in self._cols.items()}


def margins(scores: np.ndarray | Sequence[Sequence[int]], side: np.ndarray | Sequence[int]) -> np.ndarray:
    """Each row's side score less the mean of the other sides' scores (``scores``: one row of
    side scores per position, ``side``: the side of each row)."""
    scores = np.asarray(scores, np.float64)
    side = np.asarray(side)
    mine = scores[np.arange(len(side)), side]
    return mine - (scores.sum(1) - mine) / (scores.shape[1] - 1)


def opponent_specs(settings: RecordSettings) -> list[str]:
    """The player specs of ``settings.opponents`` (comma-separated)."""
    return [s.strip() for s in settings.opponents.split(",") if s.strip()]


def play_games(rules: Rules, settings: RecordSettings, first: int, count: int, stream: str = "") -> Batch:
    """Record the teacher's decisions in games ``first .. first + count - 1`` of the run
    (``stream``: a tag that gives another set of games for the same seed)."""
    observer = observer_for(rules)
    n = rules.num_players
    opponents = opponent_specs(settings)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    games: list[int] = []
    for g in range(first, first + count):
        rng = random.Random(f"imitation:{settings.seed}{stream}:{g}")
        game = new_game(rules, seed=rng.getrandbits(62), record=False, max_hands=settings.max_hands)
        teacher = load(settings.teacher, seed=rng.getrandbits(31))
        opponent = load(rng.choice(opponents), seed=rng.getrandbits(31))
        seat = rng.randrange(n)
        side = rules.side_of(seat)
        chain: list[tuple[int, float]] = []  # (index into this game's records, score margin then)
        start = len(actions)

        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            info = info_state(game, game.turn)
            mask = observer.mask(info)
            if rules.side_of(game.turn) != side:
                game.step(opponent.act({"action_mask": mask}, {"info_state": info}))
                continue
            choice = teacher.act({"action_mask": mask}, {"info_state": info})
            if len(info.legal) > 1:
                chain.append((len(actions), float(margins([game.scores], [side])[0])))
                obs.append(observer.encode(info))
                masks.append(mask)
                actions.append(choice)
                games.append(g)
            move = rng.choice(info.legal) if rng.random() < settings.explore else choice
            game.step(move)
        # discounted points return of each recorded decision, as PPO's critic sees it
        before = np.array([m for _, m in chain], np.float64)
        end = margins([game.scores], [side])
        returns.extend(points_returns(np.zeros(len(chain), np.int64), before, end, settings.gamma,
                                      settings.reward_scale).tolist())
        assert len(returns) == len(actions) and len(actions) - start == len(chain)
    size = observer.size
    return {
        "obs": np.stack(obs) if obs else np.zeros((0, size), np.float32),
        "masks": np.stack(masks) if masks else np.zeros((0, observer.codec.num_actions), np.int8),
        "actions": np.array(actions, np.int64),
        "returns": np.array(returns, np.float32),
        "games": np.array(games, np.int64),
    }


def _worker(job: tuple[Rules, RecordSettings, int, int, str]) -> Batch:
    torch.set_num_threads(1)
    return play_games(*job)


def record(rules: Rules, settings: RecordSettings, stream: str = "") -> Batch:
    """All the run's games, in game order, played by ``workers`` processes in chunks."""
    chunk = 25
    jobs = [(rules, settings, first, min(chunk, settings.games - first), stream) for first in range(0, settings.games, chunk)]
    parts: list[Batch] = []
    from rich.progress import Progress

    with Progress(disable=not settings.progress) as progress:
        task = progress.add_task("recording games", total=settings.games)
        if settings.workers > 1:
            with mp.get_context("fork").Pool(settings.workers) as pool:
                for part in pool.imap(_worker, jobs):
                    parts.append(part)
                    progress.advance(task, chunk)
        else:
            for job in jobs:
                parts.append(play_games(*job))
                progress.advance(task, chunk)
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def teacher_fn(engine: Any, spec: str, workers: int, seed: int) -> tuple[Any, bool]:
    """For the teacher ``spec`` on ``engine``: ``(fn, values)`` where ``fn(games)`` gives the
    actions (``values`` False: the heuristic) or every action's value (True: the search and
    hindsight)."""
    from sniff_env.players.compiled.rollouts import HindsightValues

    base, opts = parse_spec(spec)
    if base == "heuristic":
        return load_compiled(spec, engine), False
    if spec == "hindsight":
        searches: list[Any] = [HindsightValues(engine) for _ in range(workers)]
    elif base == "rollouts" and all(k in ("samples", "value") or k.startswith("playout_") for k in opts):
        # the search checks the values, and the playout weights' names
        searches = [rollouts_search(engine, seed=seed + k, **opts) for k in range(workers)]
    else:
        raise ValueError("the vector engine's teachers are heuristic, rollouts:samples=N (and value=margin or win, "
                         f"playout_NAME=X) and hindsight; got {spec!r}")
    pool = ThreadPoolExecutor(workers) if workers > 1 else None

    def q_values(games: np.ndarray) -> np.ndarray:
        if pool is None:
            return searches[0].q_values(games)
        parts = np.array_split(games, workers)
        return np.concatenate(list(pool.map(lambda k: searches[k].q_values(parts[k]), range(workers))))

    return q_values, True


def actor_fn(engine: Any, spec: str, rules: Rules, trust_code: bool = False) -> Callable[[np.ndarray], np.ndarray]:
    """The batched choice function of ``spec`` on ``engine``: a compiled built-in, or (any spec
    that names no built-in) an exported TorchScript policy file, its masked argmax (loaded as
    :func:`training.lib.torchscript.load_checked` allows: ``trust_code`` vouches for it)."""
    if parse_spec(spec)[0] in BUILTIN:
        return load_compiled(spec, engine)
    module = load_checked(spec, rules, trust_code)[0]
    return lambda games: policy_actions(module, engine, games)


def record_vector(rules: Rules, settings: RecordSettings, progress: Any = None, stream: str = "") -> Batch:
    """``settings.games`` games: the teacher's observations, masks, choices and discounted points
    returns (as ``training/imitation.py`` records them), in game order; with the search as
    teacher also ``values``, every action's mean margin (``-inf`` where illegal). ``stream``:
    a tag that gives another set of games for the same seed."""
    from sniff_env.vector.engine import GAME_OVER, VectorEngine

    rng = random.Random(f"imitation:{settings.seed}{stream}")
    G = settings.games
    eng = VectorEngine(rules, G, max_hands=settings.max_hands, threads=1)
    eng.deal(np.arange(G), True, [rng.getrandbits(62) for _ in range(G)])
    teacher, valued = teacher_fn(eng, settings.teacher, settings.workers, rng.getrandbits(63))
    actor_spec = settings.actor or ("heuristic" if settings.teacher == "hindsight" else "")
    actor = actor_fn(eng, actor_spec, rules, settings.trust_code) if actor_spec else None
    opponents = opponent_specs(settings)
    opp_fns = [load_compiled(spec, eng) for spec in opponents]
    opp_of = np.array([rng.randrange(len(opponents)) for _ in range(G)])
    sides = np.array([rules.side_of(s) for s in range(rules.num_players)])
    side = sides[np.array([rng.randrange(rules.num_players) for _ in range(G)])]
    explore = np.random.default_rng(rng.getrandbits(63))
    rows_out = Rows(G * ROWS_PER_GAME, {
        "obs": ((eng.obs_size,), np.float32), "masks": ((eng.num_actions,), np.int8), "actions": ((), np.int64),
        "games": ((), np.int64), "margin": ((), np.float64),
        **({"values": ((eng.num_actions,), np.float32)} if valued else {}),
    })
    done = 0
    while (live := eng.continue_games()).size:
        act = np.zeros(G, np.int64)
        ours = sides[eng.turn[live]] == side[live]
        rows = live[ours]
        if rows.size:
            keep = eng.num_legal[rows] > 1  # single legal actions are played, not recorded
            kept = rows[keep]
            at = rows_out.extend(kept.size)
            if valued:
                choice = eng.legal[rows, 0].astype(np.int64)
                if keep.any():
                    q = teacher(kept)
                    choice[keep] = np.argmax(q, axis=1)  # the first (lowest) of equal bests, as the search plays
                    rows_out["values"][at] = q
            else:
                choice = teacher(rows)
            np.take(eng.obs, kept, axis=0, out=rows_out["obs"][at])
            np.take(eng.mask, kept, axis=0, out=rows_out["masks"][at])
            rows_out["actions"][at] = choice[keep]
            rows_out["games"][at] = kept
            rows_out["margin"][at] = margins(eng.scores[kept], side[kept])
            wander = explore.random(rows.size) < settings.explore
            move = choice if actor is None else actor(rows)
            act[rows] = np.where(wander, eng.sample_actions(explore)[rows], move)
        for k, fn in enumerate(opp_fns):
            theirs = live[~ours][opp_of[live[~ours]] == k]
            if theirs.size:
                act[theirs] = fn(theirs)
        eng.step(act)
        finished = int((eng.phase == GAME_OVER).sum())
        if progress is not None and finished > done:
            progress(finished - done)
        done = finished
    eng.close()
    recorded = rows_out.filled()
    order = np.argsort(recorded["games"], kind="stable")  # game order; within a game, decision order
    data = {key: recorded[key][order] for key in ("obs", "masks", "actions", "games")}
    if valued:
        data["values"] = recorded["values"][order]
    margin = recorded["margin"][order]
    end = margins(eng.scores, side)
    data["returns"] = points_returns(data["games"], margin, end, settings.gamma, settings.reward_scale)
    return data



def record_family(family: Sequence[Rules], names: Sequence[str], settings: RecordSettings, progress: Any = None) -> Batch:
    """A run's data over the rule sets ``family`` (named ``names``): ``settings.games`` games split
    evenly between them, each set recorded as :func:`record_vector` or :func:`record` do, with its
    own stream of games when there are several (one set: exactly the games of ``settings.seed``);
    game ``g`` of set ``i`` is numbered ``g * len(family) + i``, so a held-out share of the last
    games holds every set, and the row entry ``preset`` tells the sets apart."""

    k = len(family)
    parts: list[Batch] = []
    for i, (rules, name) in enumerate(zip(family, names, strict=True)):
        sub = replace(settings, games=settings.games // k + (i < settings.games % k))
        tag = f":{name}" if k > 1 else ""
        part = record_vector(rules, sub, progress, tag) if settings.engine == "vector" else record(rules, sub, tag)
        part["games"] = part["games"] * k + i
        part["preset"] = np.full(len(part["actions"]), i, np.int64)
        parts.append(part)
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
