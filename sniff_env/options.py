"""Options a user gives, checked the same way wherever they are given (the ``sniff`` command's
subcommands and the training scripts): the preset, player count and rules overrides; argparse
types that refuse nonsense numbers; checks of the files a run will write. Nothing here belongs
to the command line alone, so the training side reads it without importing a command."""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sniff_env.errors import OutputPathError, RulesError
from sniff_env.presets import PRESET_NAMES, make_rules
from sniff_env.rules import ENGINE_INT_MAX, Rules
from sniff_env.workers import max_workers, workers_allowed


def whole_number(low: int, high: int = ENGINE_INT_MAX, what: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``; anything else is a usage error
    (exit status 2) that names the allowed range."""
    allowed = what or (f"a whole number from {low}" + (f" to {high}" if high < ENGINE_INT_MAX else " up"))

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {allowed}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is out of range: give {allowed}")
        return value

    return parse


positive_int = whole_number(1, what="a whole number, 1 or more")
"""Counts: games, hands, steps, repeats, batch sizes."""
worker_count = whole_number(1, max_workers(), workers_allowed())
"""Worker processes: at most a few per core (:mod:`sniff_env.workers`)."""
seed_int = whole_number(0, what=f"a whole number from 0 to {ENGINE_INT_MAX}")
"""Seeds (the batched engine holds them as 64-bit integers; generators refuse negative ones)."""


def real_number(allowed: str, ok: Callable[[float], bool]) -> Callable[[str], float]:
    """An argparse type: a number for which ``ok`` holds; anything else is a usage error (exit
    status 2) that says ``allowed``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text} is out of range: give {allowed}")
        return value

    return parse


positive_float = real_number("a finite number above 0", lambda v: math.isfinite(v) and v > 0)
"""Durations and budgets."""
win_rate = real_number("a win rate from 0 to 1", lambda v: 0.0 <= v <= 1.0)  # NaN fails too
"""A share of games."""


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
    overrides = parse_overrides(args.rule)
    if "num_players" in overrides:
        raise RulesError(
            f"--rule num_players={overrides['num_players']} cannot be set as a rule: "
            f"give the number of players with --players (e.g. --players 3)"
        )
    return make_rules(args.preset, args.players, **overrides)


def check_output_file(path: str | os.PathLike[str], force: bool = False, flag: str = "--force") -> Path:
    """``path`` if a file can be written there; else :class:`OutputPathError` saying why.

    Call it before the work whose result goes there. Its folder may be missing (it is made when
    the file is written) if the nearest folder that exists is writable; an existing file is only
    replaced when ``force`` is true (``flag`` names the option that asks for it)."""
    target = Path(path)
    if target.is_dir():
        raise OutputPathError(f"cannot write {target}: it is a folder; give a file name")
    if target.exists() and not force:
        raise OutputPathError(f"{target} already exists; give another name, or {flag} to overwrite it")
    check_output_folder(target.parent)
    return target


def check_output_folder(path: str | os.PathLike[str]) -> Path:
    """``path`` if it is a writable folder or one that can be made; else :class:`OutputPathError`."""
    folder = Path(path)
    existing = next(p for p in (folder, *folder.parents) if p.exists() or p == p.parent)
    if not existing.is_dir():
        raise OutputPathError(f"cannot write into {folder}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputPathError(f"cannot write into {folder}: {existing} is not writable")
    return folder


def check_output_files(paths: Iterable[str | os.PathLike[str]], force: bool = False, flag: str = "--force") -> None:
    """:func:`check_output_file` for each of ``paths``."""
    for path in paths:
        check_output_file(path, force, flag)
