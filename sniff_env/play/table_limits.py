"""How much thinking an agent may do per move at the table (``sniff play``, ``sniff serve`` and the
games they resume from logs).

A player spec may ask for up to ten minutes a move (``budget_s=600``) or work that takes as long
(a million simulations, 65,536 deals a move): fine for an evaluation run, not for a person
waiting at the table, nor for a server whose worker threads such a move would hold. At the table
each option that sets a search's work is held to :data:`TABLE_LIMITS`, which keep a move within
about half a minute on a two-core machine (measured per option below), and a spec over them is
refused with the option, its value and the limit, before any game starts or any move is made.

=====================  ======  =================================================================
option                 limit   a move at the limit (2-player sniff, two loaded cores, worst of 5)
=====================  ======  =================================================================
``budget_s``           30      30 s (``search``: it stops at its budget or its simulations)
``simulations``        20,000  11 s (``search:simulations=20000``; 1,000,000: some 9 min at that rate)
``samples``            4,096   0.5 s ``rollouts``, 0.9 s with ``depth=2``, 2.5 s ``guided``, about
                               5 s ``guided`` with ``playouts=policy`` (1.3 s at 1,024)
``extra``              4,096   as much again, for the ``top`` moves of ``guided``
=====================  ======  =================================================================

Each figure is the slowest of five timed moves, on positions of random play with a choice, after
a first move that loads and compiles the player.
"""

from __future__ import annotations

from sniff_env.errors import SniffError
from sniff_env.players import BUILTIN, PlayerSpecError, parse_spec

TABLE_LIMITS: dict[str, float] = {"budget_s": 30.0, "simulations": 20_000, "samples": 4_096, "extra": 4_096}
"""The most each work option may ask for at the table."""


class TableLimitError(SniffError):
    """A player would think longer per move than the table allows."""


def check_table_player(seat: int, spec: str) -> None:
    """Refuse (:class:`TableLimitError`) a built-in player whose options ask for more work per
    move than :data:`TABLE_LIMITS` allow; a policy file or a malformed spec is left to the
    player's own checks."""
    try:
        base, options = parse_spec(spec)
    except PlayerSpecError:
        return
    if base not in BUILTIN:
        return
    for key, limit in TABLE_LIMITS.items():
        value = options.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > limit:
            raise TableLimitError(
                f"the player of seat {seat}, {spec!r}, asks for {key}={value:g}; at the table a move may ask for "
                f"at most {key}={limit:g} (about half a minute of thinking): choose less, or run longer searches "
                "with sniff eval")
