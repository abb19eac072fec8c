"""The integer codes of :mod:`sniff_env.rulebook` for the rule choices of :class:`~sniff_env.rules.Rules`.

The rulebook works on plain ints (so that the batched engine compiles it); these tables turn a
rules record's choices into those ints, for the Python engine and the kernels' tables alike.
"""

from __future__ import annotations

from sniff_env import rulebook as rb
from sniff_env.rules import FirstLead, HandEnd, NextLead, SniffKind

SNIFF_CODE = {SniffKind.SPINNER: rb.SPINNER, SniffKind.STUBBY: rb.STUBBY, SniffKind.NONE: rb.NO_SNIFF}
HAND_END_CODE = {
    HandEnd.BONUS_DIV5: rb.BONUS_DIV5, HandEnd.SUBTRACT_OWN: rb.SUBTRACT_OWN,
    HandEnd.DOMINO_TAKES_PIPS: rb.DOMINO_TAKES_PIPS, HandEnd.BONUS_DIV5_FEWEST_TILES: rb.BONUS_DIV5_FEWEST,
}
LEAD_CODE = {
    FirstLead.LOTS: rb.LOTS, FirstLead.RANDOM: rb.RANDOM, FirstLead.HIGHEST_DOUBLE: rb.HIGHEST_DOUBLE,
    NextLead.ROTATE: rb.ROTATE, NextLead.WINNER: rb.WINNER_LEADS, NextLead.HIGHEST_DOUBLE: rb.HIGHEST_DOUBLE,
}
"""The lead methods of the first hand (``FirstLead``) and of the later ones (``NextLead``)."""
DRAWN_LEAD = {rb.LOTS: FirstLead.LOTS, rb.RANDOM: FirstLead.RANDOM, rb.HIGHEST_DOUBLE: FirstLead.HIGHEST_DOUBLE}
"""The methods that leave the leader to a draw or to the deal, back as ``FirstLead``."""
