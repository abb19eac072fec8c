"""Scoring during play (which counts score) and at the end of a hand.

The hand-end numbers are :func:`sniff_env.rulebook.hand_end_points`'; this module explains them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from sniff_env.rule_codes import HAND_END_CODE
from sniff_env.rulebook import hand_end_points, round5
from sniff_env.rules import HandEnd, Rules, Scoring

MAX_COUNT = 256  # far above any reachable count (four crosswise 12-12 ends make 96)


__all__ = ["MAX_COUNT", "ROUNDED", "ROUNDING", "HandResult", "round5", "rounding_note", "score_hand_end", "scoring_table"]

ROUNDING = "round5 rounds to the nearest multiple of 5"
"""What :func:`~sniff_env.rulebook.round5` does, in words: every explanation of the hand end says
it with these words or with :data:`ROUNDED` (a test holds them to the rule)."""
ROUNDED = "rounded to the nearest 5"
"""The same in plain words, for the players' how-to-play."""


def rounding_note() -> str:
    """:data:`ROUNDING` with examples the rule itself computes, e.g. ``(12 -> 10, 13 -> 15)``."""
    return f"{ROUNDING} ({', '.join(f'{x} -> {round5(x)}' for x in (12, 13))})"


def _fibonacci(limit: int) -> set[int]:
    out, a, b = set(), 1, 2
    while a < limit:
        out.add(a)
        a, b = b, a + b
    return out


def _primes_and_one(limit: int) -> set[int]:
    sieve = [True] * limit
    out = {1}  # the rules text lists 1 among the scoring "primes"
    for n in range(2, limit):
        if sieve[n]:
            out.add(n)
            for m in range(n * n, limit, n):
                sieve[m] = False
    return out


@cache
def scoring_table(scoring: Scoring) -> tuple[bool, ...]:
    """``table[count]`` is True when ``count`` is a scoring combination."""
    r = range(MAX_COUNT)
    if scoring is Scoring.FIVES:
        hits = {c for c in r if c > 0 and c % 5 == 0}
    elif scoring is Scoring.THREES:
        hits = {c for c in r if c > 0 and c % 3 == 0}
    elif scoring is Scoring.THREES_AND_FIVES:
        hits = {c for c in r if c > 0 and (c % 3 == 0 or c % 5 == 0)}
    elif scoring is Scoring.PRIMES:
        hits = _primes_and_one(MAX_COUNT)
    else:
        hits = _fibonacci(MAX_COUNT)
    return tuple(c in hits for c in r)


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what the end-of-hand scoring gave."""

    ended_by: str
    """``"domino"``, ``"blocked"`` or ``"target"`` (a side reached the target during the hand)."""
    winner: int | None
    """The seat that won the hand's bonus (or dominoed), if any."""
    pips: tuple[int, ...]
    """Pip total left in each seat's hand."""
    tiles_left: tuple[int, ...]
    side_points: tuple[int, ...]
    """End-of-hand points given to each side (negative for a subtraction)."""
    lines: tuple[str, ...]
    """The scoring explained, one line per step."""


def _opponents(rules: Rules, seat: int) -> list[int]:
    side = rules.side_of(seat)
    return [s for s in range(rules.num_players) if rules.side_of(s) != side]


def score_hand_end(
    rules: Rules, pips: tuple[int, ...], tiles_left: tuple[int, ...], domino: int | None
) -> HandResult:
    """End-of-hand scoring by ``rules.hand_end`` (:func:`sniff_env.rulebook.hand_end_points`),
    explained line by line; ``domino`` is the seat that went out, if any."""
    gain = [0] * rules.num_sides
    won = hand_end_points(HAND_END_CODE[rules.hand_end], pips, tiles_left, rules.num_players, rules.partnership,
                          -1 if domino is None else domino, gain)
    winner = None if won < 0 else won
    lines = [f"seat {domino} dominoed" if domino is not None else "the hand is blocked",
             "pips left: " + ", ".join(f"seat {s}: {p}" for s, p in enumerate(pips))]
    lines += _explain(rules, pips, domino, winner, gain)
    return HandResult("domino" if domino is not None else "blocked", winner, pips, tiles_left, tuple(gain),
                      tuple(lines))


def _explain(rules: Rules, pips: tuple[int, ...], domino: int | None, winner: int | None,
             gain: list[int]) -> list[str]:
    """The steps of the hand-end scoring, in words, with the numbers the rulebook gave."""
    mode = rules.hand_end
    if mode is HandEnd.SUBTRACT_OWN:
        return [f"seat {s} loses round5({p}) = {round5(p)}" for s, p in enumerate(pips)]
    if mode is HandEnd.DOMINO_TAKES_PIPS:
        if domino is not None:
            return [f"seat {domino} takes the opponents' pips: {gain[rules.side_of(domino)]}"]
        return [f"seat {s} takes {pips[o]} - {pips[s]} = {pips[o] - pips[s]} from seat {o}"
                for s in range(rules.num_players) for o in _opponents(rules, s) if pips[o] > pips[s]]
    what = "fewest tiles" if mode is HandEnd.BONUS_DIV5_FEWEST_TILES else "lightest hand"
    lines = []
    if domino is None:
        lines.append(f"no single {what}: no bonus" if winner is None else f"seat {winner} has the {what}")
    if winner is not None:
        opp_total = sum(pips[o] for o in _opponents(rules, winner))
        bonus = gain[rules.side_of(winner)]
        if mode is HandEnd.BONUS_DIV5_FEWEST_TILES:
            lines.append(f"seat {winner} gets round5({opp_total}) / 5 = {bonus}")
        else:
            lines.append(f"seat {winner} gets round5({opp_total} - {pips[winner]}) / 5 = {bonus}")
    return lines
