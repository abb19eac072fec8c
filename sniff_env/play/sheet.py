"""The score sheet: hand by hand, what each side scored in play and at the end of the hand.

Every point of a game is either a play point (a scoring count, or unclaimed points taken by
muggins: both are public events) or an end-of-hand point (the hand's result). The sheet adds
them up hand by hand, so its last running total is the game's score; :func:`hand_end_note`
says in words what the end-of-hand formula's ``round5`` and ``/ 5`` mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..game import Event, Game
from ..gamelog import hand_starts
from ..rules import HandEnd, Rules


@dataclass(frozen=True)
class HandScore:
    """One hand's line of the sheet; every tuple has one entry per side."""

    hand: int
    """The hand's number, from 1."""
    play: tuple[int, ...]
    """Points scored during the hand (counts, and points taken by muggins)."""
    end: tuple[int, ...] | None
    """End-of-hand points (negative where they are lost); None while the hand is in play."""
    total: tuple[int, ...]
    """The scores after the hand (while it is in play: now)."""

    @property
    def over(self) -> bool:
        return self.end is not None

    @property
    def gained(self) -> tuple[int, ...]:
        """What the hand gave each side, play and end together."""
        return tuple(p + e for p, e in zip(self.play, self.end or (0,) * len(self.play)))


def play_points(rules: Rules, events: Sequence[Event]) -> tuple[int, ...]:
    """Each side's points from the ``play`` and ``muggins`` events among ``events``."""
    points = [0] * rules.num_sides
    for e in events:
        if e.kind in ("play", "muggins") and e.points:
            points[rules.side_of(e.player)] += e.points
    return tuple(points)


def score_sheet(game: Game) -> list[HandScore]:
    """Every hand dealt so far, the one in play last."""
    rules = game.rules
    starts = hand_starts(game.events) + [len(game.events)]
    total = [0] * rules.num_sides
    sheet = []
    for h in range(len(starts) - 1):
        play = play_points(rules, game.events[starts[h]:starts[h + 1]])
        end = tuple(game.results[h].side_points) if h < len(game.results) else None
        for side in range(rules.num_sides):
            total[side] += play[side] + (end[side] if end else 0)
        sheet.append(HandScore(h + 1, play, end, tuple(total)))
    return sheet


def hand_end_note(rules: Rules) -> str | None:
    """What the end-of-hand scoring's ``round5`` and ``/ 5`` mean, for rules that use them."""
    rounding = "round5 rounds to the nearest multiple of 5 (12 -> 10, 13 -> 15)"
    if rules.hand_end in (HandEnd.BONUS_DIV5, HandEnd.BONUS_DIV5_FEWEST_TILES):
        return f"{rounding}; / 5 turns pips into points: one point for every 5 pips (20 pips -> 4 points)"
    if rules.hand_end is HandEnd.SUBTRACT_OWN:
        return rounding
    return None
