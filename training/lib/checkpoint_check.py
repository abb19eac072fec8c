"""What a training checkpoint must hold before a network is built from it.

:func:`training.lib.network.load_checkpoint` reads tensors and plain data only; this module checks
what they are, so that a hostile or damaged file gets one clear :class:`CheckpointError` rather
than a traceback or a huge allocation: the rules (and a generalist's family) must be rules, the
arguments that size the network must be known architectures and whole numbers within
:data:`MAX_HIDDEN` and :data:`MAX_MOVE_HIDDEN` (checked before any network is built, so that a
network of a billion units is refused, not allocated), and the weights must be exactly the
tensors that network has: the same names, dtypes and shapes (checked before they are loaded).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from sniff_env.rules import Rules
from training.lib.network import ARCHITECTURES, CheckpointError

MAX_HIDDEN = 4096
"""The widest trunk a checkpoint may declare (the shipped agents use up to 1024)."""
MAX_MOVE_HIDDEN = 1024
"""The widest move scorer a checkpoint may declare (the shipped agents use 192)."""
SIZES = {"hidden": (256, MAX_HIDDEN), "move_hidden": (64, MAX_MOVE_HIDDEN)}
"""The arguments that size a network: their defaults and largest values."""


@dataclass(frozen=True)
class Contents:
    """What a checked checkpoint describes: its rules (and family), the network's arguments, its
    weights and its training steps."""

    rules: Rules
    family: tuple[Rules, ...]
    args: dict[str, Any]
    state: dict[str, torch.Tensor]
    global_step: int


def _rules(path: str | Path, raw: Any, where: str) -> Rules:
    if not isinstance(raw, dict):
        raise CheckpointError(f"{path}: its {where} must be a rules object; got {type(raw).__name__}")
    try:
        return Rules.from_dict(raw)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise CheckpointError(f"{path}: its {where} cannot be read: {exc}") from None


def checked_contents(path: str | Path, ckpt: dict[str, Any]) -> Contents:
    """The checkpoint ``ckpt`` (read from ``path``) as :class:`Contents`, or :class:`CheckpointError`
    saying what is wrong (see the module); nothing is allocated here."""
    rules = _rules(path, ckpt["rules"], "rules")
    raw_family = ckpt.get("rules_family", [])
    if not isinstance(raw_family, list):
        raise CheckpointError(f"{path}: its rules_family must be a list of rules; got {type(raw_family).__name__}")
    family = tuple(_rules(path, r, "rules_family entry") for r in raw_family)
    args = ckpt["args"]
    if not isinstance(args, dict):
        raise CheckpointError(f"{path}: its args must be a dictionary of the run's arguments; got {type(args).__name__}")
    arch = args.get("arch", "mlp")
    if arch not in ARCHITECTURES:
        raise CheckpointError(f"{path}: its network architecture {arch!r} is unknown; one of {', '.join(ARCHITECTURES)}")
    for key, (default, most) in SIZES.items():
        value = args.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
            raise CheckpointError(f"{path}: its {key} must be a whole number from 1 to {most}; got {value!r}")
    step = ckpt["global_step"]
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise CheckpointError(f"{path}: its global_step must be a whole number from 0; got {step!r}")
    state = ckpt["model"]
    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in state.items()):
        raise CheckpointError(f"{path}: its model must map parameter names to tensors")
    return Contents(rules, family, args, state, step)


def check_state(path: str | Path, net: nn.Module, state: dict[str, torch.Tensor]) -> None:
    """:class:`CheckpointError` unless ``state`` holds exactly ``net``'s tensors, each of its
    dtype and shape (what ``load_state_dict`` would otherwise meet with a traceback)."""
    own = net.state_dict()
    missing, extra = sorted(set(own) - set(state)), sorted(set(state) - set(own))
    if missing or extra:
        raise CheckpointError(
            f"{path}: its weights are not those of its network ({net.__class__.__name__}, from its args): "
            f"missing {missing[:5]}, unexpected {extra[:5]}"
        )
    for key, want in own.items():
        got = state[key]
        if got.dtype != want.dtype or tuple(got.shape) != tuple(want.shape):
            raise CheckpointError(
                f"{path}: its weight {key!r} is {str(got.dtype).removeprefix('torch.')} {list(got.shape)}; "
                f"its network (from its args) has {str(want.dtype).removeprefix('torch.')} {list(want.shape)}"
            )
