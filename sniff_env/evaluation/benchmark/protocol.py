"""The benchmark protocol: an agent against a task's opponents on the task's duplicate deals.

The agent meets each opponent on that opponent's number of deals of the task (the same deals,
from the task's seed, for every agent), each deal under every seating
(:func:`~sniff_env.evaluation.tournament.seatings`). The opponents also meet each other on the
task's pool deals: those games are the same in every run, and they fix the opponents' ratings
so that an agent's rating means the same whoever else was rated. Every pair is one call of
:func:`~sniff_env.evaluation.tournament.run_tournament`, which picks the fastest engine that
plays it (the outcomes are the same on either). Bradley-Terry ratings are fitted on every game
of the run and shifted so that :data:`~.tasks.ANCHOR` is 0.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from sniff_env.evaluation.benchmark.tasks import ANCHOR, MIN_GAMES, BenchmarkError, Task
from sniff_env.evaluation.tournament import GameOutcome, PairResult, TournamentResult, run_tournament
from sniff_env.players import BUILTIN, load, parse_spec
from sniff_env.players.compat import policy_fit
from sniff_env.players.policy import PolicyError


@dataclass
class BenchmarkResult:
    """What one run measured: every game, as one tournament among the agent and the opponents."""

    task: Task
    agent: str
    games: dict[str, int]
    """Games against each opponent (the task's, or the budget asked for)."""
    pool_games: int
    standard: bool
    """Whether the run played the task's own numbers of games (only such runs are comparable)."""
    tournament: TournamentResult
    wall_s: float = 0.0
    engines: dict[str, str] = dataclasses.field(default_factory=dict)
    """The engine that played each pair (``"batched"`` or ``"reference"``)."""

    def against(self) -> list[PairResult]:
        """The agent's results against each opponent, from the agent's side."""
        return [p for p in self.tournament.pairs() if p.a == self.agent]

    def pool(self) -> list[PairResult]:
        """The results among the opponents."""
        return [p for p in self.tournament.pairs() if p.a != self.agent and p.games]

    def ratings(self) -> dict[str, float]:
        """Bradley-Terry ratings (Elo scale) with the anchor at 0."""
        raw = self.tournament.ratings()
        return {name: value - raw[ANCHOR] for name, value in raw.items()}


def check_agent(task: Task, spec: str) -> None:
    """Refuse an agent the task cannot rate: one that is also an opponent, or a policy made for
    other rules than the task's (every differing field spelled out)."""
    if spec in task.opponents:
        base = parse_spec(spec)[0]
        raise BenchmarkError(
            f"agent {spec!r} is one of the opponents of {task.name} ({', '.join(task.opponents)}); to rate a "
            f"built-in player against the pool give it another name, e.g. {base}:name={base}-agent"
        )
    if parse_spec(spec)[0] in BUILTIN:
        load(spec)  # a bad option fails here, before any game
        return
    try:
        player = load(spec, rules=task.rules)
    except PolicyError as exc:
        raise BenchmarkError(f"agent {spec!r} cannot be rated on {task.name}: {exc}") from exc
    fit = policy_fit(player, task.rules)
    if fit is not None and fit.readable:
        diffs = "; ".join(str(d) for d in fit.readable)
        raise BenchmarkError(
            f"agent {spec!r} was made for other rules than {task.name}'s: {diffs}; a benchmark rates an "
            f"agent on the rules it was made for (train or export one for {task.name}'s rules)"
        )


def budget(task: Task, games: int | None) -> tuple[dict[str, int], int, bool]:
    """Games per opponent, pool games per pair and whether that is the task's standard protocol;
    ``games`` (per opponent and per pool pair, rounded up to whole deals) replaces the task's."""
    per_deal = task.seatings_per_deal
    if games is None:
        return {o: task.games(o) for o in task.opponents}, task.pool_deals * per_deal, True
    if isinstance(games, bool) or not isinstance(games, int) or games < MIN_GAMES:
        standard = ", ".join(f"{task.games(o)} against {o}" for o in task.opponents)
        raise BenchmarkError(
            f"a budget of {games!r} games per opponent is too small to evaluate: give at least {MIN_GAMES} "
            f"(fewer leave a 95% interval wider than about +-0.2); {task.name}'s own protocol plays {standard}"
        )
    rounded = -(-games // per_deal) * per_deal
    return dict.fromkeys(task.opponents, rounded), rounded, False


def run_benchmark(
    task: Task, agent: str, games: int | None = None, workers: int = 1,
    progress: Callable[[str, int, int], None] | None = None,
) -> BenchmarkResult:
    """Play ``agent`` (a player spec) through ``task``'s protocol; ``games`` replaces the task's
    numbers of games (a non-standard run); ``progress(pair, done, total)`` follows each pair."""
    check_agent(task, agent)
    per_opponent, pool_games, standard = budget(task, games)
    players = [agent, *task.opponents]
    rules = task.rules
    merged = TournamentResult(players, rules, 0, task.seed, task.max_hands)
    engines: dict[str, str] = {}
    start = time.perf_counter()
    pairs = [((0, 1 + k), per_opponent[o]) for k, o in enumerate(task.opponents)]
    pairs += [((1 + i, 1 + j), pool_games) for i, j in combinations(range(len(task.opponents)), 2)]
    for (i, j), n in pairs:
        if n == 0:
            continue
        label = f"{players[i]} vs {players[j]}"
        callback = (lambda done, total, label=label: progress(label, done, total)) if progress else False
        result = run_tournament([players[i], players[j]], rules, n, seed=task.seed, workers=workers,
                                max_hands=task.max_hands, progress=callback)
        engines[label] = result.engine
        merged.outcomes.extend(_renumber(o, (i, j)) for o in result.outcomes)
    return BenchmarkResult(task, agent, per_opponent, pool_games, standard, merged,
                           time.perf_counter() - start, engines)


def _renumber(outcome: GameOutcome, pair: tuple[int, int]) -> GameOutcome:
    """``outcome`` of a two-player tournament as a game of the pair ``pair`` of the whole run."""
    return dataclasses.replace(outcome, pair=pair)


__all__ = ["BenchmarkResult", "budget", "check_agent", "run_benchmark"]
