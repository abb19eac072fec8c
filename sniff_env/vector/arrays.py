"""The named structures the kernels take: a batch's state, its observation buffers, the rules as
data, and the per-call arrays of a deal and of the vector env's step.

Each is a ``NamedTuple`` of arrays (and a few whole numbers), which numba compiles as one
argument: a kernel takes a handful of them instead of dozens of positional arrays, and reads a
field by name (``games.S``, ``rules.lo``). The rules hold what play needs; the observation
spec travels with the observation buffers (:class:`Views`), so that the players, which never
encode, do not carry it. Every instance a kernel sees holds arrays of the
same types (dtype, dimensions, C order), so that each compiled function keeps one signature.
The columns of ``Games.S`` and the cells of ``RuleTables.P`` are named in
:mod:`sniff_env.vector.kernels`; code outside the engine asks :class:`~sniff_env.vector.engine.VectorEngine`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sniff_env.encoding import Spec


class Games(NamedTuple):
    """The state of a batch of games, as :class:`~sniff_env.vector.engine.VectorEngine` keeps it
    (one row per game); a rollout's or a solver's games are laid out the same."""

    S: np.ndarray
    """``[B, NS]`` int64: the per-game scalars (columns named in :mod:`~sniff_env.vector.kernels`)."""
    hands: np.ndarray
    """``[B, num_players, T]`` uint8: 1 where a seat holds a tile."""
    played: np.ndarray
    """``[B, 2T]`` int8: the seat that played each tile (-1 none), then the tiles in play order."""
    bone: np.ndarray
    """``[B, T]`` int64: the boneyard in draw order."""
    legal: np.ndarray
    """``[B, num_actions]`` int16: ``legal[b, :S[b, NLEGAL]]`` the legal actions of the seat to act."""


class Views(NamedTuple):
    """The observations the kernels write for the seat to act in each game: the buffers, and the
    observation spec they are written by."""

    obs: np.ndarray
    """``[B, obs_size]`` float32."""
    mask: np.ndarray
    """``[B, num_actions]`` int8."""
    spec: Spec
    """The observation encoder's tables (:class:`sniff_env.encoding.Spec`, of arrays:
    :attr:`sniff_env.vector.tables.Tables.kernel_spec`)."""
    rules_vec: np.ndarray
    """The observation's rules block (float32), which each row keeps."""


class RuleTables(NamedTuple):
    """One rule set as data (:func:`sniff_env.vector.tables.build_tables` builds it)."""

    P: np.ndarray
    """int64: the rule parameters (cells named ``kernels.P_*``)."""
    lo: np.ndarray
    """``lo[t]``, ``hi[t]``: the halves of tile ``t``."""
    hi: np.ndarray
    pip_tiles: np.ndarray
    """``pip_tiles[p, q]``: the tile with halves ``p`` and ``q``."""
    score_tab: np.ndarray
    """``score_tab[c]``: whether a count ``c`` scores."""
    act_tile: np.ndarray
    """``act_tile[a]``, ``act_slot[a]``: the tile and slot of action ``a`` (-1 for the draw)."""
    act_slot: np.ndarray


class DealArrays(NamedTuple):
    """What the ``deal`` kernel reads and writes besides the games (one entry per game)."""

    request: np.ndarray
    """int64: what to deal (``kernels.NEXT_HAND``, ``NEW_GAME``, ``SCRIPTED`` bits; 0 nothing)."""
    seeds: np.ndarray
    """int64: each game's seed."""
    order: np.ndarray
    """``[B, T]`` int64: a deal's tile order (hands, then boneyard)."""
    leaders: np.ndarray
    """int64: a deal's leader (-1: the holder of the highest double)."""


class EnvArrays(NamedTuple):
    """The vector env's side of ``kernels.env_step``: how it rewards, and what it keeps per game."""

    mode: int
    """Bits ``kernels.REWARD_GAME`` and ``kernels.EPISODE_HAND``."""
    side_of_seat: np.ndarray
    """int64: each seat's side."""
    hand_start: np.ndarray
    """``[B, num_sides]`` int64: the scores at each game's hand start."""
    seeds: np.ndarray
    """int64: each game's seed."""
    request: np.ndarray
    """int64: set where a hand ends, for ``deal``."""


class StepArrays(NamedTuple):
    """What a step returns besides the observations (``kernels.env_step`` writes them)."""

    rewards: np.ndarray
    """``[B, num_players]`` float32."""
    done: np.ndarray
    """``[B]`` bool: the episode ended."""
    winner: np.ndarray
    """``[B]`` int64: the episode's winning side (-1 none)."""
    final_scores: np.ndarray
    """``[B, num_sides]`` int64 (0 where not done)."""
    seed: np.ndarray
    """``[B]`` int64: the finished game's seed (-1 where not done)."""
    game_over: np.ndarray
    """``[B]`` bool: the game itself ended."""


def new_games(B: int, num_players: int, num_tiles: int, num_actions: int, state_columns: int) -> Games:
    """Zeroed :class:`Games` for ``B`` games (no tile played, every ``played`` cell -1)."""
    return Games(np.zeros((B, state_columns), np.int64), np.zeros((B, num_players, num_tiles), np.uint8),
                 np.full((B, 2 * num_tiles), -1, np.int8), np.zeros((B, num_tiles), np.int64),
                 np.zeros((B, num_actions), np.int16))
