"""Small helpers shared by the players."""

from __future__ import annotations

from typing import Any

from ..infostate import InfoState


def info_of(info: dict[str, Any]) -> InfoState:
    """The acting seat's :class:`InfoState` from an environment's info dict."""
    state = info.get("info_state") if isinstance(info, dict) else None
    if not isinstance(state, InfoState):
        raise ValueError("this player needs info['info_state'], the acting seat's InfoState")
    return state


def legal_actions(observation: Any, info: dict[str, Any]) -> list[int]:
    """The legal actions: from the info state, or else from the observation's action mask."""
    state = info.get("info_state") if isinstance(info, dict) else None
    if isinstance(state, InfoState) and state.legal:
        return list(state.legal)
    if isinstance(observation, dict) and "action_mask" in observation:
        acts = [i for i, v in enumerate(observation["action_mask"]) if v]
        if acts:
            return acts
    raise ValueError("no legal action: the seat is not to move (empty info_state.legal and action mask)")
