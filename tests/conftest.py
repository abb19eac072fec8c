"""Shared helpers for the tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from sniff_env.actions import END_NAMES, LEAD
from sniff_env.game import Game

Tile = tuple[int, int]

TRUST_ENV = "SNIFF_TRUST_FILE"
"""Where the training tools keep the TorchScript files they trust (see training/lib/torchscript.py)."""


@pytest.fixture(autouse=True, scope="session")
def trust_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The training tools' trust list, in a temporary folder for the whole session (subprocesses
    inherit it): the suite never writes to the home folder."""
    path = str(tmp_path_factory.mktemp("trust") / "trusted-torchscript.txt")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TRUST_ENV, path)
        yield path


@pytest.fixture(autouse=True, scope="session")
def player_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The player's data folder (game logs, the record across games) in a temporary folder for
    the whole session, subprocesses included; a test that needs its own sets ``SNIFF_HOME`` again."""
    path = str(tmp_path_factory.mktemp("player-home"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SNIFF_HOME", path)
        yield path


def action_for(game: Game, tile: Tile, end: str | None, inline: bool = False) -> int:
    """The action id of placing ``tile`` on ``end`` (``None``: the lead)."""
    slot = LEAD if end is None else END_NAMES.index(end)
    return game.codec.encode(game.ts.index(tile), slot, inline)


def play_moves(
    game: Game, moves: Sequence[tuple[Tile, str | None] | tuple[Tile, str | None, bool]]
) -> list[tuple[int, list[int]]]:
    """Play ``moves``; returns (count, scores) after each."""
    out = []
    for move in moves:
        tile, end = move[0], move[1]
        inline = bool(move[2]) if len(move) > 2 else False  # type: ignore[misc]
        game.step(action_for(game, tile, end, inline))
        out.append((game.count, list(game.scores)))
    return out


def play_out_legally(player: object, rules: object, seed: int, max_hands: int = 2) -> int:
    """Let ``player`` take every seat of a game (bounded by ``max_hands``) from its seat's
    information alone; assert each choice is legal. Returns the number of decisions."""
    from sniff_env.game import Phase, new_game
    from sniff_env.infostate import info_state

    game = new_game(rules, seed=seed, max_hands=max_hands)  # type: ignore[arg-type]
    decisions = 0
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        action = player.act({}, {"info_state": info_state(game, game.turn)})  # type: ignore[attr-defined]
        assert action in game.legal_actions()
        game.step(action)
        decisions += 1
    return decisions


def first_random_hand(rules: object, seeds: range, accept: Callable[[Game], bool]) -> Game:
    """The first one-hand game of uniform random play (game and moves seeded by the seed) over
    ``seeds`` that ``accept`` takes; an AssertionError when none does."""
    import random

    from sniff_env.game import Phase, new_game

    for seed in seeds:
        game = new_game(rules, seed=seed, max_hands=1)  # type: ignore[arg-type]
        rng = random.Random(seed)
        while game.phase is Phase.PLAY:
            game.step(rng.choice(game.legal_actions()))
        if accept(game):
            return game
    raise AssertionError(f"no game among seeds {seeds.start} to {seeds.stop - 1} is the one asked for")


def scalar_tags(logdir: Path) -> set[str]:
    """The scalar names a run wrote to TensorBoard in ``logdir``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: set[str] = set()
    for events in logdir.glob("events.*"):
        acc = EventAccumulator(str(events))
        acc.Reload()
        tags |= set(acc.Tags()["scalars"])
    return tags
