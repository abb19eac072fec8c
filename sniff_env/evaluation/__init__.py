"""Evaluation of players: duplicate-deal tournaments, ratings and reports.

``run_tournament`` plays every pair of players on the same seeded deals with the seats
rotated; ``fit_ratings`` fits Bradley-Terry ratings to the results; ``report`` prints, saves
JSON and draws the chart. ``sniff eval`` is the command-line front end.
"""

from __future__ import annotations

from sniff_env.evaluation.ratings import fit_ratings, wilson_interval
from sniff_env.evaluation.tournament import (
    MAX_HANDS,
    GameOutcome,
    PairResult,
    TournamentResult,
    run_tournament,
    seatings,
)

__all__ = [
    "MAX_HANDS",
    "GameOutcome",
    "PairResult",
    "TournamentResult",
    "fit_ratings",
    "run_tournament",
    "seatings",
    "wilson_interval",
]
