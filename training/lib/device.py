"""Where a trainer's network lives: the ``--device`` option shared by every trainer.

The engines (reference and batched) stay on the CPU; the network and its updates go to the
device. Observations cross to the device and logits come back to the CPU (:class:`HostIO`), so
that sampling keeps using the trainer's CPU generator and a run is the same on any device up to
floating point. Checkpoints and exported policies are written from CPU tensors
(:func:`cpu_state`, :func:`cpu_module`), so they load on a machine without the device.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
from typing import Any

import torch
from torch import nn

from training.lib.config import ConfigError

DEVICE_HELP = "'auto' (CUDA when present, else the CPU), 'cpu', 'cuda' or 'cuda:N'"
_CUDA = re.compile(r"cuda(?::(\d+))?")


class DeviceError(ConfigError):
    """A ``--device`` that is not a known device or not present on this machine."""


PRECISIONS = ("fp32", "bf16")
PRECISION_HELP = (
    "'fp32' (the reference) or 'bf16': the networks' matrix products in bfloat16 under torch's autocast "
    "(the weights, the optimizer and the losses' softmaxes stay float32); about twice the update's speed "
    "on CPUs with AVX-512 BF16 or AMX and on recent GPUs"
)


def precision(name: str, device: torch.device) -> contextlib.AbstractContextManager[Any]:
    """The context a trainer runs its forward passes and updates in for ``--precision name``."""
    if name == "fp32":
        return contextlib.nullcontext()
    if name == "bf16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    raise ConfigError(f"unknown precision {name!r}; choose one of {', '.join(PRECISIONS)}")


def resolve_device(spec: str) -> torch.device:
    """The device named by ``spec`` (see :data:`DEVICE_HELP`); :class:`DeviceError` when it is
    unknown or not available here. Call it before any work so a bad device costs nothing."""
    text = spec.strip().lower()
    if text == "auto":
        text = "cuda" if torch.cuda.is_available() else "cpu"
    if text == "cpu":
        return torch.device("cpu")
    match = _CUDA.fullmatch(text)
    if match is None:
        raise DeviceError(f"unknown device {spec!r}; choose {DEVICE_HELP}")
    if not torch.cuda.is_available():
        raise DeviceError(f"device {spec!r} asked for, but CUDA is not available on this machine; "
                          f"use --device cpu (or auto)")
    index = int(match.group(1) or 0)
    count = torch.cuda.device_count()
    if index >= count:
        raise DeviceError(f"device {spec!r} asked for, but this machine has {count} CUDA device(s): "
                          f"cuda:0 to cuda:{count - 1}")
    # deterministic cuBLAS (torch.use_deterministic_algorithms) needs this before CUDA starts
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    return torch.device("cuda", index)


class HostIO(nn.Module):
    """``net`` on ``device`` seen from the CPU: inputs go to the device, outputs come back."""

    def __init__(self, net: nn.Module, device: torch.device) -> None:
        super().__init__()
        self.net, self.device = net, device

    def forward(self, obs: torch.Tensor) -> Any:
        out = self.net(obs.to(self.device))
        if isinstance(out, tuple):
            return tuple(t.cpu() for t in out)
        return out.cpu()


def host_view(net: nn.Module, device: torch.device) -> nn.Module:
    """``net`` itself on the CPU, else a :class:`HostIO` of it."""
    return net if device.type == "cpu" else HostIO(net, device)


def cpu_state(obj: Any) -> Any:
    """A copy of ``obj`` (tensors in dicts, lists and tuples) with every tensor a CPU copy: a
    snapshot that later updates of the network do not change."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu", copy=True)
    if isinstance(obj, dict):
        return {k: cpu_state(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(cpu_state(v) for v in obj)
    return obj


def cpu_module(module: nn.Module) -> nn.Module:
    """``module`` itself when it is on the CPU, else a CPU copy of it (to export)."""
    on_cpu = all(p.device.type == "cpu" for p in module.parameters())
    return module if on_cpu else copy.deepcopy(module).cpu()
