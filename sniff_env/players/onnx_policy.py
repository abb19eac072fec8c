"""ONNX policy files, played through onnxruntime: no torch on this path.

The file holds one graph, one float32 input ``[batch, obs_size]`` and one output ``[batch,
num_actions]`` (the logits), and the policy's metadata as the JSON value of the model's
``metadata_props`` entry ``sniff_meta.json`` (see :mod:`.policy`). Before onnxruntime sees it,
the model is checked (:mod:`.onnx_check`: allowed operators only, a bounded size, no external
data). It is handed to onnxruntime as bytes, with an empty folder as the place of external data
and constant folding turned off; the load-time forward pass (:meth:`OnnxNetwork.checked_logits`)
runs under a watchdog that stops it after a time limit, in a session of its own whose memory comes
from an arena capped at :data:`CHECK_MEMORY_BYTES` (one for the process, registered with
onnxruntime once): a graph that would allocate more fails there instead of taking the machine.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sniff_env.players.onnx_check import MAX_BYTES, checked_model
from sniff_env.players.policy_file import (
    META_FILE,
    CheckTimeout,
    PolicyError,
    PolicyNetwork,
    parse_meta,
    read_file,
)

EXTERNAL_DATA_FOLDER = "session.model_external_initializers_file_folder_path"
THREADS = 1
"""onnxruntime threads per session: the network is small, and a game server runs many sessions."""
CHECK_MEMORY_BYTES = 512 * 2**20
"""The memory the load-time forward passes of a process may take at once (the exports take a few MB)."""
_ARENA_LOCK = threading.Lock()
_arena_registered = False
DISABLED_OPTIMIZERS = ["ConstantFolding"]
"""Session optimizers left out: constant folding would run the graph's constant parts, unbounded,
while the session is built (the exports hold no foldable constants)."""


class OnnxNetwork(PolicyNetwork):
    """A policy network run by an onnxruntime session (safe to share between threads)."""

    def __init__(self, session: Any, probe: Any = None) -> None:
        """``probe``: a session of the same graph on the capped arena, for :meth:`checked_logits`."""
        self.session = session
        self._probe = probe
        self._input = session.get_inputs()[0].name

    def logits(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        out = self.session.run(None, {self._input: np.ascontiguousarray(obs, dtype=np.float32)})[0]
        return np.asarray(out)

    def checked_logits(self, obs: npt.NDArray[np.float32], limit_s: float) -> npt.NDArray[np.float32]:
        """:meth:`logits`, stopped by a watchdog (:class:`CheckTimeout`) after ``limit_s`` seconds, on the
        session whose memory is capped (then dropped: later calls use the plain one)."""
        import onnxruntime as ort  # type: ignore[import-untyped]

        session, self._probe = self._probe or self.session, None

        options = ort.RunOptions()
        expired = threading.Event()

        def stop() -> None:
            expired.set()
            options.terminate = True

        watchdog = threading.Timer(limit_s, stop)
        watchdog.daemon = True
        watchdog.start()
        try:
            out = session.run(None, {self._input: np.ascontiguousarray(obs, dtype=np.float32)}, options)[0]
        except Exception:  # onnxruntime's own types; a stopped run is one of them
            if expired.is_set():
                raise CheckTimeout(f"stopped after {limit_s:g} s") from None
            raise
        finally:
            watchdog.cancel()
        if expired.is_set():
            raise CheckTimeout(f"stopped after {limit_s:g} s")
        return np.asarray(out)


def _capped_arena(ort: Any) -> None:
    """Register, once per process, the CPU arena of at most :data:`CHECK_MEMORY_BYTES` that the
    load-time sessions allocate from (``session.use_env_allocators``)."""
    global _arena_registered
    with _ARENA_LOCK:
        if not _arena_registered:
            info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
            ort.create_and_register_allocator(info, ort.OrtArenaCfg(CHECK_MEMORY_BYTES, -1, -1, -1))
            ort.set_default_logger_severity(4)  # a refused allocation reaches the caller as an exception
            _arena_registered = True


def read_onnx(path: str | Path, data: bytes | None = None, threads: int = THREADS) -> tuple[OnnxNetwork, dict[str, Any]]:
    """The network and metadata of the ONNX policy file ``path`` (whose bytes are ``data``, when
    already read), or :class:`PolicyError`."""
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise PolicyError(f"reading {str(path)!r} needs onnxruntime (pip install onnxruntime)") from exc
    if data is None:

        data = read_file(path, MAX_BYTES)
    model = checked_model(path, data)
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = threads
    options.log_severity_level = 4  # errors reach the caller as exceptions; no console noise
    with tempfile.TemporaryDirectory() as empty:  # where external data would be looked for: nowhere
        options.add_session_config_entry(EXTERNAL_DATA_FOLDER, empty)
        try:
            blob = model.SerializeToString()
            session = ort.InferenceSession(blob, options, providers=["CPUExecutionProvider"],
                                           disabled_optimizers=DISABLED_OPTIMIZERS)
            _capped_arena(ort)
            options.add_session_config_entry("session.use_env_allocators", "1")
            probe = ort.InferenceSession(blob, options, providers=["CPUExecutionProvider"],
                                         disabled_optimizers=DISABLED_OPTIMIZERS)
        except Exception as exc:  # onnxruntime raises its own types (InvalidProtobuf, Fail, ...)
            if "External data" in str(exc):
                raise PolicyError(f"{str(path)!r} refers to external data files; a policy file must hold all "
                                  f"its weights: {exc}") from exc
            raise PolicyError(f"{str(path)!r} is not a sniff ONNX policy file: {exc}") from exc
    raw = session.get_modelmeta().custom_metadata_map.get(META_FILE)
    if raw is None:
        raise PolicyError(f"{str(path)!r} has no {META_FILE} in its metadata: it was not exported as a sniff policy")
    inputs, outputs = session.get_inputs(), session.get_outputs()
    if len(inputs) != 1 or len(outputs) != 1 or inputs[0].type != "tensor(float)":
        raise PolicyError(
            f"{str(path)!r}: a policy graph has one float input (observations) and one output (logits); "
            f"this one has inputs {[(i.name, i.type) for i in inputs]} and outputs {[o.name for o in outputs]}"
        )
    return OnnxNetwork(session, probe), parse_meta(path, raw)
