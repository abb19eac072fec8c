"""Command-line options shared by subcommands: the preset, player count and rules overrides."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import RulesError
from ..presets import PRESET_NAMES, make_rules
from ..rules import Rules


def add_rules_arguments(parser: argparse.ArgumentParser, players: int = 2) -> None:
    parser.add_argument("--preset", default="sniff", choices=PRESET_NAMES, help="rules preset (default: sniff)")
    parser.add_argument("--players", type=int, default=players, help=f"number of players (default: {players})")
    parser.add_argument(
        "--rule", action="append", default=[], metavar="FIELD=VALUE",
        help="override a rules field, e.g. --rule scoring=primes --rule max_pip=12 (repeatable)",
    )


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """``["scoring=primes", "max_pip=12", "partnership=true"]`` -> typed overrides."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise RulesError(f"a rule override is FIELD=VALUE; got {item!r}")
        key, raw = item.split("=", 1)
        value: Any
        try:
            value = json.loads(raw.lower() if raw.lower() in ("true", "false") else raw)
        except json.JSONDecodeError:
            value = raw
        out[key.strip()] = value
    return out


def rules_from_args(args: argparse.Namespace) -> Rules:
    return make_rules(args.preset, args.players, **parse_overrides(args.rule))
