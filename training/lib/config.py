"""Run configurations as data: a dataclass filled from a TOML file, then from the command line.

Every field's ``help`` metadata is its ``--help`` text; a true-or-false field given alone on the
command line (``--force``) is true. Unknown fields, in the file or on the
command line, are refused with the list of known ones, and so is a value of the wrong type, a
float that is not finite, or a value outside the field's bounds: metadata ``min``/``max``
(inclusive), ``above``/``below`` (exclusive) or ``choices`` (see :func:`bounds`). Run as a script
(:func:`run_script`), a trainer ends on such an error with its message, not a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from sniff_env.errors import OutputPathError, RulesError
from sniff_env.options import check_output_file, parse_overrides
from sniff_env.presets import make_rules

T = TypeVar("T")


def settings_of(cls: type[T], source: Any) -> T:
    """A dataclass ``cls`` of settings filled from the same-named attributes of ``source`` (a
    trainer's arguments, say): what a collector or recorder reads of a run, and nothing more. A
    field ``source`` lacks keeps its default; one without a default is a ``TypeError``."""
    return cls(**{f.name: getattr(source, f.name) for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                  if hasattr(source, f.name)})


def rules_for(preset: str, num_players: int, overrides: str) -> Any:
    """The :class:`~sniff_env.rules.Rules` of a run: a preset plus ``"field=value,..."`` overrides;
    :class:`ConfigError` with the rules' own message for an unknown preset, field or value."""
    try:
        return make_rules(preset, num_players, **parse_overrides([s for s in overrides.split(",") if s.strip()]))
    except RulesError as exc:
        raise ConfigError(str(exc)) from None


class ConfigError(ValueError):
    """A configuration file or override that does not fit the run's fields."""


FORCE_HELP = "write over an earlier run's checkpoint in <out_dir>/<exp_name> and over the --export file"


def check_run_outputs(out_dir: str, exp_name: str, export: str, force: bool, resuming: bool = False) -> None:
    """Before a run starts: :class:`ConfigError` naming ``--force`` when it would write over the
    checkpoint of an earlier run in its folder ``<out_dir>/<exp_name>`` (unless ``resuming`` it)
    or over an existing ``--export`` file (or cannot write it there)."""
    run_dir = Path(out_dir) / exp_name
    if not force and not resuming and (run_dir / "checkpoint.pt").exists():
        raise ConfigError(f"{run_dir} already holds an earlier run's checkpoint.pt; give another --exp-name or "
                          f"--out-dir, or --force to start over there")
    if export:
        try:
            check_output_file(export, force)
        except OutputPathError as exc:
            raise ConfigError(f"--export: {exc}") from None


def _field_type(cls: type, f: dataclasses.Field[Any]) -> type:
    hints = typing.get_type_hints(cls)
    tp = hints[f.name]
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return typing.cast(type, args[0])
    return typing.cast(type, tp)


def _parse_bool(text: str) -> bool:
    low = text.lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false; got {text!r}")


def build_parser(cls: type, description: str) -> argparse.ArgumentParser:
    """The command line of dataclass ``cls``: ``--config`` and one flag per field, its ``--help``
    the field's ``help`` metadata unless ``cls.FIELD_HELP`` words it (see
    :class:`training.lib.run_args.RunArgs`)."""
    parser = argparse.ArgumentParser(description=description)
    own_help: dict[str, str] = getattr(cls, "FIELD_HELP", {})
    parser.add_argument("--config", type=Path, help="a TOML file of field values (the command line overrides it)")
    for f in dataclasses.fields(cls):
        tp = _field_type(cls, f)
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not dataclasses.MISSING else None
        kind: Any = _parse_bool if tp is bool else tp
        allowed = bounds(f.metadata)
        switch: dict[str, Any] = {"nargs": "?", "const": True, "metavar": "BOOL"} if tp is bool else {}
        parser.add_argument(  # a true-or-false field given alone (--force) is true
            flag, dest=f.name, type=kind, default=None, **switch,
            help=f"{own_help.get(f.name, f.metadata.get('help', ''))} ({allowed + '; ' if allowed else ''}default: {default})",
        )
    return parser


def bounds(meta: Any) -> str:
    """What a field's metadata allows, in words (``''``: any value of its type)."""
    if "choices" in meta:
        return "one of " + ", ".join(map(repr, meta["choices"]))
    low = ("at least", meta["min"]) if "min" in meta else ("above", meta["above"]) if "above" in meta else None
    high = ("at most", meta["max"]) if "max" in meta else ("below", meta["below"]) if "below" in meta else None
    if low and high:
        return f"in {'[' if low[0] == 'at least' else '('}{low[1]}, {high[1]}{']' if high[0] == 'at most' else ')'}"
    return " ".join(map(str, low or high or ()))


def _allowed(meta: Any, v: Any) -> bool:
    if "choices" in meta:
        return v in meta["choices"]
    return not (("min" in meta and v < meta["min"]) or ("max" in meta and v > meta["max"])
                or ("above" in meta and v <= meta["above"]) or ("below" in meta and v >= meta["below"]))


def check_value(f: dataclasses.Field[Any], tp: type, v: Any) -> Any:
    """``v`` as field ``f`` of type ``tp`` takes it (an int widened to a float); :class:`ConfigError`
    naming the field, its flag and what it allows when ``v`` is of another type, a float that
    is not finite, or outside the field's bounds."""
    if tp is float and isinstance(v, int) and not isinstance(v, bool):
        v = float(v)
    if not isinstance(v, tp) or (tp is int and isinstance(v, bool)):
        raise ConfigError(f"field {f.name} must be {tp.__name__}; got {v!r}")
    where = f"{f.name} (--{f.name.replace('_', '-')})"
    if tp is float and not math.isfinite(v):
        raise ConfigError(f"{where} must be a finite number; got {v!r}")
    if not _allowed(f.metadata, v):
        raise ConfigError(f"{where} must be {bounds(f.metadata)}; got {v!r}")
    return v


def check_fields(obj: Any) -> None:
    """:class:`ConfigError` unless every field of the dataclass instance ``obj`` holds a value of
    its type within its bounds (:func:`check_value`); for arguments built in code, not parsed."""
    for f in dataclasses.fields(obj):
        check_value(f, _field_type(type(obj), f), getattr(obj, f.name))


def from_sources(cls: type[T], file_values: dict[str, Any], cli: dict[str, Any]) -> T:
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = set(file_values) - known
    if unknown:
        raise ConfigError(f"unknown field(s) {sorted(unknown)} in the config; known: {sorted(known)}")
    values = {**file_values, **{k: v for k, v in cli.items() if v is not None}}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in values:
            values[f.name] = check_value(f, _field_type(cls, f), values[f.name])
    return cls(**values)


def parse_config(cls: type[T], argv: list[str] | None, description: str) -> T:
    """Fill ``cls`` from ``--config FILE`` and the other flags of ``argv``."""
    parser = build_parser(cls, description)
    ns = parser.parse_args(argv)
    cli = vars(ns)
    path = cli.pop("config")
    file_values: dict[str, Any] = {}
    if path is not None:
        try:
            file_values = tomllib.loads(Path(path).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config {path}: {exc}") from None
    return from_sources(cls, file_values, cli)


def run_script(main: Callable[[], int]) -> NoReturn:
    """Run a script's ``main`` and exit with its status; a :class:`ConfigError` (a bad field,
    config file, device or chain) ends it with ``error: MESSAGE`` and status 2 instead of a
    traceback. Called by ``main`` directly, as the tests do, the error is raised as it is."""
    try:
        status = main()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    sys.exit(status)
