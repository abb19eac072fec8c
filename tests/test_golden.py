"""Golden games: seeded random games per preset whose move counts and scores must not drift.

Each file ``tests/golden/<preset>.json`` lists games played by a uniform random policy
(``random.Random(seed).choice`` over ``legal_actions()``), with the number of decisions, of
hands, the final scores and a digest of the event list. A change of engine behaviour shows up here as a diff. After an
intended rules change, regenerate from the repository root with::

    python -m tests.test_golden --regen

and review the diff of ``tests/golden/`` before committing it.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from sniff_env import PRESET_NAMES, make_rules, new_game
from sniff_env.game import Phase

GOLDEN_DIR = Path(__file__).parent / "golden"
MAX_HANDS = 40
SEEDS_2P = (0, 1, 2, 3, 4)
SEEDS_MORE = (0, 1)
MORE_PLAYERS_PRESETS = ("sniff", "sniff-english", "muggins-digital", "muggins-sniff")
"""Presets also recorded with 3 players and with 4 players in partnership."""


def settings(preset: str) -> list[dict[str, Any]]:
    """The games recorded for ``preset``."""
    out = [{"players": 2, "partnership": False, "seed": s} for s in SEEDS_2P]
    if preset in MORE_PLAYERS_PRESETS:
        out += [{"players": 3, "partnership": False, "seed": s} for s in SEEDS_MORE]
        out += [{"players": 4, "partnership": True, "seed": s} for s in SEEDS_MORE]
    return out


def play(preset: str, players: int, partnership: bool, seed: int) -> dict[str, Any]:
    """One game by the seeded uniform random policy, summarised."""
    rules = make_rules(preset, players, partnership=partnership)
    game = new_game(rules, seed=seed, max_hands=MAX_HANDS)
    rng = random.Random(seed)
    moves = 0
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        game.step(rng.choice(game.legal_actions()))
        moves += 1
    return {
        "players": players,
        "partnership": partnership,
        "seed": seed,
        "max_hands": MAX_HANDS,
        "moves": moves,
        "hands": len(game.results),
        "scores": list(game.scores),
        "winner": game.winner,
        "events_sha256": hashlib.sha256(json.dumps(game.events).encode()).hexdigest()[:16],
    }


def golden_path(preset: str) -> Path:
    return GOLDEN_DIR / f"{preset}.json"


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_golden_games_replay(preset: str) -> None:
    recorded = json.loads(golden_path(preset).read_text())
    assert [{k: g[k] for k in ("players", "partnership", "seed")} for g in recorded] == settings(preset)
    for want in recorded:
        assert play(preset, want["players"], want["partnership"], want["seed"]) == want


def regenerate() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for preset in PRESET_NAMES:
        games = [play(preset, **s) for s in settings(preset)]
        lines = ",\n".join(" " + json.dumps(g) for g in games)
        golden_path(preset).write_text(f"[\n{lines}\n]\n")
        print(f"wrote {golden_path(preset)} ({len(games)} games)")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regen"]:
        sys.exit("usage: python -m tests.test_golden --regen")
    regenerate()
