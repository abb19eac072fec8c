"""Error types of the rules core. Every one is a ``ValueError``, so callers can catch broadly."""

from __future__ import annotations


class SniffError(ValueError):
    """Base class of every error raised for bad input to the rules core."""


class RulesError(SniffError):
    """A rules field has a value outside its choices, or the fields cannot be played together."""


class OutputPathError(SniffError):
    """A file or folder a command was asked to write cannot be written there, or already exists
    and overwriting it was not asked for. Raised before any work is done."""


class DealError(SniffError):
    """A scripted deal is malformed (duplicate tile, tile not in the set, wrong sizes, bad leader)."""


class IllegalMoveError(SniffError):
    """A move that is not legal in the current position. The state is left untouched."""

    def __init__(self, message: str, action: object = None, legal: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.action = action
        self.legal = legal


class GameOverError(SniffError):
    """A move or request that needs a hand in progress, made when none is."""


class UnknownOptionError(SniffError, TypeError):
    """A keyword an environment does not take, or a render mode it does not offer. It is a
    ``TypeError`` too, as Python raises for an unexpected keyword argument, because libraries that
    build environments by id (stable-baselines3's ``make_vec_env``, TorchRL's ``GymEnv``) retry
    without their optional keywords on a ``TypeError`` only."""


def unknown_options(callee: str, unknown: set[str], allowed: str) -> UnknownOptionError:
    """The error for the keywords ``unknown`` given to ``callee``: Python's own words for the first
    of them (which libraries look for), then all of them and ``allowed``, what may be given."""
    names = sorted(unknown)
    return UnknownOptionError(
        f"{callee}() got an unexpected keyword argument {names[0]!r}: unknown option(s) {names}; {allowed}"
    )
