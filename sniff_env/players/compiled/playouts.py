"""Playouts, compiled: a move played on a deal and the hand played out by the heuristic in every
seat, and what the playout is worth to the side that moved.

A playout is worth the points its side gains to the end of the hand less what the other sides
gain (the mean of them), or with win odds (two sides) the chance of winning the game from the
scores it ended on (:mod:`sniff_env.players.compiled.win_odds`). :func:`play_each_reply` weighs
each move one ply deeper: by the worst reply of the next seat where it is another side's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sniff_env.players.compiled.baselines import HeuristicSpace, heuristic_choice, heuristic_space
from sniff_env.players.compiled.win_odds import odds_at, win_odds
from sniff_env.rules import Rules
from sniff_env.vector import compiled
from sniff_env.vector.arrays import Games, RuleTables
from sniff_env.vector.compiled_rules import side_of
from sniff_env.vector.engine import VectorEngine
from sniff_env.vector.kernels import (
    GAME_OVER,
    NLEGAL,
    P_PARTNER,
    P_SIDES,
    P_TARGET,
    PHASE,
    PLAY,
    SCORES,
    TURN,
    WINNER,
    apply_action,
    new_state,
)

_jit = compiled()
_inline = compiled(inline=True)  # small or hot helpers: a copy in each caller

NO_ODDS = np.zeros((0, 0), np.float64)
NO_ODDS.flags.writeable = False  # read-only like every odds table, so that the search has one signature
"""The empty odds table: playouts are worth their margin (see :func:`rollout_value`)."""
MARGIN_WEIGHT = 1e-5
"""With win odds, a playout's value also holds this much per point of margin, which only breaks
ties (the odds of every move alike, e.g. when the game is settled either way)."""


class RolloutSpace(NamedTuple):
    """Scratch arrays for one thread searching games of an engine (:func:`workspace`)."""

    deal_hands: np.ndarray
    """``[1, n, T]``: the sampled hands."""
    deal_bone: np.ndarray
    """``[1, T]``: the sampled boneyard."""
    S: np.ndarray
    """The rollout's game (``S``, ``hands``, ``played``, ``bone``, ``legal``: one game, as :attr:`game` holds them)."""
    hands: np.ndarray
    played: np.ndarray
    bone: np.ndarray
    legal: np.ndarray
    row: np.ndarray
    """The heuristic's work space (``row``, ``scratch``, ``values``: as :attr:`heuristic` holds them)."""
    scratch: np.ndarray
    values: np.ndarray
    pool: np.ndarray
    """The unseen tiles, and which of them a deal took."""
    taken: np.ndarray
    kept_S: np.ndarray
    """The rollout's game kept aside (depth 2; its legal actions are not kept)."""
    kept_hands: np.ndarray
    kept_played: np.ndarray
    kept_bone: np.ndarray
    replies: np.ndarray
    """The replies to a move (depth 2)."""
    game: Games
    """The rollout's game as the kernels take it."""
    heuristic: HeuristicSpace
    """The heuristic's work space as it takes it."""


def workspace(engine: VectorEngine) -> RolloutSpace:
    """Scratch arrays for one thread searching games of ``engine``."""
    n, T, A = engine.rules.num_players, engine.tables.num_tiles, engine.num_actions
    game, kept = new_state(1, n, T, A), new_state(1, n, T, A)
    space = heuristic_space(engine)
    return RolloutSpace(np.zeros((1, n, T), np.uint8), np.zeros((1, T), np.int64), *game, *space,
                        np.zeros(T, np.int64), np.zeros(T, np.int64), *kept[:4], np.zeros(A, np.int64), game, space)


@_inline
def load_game(games: Games, b: int, DH: np.ndarray, DB: np.ndarray, into: Games, r: int) -> None:
    """Set game ``r`` of ``into`` to game ``b`` of ``games`` with the deal ``DH[0], DB[0]`` (every
    hand, and the boneyard)."""
    S, played, RS, RH, RP, RB = games.S, games.played, into.S, into.hands, into.played, into.bone
    for c in range(RS.shape[1]):
        RS[r, c] = S[b, c]
    for c in range(RP.shape[1]):
        RP[r, c] = played[b, c]
    for s in range(RH.shape[1]):
        for t in range(RH.shape[2]):
            RH[r, s, t] = DH[0, s, t]
    for t in range(RB.shape[1]):
        RB[r, t] = DB[0, t]


