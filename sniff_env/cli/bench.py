"""``sniff bench NAME``: the old name of ``sniff speed``, kept for one release with a warning.
Its script names are the old ones: ``engine`` is ``sniff speed rules`` now and ``vector`` is
``sniff speed engine``."""

from __future__ import annotations

import argparse
import sys
import warnings

from sniff_env.cli.speed import SCRIPTS, run_script

RENAMED = {"engine": "rules", "vector": "engine"}
"""The old script names that changed, and their new ones."""
OLD_NAMES = sorted({new: old for old, new in RENAMED.items()}.get(new, new) for new in SCRIPTS)
"""Every script under its old name."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", choices=OLD_NAMES, metavar="NAME",
                        help=f"which measure, by its old name: {', '.join(OLD_NAMES)} (none: list them)")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="options passed to the script (NAME --help lists them)")


def run(args: argparse.Namespace) -> int:
    new = None if args.name is None else RENAMED.get(args.name, args.name)
    said = f"sniff bench is deprecated and goes in the next release: use sniff speed{' ' + new if new else ''}"
    warnings.warn(said, DeprecationWarning, stacklevel=2)
    print(said, file=sys.stderr)
    return run_script(new, args.rest)
