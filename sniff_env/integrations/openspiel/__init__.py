"""Sniff as an OpenSpiel game: importing this module registers ``python_sniff`` with pyspiel.

    import pyspiel
    import sniff_env.integrations.openspiel  # registers python_sniff

    game = pyspiel.load_game("python_sniff", {"ruleset": "sniff", "num_players": 2})

Parameters: ``ruleset`` (a preset), ``num_players``, ``episode`` (``"game"``: hands to the
target, the default; ``"hand"``: one hand), ``max_hands`` (a game still short of the target after
this many hands ends there; 100) and every rules field: enum fields as strings, int fields as
ints, bool fields as 1/0; the defaults ("" and -1) keep the ruleset's value. The game's string
names its actual rules, so ``pyspiel.load_game(str(game))`` rebuilds it.

Chance nodes: the lots for the lead (one tile per seat), a seat drawn at random, the deal (tile
by tile, seat after seat) and every tile drawn from the boneyard, each outcome equally likely.
Decisions are the engine's action ids (``Discrete(176)`` for double-six, as the env's). Returns
are the env's game reward: +1 to the side that gained most, -1/(sides - 1) to the others, 0 on a
tie; partners share their side's. The tensor (information state and observation alike) is the
project's observation vector; the information-state string is the seat's whole view of the game.
States implement ``resample_from_infostate`` (worlds built within every constraint the seat's
view implies, each checked by a replay), so IS-MCTS plays it; ``bots`` seats IS-MCTS and the
project's players (``player_bot(game, seat, "heuristic")``) for ``evaluate_bots``.
"""

from __future__ import annotations

import pyspiel

from sniff_env.integrations.openspiel.play import ChancePlay, Stage
from sniff_env.integrations.openspiel.spiel import (
    GAME_TYPE,
    SHORT_NAME,
    SniffGame,
    SniffObserver,
    SniffState,
    game_info,
    rules_from_params,
)

__all__ = [
    "SHORT_NAME",
    "ChancePlay",
    "SniffGame",
    "SniffObserver",
    "SniffState",
    "Stage",
    "game_info",
    "rules_from_params",
]

if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, SniffGame)