@_inline
def load_deal(games: Games, b: int, work: RolloutSpace) -> None:
    """Set the rollout game of ``work`` to game ``b`` with the deal in ``work.deal_hands`` and
    ``work.deal_bone`` (every hand, and the boneyard)."""
    load_game(games, b, work.deal_hands, work.deal_bone, work.game, 0)


@_inline
def apply_move(rules: RuleTables, work: RolloutSpace, a: int) -> bool:
    """Play action ``a`` in the rollout game of ``work`` and the forced draws and passes after it;
    whether the hand goes on (the next decision's legal actions are then in ``work.legal``)."""
    apply_action(work.game, 0, rules, a)
    return bool(work.S[0, PHASE] == PLAY)


@_inline
def margin_at(S: np.ndarray, P: np.ndarray, b: int, RS: np.ndarray, r: int) -> float:
    """What the side to act in game ``b`` gained in game ``r`` of ``RS`` (a game played on from
    it) less the mean of what the other sides gained."""
    sides = P[P_SIDES]
    me = side_of(S[b, TURN], P[P_PARTNER])
    mine, others = 0.0, 0.0
    for s in range(sides):
        gain = RS[r, SCORES + s] - S[b, SCORES + s]
        if s == me:
            mine = gain
        else:
            others += gain
    return mine - others / (sides - 1)


@_inline
def rollout_margin(S: np.ndarray, P: np.ndarray, b: int, work: RolloutSpace) -> float:
    """:func:`margin_at` of the rollout game of ``work``."""
    return margin_at(S, P, b, work.S, 0)


@_inline
def value_at(S: np.ndarray, P: np.ndarray, b: int, RS: np.ndarray, r: int, odds: np.ndarray, low: int) -> float:
    """The value of game ``r`` of ``RS`` (a game played on from game ``b``) to the side to act in
    game ``b``: its margin (:func:`margin_at`) when ``odds`` is empty, else its chance of winning
    the game from the scores it ended on (``odds`` of
    :func:`sniff_env.players.compiled.win_odds.win_odds`, for two sides; 1, 0 or one half where
    the game ended) plus :data:`MARGIN_WEIGHT` times the margin."""
    margin = margin_at(S, P, b, RS, r)
    if odds.shape[0] == 0:
        return margin
    me = side_of(S[b, TURN], P[P_PARTNER])
    if RS[r, PHASE] == GAME_OVER:
        winner = RS[r, WINNER]
        chance = 0.5 if winner < 0 else 1.0 if winner == me else 0.0
    else:
        chance = odds_at(odds, low, P[P_TARGET], RS[r, SCORES + me], RS[r, SCORES + 1 - me])
    return chance + MARGIN_WEIGHT * margin


def value_odds(rules: Rules, value: str) -> tuple[np.ndarray, int]:
    """The ``odds`` and ``low`` that :func:`value_at` reads for ``value``: the win odds of
    :func:`~sniff_env.players.compiled.win_odds.win_odds` for ``"win"``, else none (the margin)."""
    return win_odds(rules) if value == "win" else (NO_ODDS, 0)


@_jit
def values_at(S: np.ndarray, P: np.ndarray, b: int, RS: np.ndarray, odds: np.ndarray, low: int,
              out: np.ndarray) -> None:
    """:func:`value_at` of every game of ``RS`` into ``out``: playouts made elsewhere (by a
    network, :mod:`sniff_env.players.net_playouts`) valued as the search values its own."""
    for r in range(RS.shape[0]):
        out[r] = value_at(S, P, b, RS, r, odds, low)


