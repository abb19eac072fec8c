"""Checks of what the batched engine is given: counts, seeds, arrays of whole numbers, memory.

Every check raises :class:`BatchError` (a :class:`sniff_env.errors.SniffError`, so a
``ValueError``) saying what was given and what is allowed, before anything changes.

A batch is refused when its arrays would need more memory than ``max_bytes``, by default
:data:`MEMORY_FRACTION` of the memory available when it is built (``MemAvailable`` of
``/proc/meminfo``, else the free pages ``os.sysconf`` reports; no default limit where neither
can be read).
"""

from __future__ import annotations

import numbers
import os
from typing import Any

import numpy as np

from sniff_env.errors import SniffError
from sniff_env.rules import Rules

INT64_MAX = 2**63 - 1
"""Seeds are held as int64; ``-INT64_MAX..INT64_MAX`` (the compiled seed string needs ``-seed``)."""
MEMORY_FRACTION = 0.5
"""The share of the available memory a batch may take unless ``max_bytes`` says otherwise."""


class BatchError(SniffError):
    """An argument of a batched call of the wrong kind, size or range, or a batch too large for memory."""


def positive_int(name: str, value: object, alternative: str = "", most: int | None = None) -> int:
    """``value`` as an int if it is a whole number >= 1 (and at most ``most`` where given; not a
    bool); the message names the ``alternative`` the caller also takes (``" or None"``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1 \
            or (most is not None and int(value) > most):
        bound = "" if most is None else f" up to {most}"
        raise BatchError(f"{name} must be a positive whole number{bound}{alternative}; got {value!r}")
    return int(value)


def rules_value(rules: object) -> Rules:
    """``rules`` if it is a :class:`Rules`."""
    if not isinstance(rules, Rules):
        raise BatchError(f"rules must be a sniff_env.rules.Rules (sniff_env.presets.make_rules makes one); got {rules!r}")
    return rules


def seed_value(name: str, value: object) -> int:
    """``value`` as an int if it is a whole number the engine can hold as a seed."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or abs(int(value)) > INT64_MAX:
        raise BatchError(f"{name} must be a whole number from -(2**63 - 1) to 2**63 - 1; got {value!r}")
    return int(value)


def int_array(name: str, values: Any, length: int | None, seeds: bool = False) -> np.ndarray:
    """``values`` as a contiguous, writable int64 array of ``length`` (None: any number of) whole
    numbers (a copy where ``values`` is not one: compiled kernels are compiled for that type
    alone, and a read-only array would compile them anew); with ``seeds`` each must be a seed
    (see :func:`seed_value`). Floats, bools and anything else are refused, not rounded."""
    size = "n" if length is None else str(length)
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as e:
        raise BatchError(f"{name} must be an array of {size} whole numbers; got a {type(values).__name__} ({e})") from None
    if arr.ndim != 1 or arr.shape[0] != (length or arr.shape[0]):
        raise BatchError(f"{name} must be an array of shape ({size},); got shape {arr.shape}")
    if arr.dtype.kind not in "iu" and arr.size:  # an empty list is an empty float array
        first = arr.reshape(-1)[:1].tolist()[0]
        raise BatchError(
            f"{name} must hold whole numbers (an integer dtype); got dtype {arr.dtype}, first {first!r}: nothing is rounded")
    too_big = arr.dtype == np.uint64 and arr.size and arr.max() > INT64_MAX
    if too_big or (seeds and arr.dtype == np.int64 and arr.size and arr.min() < -INT64_MAX):
        raise BatchError(f"{name} must lie in -(2**63 - 1)..2**63 - 1; got {arr.min()}..{arr.max()}")
    return np.require(arr, np.int64, ["C_CONTIGUOUS", "WRITEABLE"])


def available_memory() -> int | None:
    """The bytes of memory available to new allocations now, None if the system does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def check_memory(num_envs: int, bytes_per_game: int, max_bytes: int | None) -> None:
    """Refuse a batch of ``num_envs`` games of ``bytes_per_game`` each that would pass the limit
    (``max_bytes``, else :data:`MEMORY_FRACTION` of :func:`available_memory`)."""
    if max_bytes is None:
        available = available_memory()
        if available is None:
            return
        limit, source = int(available * MEMORY_FRACTION), f"{MEMORY_FRACTION:.0%} of the {_gib(available)} available"
    else:
        limit, source = positive_int("max_bytes", max_bytes, " or None"), "max_bytes"
    need = num_envs * bytes_per_game
    if need > limit:
        raise BatchError(
            f"{num_envs:,} games need about {_gib(need)} ({bytes_per_game:,} bytes each), more than the limit of "
            f"{_gib(limit)} ({source}): use fewer games, or pass max_bytes to set the limit")
