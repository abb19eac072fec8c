"""The numba options of every compiled function of the batched engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba as nb

F = TypeVar("F", bound=Callable[..., Any])


def compiled(inline: bool = False) -> Callable[[F], F]:
    """``numba.njit``, cached, releasing the GIL and without reference counting.

    Reference counting is off (numba's ``_nrt`` option, which its type stubs do not list): the
    arrays all belong to the caller and nothing compiled allocates, while numba would otherwise
    update an atomic count for each array argument of each call, which cost more than the rules
    themselves and made threads contend. ``inline`` inlines the function into its callers (numba
    passes an array to a function that is not inlined field by field)."""
    options: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}
    if inline:
        options["inline"] = "always"
    decorator: Callable[[F], F] = nb.njit(**options)
    return decorator
