"""ONNX policy files, played through onnxruntime: no torch on this path.

The file holds one graph, one float32 input ``[batch, obs_size]`` and one output ``[batch,
num_actions]`` (the logits), and the policy's metadata as the JSON value of the model's
``metadata_props`` entry ``sniff_meta.json`` (see :mod:`.policy`). Before onnxruntime sees it,
the model is checked (:mod:`.onnx_check`: allowed operators only, bounded sizes, no external
data; :mod:`.onnx_shapes`: sizes that grow no faster than the batch). onnxruntime then builds and
runs it in a process of its own (:mod:`.policy_process`), each call under a time limit and a
memory cap that grow with the batch, and with constant folding turned off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sniff_env.players.onnx_check import MAX_BYTES, checked_model, graph_input
from sniff_env.players.policy_file import (
    META_FILE,
    PolicyError,
    PolicyNetwork,
    parse_meta,
    read_file,
)
from sniff_env.players.policy_process import THREADS, PolicyProcess, policy_process


class OnnxNetwork(PolicyNetwork):
    """A policy network run by an onnxruntime session in its own process (safe to share between
    threads); each call is bounded (:mod:`.policy_process`)."""

    def __init__(self, process: PolicyProcess) -> None:
        self.process = process

    def logits(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        return np.asarray(self.process.run(obs), dtype=np.float32)

    def checked_logits(self, obs: npt.NDArray[np.float32], limit_s: float) -> npt.NDArray[np.float32]:
        return np.asarray(self.process.run(obs, limit_s))


def read_onnx(path: str | Path, data: bytes | None = None, threads: int = THREADS) -> tuple[OnnxNetwork, dict[str, Any]]:
    """The network and metadata of the ONNX policy file ``path`` (whose bytes are ``data``, when
    already read), or :class:`PolicyError`."""
    if data is None:
        data = read_file(path, MAX_BYTES)
    model = checked_model(path, data)
    raw = next((p.value for p in model.metadata_props if p.key == META_FILE), None)
    if raw is None:
        raise PolicyError(f"{str(path)!r} has no {META_FILE} in its metadata: it was not exported as a sniff policy")
    meta = parse_meta(path, raw)
    outputs = [o.name for o in model.graph.output]
    observations = graph_input(model)
    kind = next((i.type.tensor_type.elem_type for i in model.graph.input if i.name == observations), None)
    if not observations or len(outputs) != 1 or kind != 1:  # TensorProto.FLOAT
        fed = {t.name for t in model.graph.initializer}
        raise PolicyError(
            f"{str(path)!r}: a policy graph has one float input (observations) and one output (logits); this one "
            f"has inputs {[i.name for i in model.graph.input if i.name not in fed]} and outputs {outputs}")
    try:
        import onnxruntime  # noqa: F401  (the child process needs it: say so here, in one line)
    except ImportError as exc:
        raise PolicyError(f"reading {str(path)!r} needs onnxruntime (pip install onnxruntime)") from exc
    return OnnxNetwork(policy_process(path, model.SerializeToString())), meta
