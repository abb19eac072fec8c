"""The score sheet: hand by hand, what each side scored in play and at the end of the hand.

Every point of a game is either a play point (a scoring count, or unclaimed points taken by
muggins: both are public events) or an end-of-hand point (the hand's result). The sheet adds
them up hand by hand, so its last running total is the game's score; :func:`hand_end_note`
says in words what the end-of-hand formula's ``round5`` and ``/ 5`` mean. :func:`pegs` gives
each side's two pegs on a cribbage board (the score, and the score before its last gain), and
:func:`pegging_lines` draws the board as text for rules that score a point per five.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sniff_env.game import Event, Game
from sniff_env.gamelog import hand_starts
from sniff_env.rules import HandEnd, Points, Rules
from sniff_env.scoring import HandResult, rounding_note


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
    rounding = rounding_note()
    if rules.hand_end in (HandEnd.BONUS_DIV5, HandEnd.BONUS_DIV5_FEWEST_TILES):
        return f"{rounding}; / 5 turns pips into points: one point for every 5 pips (20 pips -> 4 points)"
    if rules.hand_end is HandEnd.SUBTRACT_OWN:
        return rounding
    return None


def pegs(rules: Rules, events: Sequence[Event], results: Sequence[HandResult],
         board: Sequence[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Each side's pegs on a cribbage board after ``events`` (in order; ``results``: those of the
    hands whose end is among them, in order), from ``board`` (default: every peg at 0): the front
    peg at the score, the back peg at the score before the side's last change."""
    scores = [front for front, _ in board] if board else [0] * rules.num_sides
    back = [behind for _, behind in board] if board else [0] * rules.num_sides
    ended = 0
    for e in events:
        gains: list[tuple[int, int]] = []
        if e.kind in ("play", "muggins") and e.points:
            gains = [(rules.side_of(e.player), e.points)]
        elif e.kind == "hand_end" and ended < len(results):
            gains = [(side, p) for side, p in enumerate(results[ended].side_points) if p]
            ended += 1
        for side, points in gains:
            back[side] = scores[side]
            scores[side] += points
    return list(zip(scores, back))


def pegging_lines(rules: Rules, names: Sequence[str], board: Sequence[tuple[int, int]],
                  width: int | None = None, holes: int = 20) -> list[str]:
    """A cribbage board as text, for rules that score a point per five (none otherwise): per
    side ``pegs  You  ━━━━━━●·············· 27/61``, a character per ``target / holes`` points."""
    if rules.points is not Points.COUNT_DIV5:
        return []
    target = max(rules.target, 1)
    label = max(len(n) for n in names)
    room = (width or 80) - 6 - label - 2 - len(f" {target}/{target}")
    holes = max(min(holes, room, target), min(8, target))
    lines = []
    for i, (name, (front, _)) in enumerate(zip(names, board)):
        at = min(max(round(holes * front / target), 0), holes)
        track = "━" * max(at - 1, 0) + ("●" if at else "") + "·" * (holes - at)
        lines.append(f"{'pegs' if i == 0 else '':<6}{name.ljust(label)}  {track} {front}/{target}")
    return lines
