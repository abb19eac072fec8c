"""``sniff rules``: the presets side by side (in blocks that fit the terminal, with a legend of
every field and value), or the fields of one resolved rule set."""

from __future__ import annotations

import argparse

from rich import box
from rich.console import Console
from rich.table import Table

from sniff_env.options import add_rules_arguments, rules_from_args
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import Rules
from sniff_env.scoring import rounding_note

FIELD_WIDTH = 16
"""The field-name column (the longest field name)."""
VALUE_WIDTH = 17
"""A preset's column; longer values fold onto a second line."""

LEGEND: dict[str, str] = {
    "max_pip": "the set: 6 = double-six, 9 = double-nine, 12 = double-twelve, 3 = the small test set",
    "num_players": "players at the table",
    "partnership": "True: 4 players, seats 0+2 against 1+3, each side sharing one score",
    "hand_size": "tiles dealt to each player",
    "boneyard_reserve": "tiles at the bottom of the boneyard that may never be drawn",
    "first_hand_lead": "who leads the first hand. lots: each draws a tile, the heaviest leads; random: a seat "
                       "at random; highest_double: the holder of the highest double leads it",
    "next_hand_lead": "who leads later hands. rotate: the next seat; winner: who dominoed (lots after a "
                      "blocked hand); highest_double: as in the first hand",
    "lead_tile": "any: any tile may lead; highest_double: the lead must be the highest double",
    "sniff": "spinner: the first double is crosswise and open on four sides; stubby: it lies in line and "
             "takes one tile on each long side; none: no sniff",
    "sniff_sides_open": "immediately: north and south open with the sniff; after_both_ends: once west and "
                        "east each have a tile off it",
    "double_placement": "crosswise: every double is laid across and counts both halves; choice: across or "
                        "in line (counting one half)",
    "scoring": "which counts score: fives (5, 10, …), threes, threes_and_fives, primes (1, 2, 3, 5, 7, …), "
               "fibonacci (1, 2, 3, 5, 8, …)",
    "points": "count: a scoring count scores itself; count_div5: one point per five (a cribbage board)",
    "muggins_claims": "True: the mover must claim the points; unclaimed, the next player takes them",
    "draw": "until_playable: draw until a tile plays; max_two: at most two a turn, then pass; none: no "
            "drawing (the boneyard tiles sleep)",
    "must_play_drawn": "True: a playable tile just drawn must be played at once",
    "voluntary_draw": "True: a player who could play may draw instead",
    "hand_end": "scoring at the end of a hand. bonus_div5: the winner (domino, else lightest hand) gets "
                "round5(opponents' pips − own) / 5; subtract_own: everyone loses round5(own pips); "
                "domino_takes_pips: who dominoed gets the opponents' pips (blocked: each takes the "
                "difference from heavier hands); bonus_div5_fewest_tiles: the winner (domino, else fewest "
                "tiles) gets round5(opponents' pips) / 5. " + rounding_note(),
    "target": "points that win the game",
    "win_during_hand": "True: the game ends the moment a side reaches the target; False: the hand is "
                       "played out first",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser)
    parser.add_argument("--all", action="store_true", help="compare every preset for --players")


def _block(presets: list[Rules], fields: list[str]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("field", width=FIELD_WIDTH, overflow="fold")
    for rules in presets:
        table.add_column(rules.name, width=VALUE_WIDTH, overflow="fold")
    for key in fields:
        table.add_row(key, *(str(r.to_dict()[key]) for r in presets))
    return table


def run(args: argparse.Namespace) -> int:
    console = Console()
    if args.all:
        presets = [make_rules(name, args.players) for name in PRESET_NAMES]
        fields = [key for key in presets[0].to_dict() if key != "name"]
        per_block = max(1, (console.width - FIELD_WIDTH - 2) // (VALUE_WIDTH + 2))
        console.print(f"[bold]presets for {args.players} players[/] (--preset NAME; change a field with "
                      f"--rule field=value)")
        for first in range(0, len(presets), per_block):
            console.print(_block(presets[first:first + per_block], fields))
        console.print("[bold]what the fields and values mean[/]")
        for key in fields:
            console.print(f"[bold]{key}[/]: {LEGEND.get(key, '')}")
        return 0
    rules = rules_from_args(args)
    table = Table(title=f"{rules.name} for {rules.num_players} players")
    table.add_column("field")
    table.add_column("value")
    table.add_column("meaning", overflow="fold")
    for key, value in rules.to_dict().items():
        table.add_row(key, str(value), LEGEND.get(key, ""))
    console.print(table)
    return 0
