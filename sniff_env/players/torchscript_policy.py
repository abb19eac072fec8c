"""TorchScript policy files (the format before ONNX), run by torch.

The archive holds the scripted module and the policy's metadata as the extra file
``sniff_meta.json`` (see :mod:`.policy`). torch deprecates TorchScript: its warnings are silenced
here, where the old format is read on purpose. A TorchScript file is a program; prefer ONNX for
files of unknown origin.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .policy import META_FILE, PolicyError, PolicyNetwork, parse_meta


class TorchScriptNetwork(PolicyNetwork):
    """A policy network run by a TorchScript module (``module`` is kept for training tools)."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def logits(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        import torch

        with torch.no_grad():
            out = self.module(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))
        return np.asarray(out.numpy(), dtype=np.float32)


def read_torchscript(path: str | Path) -> tuple[TorchScriptNetwork, dict[str, Any]]:
    """The network and metadata of a TorchScript policy file, or :class:`PolicyError`."""
    try:
        import torch
    except ImportError as exc:
        raise PolicyError(
            f"{str(path)!r} is a TorchScript policy file, which needs torch (pip install 'sniff-env[train]'); "
            f"or convert it once to ONNX, which does not: python training/export.py {path} "
            f"{Path(path).with_suffix('.onnx')}"
        ) from exc
    extra = {META_FILE: ""}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # reading the old format is deliberate
            module = torch.jit.load(str(path), map_location="cpu", _extra_files=extra)  # type: ignore[no-untyped-call]
    except Exception as exc:  # torch raises RuntimeError and others for a bad archive
        raise PolicyError(
            f"{str(path)!r} is neither a sniff ONNX nor a readable sniff TorchScript policy file: {exc}"
        ) from exc
    if not extra[META_FILE]:
        raise PolicyError(f"{str(path)!r} has no {META_FILE}: it was not exported as a sniff policy")
    module.eval()
    return TorchScriptNetwork(module), parse_meta(path, extra[META_FILE])
