"""``sniff rules``: the presets side by side, or the fields of one resolved rule set."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from ..presets import PRESET_NAMES, make_rules
from .common import add_rules_arguments, rules_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser)
    parser.add_argument("--all", action="store_true", help="compare every preset for --players")


def run(args: argparse.Namespace) -> int:
    console = Console()
    if args.all:
        presets = [make_rules(name, args.players) for name in PRESET_NAMES]
        table = Table(title=f"presets for {args.players} players")
        table.add_column("field")
        for name in PRESET_NAMES:
            table.add_column(name)
        for key in presets[0].to_dict():
            if key != "name":
                table.add_row(key, *(str(r.to_dict()[key]) for r in presets))
        console.print(table)
        return 0
    rules = rules_from_args(args)
    table = Table(title=f"{rules.name} for {rules.num_players} players")
    table.add_column("field")
    table.add_column("value")
    for key, value in rules.to_dict().items():
        table.add_row(key, str(value))
    console.print(table)
    return 0
