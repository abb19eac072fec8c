"""The named, versioned benchmark tasks, as data.

A task fixes everything a reported score depends on: the rules (a preset, a player count and
overrides), the evaluation deals (a seed and a number of deals per opponent: deal ``d`` is the
same for every opponent and every agent), the opponents and the games among them that anchor
the ratings, the bound on hands, and the metric (duplicate-deal win rate with a 95% Wilson
interval per opponent, and a Bradley-Terry rating on the Elo scale with ``random`` at 0).

A task's name ends in its version: a task never changes once published; a change of any value
here is a new version (``sniff-2p-v1``), and scores of different versions are not compared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from sniff_env.errors import SniffError
from sniff_env.evaluation.tournament import MAX_HANDS, seatings
from sniff_env.presets import make_rules
from sniff_env.rules import Rules

OPPONENTS = ("random", "greedy", "heuristic", "rollouts:samples=256")
"""The opponent pool of every task: from no skill to compiled determinized search."""
ANCHOR = "random"
"""The opponent whose rating is 0 in every report (ratings are differences; this fixes the origin)."""
MIN_GAMES = 20
"""The fewest games per opponent a run may play: below this a 95% interval is wider than
about +-0.2 and says nothing."""


class BenchmarkError(SniffError):
    """A benchmark was asked for something it cannot do: a task that does not exist, an agent
    made for other rules, a budget too small to evaluate, a result file that is not one."""


class UnknownTaskError(BenchmarkError):
    """No task has this name."""


@dataclass(frozen=True)
class Task:
    """One named benchmark task (see the module docstring)."""

    name: str
    summary: str
    preset: str
    num_players: int
    rules_overrides: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    deals: dict[str, int] = field(default_factory=dict)
    """Evaluation deals against each opponent (each deal played under every seating)."""
    pool_deals: int = 0
    """Deals of each pair of opponents: the games that fix the opponents' ratings."""
    max_hands: int = MAX_HANDS
    """A game ends after this many hands at most (highest score wins); 1 makes a one-hand task."""
    opponents: tuple[str, ...] = OPPONENTS

    @property
    def version(self) -> int:
        return int(self.name.rsplit("-v", 1)[1])

    @cached_property
    def rules(self) -> Rules:
        return make_rules(self.preset, self.num_players, **self.rules_overrides)

    @property
    def seatings_per_deal(self) -> int:
        return len(seatings(self.num_players))

    def games(self, opponent: str) -> int:
        """Duplicate games the agent plays against ``opponent``."""
        return self.deals[opponent] * self.seatings_per_deal

    def to_json(self) -> dict[str, Any]:
        """The task as plain data (what a report records of it)."""
        return {
            "name": self.name, "version": self.version, "summary": self.summary, "preset": self.preset,
            "num_players": self.num_players, "rules_overrides": dict(self.rules_overrides),
            "rules": self.rules.to_dict(), "seed": self.seed, "max_hands": self.max_hands,
            "opponents": list(self.opponents), "deals": dict(self.deals),
            "games": {o: self.games(o) for o in self.opponents}, "pool_deals": self.pool_deals,
            "anchor": ANCHOR,
        }


def _deals(random: int, greedy: int, heuristic: int, rollouts: int) -> dict[str, int]:
    return dict(zip(OPPONENTS, (random, greedy, heuristic, rollouts), strict=True))


TINY_RULES: dict[str, Any] = {
    "max_pip": 3, "hand_size": 2, "boneyard_reserve": 0, "draw": "none", "first_hand_lead": "highest_double",
}
"""The small variant: the double-3 set (10 tiles), two tiles each, no drawing (the six other
tiles stay face down), the highest double leads; with one hand per game its whole game tree
(about 54,000 histories, 1,220 information states) is small enough for an exact best response
(``training/studies/exploitability.py``)."""

LADDER_RULES: dict[str, Any] = {**TINY_RULES, "hand_size": 3}
"""The small variant with three tiles each: the ladder's first rung above ``tiny-2p-v0``."""

TASKS: dict[str, Task] = {
    t.name: t
    for t in (
        Task("sniff-2p-v0", "Sniff (the house rules), 2 players, games to 100", "sniff", 2, seed=2301,
             deals=_deals(100, 200, 200, 20), pool_deals=20),
        Task("muggins-2p-v0", "Muggins, 2 players, games to 250, everyone loses their own pips", "muggins", 2,
             seed=2302, deals=_deals(100, 200, 200, 20), pool_deals=20),
        Task("sniff-3p-v0", "Sniff, 3 players each for themselves, games to 100", "sniff", 3, seed=2303,
             deals=_deals(20, 50, 50, 4), pool_deals=4),
        Task("sniff-4p-partnership-v0", "Sniff, 4 players in two partnerships (0+2 vs 1+3), games to 100",
             "sniff", 4, {"partnership": True}, seed=2304, deals=_deals(50, 100, 100, 10), pool_deals=10),
        Task("sniff-4p-v0", "Sniff, 4 players each for themselves, games to 100", "sniff", 4, seed=2306,
             deals=_deals(50, 100, 100, 10), pool_deals=10),
        Task("tiny-2p-v0", "one hand of Sniff with the double-3 set (10 tiles), 2 players, 2 tiles each, no "
             "drawing: small enough for exact exploitability", "sniff", 2, TINY_RULES, seed=2305,
             deals=_deals(500, 500, 500, 250), pool_deals=250, max_hands=1),
        Task("ladder-d3h3-v0", "one hand of Sniff with the double-3 set, 2 players, 3 tiles each, no drawing: "
             "solved exactly (ladder rung 1)", "sniff", 2, LADDER_RULES, seed=2311,
             deals=_deals(500, 500, 500, 250), pool_deals=250, max_hands=1),
        Task("ladder-d4h3-v0", "one hand of Sniff with the double-4 set (15 tiles), 2 players, 3 tiles each, no "
             "drawing: solved exactly (ladder rung 3)", "sniff", 2, {**LADDER_RULES, "max_pip": 4}, seed=2312,
             deals=_deals(500, 500, 500, 250), pool_deals=250, max_hands=1),
        Task("ladder-d3h3-draw-v0", "one hand of Sniff with the double-3 set, 2 players, 3 tiles each, drawing from "
             "the boneyard until playable but never its last two tiles: solved exactly (ladder rung 2)", "sniff", 2,
             {**LADDER_RULES, "draw": "until_playable", "boneyard_reserve": 2}, seed=2313,
             deals=_deals(500, 500, 500, 250), pool_deals=250, max_hands=1),
    )
}
"""Every task by name."""


def get_task(name: str) -> Task:
    """The task ``name``, or :class:`UnknownTaskError` listing the tasks."""
    if name not in TASKS:
        raise UnknownTaskError(f"unknown task {name!r}; tasks: {', '.join(TASKS)}")
    return TASKS[name]
