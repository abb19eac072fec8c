"""Small helpers shared by the players."""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from sniff_env.infostate import InfoState
from sniff_env.players.specs import MAX_BUDGET_S, MAX_WEIGHT
from sniff_env.rules import ENGINE_INT_MAX


def found_info_state(observation: Any, info: Any) -> InfoState | None:
    """The acting seat's :class:`InfoState`: ``info["info_state"]`` (``infos="full"``, the
    tournament, the web table) or else the attribute the AEC env's observation dict carries."""
    state = info.get("info_state") if isinstance(info, dict) else None
    if state is None:
        state = getattr(observation, "info_state", None)
    return state if isinstance(state, InfoState) else None


def info_of(info: dict[str, Any], observation: Any = None) -> InfoState:
    """The acting seat's :class:`InfoState` (see :func:`found_info_state`), or :class:`ValueError`."""
    state = found_info_state(observation, info)
    if state is None:
        raise ValueError("this player needs the acting seat's InfoState: pass the observation dict the "
                         "environment handed out (its .info_state) or info['info_state'] (infos='full')")
    return state


def legal_actions(observation: Any, info: dict[str, Any]) -> list[int]:
    """The legal actions: from the info state, or else from the observation's action mask."""
    state = found_info_state(observation, info)
    if isinstance(state, InfoState) and state.legal:
        return list(state.legal)
    if isinstance(observation, dict) and "action_mask" in observation:
        acts = [i for i, v in enumerate(observation["action_mask"]) if v]
        if acts:
            return acts
    raise ValueError("no legal action: the seat is not to move (empty info_state.legal and action mask)")


def positive_count(key: str, value: object, most: int = ENGINE_INT_MAX) -> int:
    """``value`` if it is a whole number from 1 to ``most`` (at most 2**63 - 1, what compiled code
    can hold), else :class:`ValueError` naming ``key`` and the range."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise ValueError(f"{key} must be a whole number from 1 to {most}; got {value!r}")
    return value


def _finite_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a finite int or float (not a bool)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def positive_seconds(key: str, value: object, most: float = MAX_BUDGET_S) -> float:
    """``value`` as a float if it is a finite number of seconds above 0 and at most ``most``, else
    :class:`ValueError` (a budget without end would never end a search)."""
    if not _finite_number(value) or not 0 < value <= most:
        raise ValueError(f"{key} must be a finite number of seconds above 0 and at most {most:.10g}; got {value!r}")
    return float(value)


def finite_weight(key: str, value: object, most: float = MAX_WEIGHT) -> float:
    """``value`` as a float if it is a finite number from 0 to ``most``, else :class:`ValueError`."""
    if not _finite_number(value) or not 0 <= value <= most:
        raise ValueError(f"{key} must be a finite number of 0 or more, at most {most:.10g}; got {value!r}")
    return float(value)
