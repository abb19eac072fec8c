"""A player against itself in 2-player ``sniff``: every decision of a seeded game, for the studies
that read a player's choices."""

from __future__ import annotations

from collections.abc import Iterator

from sniff_env import make_rules, new_game
from sniff_env.game import Game, Phase
from sniff_env.infostate import InfoState, info_state
from sniff_env.players import load


def self_play(spec: str, seed: int) -> Iterator[tuple[InfoState, int]]:
    """``(the acting seat's information state, the action it chose)`` at each decision of one
    game of ``spec`` in both seats (each seat seeded ``2 * seed + seat``), dealt by ``seed``;
    the game steps on once the caller has read the pair."""
    for _game, state, action in self_play_games(spec, seed):
        yield state, action


def self_play_games(spec: str, seed: int) -> Iterator[tuple[Game, InfoState, int]]:
    """:func:`self_play` with the game itself first, hidden tiles and all, for studies that
    compare what a seat believes with what is true."""
    game = new_game(make_rules("sniff", 2), seed=seed, record=False)
    players = [load(spec, seed=2 * seed + s) for s in range(2)]
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
            continue
        state = info_state(game, game.turn)
        action = players[game.turn].act({}, {"info_state": state})
        yield game, state, action
        game.step(action)
