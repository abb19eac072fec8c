"""An ONNX policy graph run in a process of its own, under a time limit and a memory cap.

A policy file is data, but the work its graph asks for is the file's to choose. So onnxruntime
never runs a graph in this process: :class:`PolicyProcess` starts a child process
(:mod:`.policy_child`, a script that imports only numpy and onnxruntime) that builds the session
and runs each batch of observations. Every request, the build included, has

* a time limit: past it the child is killed, mid-operation (a single long ``MatMul`` included),
  and :class:`~.policy_file.PolicyLimitError` says which file ran past what;
* a memory cap: the child's address space (``RLIMIT_AS``, on POSIX systems) may grow by at most
  the request's allowance over what it held after the build; an allocation beyond it fails, and
  the error says so.

A call on many observations (the batched engine asks for thousands) gets limits that grow with
them: :data:`CALL_SECONDS` plus :data:`ROW_SECONDS` a row, :data:`CALL_MEMORY` plus
:data:`ROW_MEMORY` a row. Waiting for the child is interruptible: Ctrl-C kills it. A child that
ran past a limit is gone; the network then refuses every later call. One child serves every
network loaded from the same bytes in this process (calls take turns), and ends when the last
of them is dropped. A process forked from this one starts children of its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sniff_env.players.policy_file import PolicyError, PolicyLimitError

BUILD_SECONDS = 20.0
"""The time limit of starting the child and building the session (the shipped files take well
under a second)."""
BUILD_MEMORY = 1024 * 2**20
"""What building the session may add to the child's address space (a 64 MiB file takes a few
hundred MB)."""
CALL_SECONDS = 2.0
"""The time limit of one call, before its allowance per row (a shipped agent's move takes about a
millisecond)."""
ROW_SECONDS = 0.01
"""The time limit per observation of a call (the shipped agents take under a millisecond a row)."""
CALL_MEMORY = 256 * 2**20
"""The memory one call may take, before its allowance per row."""
ROW_MEMORY = 2**20
"""The memory per observation of a call (the shipped agents take at most about 200 KB a row)."""
THREADS = 1
"""onnxruntime threads per session: the network is small, and a game server runs many sessions."""
CHILD = Path(__file__).with_name("policy_child.py")
_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
"""The child's numeric libraries start one thread each: each thread's reserve counts in its address space."""


def call_limits(rows: int) -> tuple[float, int]:
    """The time limit (seconds) and memory allowance (bytes) of a call on ``rows`` observations."""
    return CALL_SECONDS + ROW_SECONDS * rows, CALL_MEMORY + ROW_MEMORY * rows


def _megabytes(count: int) -> str:
    return f"{count / 2**20:,.0f} MB"


class PolicyProcess:
    """One ONNX graph in a child process (see the module); safe to share between threads."""

    def __init__(self, path: str | Path, blob: bytes, threads: int = THREADS) -> None:
        self.path, self._blob, self._threads = str(path), blob, threads
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        self._pid = -1
        self._stopped = ""
        self._finalizer: Any = None  # a weakref.finalize of the child
        self._requests: Connection | None = None
        self._answers: Connection | None = None
        with self._lock:
            self._start()

    # -- the child ---------------------------------------------------------------------------
    def _start(self) -> None:
        """Start the child and build the session under :data:`BUILD_SECONDS` and :data:`BUILD_MEMORY`."""
        env = {**os.environ, **_ENVIRONMENT}
        child = subprocess.Popen([sys.executable, "-I", str(CHILD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, env=env, close_fds=True)
        assert child.stdin is not None and child.stdout is not None
        self._child, self._pid = child, os.getpid()
        self._requests = Connection(os.dup(child.stdin.fileno()), readable=False)
        self._answers = Connection(os.dup(child.stdout.fileno()), writable=False)
        child.stdin.close()
        child.stdout.close()
        self._finalizer = weakref.finalize(self, _end, child, self._requests, self._answers)
        header = self._ask({"op": "build", "memory": BUILD_MEMORY, "threads": self._threads}, self._blob,
                           BUILD_SECONDS, BUILD_MEMORY, "to build its session")
        self.input = str(header["input"])

    def _forked(self) -> None:
        """In a process forked from the one that started the child: let go of it, start our own."""
        if self._finalizer is not None:
            self._finalizer.detach()
        for pipe in (self._requests, self._answers):
            if pipe is not None:
                pipe.close()
        self._start()

    def _kill(self) -> None:
        if self._finalizer is not None:
            self._finalizer()

    def _ask(self, header: dict[str, Any], payload: bytes, limit_s: float, memory: int,
             what: str) -> dict[str, Any]:
        """The child's answer header (its payload under ``"payload"``), or the error of its failure."""
        assert self._requests is not None and self._answers is not None and self._child is not None
        head = json.dumps(header).encode()
        try:
            self._requests.send_bytes(len(head).to_bytes(4, "little") + head + payload)
            ready = self._answers.poll(limit_s)
            answer = self._answers.recv_bytes() if ready else None
        except (EOFError, OSError):
            answer = None
            ready = True
        except BaseException:  # Ctrl-C: the child is not waited for
            self._stopped = "it was interrupted"
            self._kill()
            raise
        if answer is None:
            self._kill()
            if not ready:
                self._stopped = f"it ran past its time limit of {limit_s:g} s {what}"
            else:
                code = self._child.returncode
                self._stopped = (f"its process ended {what} (exit status {code}): it ran out of its memory "
                                 f"allowance of {_megabytes(memory)} or crashed")
            raise PolicyLimitError(f"policy file {self.path!r} was stopped: {self._stopped}")
        size = int.from_bytes(answer[:4], "little")
        reply: dict[str, Any] = json.loads(answer[4:4 + size])
        if "error" in reply:
            if reply.get("memory"):
                raise PolicyLimitError(f"policy file {self.path!r} was stopped: it needed more than its memory "
                                       f"allowance of {_megabytes(memory)} {what}")
            raise PolicyError(f"policy file {self.path!r} failed {what}: {reply['error']}")
        reply["payload"] = memoryview(answer)[4 + size:]
        return reply

    # -- use ---------------------------------------------------------------------------------
    def run(self, obs: npt.NDArray[np.float32], limit_s: float | None = None) -> npt.NDArray[Any]:
        """The graph's first output for ``obs`` ``[rows, width]``, within ``limit_s`` seconds
        (default: :func:`call_limits`) and the memory allowance of its rows."""
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        if obs.ndim != 2:
            raise ValueError(f"observations must be a batch [rows, width]; got shape {list(obs.shape)}")
        rows, cols = obs.shape
        default_s, memory = call_limits(rows)
        limit_s = default_s if limit_s is None else limit_s
        what = f"on {rows} observation{'s' * (rows != 1)}"
        with self._lock:
            if self._pid != os.getpid():  # a forked process: the parent's child is not ours to talk to
                self._forked()
            if self._stopped:
                raise PolicyLimitError(f"policy file {self.path!r} was stopped earlier: {self._stopped}")
            reply = self._ask({"op": "run", "rows": rows, "cols": cols, "memory": memory}, obs.tobytes(), limit_s,
                              memory, what)
        shape, dtype = [int(d) for d in reply["shape"]], np.dtype(reply["dtype"])
        out: npt.NDArray[Any] = np.frombuffer(reply["payload"], dtype).reshape(shape)
        return out

    def close(self) -> None:
        """End the child now (it also ends when this object is dropped)."""
        with self._lock:
            self._kill()


def _end(child: subprocess.Popen[bytes], *pipes: Connection) -> None:
    for pipe in pipes:
        pipe.close()
    if child.poll() is None:
        child.kill()
    child.wait()


_SHARED: weakref.WeakValueDictionary[str, PolicyProcess] = weakref.WeakValueDictionary()
_SHARED_LOCK = threading.Lock()


def policy_process(path: str | Path, blob: bytes) -> PolicyProcess:
    """The process running the graph ``blob`` (of the file ``path``): one already running it, not
    stopped, else a new one."""
    key = f"{hashlib.sha256(blob).hexdigest()} {path}"
    with _SHARED_LOCK:
        process = _SHARED.get(key)
        if process is None or process._stopped:
            process = _SHARED[key] = PolicyProcess(path, blob)
        return process


__all__ = ["BUILD_MEMORY", "BUILD_SECONDS", "CALL_MEMORY", "CALL_SECONDS", "ROW_MEMORY", "ROW_SECONDS",
           "PolicyProcess", "call_limits", "policy_process"]
