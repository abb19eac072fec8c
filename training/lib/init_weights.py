"""Starting a run from earlier weights: a training checkpoint of the same rules and layout, or an
exported TorchScript policy (``--init``, ``--resume``)."""

from __future__ import annotations

from typing import Any

from torch import nn

from sniff_env.rules import Rules
from training.lib.config import ConfigError
from training.lib.network import TRAINING_ONLY, exported_state, is_exported_policy, load_checkpoint
from training.lib.torchscript import load_checked


def matching_checkpoint(path: str, rules: Rules, observation_version: str) -> dict[str, Any]:
    """The checkpoint at ``path``; ``ValueError`` when it was trained for other rules or layout."""
    ckpt = load_checkpoint(path)
    if ckpt.get("rules") != rules.to_dict() or ckpt.get("observation_version") != observation_version:
        raise ValueError(f"checkpoint {path} was trained for other rules or another observation layout")
    return ckpt


def init_from(net: nn.Module, path: str, rules: Rules, observation_version: str, trust_code: bool = False) -> None:
    """Load into ``net`` the weights of a training checkpoint or of an exported TorchScript policy
    (a shipped agent, or a file loaded as :func:`training.lib.torchscript.load_checked` allows:
    ``trust_code`` vouches for it; its value head comes along). A ``move-tiles`` network also loads a
    ``move-mobility`` one of its sizes, its tile branch left at zero; the training-only critic and
    tile-guessing head (:mod:`training.lib.privileged`) start afresh where the file has none, and
    are left out where the run asks for none. A file that cannot start the
    run (unreadable, other rules, another shape) raises :class:`ConfigError` (a ``ValueError``)
    naming ``--init``, which a script reports in one line."""
    try:
        _load_weights(net, path, rules, observation_version, trust_code)
    except ValueError as exc:
        raise ConfigError(f"--init {exc}") from None


def _load_weights(net: nn.Module, path: str, rules: Rules, observation_version: str, trust_code: bool) -> None:
    """:func:`init_from`'s loading; ``ValueError`` (with the file's name) on any mismatch."""
    if is_exported_policy(path):  # a TorchScript policy, whatever its name
        module, _, _ = load_checked(path, rules, trust_code)  # PolicyError (a ValueError) unless trusted, made for these rules
        state = exported_state(module, net)
    else:
        state = matching_checkpoint(path, rules, observation_version)["model"]
    own = net.state_dict()
    state = {k: v for k, v in state.items() if k in own or not k.startswith(TRAINING_ONLY)}  # not asked for now
    if set(state) < set(own) and all(k.startswith(("tile_", *TRAINING_ONLY)) for k in set(own) - set(state)):
        # a move-tiles network from a move-mobility one: its tile branch keeps its start (zero
        # output), so it plays as the network it grows from; a training-only critic or head
        # starts afresh; the sizes must still match
        state = {**own, **state}
    try:
        net.load_state_dict(state)
    except RuntimeError as exc:
        raise ValueError(f"{path} holds another network shape (check --arch, --hidden and --move-hidden): {exc}") from None
