"""Atomic file writes: a temporary file beside the target, renamed over it only when complete."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder; when the block ends without error it replaces
    ``path`` (readable by everyone, as saved games and results are meant to be shared), and
    otherwise it is removed, so ``path`` is never left half-written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_json_atomic(path: str | os.PathLike[str], data: Any, indent: int = 1) -> Path:
    """Write ``data`` as indented JSON to ``path`` atomically (flushed to disk before the rename)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=indent)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    return Path(path)
