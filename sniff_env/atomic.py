"""Atomic file writes: a temporary file beside the target, renamed over it only when complete.

A process killed mid-write leaves its temporary file behind (``.NAME.XXXXXXXX.tmp``, or with the
target's own suffix for figures); :func:`clean_stale_temps` removes such leftovers from a folder.
"""

from __future__ import annotations

import errno
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def _publish(tmp: str, target: Path, exclusive: bool) -> None:
    """Move the finished ``tmp`` to ``target``; with ``exclusive``, only if ``target`` does not
    exist yet (:class:`FileExistsError` otherwise), still never leaving it half-written."""
    if not exclusive:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)  # fails if target exists: no race between the check and the write
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: create the name exclusively, then fill it
        with open(target, "xb") as out, open(tmp, "rb") as src:
            os.chmod(out.fileno(), os.stat(src.fileno()).st_mode & 0o7777)
            out.write(src.read())
            out.flush()
            os.fsync(out.fileno())


SHARED = 0o644
"""The mode of files meant to be shared (results, figures): readable by everyone."""
PRIVATE = 0o600
"""The mode of the player's own files (game logs hold every hand; the record of games)."""


@contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = ".tmp", exclusive: bool = False,
                mode: int = SHARED) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder; when the block ends without error it replaces
    ``path`` (with ``mode``: by default readable by everyone, as results are meant to be shared),
    and otherwise it is removed, so ``path`` is never left half-written. With ``exclusive``, an
    existing ``path`` is never replaced: :class:`FileExistsError` is raised instead."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file where the folder should be: not "the target exists"
        raise NotADirectoryError(errno.ENOTDIR, "a file is in the way of its folder", str(target.parent)) from None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, mode)
        _publish(tmp, target, exclusive)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_json_atomic(path: str | os.PathLike[str], data: Any, indent: int = 1, exclusive: bool = False,
                      mode: int = SHARED) -> Path:
    """Write ``data`` as indented JSON to ``path`` atomically (flushed to disk before the rename),
    with ``mode``; with ``exclusive``, refuse (:class:`FileExistsError`) to replace an existing file."""
    with atomic_path(path, exclusive=exclusive, mode=mode) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=indent)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    return Path(path)


def save_figure(fig: Any, path: str | os.PathLike[str], dpi: int = 110, **savefig: Any) -> Path:
    """Write the matplotlib figure ``fig`` as a PNG to ``path`` atomically, then close it."""
    import matplotlib.pyplot as plt

    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=dpi, **savefig)
    plt.close(fig)
    return Path(path)


STALE_AFTER_S = 60.0
"""How old (since its last write) a temporary file must be to count as a crash's leftover."""
_TEMP_NAME = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}(?P<suffix>\.[A-Za-z0-9]+)")
"""The name :func:`atomic_path` gives a temporary file: ``.`` + target + ``.`` + 8 random characters + suffix."""


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is one :func:`atomic_path` gives its temporary files: ``.TARGET.XXXXXXXX.tmp``,
    or ``.TARGET.XXXXXXXX.EXT`` where TARGET ends in ``.EXT`` (a figure written by :func:`save_figure`)."""
    found = _TEMP_NAME.fullmatch(name)
    return found is not None and (found["suffix"] == ".tmp" or found["target"].endswith(found["suffix"]))


def clean_stale_temps(folder: str | os.PathLike[str], max_age_s: float = STALE_AFTER_S) -> list[Path]:
    """Remove from ``folder`` the temporary files of atomic writes (:func:`is_temp_name`) last
    written more than ``max_age_s`` seconds ago: what a process killed mid-write left. Regular
    files only (no link, no folder); a file that cannot be removed is left. Returns those removed;
    nothing when ``folder`` is no folder."""
    removed: list[Path] = []
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not is_temp_name(entry.name):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and now - entry.stat(follow_symlinks=False).st_mtime > max_age_s:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed
