"""The rules of a game in words, for the page's help panel, and the choices of its new-game form.

:func:`guide` explains the rules in effect in plain words (:func:`~sniff_env.play.howto.how_to_play`,
which the terminal shows too) and how this table is used. :func:`setup_choices` lists what the
new-game form offers, each preset with a line on what sets it apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sniff_env.play.howto import how_to_play, summary
from sniff_env.play.levels import DEFAULT_LEVEL, LEVELS
from sniff_env.players import BUILTIN, agents
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import Rules
from sniff_env.web.sessions import TARGETS

TABLE_HELP = [
    ("Pick a tile in your hand, then a highlighted end on the table (or a move from the list). Esc puts the "
     "tile back."),
    ("The players sit around the table in the order they play: you at the bottom, the next player to your left, "
     "a partner opposite. The tiles played since your last move come down one after another, each marked with "
     "the arrow of the player who laid it (◀ ▲ ▶, ▼ for you), in that player's colour; each player's last tile "
     "is shown by their name."),
    ("The count badge adds up the open ends; each end's share is written beside it. The open ends show the "
     "number a tile must match there."),
    ("Hint shows what the search player thinks of each move: the expected points margin to the end of the hand "
     "(not in a rated game). The tile it likes best is marked in your hand, and its end on the table."),
    "Undo takes back your last move (not in a rated game).",
    "The score sheet lists each hand's points: in play, at the end of the hand, and the running total.",
    ("Save log saves what you have seen of the game so far (the whole game once it is over); Replay… steps "
     "through a saved log, here or with sniff replay at a terminal."),
    "Stats shows your record across finished games: played and won by rules and opponents, best score, runs of wins.",
    ("With friends (New game…, \"with friends\"), each person joins by the link of their own seat, listed on the "
     "host's page; the table shows whom it waits for and how long. Undo is off there, and Save log gives your "
     "own seat's record."),
]


def guide(rules: Rules) -> list[dict[str, Any]]:
    """The rules in effect, section by section (``{"title", "lines"}``), and how this table works."""
    return [*how_to_play(rules), {"title": "At this table", "lines": TABLE_HELP}]


def server_game(rules: Rules, opponents: Sequence[str], level: str | None, rated: bool) -> dict[str, Any]:
    """The game the server deals when the player asks for one without choosing (the page offers
    it before any game is dealt): its rules in a line and in words, the opponents by level or by
    name (a file of the server's own by no name), rated or not."""
    if level is not None:
        against = LEVELS[level].label
    else:
        shipped = agents.shipped_agents()
        names = [spec.partition(":")[0] if spec.partition(":")[0] in BUILTIN or spec in shipped
                 else "the server's own player" for spec in opponents]
        against = ", ".join(dict.fromkeys(names)) or LEVELS[DEFAULT_LEVEL].label
    return {"rules": rules.name, "players": rules.num_players, "partnership": rules.partnership,
            "target": rules.target, "rated": rated, "opponent": against, "summary": summary(rules),
            "sections": guide(rules)}


def setup_choices() -> dict[str, Any]:
    """What the new-game form offers: the presets (with their targets by player count), the
    opponent levels and the targets."""
    presets = []
    for name in PRESET_NAMES:
        rules = make_rules(name, 2)
        presets.append({
            "name": name,
            "targets": {str(n): make_rules(name, n).target for n in (2, 3, 4)},
            "summary": summary(rules),
        })
    return {
        "presets": presets,
        "levels": [{"name": k, "label": level.label, "about": level.about} for k, level in LEVELS.items()],
        "default_level": DEFAULT_LEVEL,
        "targets": list(TARGETS),
    }
