"""The policy-value network, its export to a self-contained policy file (ONNX or TorchScript)
and the safe reading of training checkpoints."""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import stat
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn

from sniff_env.atomic import atomic_path
from sniff_env.observation import observer_for
from sniff_env.players.policy import META_FILE, PolicyError, read_file
from training.lib.layers import linear_layer
from training.lib.move_net import MoveNet
from training.lib.onnx_export import export_onnx
from training.lib.privileged import CRITICS, FullCritic, TileGuess, hidden_size
from training.lib.torchscript import load_checked, record_trusted

ONNX_SUFFIX = ".onnx"


class PolicyNet(nn.Module):
    """A shared MLP trunk with a policy head (logits over every action) and a value head.

    Each action's logit also gets a learned weight times that action's own features in the
    observation (``move_points``: the points the placement scores now; ``move_count``: the count
    it leaves), a skip connection from per-action inputs to per-action outputs that the trunk
    would otherwise have to learn through its hidden layer. ``points_prior`` initialises the
    weight of ``move_points`` (0 starts the policy uniform)."""

    def __init__(
        self, obs_size: int, num_actions: int, hidden: int = 256,
        move_points: int = -1, move_count: int = -1, points_prior: float = 0.0,
    ) -> None:
        super().__init__()
        self.obs_size, self.num_actions, self.hidden = obs_size, num_actions, hidden
        g = 2.0**0.5
        self.trunk = nn.Sequential(
            linear_layer(obs_size, hidden, g), nn.ReLU(), linear_layer(hidden, hidden, g), nn.ReLU()
        )
        self.pi = linear_layer(hidden, num_actions, 0.01)
        self.v = linear_layer(hidden, 1, 1.0)
        self.move_points, self.move_count = move_points, move_count
        self.skip = nn.Parameter(torch.tensor([points_prior, 0.0]))

    def logits(self, obs: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        out = self.pi(h)
        if self.move_points >= 0:
            a = self.num_actions
            out = out + self.skip[0] * obs[:, self.move_points : self.move_points + a]
            out = out + self.skip[1] * obs[:, self.move_count : self.move_count + a]
        return out

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Logits, values and the trunk's features they are read from (a training head reads them too)."""
        h = self.trunk(obs)
        return self.logits(obs, h), self.v(h).squeeze(-1), h

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value, _ = self.heads(obs)
        return logits, value


ARCHITECTURES = ("mlp", "move", "move-mobility", "move-tiles")


def make_net(rules: Any, hidden: int = 256, points_prior: float = 0.0, arch: str = "mlp",
             move_hidden: int = 64, critic: str = "seat", tile_guess: bool = False) -> nn.Module:
    """The policy-value network of a run: ``"mlp"`` (:class:`PolicyNet`) or ``"move"``
    (:class:`training.lib.move_net.MoveNet`, one shared scorer over every move's features, with
    ``move_hidden`` units per layer of that scorer); ``"move-mobility"`` adds the features of who
    can still play after each move, and ``"move-tiles"`` to those an attention layer over the
    tiles (see the module :mod:`training.lib.move_net`). ``critic="full"`` adds the training-time
    critic over the hidden tiles (``net.critic``) and ``tile_guess`` (``mlp`` only) the head that
    guesses where the unseen tiles are (``net.tile_guess``), see :mod:`training.lib.privileged`;
    neither is exported."""
    observer = observer_for(rules)
    if critic not in CRITICS:
        raise ValueError(f"unknown critic {critic!r}; choose one of {', '.join(CRITICS)}")
    if tile_guess and arch != "mlp":
        raise ValueError(f"the tile-guessing head reads the mlp network's trunk: --aux-tiles needs --arch mlp, not {arch!r}")
    net: nn.Module
    if arch in ("move", "move-mobility", "move-tiles"):
        net = MoveNet(rules, hidden, move_hidden, points_prior=points_prior, mobility=arch != "move",
                      tiles=arch == "move-tiles")
    elif arch != "mlp":
        raise ValueError(f"unknown network architecture {arch!r}; choose one of {', '.join(ARCHITECTURES)}")
    else:
        pieces = observer.pieces
        net = PolicyNet(
            observer.size, observer.codec.num_actions, hidden, pieces["move_points"].start,
            pieces["move_count"].start, points_prior,
        )
    width = hidden_size(rules.num_players, observer.ts.size)
    if critic == "full":
        net.critic = FullCritic(observer.size, width)
    if tile_guess:
        net.tile_guess = TileGuess(hidden, rules.num_players, observer.ts.size)
    return net


def net_of_args(rules: Any, args: dict[str, Any]) -> nn.Module:
    """A blank network of the shape a run's arguments (a checkpoint's or an export's ``args``) name."""
    return make_net(rules, int(args.get("hidden", 256)), 0.0, str(args.get("arch", "mlp")),
                    int(args.get("move_hidden", 64)), str(args.get("critic", "seat")),
                    float(args.get("aux_tiles", 0.0)) > 0)


TRAINING_ONLY = ("critic.", "tile_guess.")
"""Prefixes of the weights that only training uses (never exported; a run may start without them)."""


Inputs = dict[str, torch.Tensor]
"""Per-row inputs of a network (rows select with ``[rows]`` on each entry); ``"obs"`` always."""


def prepare_inputs(net: nn.Module, obs: torch.Tensor, grouped: bool = True) -> Inputs:
    """What ``net`` needs per row of ``obs`` besides its weights, computed once so that every
    epoch of an update reuses it (:meth:`training.lib.move_net.MoveNet.prepare`, ``grouped`` passed
    on); a network without a ``prepare`` method needs the observations alone."""
    prepare = getattr(net, "prepare", None)
    return prepare(obs, grouped) if prepare is not None else {"obs": obs}


def concat_inputs(parts: Sequence[Inputs]) -> Inputs:
    """The rows of several :func:`prepare_inputs` results in one; the second dimension of an
    entry with more than one (the candidates) is padded with zeros (``False``) to the widest part's."""
    out: Inputs = {}
    for key in parts[0]:
        pieces = [part[key] for part in parts]
        width = max(p.shape[1] for p in pieces) if pieces[0].dim() > 1 else 0
        out[key] = torch.cat([
            nn.functional.pad(p, (0, 0) * (p.dim() - 2) + (0, width - p.shape[1])) if p.dim() > 1 else p
            for p in pieces
        ])
    return out


def forward_inputs(
    net: nn.Module, inputs: Inputs, rows: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """``net(obs[rows])`` (logits, values; default: every row) from :func:`prepare_inputs`'
    inputs (:meth:`training.lib.move_net.MoveNet.select_prepared` picks the rows)."""
    forward, select = getattr(net, "forward_prepared", None), getattr(net, "select_prepared", None)
    if forward is not None and select is not None:
        return forward(select(inputs, rows))  # type: ignore[no-any-return]
    obs = inputs["obs"] if rows is None else inputs["obs"].index_select(0, rows)  # faster than [rows]
    return net(obs)  # type: ignore[no-any-return]


def policy_meta(
    rules: Any, training_steps: int, trainer: str, args: dict[str, Any], train_seconds: float | None = None,
    family: Sequence[Any] = (),
) -> dict[str, Any]:
    """The metadata an exported policy carries (what ``sniff_env.players.load`` checks, and how
    it was trained); ``family``: every rule set a generalist was trained for (``rules`` first)."""

    observer = observer_for(rules)
    meta: dict[str, Any] = {
        "rules": rules.to_dict(), "num_players": rules.num_players, "observation_version": observer.version,
        "obs_size": observer.size, "num_actions": observer.codec.num_actions, "training_steps": training_steps,
        "trainer": trainer, "args": args,
    }
    if train_seconds is not None:
        meta["train_seconds"] = round(train_seconds, 1)
    if len(family) > 1:
        meta["rules_family"] = [r.to_dict() for r in family]
    return meta


class _Logits(nn.Module):
    """What an exported file holds: observations [B, obs_size] -> logits [B, num_actions]."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net.logits(obs, self.net.trunk(obs))


def export_policy(net: nn.Module, path: str | Path, meta: dict[str, Any]) -> Path:
    """Write the policy head of ``net`` with ``meta``: ONNX for a ``.onnx`` path, TorchScript
    otherwise; see :func:`export_module`."""
    return export_module(_Logits(net), path, meta)


def export_module(module: nn.Module, path: str | Path, meta: dict[str, Any]) -> Path:
    """Write ``module`` (observations [B, obs_size] -> logits [B, num_actions]) with ``meta``,
    atomically: an ONNX file (:func:`training.lib.onnx_export.export_onnx`) for a ``.onnx`` path,
    else a TorchScript file with ``meta`` stored as ``sniff_meta.json`` beside it in the archive."""
    path = Path(path)
    if path.suffix == ONNX_SUFFIX:
        return export_onnx(module, path, meta)
    with warnings.catch_warnings():  # TorchScript is deprecated upstream; ONNX is the exchange format
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = torch.jit.script(module.eval())
    with atomic_path(path) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(scripted, str(tmp), _extra_files={META_FILE: json.dumps(meta, sort_keys=True)})

    record_trusted(path)  # written here: the training tools may load it again without --trust-code
    return path


def is_exported_policy(path: str | Path) -> bool:
    """Whether ``path`` is an exported TorchScript policy (an archive holding our metadata)
    rather than a training checkpoint (False for anything but a regular file, unopened)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with zipfile.ZipFile(path) as archive:
            return any(name.endswith(f"/extra/{META_FILE}") for name in archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def exported_state(module: nn.Module, net: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict of an exported policy's TorchScript ``module`` as ``net`` loads it: without the
    ``net.`` prefix, and without the buffers ``net`` does not save (TorchScript keeps them all)."""
    unsaved = {name for name, _ in net.named_buffers()} - set(net.state_dict())
    state = {k.removeprefix("net."): v for k, v in module.state_dict().items()}
    return {k: v for k, v in state.items() if k not in unsaved}


def load_exported(path: str | Path, rules: Any = None, trust_code: bool = False) -> tuple[nn.Module, dict[str, Any]]:
    """The trainable network of an exported TorchScript policy (value head included) and its
    metadata, rebuilt from the ``arch``, ``hidden`` and ``move_hidden`` it was trained with; ``PolicyError`` (a
    ``ValueError``) unless trusted (:func:`training.lib.torchscript.load_checked`) and made for ``rules``
    (default: its own), or when it cannot be rebuilt."""
    module, meta, rules = load_checked(path, rules, trust_code)
    args = meta.get("args") or {}
    net = net_of_args(rules, args)
    try:
        net.load_state_dict(exported_state(module, net))
    except RuntimeError as exc:
        raise PolicyError(f"{path} holds a network this code cannot rebuild (trainer {meta.get('trainer')!r}): "
                          f"{exc}") from None
    return net, meta


class CheckpointError(ValueError):
    """A file given as a training checkpoint is missing, unreadable or not a sniff checkpoint."""


CHECKPOINT_MAX_BYTES = 2**30
"""The largest training checkpoint read (a run's, with its optimizer and opponent pool, holds tens of MB)."""
_UNSUPPORTED_GLOBAL = re.compile(r"Unsupported global: GLOBAL (\S+)")
_UNPICKLER_ERROR = re.compile(r"WeightsUnpickler error:\s*(.+?)\s*(?:\n\n|$)", re.DOTALL)


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint written by :func:`save_atomic`, read as tensors and plain data only: a file
    holding any other object is refused (unpickling it could run code it carries).

    Raises :class:`CheckpointError` when the file is missing, no regular file, larger than
    :data:`CHECKPOINT_MAX_BYTES`, corrupt or not a sniff checkpoint."""
    try:
        data = read_file(path, CHECKPOINT_MAX_BYTES, CheckpointError, "file")
    except CheckpointError as exc:
        raise CheckpointError(f"{path} is not a readable training checkpoint: {exc}") from None
    try:
        ckpt = torch.load(io.BytesIO(data), weights_only=True)
    except pickle.UnpicklingError as exc:
        if found := _UNSUPPORTED_GLOBAL.search(str(exc)):
            raise CheckpointError(
                f"{path} is not a sniff training checkpoint: it holds objects other than tensors and plain "
                f"data (it asks for {found.group(1)}), and is refused unread: loading them could run code"
            ) from None
        detail = _UNPICKLER_ERROR.search(str(exc))
        raise CheckpointError(
            f"{path} is not a readable training checkpoint: {detail.group(1) if detail else exc}"
        ) from None
    except (OSError, EOFError, RuntimeError, ValueError) as exc:
        raise CheckpointError(f"{path} is not a readable training checkpoint: {exc}") from None
    except (KeyError, IndexError) as exc:  # how torch's weights-only unpickler meets arbitrary bytes
        raise CheckpointError(f"{path} is not a readable training checkpoint: its bytes are not a pickle "
                              f"({type(exc).__name__} {exc})") from None
    except Exception as exc:  # any other way a damaged archive fails: one line, not a traceback
        raise CheckpointError(f"{path} is not a readable training checkpoint: {type(exc).__name__} {exc}") from exc
    required = ("model", "args", "rules", "observation_version", "global_step")
    if not isinstance(ckpt, dict) or any(k not in ckpt for k in required):
        raise CheckpointError(f"{path} is not a sniff training checkpoint: it lacks {', '.join(required)}")
    return ckpt


def save_atomic(obj: Any, path: str | Path) -> None:
    """``torch.save`` to a temporary file beside ``path``, then rename it into place."""
    with atomic_path(path) as tmp:
        torch.save(obj, tmp)
