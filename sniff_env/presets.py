"""The named rule sets of the rules text, as data, and :func:`make_rules`.

A preset value may depend on the number of players; it is then a mapping from the player
count to the value (``{2: 250, 3: 200, 4: 200}``). ``configs/rulesets/*.toml`` mirrors this
table (a test keeps the two equal).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sniff_env.errors import RulesError
from sniff_env.rules import Rules, check_num_players, field_names

_BY_COUNT_250_200 = {2: 250, 3: 200, 4: 200}

PRESETS: dict[str, dict[str, Any]] = {
    "sniff": {
        "sniff": "spinner",
        "hand_size": {2: 7, 3: 6, 4: 5},
        "first_hand_lead": "lots",
        "next_hand_lead": "rotate",
        "draw": "max_two",
        "boneyard_reserve": {2: 2, 3: 0, 4: 0},
        "hand_end": "bonus_div5",
        "target": 100,
    },
    "sniff-cribbage": {
        "sniff": "spinner",
        "hand_size": {2: 7, 3: 6, 4: 5},
        "first_hand_lead": "lots",
        "next_hand_lead": "rotate",
        "draw": "max_two",
        "boneyard_reserve": {2: 2, 3: 0, 4: 0},
        "hand_end": "bonus_div5",
        "points": "count_div5",
        "target": 61,
    },
    "sniff-us": {
        "sniff": "spinner",
        "hand_size": {2: 7, 3: 6, 4: 5},
        "first_hand_lead": "lots",
        "next_hand_lead": "winner",
        "draw": "until_playable",
        "must_play_drawn": True,
        "hand_end": "subtract_own",
        "target": _BY_COUNT_250_200,
    },
    "sniff-english": {
        "sniff": "stubby",
        "hand_size": {2: 7, 3: 6, 4: 5},
        "first_hand_lead": "lots",
        "next_hand_lead": "winner",
        "draw": "until_playable",
        "must_play_drawn": True,
        "hand_end": "subtract_own",
        "target": _BY_COUNT_250_200,
    },
    "sniff-digital": {
        "sniff": "spinner",
        "hand_size": {2: 7, 3: 5, 4: 5},
        "first_hand_lead": "random",
        "next_hand_lead": "rotate",
        "draw": "until_playable",
        "voluntary_draw": True,
        "hand_end": "domino_takes_pips",
        "win_during_hand": True,
        "target": 200,
    },
    "muggins-digital": {
        "sniff": "none",
        "hand_size": {2: 7, 3: 5, 4: 5},
        "first_hand_lead": "highest_double",
        "next_hand_lead": "highest_double",
        "lead_tile": "highest_double",
        "draw": "until_playable",
        "voluntary_draw": True,
        "hand_end": "domino_takes_pips",
        "win_during_hand": True,
        "target": 200,
    },
    "muggins": {
        "sniff": "none",
        "hand_size": {2: 7, 3: 7, 4: 7},
        "first_hand_lead": "lots",
        "next_hand_lead": "winner",
        "draw": "until_playable",
        "hand_end": "subtract_own",
        "target": _BY_COUNT_250_200,
    },
    "muggins-sleepers": {
        "sniff": "none",
        "hand_size": {2: 7, 3: 7, 4: 7},
        "first_hand_lead": "lots",
        "next_hand_lead": "winner",
        "draw": "none",
        "hand_end": "bonus_div5_fewest_tiles",
        "target": _BY_COUNT_250_200,
    },
    "muggins-sniff": {
        "sniff": "none",
        "double_placement": "choice",
        "hand_size": {2: 7, 3: 7, 4: 7},
        "first_hand_lead": "lots",
        "next_hand_lead": "winner",
        "draw": "until_playable",
        "hand_end": "subtract_own",
        "target": _BY_COUNT_250_200,
    },
}

PRESET_NAMES = tuple(PRESETS)


def make_rules(preset: str = "sniff", num_players: int = 2, **overrides: Any) -> Rules:
    """The rules of ``preset`` for ``num_players``, with any field overridden.

    >>> make_rules("sniff-digital", 3, scoring="primes", max_pip=12).scoring
    <Scoring.PRIMES: 'primes'>
    """
    if preset not in PRESETS:
        raise RulesError(f"unknown preset {preset!r}; presets: {', '.join(PRESET_NAMES)}")
    unknown = set(overrides) - set(field_names())
    if unknown:
        raise RulesError(f"unknown rules field(s) {sorted(unknown)}; known fields: {field_names()}")
    check_num_players(num_players)
    merged = {**PRESETS[preset], **overrides}
    missing = [k for k, v in merged.items() if isinstance(v, Mapping) and num_players not in _by_count(v)]
    if missing:
        counts = sorted(set.intersection(*(set(_by_count(merged[k])) for k in missing)))
        raise RulesError(
            f"preset {preset!r} has no {' or '.join(missing)} for {num_players} players (only for "
            f"{', '.join(map(str, counts))} players); override {' and '.join(missing)} explicitly"
        )
    values: dict[str, Any] = {"num_players": num_players, "name": preset}
    for key, value in merged.items():
        values[key] = _by_count(value)[num_players] if isinstance(value, Mapping) else value
    return Rules(**values)


def _by_count(value: Mapping[Any, Any]) -> dict[int, Any]:
    return {int(k): v for k, v in value.items()}