def playout_values(root: VectorEngine, game: int, playouts: VectorEngine, odds: np.ndarray, low: int) -> np.ndarray:
    """:func:`values_at` of every game of ``playouts`` (played on from game ``game`` of ``root``)."""
    worth = np.empty(playouts.num_envs, np.float64)
    values_at(root.S, root.tables.params, game, playouts.S, odds, low, worth)
    return worth


@_inline
def rollout_value(S: np.ndarray, P: np.ndarray, b: int, work: RolloutSpace, odds: np.ndarray,
                  low: int) -> float:
    """:func:`value_at` of the rollout game of ``work``."""
    return value_at(S, P, b, work.S, 0, odds, low)


@_jit
def play_on(rules: RuleTables, W: np.ndarray, work: RolloutSpace) -> None:
    """Play the rollout game of ``work`` to the end of the hand, the heuristic (weights ``W``) in every seat."""
    while work.S[0, PHASE] == PLAY:
        a = heuristic_choice(work.game, rules, 0, W, work.heuristic)
        apply_move(rules, work, a)


@_jit
def play_each(games: Games, rules: RuleTables, b: int, W: np.ndarray, work: RolloutSpace, totals: np.ndarray,
              odds: np.ndarray, low: int) -> None:
    """Add to ``totals[j]`` the value (:func:`rollout_value`) of ``games.legal[b, j]`` played on the
    deal in ``work.deal_hands`` and ``work.deal_bone`` and the hand played out by the heuristic
    (:func:`play_on`)."""
    S, P = games.S, rules.P
    for j in range(S[b, NLEGAL]):
        load_deal(games, b, work)
        apply_move(rules, work, games.legal[b, j])
        play_on(rules, W, work)
        totals[j] += rollout_value(S, P, b, work, odds, low)


@_inline
def copy_into(dst: np.ndarray, src: np.ndarray) -> None:
    """Copy ``src`` into ``dst`` (of one shape) element by element; compiled code allocates nothing."""
    flat_d, flat_s = dst.reshape(-1), src.reshape(-1)
    for i in range(flat_d.size):
        flat_d[i] = flat_s[i]


@_inline
def keep_rollout(work: RolloutSpace, back: bool) -> None:
    """Copy the rollout game of ``work`` aside (``back`` false) or back from that copy."""
    if back:
        copy_into(work.S, work.kept_S)
        copy_into(work.hands, work.kept_hands)
        copy_into(work.played, work.kept_played)
        copy_into(work.bone, work.kept_bone)
    else:
        copy_into(work.kept_S, work.S)
        copy_into(work.kept_hands, work.hands)
        copy_into(work.kept_played, work.played)
        copy_into(work.kept_bone, work.bone)


@_jit
def play_each_reply(games: Games, rules: RuleTables, b: int, W: np.ndarray, work: RolloutSpace,
                    totals: np.ndarray, odds: np.ndarray, low: int) -> None:
    """:func:`play_each` one ply deeper: where the next decision after the move is another
    side's, each of that seat's legal replies is played out (the heuristic from there on) and the
    move is worth the least of their values (with two sides, the reply that side likes best on
    this deal, which it sees whole)."""
    S, P = games.S, rules.P
    RS, RL, replies = work.S, work.legal, work.replies
    me = side_of(S[b, TURN], P[P_PARTNER])
    for j in range(S[b, NLEGAL]):
        load_deal(games, b, work)
        if apply_move(rules, work, games.legal[b, j]) \
                and side_of(RS[0, TURN], P[P_PARTNER]) != me and RS[0, NLEGAL] > 1:
            k = RS[0, NLEGAL]
            for r in range(k):
                replies[r] = RL[0, r]
            keep_rollout(work, False)
            worst = np.inf
            for r in range(k):
                if r:
                    keep_rollout(work, True)
                apply_move(rules, work, replies[r])
                play_on(rules, W, work)
                worst = min(worst, rollout_value(S, P, b, work, odds, low))
            totals[j] += worst
            continue
        play_on(rules, W, work)
        totals[j] += rollout_value(S, P, b, work, odds, low)
