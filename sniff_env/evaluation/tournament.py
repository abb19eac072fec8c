"""Duplicate-deal tournaments between players.

Every pair of players meets on the same seeded deals (a game's deals depend only on its seed
and the hand number, see :meth:`~sniff_env.game.Game.hand_rng`), each deal replayed under
every seating of :func:`seatings` so that the luck of the deal cancels. With two players a
deal is played twice, seats swapped. With more seats the pair fills the table alternately
(A B A B ...), under every rotation of that pattern and of its complement (B A B A ...): each
player holds every seat equally often, partnerships (seats 0+2 vs 1+3) are A+A against B+B,
and the winner's side tells which player won. A draw (equal scores after ``max_hands``) counts
half a win to each. Games stop after :data:`MAX_HANDS` hands at most (highest score wins) so
that weak players whose scores drift never loop for ever.

Results do not depend on the number of worker processes: tasks are independent, seeded from
the tournament seed, and collected in order.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sniff_env.evaluation.batched import batch_refusal, play_batched
from sniff_env.evaluation.ratings import fit_ratings, wilson_interval
from sniff_env.evaluation.schedule import (
    GameOutcome,
    cached_player,
    derive_seed,
    one_thread,
    pairings,
    seatings,
)
from sniff_env.game import Phase, new_game
from sniff_env.gamelog import save_game_log
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.rules import Rules
from sniff_env.workers import checked_workers, worker_pool

MAX_HANDS = 200
"""Safety bound on the hands of one game: far above what any preset needs with sensible
players (2-player sniff to 100 takes about 5 to 12 hands)."""


@dataclass(frozen=True)
class PairResult:
    """The games of one pair, from player A's side."""

    a: str
    b: str
    games: int
    wins_a: int
    wins_b: int
    draws: int
    hands: int
    points_a: float
    points_b: float

    @property
    def score_a(self) -> float:
        """A's win rate, draws counted as half."""
        return (self.wins_a + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of :attr:`score_a`."""
        return wilson_interval(self.wins_a + 0.5 * self.draws, self.games)

    @property
    def points_per_hand(self) -> tuple[float, float]:
        return (self.points_a / self.hands, self.points_b / self.hands) if self.hands else (0.0, 0.0)

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.interval
        ppa, ppb = self.points_per_hand
        return {
            "a": self.a, "b": self.b, "games": self.games, "wins_a": self.wins_a, "wins_b": self.wins_b,
            "draws": self.draws, "win_rate_a": round(self.score_a, 5), "ci95": [round(lo, 5), round(hi, 5)],
            "hands": self.hands, "points_per_hand_a": round(ppa, 4), "points_per_hand_b": round(ppb, 4),
        }


@dataclass
class TournamentResult:
    """Everything a tournament measured."""

    players: list[str]
    rules: Rules
    games_per_pair: int
    seed: int
    max_hands: int
    outcomes: list[GameOutcome] = field(default_factory=list)
    engine: str = "reference"
    """The engine that played the games: ``"batched"`` or ``"reference"`` (the same outcomes)."""

    def pairs(self) -> list[PairResult]:
        out = []
        for i, j in pairings(len(self.players)):
            games = [o for o in self.outcomes if o.pair == (i, j)]
            out.append(PairResult(
                self.players[i], self.players[j], len(games),
                sum(o.winner == 0 for o in games), sum(o.winner == 1 for o in games),
                sum(o.winner is None for o in games), sum(o.hands for o in games),
                sum(o.points[0] for o in games), sum(o.points[1] for o in games),
            ))
        return out

    def win_matrix(self) -> Any:
        import numpy as np

        w = np.zeros((len(self.players), len(self.players)))
        for o in self.outcomes:
            i, j = o.pair
            if o.winner is None:
                w[i, j] += 0.5
                w[j, i] += 0.5
            else:
                w[o.pair[o.winner], o.pair[1 - o.winner]] += 1
        return w

    def ratings(self) -> dict[str, float]:
        """Bradley-Terry ratings on the Elo scale (mean 0), fitted on every game."""
        return dict(zip(self.players, (float(r) for r in fit_ratings(self.win_matrix()))))

    def think_time(self) -> dict[str, float]:
        """Mean seconds per decision of each player, over every game it played."""
        spent = dict.fromkeys(self.players, 0.0)
        count = dict.fromkeys(self.players, 0)
        for o in self.outcomes:
            for k in (0, 1):
                name = self.players[o.pair[k]]
                spent[name] += o.think_s[k]
                count[name] += o.decisions[k]
        return {p: spent[p] / count[p] if count[p] else 0.0 for p in self.players}


@dataclass(frozen=True)
class _Task:
    specs: tuple[str, ...]
    rules: Rules
    pair: tuple[int, int]
    deal_index: int
    seed: int
    max_hands: int
    keep_deals: bool
    save_games: str | None = None


GAME_LOG_NAME = "pair{a}-{b}-deal{deal:05d}-seating{seating}.json"
"""File name of a saved tournament game in the ``save_games`` folder."""


def saved_game_logs(folder: str | Path) -> list[Path]:
    """The tournament game logs already in ``folder`` (none if it does not exist)."""
    return sorted(Path(folder).glob("pair*-*-deal*-seating*.json"))


def play_deal(task: _Task) -> list[GameOutcome]:
    """Play one deal under every seating of the pair."""
    rules, n = task.rules, task.rules.num_players
    game_seed = derive_seed(task.seed, "deal", task.deal_index)
    out = []
    for k, seating in enumerate(seatings(n)):
        specs = [task.specs[task.pair[who]] for who in seating]
        players = [cached_player(spec, rules) for spec in specs]
        for seat, p in enumerate(players):
            p.reset(derive_seed(task.seed, task.pair, task.deal_index, k, seat))
        saving = task.save_games is not None
        game = new_game(rules, seed=game_seed, record=saving, max_hands=task.max_hands)
        decisions, think = [0, 0], [0.0, 0.0]
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            seat = game.turn
            info = {"info_state": info_state(game, seat)}
            t0 = time.perf_counter()
            action = players[seat].act(_LazyObservation(info), info)
            think[seating[seat]] += time.perf_counter() - t0
            decisions[seating[seat]] += 1
            game.step(action)
        if task.save_games is not None:
            name = GAME_LOG_NAME.format(a=task.pair[0], b=task.pair[1], deal=task.deal_index, seating=k)
            save_game_log(game, Path(task.save_games) / name, players=specs,
                          meta={"tournament_seed": task.seed, "deal": task.deal_index, "seating": list(seating)})
        # side s is seat s, or seats s and s + 2 in a partnership: the same player either way
        winner = None if game.winner is None else seating[game.winner]
        points = []
        for who in (0, 1):
            seats = [s for s in range(n) if seating[s] == who]
            points.append(sum(game.scores[rules.side_of(s)] for s in seats) / len(seats))
        out.append(GameOutcome(
            task.pair, task.deal_index, game_seed, seating, winner, tuple(game.scores),
            len(game.results), (points[0], points[1]), (decisions[0], decisions[1]), (think[0], think[1]),
            tuple(r.deal for r in game.records) if task.keep_deals else (),
        ))
    return out


class _LazyObservation(dict):  # type: ignore[type-arg]
    """The environment's observation dict, encoded only when a player looks at it."""

    def __init__(self, info: dict[str, Any]) -> None:
        super().__init__()
        self._info = info

    def _fill(self) -> None:
        if not super().__len__():
            state = self._info["info_state"]
            obs = _observer(state.rules)
            super().update(observation=obs.encode(state), action_mask=obs.mask(state))

    def __getitem__(self, key: str) -> Any:
        self._fill()
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._fill()
        return super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._fill()
        return super().get(key, default)


_OBSERVERS: dict[Rules, Any] = {}


def _observer(rules: Rules) -> Any:
    if rules not in _OBSERVERS:
        _OBSERVERS[rules] = Observer(rules)
    return _OBSERVERS[rules]


def run_tournament(
    players: Sequence[str],
    rules: Rules,
    games_per_pair: int,
    seed: int = 0,
    workers: int = 1,
    max_hands: int = MAX_HANDS,
    keep_deals: bool = False,
    progress: bool | Callable[[int, int], None] = False,
    save_games: str | Path | None = None,
    engine: str = "auto",
) -> TournamentResult:
    """Play every pair of ``players`` (specs for :func:`sniff_env.players.load`) on duplicate
    deals: ``games_per_pair`` is rounded up to whole deals (a multiple of ``len(seatings)``).

    ``workers`` processes share the deals; results are the same for any number.
    ``progress=True`` shows a progress bar; a callable gets ``(done, total)`` deals.
    ``save_games`` is a folder where every game is saved as a JSON game log (the format of
    :mod:`sniff_env.gamelog`, which ``sniff replay`` reads).

    ``engine="auto"`` plays on the batched engine (:mod:`.batched`, the same outcomes, much
    faster) when every player has a batched form and neither ``keep_deals`` nor ``save_games``
    is asked, else on the reference engine; ``"batched"`` insists (:class:`ValueError` saying
    why it cannot), ``"reference"`` plays every game on the reference engine.
    """
    if len(players) < 2:
        raise ValueError(f"a tournament needs at least two players; got {list(players)}")
    if len(set(players)) != len(players):
        raise ValueError(f"each player may appear once; got {list(players)}")
    for key, value in (("games_per_pair", games_per_pair), ("workers", workers), ("max_hands", max_hands)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{key} must be a whole number, 1 or more; got {value!r}")
    checked_workers(workers)
    for spec in players:  # fail before any game on a spec that names no player or a mismatched policy
        cached_player(spec, rules)
    per_deal = len(seatings(rules.num_players))
    deals = -(-games_per_pair // per_deal)
    chosen, _ = choose_engine(players, rules, engine, keep_deals, save_games)
    result = TournamentResult(list(players), rules, deals * per_deal, seed, max_hands, engine=chosen)
    total = deals * len(pairings(len(players)))
    callback = _progress_bar(total) if progress is True else (progress or None)
    try:
        if chosen == "batched":
            result.outcomes = play_batched(players, rules, deals, seed, max_hands, workers, callback)
        else:
            tasks = [
                _Task(tuple(players), rules, pair, d, seed, max_hands, keep_deals,
                      None if save_games is None else str(save_games))
                for pair in pairings(len(players)) for d in range(deals)
            ]
            result.outcomes = _play_reference(tasks, workers, callback)
    finally:
        if callback is not None and hasattr(callback, "close"):
            callback.close()
    return result


def _play_reference(tasks: list[_Task], workers: int, callback: Callable[[int, int], None] | None) -> list[GameOutcome]:
    """The outcomes of ``tasks`` (deals) on the reference engine, in order."""
    if workers <= 1:
        return _collect(map(play_deal, tasks), len(tasks), callback)
    with worker_pool(workers, one_thread) as pool:
        return _collect(pool.imap(play_deal, tasks, chunksize=1), len(tasks), callback)


def _collect(results: Iterable[list[GameOutcome]], total: int,
             callback: Callable[[int, int], None] | None) -> list[GameOutcome]:
    outcomes: list[GameOutcome] = []
    for k, outs in enumerate(results):
        outcomes.extend(outs)
        if callback:
            callback(k + 1, total)
    return outcomes


ENGINES = ("auto", "batched", "reference")
"""The engines a tournament may be played on (see :func:`run_tournament`)."""


def choose_engine(players: Sequence[str], rules: Rules, engine: str = "auto", keep_deals: bool = False,
                  save_games: str | Path | None = None) -> tuple[str, str | None]:
    """The engine a tournament plays on (see :func:`run_tournament`) and, for the reference
    engine, why; :class:`ValueError` when ``engine="batched"`` cannot be."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
    if engine == "reference":
        return "reference", "--engine reference"
    refusal = engine_refusal(players, rules, keep_deals, save_games)
    if engine == "batched" and refusal:
        raise ValueError(f"the batched engine cannot play this tournament: {refusal}")
    return ("reference", refusal) if refusal else ("batched", None)


def engine_refusal(players: Sequence[str], rules: Rules, keep_deals: bool = False,
                   save_games: str | Path | None = None) -> str | None:
    """Why a tournament cannot be played on the batched engine, or None when it can."""
    if keep_deals or save_games is not None:
        return "it keeps the deals or saves game logs, which only the reference engine records"
    return batch_refusal(players, rules)


class _progress_bar:
    """A rich progress bar as a ``(done, total)`` callback."""

    def __init__(self, total: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._bar = Progress(
            TextColumn("deals"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=False
        )
        self._task = self._bar.add_task("deals", total=total)
        self._bar.start()

    def __call__(self, done: int, total: int) -> None:
        self._bar.update(self._task, completed=done)

    def close(self) -> None:
        self._bar.stop()
