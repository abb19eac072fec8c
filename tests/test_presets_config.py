"""The presets: the TOML files mirror the table, and every preset has the RULES §8 values."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from sniff_env import PRESET_NAMES, PRESETS, make_rules
from sniff_env.rules import field_names

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs" / "rulesets"


def _normalise(value: Any) -> Any:
    if isinstance(value, dict):
        return {int(k): v for k, v in value.items()}
    return value


def test_every_preset_has_a_toml_file_and_no_more() -> None:
    assert sorted(p.stem for p in CONFIG_DIR.glob("*.toml")) == sorted(PRESET_NAMES)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_toml_equals_presets_table(preset: str) -> None:
    data = tomllib.loads((CONFIG_DIR / f"{preset}.toml").read_text())
    assert data.pop("name") == preset
    assert set(data) <= set(field_names())
    assert {k: _normalise(v) for k, v in data.items()} == {k: _normalise(v) for k, v in PRESETS[preset].items()}


# preset: (sniff, double_placement, hand sizes 2/3/4, first lead, next lead, draw, hand_end, targets 2/3/4)
TABLE: dict[str, tuple[str, str, tuple[int, ...], str, str, str, str, tuple[int, ...]]] = {
    "sniff": ("spinner", "crosswise", (7, 6, 5), "lots", "rotate", "max_two", "bonus_div5", (100,) * 3),
    "sniff-cribbage": ("spinner", "crosswise", (7, 6, 5), "lots", "rotate", "max_two", "bonus_div5", (61,) * 3),
    "sniff-us": ("spinner", "crosswise", (7, 6, 5), "lots", "winner", "until_playable", "subtract_own", (250, 200, 200)),
    "sniff-english": ("stubby", "crosswise", (7, 6, 5), "lots", "winner", "until_playable", "subtract_own", (250, 200, 200)),
    "sniff-digital": ("spinner", "crosswise", (7, 5, 5), "random", "rotate", "until_playable", "domino_takes_pips", (200,) * 3),
    "muggins-digital": ("none", "crosswise", (7, 5, 5), "highest_double", "highest_double", "until_playable", "domino_takes_pips", (200,) * 3),
    "muggins": ("none", "crosswise", (7, 7, 7), "lots", "winner", "until_playable", "subtract_own", (250, 200, 200)),
    "muggins-sleepers": ("none", "crosswise", (7, 7, 7), "lots", "winner", "none", "bonus_div5_fewest_tiles", (250, 200, 200)),
    "muggins-sniff": ("none", "choice", (7, 7, 7), "lots", "winner", "until_playable", "subtract_own", (250, 200, 200)),
}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_preset_matches_rules_table(preset: str) -> None:
    sniff, doubles, sizes, first, nxt, draw, hand_end, targets = TABLE[preset]
    for players, size, target in zip((2, 3, 4), sizes, targets, strict=True):
        r = make_rules(preset, players)
        assert (r.sniff, r.double_placement, r.hand_size, r.first_hand_lead) == (sniff, doubles, size, first)
        assert (r.next_hand_lead, r.draw, r.hand_end, r.target) == (nxt, draw, hand_end, target)
        assert r.name == preset and r.scoring == "fives"
        assert r.boneyard_reserve == (2 if preset.startswith("sniff") and draw == "max_two" and players == 2 else 0)
    r = make_rules(preset, 2)
    assert r.points == ("count_div5" if preset == "sniff-cribbage" else "count")
    assert r.must_play_drawn is (preset in ("sniff-us", "sniff-english"))
    digital = preset in ("sniff-digital", "muggins-digital")
    assert r.voluntary_draw is digital and r.win_during_hand is digital
    assert r.lead_tile == ("highest_double" if preset == "muggins-digital" else "any")


def test_overrides_combine_with_any_preset() -> None:
    r = make_rules("sniff-digital", 3, scoring="primes", max_pip=12)
    assert (r.scoring, r.max_pip, r.num_players, r.hand_size) == ("primes", 12, 3, 5)
    assert make_rules("sniff", 2) == make_rules("sniff", 2).replace()
    assert type(r).from_dict(r.to_dict()) == r
