"""Scoring during play (which counts score) and at the end of a hand."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .rules import HandEnd, Rules, Scoring

MAX_COUNT = 256  # far above any reachable count (four crosswise 12-12 ends make 96)


def round5(x: int) -> int:
    """Round to the nearest multiple of 5 (whole numbers never tie): 3 -> 5, 2 -> 0, 26 -> 25."""
    return 5 * ((x + 2) // 5)


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


def _unique_side_winner(rules: Rules, values: tuple[int, ...]) -> int | None:
    """The seat with the least value, or None when the least is shared across sides."""
    best = min(values)
    seats = [s for s, v in enumerate(values) if v == best]
    if len({rules.side_of(s) for s in seats}) > 1:
        return None
    return seats[0]


def score_hand_end(
    rules: Rules, pips: tuple[int, ...], tiles_left: tuple[int, ...], domino: int | None
) -> HandResult:
    """End-of-hand scoring by ``rules.hand_end``; ``domino`` is the seat that went out, if any."""
    n_sides = rules.num_sides
    gain = [0] * n_sides
    lines: list[str] = []
    ended_by = "domino" if domino is not None else "blocked"
    lines.append(
        f"seat {domino} dominoed" if domino is not None else "the hand is blocked"
    )
    lines.append("pips left: " + ", ".join(f"seat {s}: {p}" for s, p in enumerate(pips)))
    winner: int | None = domino
    mode = rules.hand_end
    if mode is HandEnd.SUBTRACT_OWN:
        for s, p in enumerate(pips):
            loss = round5(p)
            gain[rules.side_of(s)] -= loss
            lines.append(f"seat {s} loses round5({p}) = {loss}")
    elif mode is HandEnd.DOMINO_TAKES_PIPS:
        if domino is not None:
            opp = _opponents(rules, domino)
            total = sum(pips[o] for o in opp)
            gain[rules.side_of(domino)] += total
            lines.append(f"seat {domino} takes the opponents' pips: {total}")
        else:
            for s in range(rules.num_players):
                for o in _opponents(rules, s):
                    if pips[o] > pips[s]:
                        diff = pips[o] - pips[s]
                        gain[rules.side_of(s)] += diff
                        lines.append(f"seat {s} takes {pips[o]} - {pips[s]} = {diff} from seat {o}")
    else:
        fewest = mode is HandEnd.BONUS_DIV5_FEWEST_TILES
        if winner is None:
            winner = _unique_side_winner(rules, tiles_left if fewest else pips)
            if winner is None:
                lines.append(f"no single {'fewest tiles' if fewest else 'lightest hand'}: no bonus")
            else:
                lines.append(f"seat {winner} has the {'fewest tiles' if fewest else 'lightest hand'}")
        if winner is not None:
            opp_total = sum(pips[o] for o in _opponents(rules, winner))
            if fewest:
                bonus = round5(opp_total) // 5
                lines.append(f"seat {winner} gets round5({opp_total}) / 5 = {bonus}")
            else:
                diff = opp_total - pips[winner]
                bonus = round5(diff) // 5
                lines.append(
                    f"seat {winner} gets round5({opp_total} - {pips[winner]}) / 5 = {bonus}"
                )
            gain[rules.side_of(winner)] += bonus
    return HandResult(ended_by, winner, pips, tiles_left, tuple(gain), tuple(lines))
