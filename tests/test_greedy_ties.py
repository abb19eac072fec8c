"""The study of greedy's tie-breaks against random (training/studies/greedy_ties.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_vector_rollouts import positions, swap_hidden_tile

from sniff_env.game import Game, Phase
from sniff_env.infostate import info_state
from sniff_env.players.compiled.baselines import weight_vector
from sniff_env.players.compiled.rollouts import workspace
from sniff_env.players.greedy import GreedyPlayer, greedy_ties
from sniff_env.players.heuristic import Weights
from sniff_env.presets import make_rules
from sniff_env.vector import kernels as K
from sniff_env.vector.engine import VectorEngine
from training.lib.config import ConfigError
from training.studies.greedy_ties import (
    GREEDY,
    PLAYOUT_PLAYERS,
    Playouts,
    chooser,
    main,
    playout_tiebreak_actions,
    variants,
)

RULES = make_rules("sniff", 2)


def tied_positions(seed: int, count: int) -> list[tuple[VectorEngine, Game]]:
    """Mid-hand positions where greedy has more than one placement left after its two keys."""
    return [(e, g) for e, g in positions(RULES, seed, count) if len(greedy_ties(g, g.legal_actions())) > 1]


def totals_of(eng: VectorEngine, samples: int, hindsight: bool, me: int, opp: int, seed: int) -> np.ndarray:
    """The playout tie-break's summed margins of the legal actions of the engine's game 0."""
    totals = np.zeros(eng.num_actions)
    how = Playouts(weight_vector(Weights()), samples, hindsight, me, opp, np.array([seed], np.uint64), workspace(eng),
                   np.zeros(eng.num_actions, np.int64), np.zeros(eng.num_actions, np.int64), totals)
    playout_tiebreak_actions(eng.games, eng.tables.arrays, np.zeros(1, np.int64), how, np.zeros(1, np.int64))
    return totals[: int(eng.S[0, K.NLEGAL])]


def test_every_tiebreak_picks_among_greedys_ties() -> None:
    cases = tied_positions(5, 60)
    assert len(cases) >= 10
    for variant in variants(samples=2):
        if variant.kind == "heuristic-player":
            continue
        for eng, g in cases:
            chosen = int(chooser(eng, variant, seed=1)(np.zeros(1, np.int64))[0])
            assert chosen in greedy_ties(g, g.legal_actions()), variant.name


def test_hindsight_playouts_are_the_reference_greedy_playouts_of_the_real_deal() -> None:
    """With greedy in every seat the hindsight playout is deterministic: each tied placement's
    total equals the reference engine's margin of that placement played out by greedy."""
    greedy = GreedyPlayer()
    checked = 0
    for eng, g in tied_positions(9, 40):
        legal = [int(a) for a in eng.legal[0, : int(eng.S[0, K.NLEGAL])]]
        totals = totals_of(eng, 1, True, GREEDY, GREEDY, seed=0)
        side = RULES.side_of(g.turn)
        for j, a in enumerate(legal):
            if a not in greedy_ties(g, legal):
                assert totals[j] == 0.0  # untied placements are not played out
                continue
            game = g.copy()
            before = list(game.scores)
            game.step(a)
            while game.phase is Phase.PLAY:
                game.step(greedy.act(None, {"info_state": info_state(game, game.turn)}))
            gains = [game.scores[s] - before[s] for s in range(RULES.num_sides)]
            assert totals[j] == gains[side] - gains[1 - side]
            checked += 1
    assert checked >= 10


def test_determinized_playouts_ignore_the_hidden_tiles() -> None:
    """Swapping tiles between the opponent's hand and the boneyard (within what the seat knows)
    leaves the determinized tie-break's margins, with the same seed, unchanged; the hindsight
    one, which reads them, changes for some position."""
    swapped, hindsight_moved = 0, 0
    for eng, _ in tied_positions(21, 60):
        first = totals_of(eng, 8, False, GREEDY, PLAYOUT_PLAYERS["random"], seed=3)
        seen_first = totals_of(eng, 4, True, GREEDY, GREEDY, seed=3)
        if not swap_hidden_tile(eng):
            continue
        assert np.array_equal(totals_of(eng, 8, False, GREEDY, PLAYOUT_PLAYERS["random"], seed=3), first)
        hindsight_moved += not np.array_equal(totals_of(eng, 4, True, GREEDY, GREEDY, seed=3), seen_first)
        swapped += 1
    assert swapped > 3
    assert hindsight_moved > 0


def test_study_is_reproducible_and_writes_its_results(tmp_path: Path) -> None:
    argv = ["--games", "6", "--samples", "2", "--only", "lowest,playouts greedy/random,hindsight"]
    main([*argv, "--out", str(tmp_path / "a.json")])
    main([*argv, "--out", str(tmp_path / "b.json")])
    a, b = (json.loads((tmp_path / f"{x}.json").read_text()) for x in "ab")
    assert [r["name"] for r in a["results"]] == ["lowest", "playouts greedy/random", "hindsight (reads hidden tiles)"]
    for ra, rb in zip(a["results"], b["results"], strict=True):
        assert ra["games"] == 6 and 0.0 <= ra["win_rate"] <= 1.0
        assert (ra["wins"], ra["ci95"]) == (rb["wins"], rb["ci95"])
    assert a["results"][2]["hindsight"] and not a["results"][0]["hindsight"]


def test_study_refuses_unknown_tiebreaks_and_bad_counts() -> None:
    with pytest.raises(SystemExit, match="names no tie-break"):
        main(["--only", "best"])
    with pytest.raises(ConfigError, match=r"games \(--games\) must be at least 1; got 0"):
        main(["--games", "0"])
