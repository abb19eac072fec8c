"""The rules of :mod:`sniff_env.rulebook`, compiled for the kernels under the same names.

Each function here is the rulebook's own code, compiled with ``inline=True``: numba inlines it
into the kernels, players and rollouts that call it, so a rule costs what code written in place
would. The observation encoder that :func:`with_compiled_rules` compiles is the exception
(:data:`CALLED`): it is large, and compiled once and called. Where one rule calls another, the compiled one calls the compiled other (the functions
share a namespace of compiled rules). The compiled cache follows ``rulebook.py`` too (see
:mod:`sniff_env.vector._compile`).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, TypeVar, cast

from sniff_env import rulebook
from sniff_env.vector._compile import compiled

_inline = compiled(inline=True)
_called = compiled()
CALLED = frozenset({"encode_row"})
"""Functions compiled once and called rather than inlined into each caller (see
:func:`sniff_env.vector._compile.compiled`)."""
F = TypeVar("F", bound=Callable[..., Any])


def _compiled_copy(func: types.FunctionType, namespace: dict[str, Any]) -> Any:
    """``func``'s code compiled (inline unless it is in :data:`CALLED`), reading its globals from ``namespace``."""
    copy = types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__)
    copy.__qualname__, copy.__module__, copy.__doc__ = func.__qualname__, __name__, func.__doc__
    return (_called if func.__name__ in CALLED else _inline)(copy)


_namespace: dict[str, Any] = {k: v for k, v in vars(rulebook).items() if not isinstance(v, types.FunctionType)}
for _name, _func in vars(rulebook).items():
    if isinstance(_func, types.FunctionType) and _func.__module__ == rulebook.__name__:
        _namespace[_name] = _compiled_copy(_func, _namespace)



def _compiled(func: F) -> F:
    """The compiled version of the rulebook's ``func``."""
    return cast(F, _namespace[func.__name__])


side_of = _compiled(rulebook.side_of)
round5 = _compiled(rulebook.round5)
play_points = _compiled(rulebook.play_points)
matches = _compiled(rulebook.matches)
fits = _compiled(rulebook.fits)
open_pips = _compiled(rulebook.open_pips)
inline_offered = _compiled(rulebook.inline_offered)
count_after = _compiled(rulebook.count_after)
place = _compiled(rulebook.place)
hand_end_points = _compiled(rulebook.hand_end_points)
game_winner = _compiled(rulebook.game_winner)
heavier = _compiled(rulebook.heavier)
forced_lead_tile = _compiled(rulebook.forced_lead_tile)
highest_double_holder = _compiled(rulebook.highest_double_holder)
lots_leader = _compiled(rulebook.lots_leader)
lead_forced = _compiled(rulebook.lead_forced)
lead_method = _compiled(rulebook.lead_method)
dealt_to = _compiled(rulebook.dealt_to)


_shared: dict[str, dict[str, Any]] = {}
"""Per core module compiled by :func:`with_compiled_rules`: its namespace of compiled functions."""


def with_compiled_rules(func: types.FunctionType) -> Any:
    """``func``, a plain function of a core module built on the rulebook (in the subset numba
    compiles), compiled (inline unless :data:`CALLED`) with its calls of rulebook functions bound to the compiled rules
    and its calls of its own module's functions to their compiled copies: how code that both
    engines share on top of the rules (the observation encoder) reaches the kernels."""
    namespace = _shared.get(func.__module__)
    if namespace is None:
        namespace = _shared[func.__module__] = dict(func.__globals__)
        for name, value in func.__globals__.items():
            if isinstance(value, types.FunctionType):
                if value.__module__ == rulebook.__name__:
                    namespace[name] = _namespace[value.__name__]
                elif value.__module__ == func.__module__:
                    namespace[name] = _compiled_copy(value, namespace)
    return namespace[func.__name__]
