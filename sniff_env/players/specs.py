"""Player specs: the text that names a player, such as ``search:simulations=300``.

A spec is a player's name, then optionally a colon and ``KEY=VALUE`` options separated by
commas. This module only splits and reads specs; :func:`sniff_env.players.load` builds the
player. It lives apart from :mod:`sniff_env.players` so that code the players themselves use
(the batched engine and its gym env) can read specs without importing them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Annotated, Any

from sniff_env.players.registry import BUILTIN_PLAYERS


class _References(Mapping[str, tuple[str, str]]):
    """The registry's reference players as ``name -> (module, class)``, read live."""

    def __getitem__(self, name: str) -> tuple[str, str]:
        module, _, cls = BUILTIN_PLAYERS[name].reference.partition(":")
        return module, cls

    def __iter__(self) -> Iterator[str]:
        return iter(BUILTIN_PLAYERS)

    def __len__(self) -> int:
        return len(BUILTIN_PLAYERS)


BUILTIN: Mapping[str, tuple[str, str]] = _References()
"""The built-in players by name: the module and class of each (:data:`.registry.BUILTIN_PLAYERS`)."""

MAX_SAMPLES = 65_536
"""The most deals a search may sample per move (``samples``, ``extra``)."""
MAX_THREADS = 1_024
"""The most threads a search spreads its games over."""
MAX_SIMULATIONS = 1_000_000
"""The most rollouts per decision of the search player (``simulations``)."""
MAX_BUDGET_S = 600.0
"""The most seconds a player may think per decision (``budget_s``)."""
MAX_TOP = 1_024
"""The most moves a second round of the guided search may keep (``top``): more than any table has."""
MAX_WEIGHT = 1e6
"""The largest size of a weight (heuristic and playout weights, the guided player's ``prior``)."""



class LoadsPolicy:
    """The mark of a player option whose value is loaded as a policy (see :data:`PolicyName`)."""

    def __repr__(self) -> str:
        return "LOADS_POLICY"


LOADS_POLICY = LoadsPolicy()
PolicyName = Annotated[str, LOADS_POLICY]
"""The type of a player option that names a policy to load: a shipped agent's name or a policy
file's path. A player declares such an option with this type, and so declares that its value
opens a file: a spec read from a log may give it a shipped agent's name only
(:func:`sniff_env.players.file_options` lists them)."""


class PlayerSpecError(ValueError):
    """A player spec names no known player, or its options cannot be parsed."""


def split_spec(spec: str) -> tuple[str, list[tuple[str, str]]]:
    """``"search:simulations=300"`` -> ``("search", [("simulations", "300")])``; a spec that
    names no built-in player (a path may itself hold a colon, e.g. a drive letter) stays whole."""
    base, _, opts = spec.partition(":")
    if base not in BUILTIN:
        return spec, []
    items: list[tuple[str, str]] = []
    for item in filter(None, opts.split(",")):
        key, eq, raw = item.partition("=")
        if not eq:
            raise PlayerSpecError(f"player option {item!r} in {spec!r} is not KEY=VALUE")
        if key.strip() in (k for k, _ in items):
            raise PlayerSpecError(f"player option {key.strip()!r} is given twice in {spec!r}")
        items.append((key.strip(), raw))
    return base, items


def split_specs(text: str) -> list[str]:
    """Comma-separated player specs -> the specs, a built-in's options kept with it although they
    are comma-separated too: ``"greedy,rollouts:samples=64,value=win"`` -> ``["greedy",
    "rollouts:samples=64,value=win"]`` (a piece ``KEY=VALUE`` after a spec with options is one
    more of its options). Empty pieces are dropped."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if specs and "=" in piece and ":" not in piece and split_spec(specs[-1])[0] in BUILTIN and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def json_or_text(raw: str) -> Any:
    """An option's value: JSON where it parses (numbers, true/false), else the text itself."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"search:simulations=300,budget_s=0.5"`` -> ``("search", {"simulations": 300, "budget_s": 0.5})``."""
    base, items = split_spec(spec)
    return base, {key: json_or_text(raw) for key, raw in items}
