"""The difficulty ladder: the opponents a player may name, from the weakest to the strongest.

``sniff play --level NAME`` and the browser's new-game form offer the same five levels. Each
names a player for the rules at hand: ``strong`` is the shipped agent trained for them (the
policy alone), ``expert`` that agent steering the compiled rollout search over the deals its seat
cannot see (the ``guided`` player), and where no agent was trained for the rules they fall back
to the heuristic and to the search alone. Both read only what their seat may know.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from sniff_env.play.warm import Warming, warm_in_background
from sniff_env.players import Player, agents, parse_spec
from sniff_env.rules import Rules


@dataclass(frozen=True)
class Level:
    """A rung of the ladder: its name, its label in the browser, what it plays like, and the
    built-in player it always seats (None: the player depends on the rules)."""

    name: str
    label: str
    about: str
    spec: str | None = None


LEVELS: dict[str, Level] = {level.name: level for level in (
    Level("beginner", "Beginner", "plays a legal tile at random", "random"),
    Level("easy", "Easy", "takes the most points it can, move by move", "greedy"),
    Level("medium", "Medium", "scores, blocks and keeps a balanced hand", "heuristic"),
    Level("strong", "Strong", "the trained agent made for these rules, on its own (Medium where none was)"),
    Level("expert", "Expert", "the trained agent steering a search over the tiles it cannot see, under 50 ms a move "
                              "(the search alone where no agent was trained)"),
)}
"""The ladder, weakest first."""

DEFAULT_LEVEL = "expert"
"""The level seated when no opponent is named: the strongest (see the agents' cards)."""

EXPERT_SAMPLES = 1024
"""Deals the expert's search plays out for each legal move, where its work allows."""
EXPERT_WORK = 64_000
"""The most playout moves the expert's choice may cost (the guided player's ``work``): fewer deals
where many moves and a long hand lie ahead. At 2-player sniff on the 2-core machine, about 20 ms
a move at the median and 41 ms at the 95th percentile (``sniff speed levels --positions 400``)."""
SEARCH = "rollouts:samples=256"
"""The search the expert plays alone where no agent was trained for the rules."""
SEARCH_ALONE = f"{SEARCH},name=expert"
"""That search's spec, named ``expert`` at the table."""


def level_names() -> str:
    """The levels, comma-separated, weakest first (for messages and help)."""
    return ", ".join(LEVELS)


def expert_spec(rules: Rules, agent: str) -> str:
    """The guided search steered by ``agent`` for ``rules``, named ``expert`` at the table: its
    values are chances of winning where the odds are tabled (two sides), else points."""
    from sniff_env.players.compiled.win_odds import MAX_TARGET

    value = ",value=win" if rules.num_sides == 2 and rules.target <= MAX_TARGET else ""
    return f"guided:agent={agent},samples={EXPERT_SAMPLES},prior=0.3{value},work={EXPERT_WORK},name=expert"


def level_opponent(level: str, rules: Rules) -> tuple[str, str]:
    """The player spec of ``level`` for ``rules`` and one line, in plain words, saying how that
    level plays (the engine's name second, in brackets); ``ValueError`` naming the levels for an
    unknown one."""
    if level not in LEVELS:
        raise ValueError(f"there is no level {level!r}; choose one of {level_names()}")
    label, fixed = LEVELS[level].label, LEVELS[level].spec
    if fixed is not None:
        return fixed, f"{label} {LEVELS[level].about} (engine: {fixed})"
    spec, _ = agents.default_opponent(rules)
    table = f"{rules.name} with {rules.num_players} players" + (" in partnerships" if rules.partnership else "")
    if level == "strong":
        if spec == "heuristic":
            return spec, f"{label} plays as Medium does: no trained agent fits {table} (engine: heuristic)"
        return spec, f"{label} plays by what a trained agent learnt from many games of {table} (engine: {spec})"
    thinks = f"{label} thinks ahead before every move, trying it against many guesses of the tiles it cannot see"
    if spec == "heuristic":  # no agent was trained for these rules
        return SEARCH_ALONE, f"{thinks} (engine: {SEARCH}; no trained agent fits {table})"
    return expert_spec(rules, spec), f"{thinks} (engine: {spec} with a search of up to {EXPERT_SAMPLES} guesses)"


SEARCHING = ("guided", "rollouts")
"""The built-in players that run the compiled search."""


class Seated(Protocol):
    """A seat as the table holds it (:class:`sniff_env.play.session.SeatPlayer`): its spec and
    the player loaded for it (None for a human)."""

    spec: str
    agent: Player | None


def prepare_searches(seats: Iterable[Seated]) -> Warming | None:
    """Where a player seated in ``seats`` runs the compiled search and the cache does not hold it
    yet, start compiling it in a process of its own and return that compile (the table then
    opens at once, and the searching agent waits for it at its first move, saying so); None
    where nothing has to wait."""
    if not any(seat.agent is not None and parse_spec(seat.spec)[0] in SEARCHING for seat in seats):
        return None
    return warm_in_background(["search"])
