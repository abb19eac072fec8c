"""The process that runs one ONNX policy graph for :mod:`.policy_process`; run as a script.

It imports only the standard library, numpy and onnxruntime. It reads requests from its standard
input and answers on its standard output (the native code's own output, if any, goes to its
standard error), each message a length-prefixed JSON header and raw bytes
(:func:`multiprocessing.connection.Connection.send_bytes`):

* ``{"op": "build", "memory": BYTES, "threads": N}`` + the model's bytes: build the session with its
  address space capped at ``memory`` more than it holds now; answer its input's name;
* ``{"op": "run", "rows": R, "cols": C, "memory": BYTES}`` + float32 observations: run the graph
  with the address space capped at ``memory`` more than after the build; answer the first output,
  ``{"dtype", "shape"}`` + its bytes.

A failure is answered ``{"error": TEXT, "memory": true/false}``. The time limit is the parent's
to keep: it kills this process. On Linux it also ends when the parent does.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from multiprocessing.connection import Connection
from typing import Any

ERROR_CHARS = 300
"""The most characters of a runtime's error message passed on."""
OUT_OF_MEMORY = ("bad_alloc", "Failed to allocate", "MemoryError", "Cannot allocate memory", "out of memory")


def _address_space() -> int:
    """The bytes of this process's address space now (0 where the system does not say)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _cap(limit: int) -> None:
    """Cap this process's address space at ``limit`` bytes, where the system allows (POSIX)."""
    try:
        import resource
    except ImportError:
        return
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def _send(out: Connection, header: dict[str, Any], payload: bytes = b"") -> None:
    head = json.dumps(header).encode()
    out.send_bytes(len(head).to_bytes(4, "little") + head + payload)


def _failure(exc: BaseException) -> dict[str, Any]:
    text = " ".join(str(exc).split())[:ERROR_CHARS] or type(exc).__name__
    return {"error": text, "memory": isinstance(exc, MemoryError) or any(w in text for w in OUT_OF_MEMORY)}


def serve(requests: Connection, answers: Connection) -> None:
    """Answer requests until the parent closes the pipe."""
    import numpy as np
    import onnxruntime as ort

    session: Any = None
    name, base = "", 0
    while True:
        try:
            message = requests.recv_bytes()
        except (EOFError, OSError):
            return
        size = int.from_bytes(message[:4], "little")
        header, payload = json.loads(message[4:4 + size]), memoryview(message)[4 + size:]
        try:
            if header["op"] == "build":
                _cap(_address_space() + int(header["memory"]))
                options = ort.SessionOptions()
                options.intra_op_num_threads = options.inter_op_num_threads = int(header["threads"])
                options.log_severity_level = 4
                options.enable_cpu_mem_arena = False  # what a run takes is given back after it
                with tempfile.TemporaryDirectory() as empty:  # where external data would be looked for
                    options.add_session_config_entry("session.model_external_initializers_file_folder_path", empty)
                    session = ort.InferenceSession(bytes(payload), options, providers=["CPUExecutionProvider"],
                                                   disabled_optimizers=["ConstantFolding"])
                name, base = session.get_inputs()[0].name, _address_space()
                _send(answers, {"input": name})
            else:
                rows, cols = int(header["rows"]), int(header["cols"])
                obs = np.frombuffer(payload, np.float32).reshape(rows, cols)
                _cap(base + int(header["memory"]))
                out = np.ascontiguousarray(session.run(None, {name: obs})[0])
                _send(answers, {"dtype": out.dtype.str, "shape": list(out.shape)}, out.tobytes())
        except Exception as exc:  # noqa: BLE001  (every failure of the runtime is answered, typed by the parent)
            _send(answers, _failure(exc))


def main() -> None:
    _die_with_parent()
    answers = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # anything the native code prints stays off the answers
    serve(Connection(0, writable=False), answers)


if __name__ == "__main__":
    main()
