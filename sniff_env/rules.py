"""The rules record: every parameter of the Sniff family as a field of one frozen dataclass.

Build one with :func:`sniff_env.presets.make_rules` (a preset plus overrides) or directly with
``Rules(...)``; every field is checked on construction and a bad value raises
:class:`~sniff_env.errors.RulesError` naming the field and its allowed values.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sniff_env.errors import RulesError
from sniff_env.tiles import SUPPORTED_MAX_PIPS, tile_set


class FirstLead(StrEnum):
    LOTS = "lots"
    RANDOM = "random"
    HIGHEST_DOUBLE = "highest_double"


class NextLead(StrEnum):
    ROTATE = "rotate"
    WINNER = "winner"
    HIGHEST_DOUBLE = "highest_double"


class LeadTile(StrEnum):
    ANY = "any"
    HIGHEST_DOUBLE = "highest_double"


class SniffKind(StrEnum):
    SPINNER = "spinner"
    STUBBY = "stubby"
    NONE = "none"


class SidesOpen(StrEnum):
    IMMEDIATELY = "immediately"
    AFTER_BOTH_ENDS = "after_both_ends"


class DoublePlacement(StrEnum):
    CROSSWISE = "crosswise"
    CHOICE = "choice"


class Scoring(StrEnum):
    FIVES = "fives"
    THREES = "threes"
    THREES_AND_FIVES = "threes_and_fives"
    PRIMES = "primes"
    FIBONACCI = "fibonacci"


class Points(StrEnum):
    COUNT = "count"
    COUNT_DIV5 = "count_div5"


class Draw(StrEnum):
    UNTIL_PLAYABLE = "until_playable"
    MAX_TWO = "max_two"
    NONE = "none"


class HandEnd(StrEnum):
    BONUS_DIV5 = "bonus_div5"
    SUBTRACT_OWN = "subtract_own"
    DOMINO_TAKES_PIPS = "domino_takes_pips"
    BONUS_DIV5_FEWEST_TILES = "bonus_div5_fewest_tiles"


DEFAULT_HAND_SIZES = {2: 7, 3: 6, 4: 5}
SMALL_SET_HAND_SIZES = {3: {2: 3, 3: 2, 4: 2}, 4: {2: 4, 3: 3, 4: 3}, 5: {2: 5, 3: 5, 4: 4}}
"""Default hand sizes of the small sets (double-3: 10 tiles, double-4: 15, double-5: 21): what
fits with a boneyard left to draw from."""
MIN_PLAYERS, MAX_PLAYERS = 2, 8
ENGINE_INT_MAX = 2**63 - 1
"""The largest whole number a rules field may hold: the compiled engine keeps every rules value
and every score in a 64-bit signed integer."""

_ENUM_FIELDS: dict[str, type[StrEnum]] = {
    "first_hand_lead": FirstLead,
    "next_hand_lead": NextLead,
    "lead_tile": LeadTile,
    "sniff": SniffKind,
    "sniff_sides_open": SidesOpen,
    "double_placement": DoublePlacement,
    "scoring": Scoring,
    "points": Points,
    "draw": Draw,
    "hand_end": HandEnd,
}
_BOOL_FIELDS = ("partnership", "muggins_claims", "must_play_drawn", "voluntary_draw", "win_during_hand")


@dataclass(frozen=True)
class Rules:
    """One complete rule set. Field defaults are the defaults of the rules text (not a preset)."""

    max_pip: int = 6
    """Set size: 6, 9 or 12 (double-six, double-nine, double-twelve), or 3 (double-three, 10
    tiles: the small variant for exact evaluation; default hand sizes 3/2/2)."""
    num_players: int = 2
    partnership: bool = False
    """With 4 players: seats 0+2 against 1+3, each side sharing one score."""
    hand_size: int | None = None
    """Tiles dealt to each player; ``None`` means 7/6/5 for 2/3/4 players (3/2/2 with double-3)."""
    boneyard_reserve: int = 0
    """Tiles at the bottom of the boneyard that may never be drawn."""
    first_hand_lead: FirstLead = FirstLead.LOTS
    next_hand_lead: NextLead = NextLead.ROTATE
    lead_tile: LeadTile = LeadTile.ANY
    sniff: SniffKind = SniffKind.SPINNER
    sniff_sides_open: SidesOpen = SidesOpen.IMMEDIATELY
    double_placement: DoublePlacement = DoublePlacement.CROSSWISE
    scoring: Scoring = Scoring.FIVES
    points: Points = Points.COUNT
    muggins_claims: bool = False
    """Points must be claimed by the mover; an opponent calls "muggins" on unclaimed ones."""
    draw: Draw = Draw.UNTIL_PLAYABLE
    must_play_drawn: bool = False
    voluntary_draw: bool = False
    hand_end: HandEnd = HandEnd.BONUS_DIV5
    target: int = 100
    win_during_hand: bool = False
    name: str = field(default="custom", compare=False)
    """Where the rules came from (a preset name); not part of equality."""

    def __post_init__(self) -> None:
        for key, enum in _ENUM_FIELDS.items():
            value = getattr(self, key)
            try:
                object.__setattr__(self, key, enum(value))
            except ValueError:
                allowed = ", ".join(repr(m.value) for m in enum)
                raise RulesError(f"{key}={value!r} is not allowed; choose one of {allowed}") from None
        for key in _BOOL_FIELDS:
            if not isinstance(getattr(self, key), bool):
                raise RulesError(f"{key} must be True or False; got {getattr(self, key)!r}")
        _check_int("max_pip", self.max_pip)
        if self.max_pip not in SUPPORTED_MAX_PIPS:
            raise RulesError(
                f"max_pip={self.max_pip!r} is not allowed; choose one of {SUPPORTED_MAX_PIPS} "
                f"(double-3, -4 and -5 are the small sets for exact evaluation)"
            )
        check_num_players(self.num_players)
        if self.partnership and self.num_players != 4:
            raise RulesError(f"partnership needs exactly 4 players; got num_players={self.num_players}")
        if self.hand_size is None:
            sizes = default_hand_sizes(self.max_pip)
            if self.num_players not in sizes:
                defaults = ", ".join(f"{n} players: {h}" for n, h in sizes.items())
                raise RulesError(
                    f"{self.num_players} players have no default hand_size ({defaults}); give hand_size explicitly"
                )
            object.__setattr__(self, "hand_size", sizes[self.num_players])
        _check_int("hand_size", self.hand_size)
        _check_int("boneyard_reserve", self.boneyard_reserve)
        _check_int("target", self.target)
        assert self.hand_size is not None
        if self.hand_size < 1:
            raise RulesError(f"hand_size must be at least 1; got {self.hand_size}")
        if self.boneyard_reserve < 0:
            raise RulesError(f"boneyard_reserve must be 0 or more; got {self.boneyard_reserve}")
        if not 1 <= self.target <= ENGINE_INT_MAX:
            raise RulesError(
                f"target must be at least 1 and at most {ENGINE_INT_MAX} (2**63 - 1, the largest number "
                f"the compiled engine holds); got {self.target}"
            )
        n_tiles = tile_set(self.max_pip).size
        needed = self.num_players * self.hand_size + self.boneyard_reserve
        if needed > n_tiles:
            raise RulesError(
                f"{self.num_players} hands of {self.hand_size} plus a reserve of {self.boneyard_reserve} "
                f"need {needed} tiles, but the double-{self.max_pip} set has {n_tiles}; "
                f"{_what_fits(self.max_pip, self.num_players, self.boneyard_reserve, needed)}"
            )

    # -- derived facts ---------------------------------------------------------------------
    @property
    def num_sides(self) -> int:
        return 2 if self.partnership else self.num_players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (checked like any construction)."""
        unknown = set(changes) - set(field_names())
        if unknown:
            raise RulesError(f"unknown rules field(s) {sorted(unknown)}; known fields: {field_names()}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values of every field (enums as strings)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, StrEnum) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        unknown = set(data) - set(field_names())
        if unknown:
            raise RulesError(f"unknown rules field(s) {sorted(unknown)}; known fields: {field_names()}")
        return cls(**data)


def default_hand_sizes(max_pip: int) -> dict[int, int]:
    """Tiles dealt to each player by player count when ``hand_size`` is not given."""
    return SMALL_SET_HAND_SIZES.get(max_pip, DEFAULT_HAND_SIZES)


def _what_fits(max_pip: int, num_players: int, reserve: int, needed: int) -> str:
    """What would make a deal of the double-``max_pip`` set possible, in words."""
    n_tiles = tile_set(max_pip).size
    options = []
    if (n_tiles - reserve) // num_players >= 1:
        options.append(f"hand_size at most {(n_tiles - reserve) // num_players} with this reserve")
    elif n_tiles >= num_players:
        options.append(f"a reserve of at most {n_tiles - num_players}")
    if num_players > MIN_PLAYERS:
        options.append("fewer players")
    larger = [str(p) for p in SUPPORTED_MAX_PIPS if p > max_pip and tile_set(p).size >= needed]
    if larger:
        options.append(f"a larger set (max_pip {_or_list(larger)})")
    return f"use {_or_list(options)}"


def _or_list(items: list[str]) -> str:
    """``["a", "b", "c"]`` -> ``"a, b or c"``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def field_names() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(Rules))


def field_choices(name: str) -> tuple[str, ...] | None:
    """Allowed string values of an enum field (``None`` for non-enum fields)."""
    enum = _ENUM_FIELDS.get(name)
    return tuple(m.value for m in enum) if enum else None


def check_num_players(value: object) -> int:
    """``value`` if it is a player count the rules allow, else a :class:`RulesError` saying which are."""
    *most, last = map(str, DEFAULT_HAND_SIZES)
    allowed = f"{', '.join(most)} or {last} (or up to {MAX_PLAYERS} with an explicit hand_size that the set can hold)"
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"num_players must be a whole number, {allowed}; got {value!r} ({type(value).__name__})")
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        players = "1 player" if value == 1 else f"{value} players"
        raise RulesError(f"num_players={value} is not allowed: there is no game of {players}; use {allowed}")
    return value


def _check_int(key: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"{key} must be a whole number; got {value!r}")
