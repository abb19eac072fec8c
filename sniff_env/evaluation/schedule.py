"""What both tournament engines share: the seatings of a deal, the pairings, the seeds, a game's
outcome, and the players built once per worker process."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from typing import Any

from sniff_env.deal import Deal
from sniff_env.players import BUILTIN, load, parse_spec
from sniff_env.rules import Rules


def seatings(num_players: int) -> list[tuple[int, ...]]:
    """The seatings of a pair (0 = player A, 1 = player B) that one deal is played under."""
    out: list[tuple[int, ...]] = []
    for first in (0, 1):
        pattern = [(first + s) % 2 for s in range(num_players)]
        for r in range(num_players):
            seating = tuple(pattern[r:] + pattern[:r])
            if seating not in out:
                out.append(seating)
    return out


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (stable across processes and Python versions)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True)
class GameOutcome:
    """One game of a pair: who sat where, who won, the scores and the time spent deciding."""

    pair: tuple[int, int]
    deal_index: int
    game_seed: int
    seating: tuple[int, ...]
    winner: int | None
    """0 (player A) or 1 (player B) won; None for a draw."""
    scores: tuple[int, ...]
    hands: int
    points: tuple[float, float]
    """Mean final score of A's seats and of B's seats."""
    decisions: tuple[int, int]
    think_s: tuple[float, float]
    deals: tuple[Deal, ...] = ()


def pairings(k: int) -> list[tuple[int, int]]:
    """Every pair of ``k`` entrants once: ``(i, j)`` with ``i < j``."""
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


_PLAYERS: dict[tuple[str, Rules], Any] = {}
"""Players built so far in this process, by spec and rules (loading a policy file once per process)."""


def cached_player(spec: str, rules: Rules) -> Any:
    """The player ``spec`` names, playing ``rules``, built once per process."""
    if (spec, rules) not in _PLAYERS:
        extra = {} if parse_spec(spec)[0] in BUILTIN else {"rules": rules}
        _PLAYERS[(spec, rules)] = load(spec, **extra)
    return _PLAYERS[(spec, rules)]


def one_thread() -> None:
    """Start a worker process of a tournament: torch, if the parent loaded a TorchScript policy,
    plays on one thread. Its thread pool, inherited across the fork, hangs the child at its
    first parallel operation; one thread a worker is also what the cores can give."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
