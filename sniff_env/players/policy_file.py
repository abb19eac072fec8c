"""What a policy file is, apart from any runtime: its metadata, its errors, the interface of its
network, and the bounded read of its bytes (:mod:`.policy` loads and plays one, :mod:`.onnx_policy`
runs an ONNX graph, :mod:`.onnx_check` checks what the graph holds)."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sniff_env.untrusted import InputFileError, read_bounded

META_FILE = "sniff_meta.json"


REQUIRED_META = ("rules", "num_players", "observation_version", "num_actions")
MAX_META_CHARS = 2**20
"""The longest metadata read (the shipped files' take a few kilobytes)."""


class PolicyError(ValueError):
    """A policy file cannot be used: missing, corrupt, or made for other rules or layouts."""


class PolicyLimitError(PolicyError):
    """A policy's network ran past its time limit or its memory allowance, and was stopped."""


class PolicyNetwork(ABC):
    """A loaded policy network, numpy in and numpy out, whatever runs it."""

    @abstractmethod
    def logits(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Logits ``[B, num_actions]`` for observations ``[B, obs_size]``."""

    def actions(self, obs: npt.ArrayLike, mask: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """The masked argmax for a batch: observations ``[B, obs_size]`` and legal-action masks
        ``[B, num_actions]`` -> int64 actions ``[B]`` (the first of equal logits)."""
        logits = self.logits(np.ascontiguousarray(obs, dtype=np.float32))
        legal = np.asarray(mask).astype(bool)
        if legal.shape != logits.shape:
            raise ValueError(f"masks of shape {list(legal.shape)} for logits of shape {list(logits.shape)}")
        if not legal.any(axis=1).all():
            raise ValueError(f"observation {int(np.argmin(legal.any(axis=1)))} of the batch has no legal action")
        chosen: npt.NDArray[np.int64] = np.where(legal, logits, -np.inf).argmax(axis=1).astype(np.int64)
        return chosen

    def checked_logits(self, obs: npt.NDArray[np.float32], limit_s: float) -> npt.NDArray[np.float32]:
        """:meth:`logits` within ``limit_s`` seconds (the load-time check) where the runtime can
        stop it (:class:`PolicyLimitError`)."""
        return self.logits(obs)


def parse_meta(path: str | Path, raw: str) -> dict[str, Any]:
    """The metadata object stored as ``raw`` JSON, with every required key, or :class:`PolicyError`."""
    if len(raw) > MAX_META_CHARS:
        raise PolicyError(f"{str(path)!r}: its {META_FILE} holds {len(raw):,} characters; at most {MAX_META_CHARS:,}")
    try:
        meta = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise PolicyError(f"{str(path)!r}: {META_FILE} is not valid JSON ({exc})") from None
    except RecursionError:
        raise PolicyError(f"{str(path)!r}: its {META_FILE} nests too deeply to read; policy metadata is a flat "
                          f"object of rules and counts") from None
    if not isinstance(meta, dict):
        raise PolicyError(f"{str(path)!r}: {META_FILE} is not a JSON object")
    missing = [k for k in REQUIRED_META if k not in meta]
    if missing:
        raise PolicyError(f"{str(path)!r}: {META_FILE} lacks {', '.join(missing)}")
    return meta


def read_file(path: str | Path, limit: int, error: type[ValueError] = PolicyError, what: str = "policy file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them
    (:func:`sniff_env.untrusted.read_bounded`: a pipe, a device or a folder is refused unread),
    or ``error`` saying why not."""
    try:
        return read_bounded(path, limit, f"the {what}")
    except FileNotFoundError:
        raise error(f"{what} {str(path)!r} does not exist") from None
    except InputFileError as exc:
        raise error(str(exc)) from None
    except OSError as exc:
        raise error(f"cannot read the {what} {str(path)!r}: {exc.strerror or exc}") from None
