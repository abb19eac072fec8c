"""What comes from files that anyone may have written: text fit to print and bounded reads.

A game log, a report or a name in one may hold anything. :func:`printable` escapes what a
terminal would obey (control characters, escape sequences among them) before it is printed;
:func:`read_bounded` reads a regular file of at most a given size, refusing a device, a pipe or
a folder before a byte is read, so that no file can make a command hang or fill the memory.
"""

from __future__ import annotations

import os
import stat
import unicodedata

from sniff_env.errors import SniffError

UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""The Unicode categories escaped by :func:`printable`: controls (C0, DEL, C1: ESC among them),
format characters (bidirectional overrides), surrogates, private and unassigned code points,
line and paragraph separators."""


class InputFileError(SniffError):
    """A file to read is no regular file, or is larger than such a file may be."""


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: object) -> str:
    """``text`` as a string fit for a terminal: every character of :data:`UNPRINTABLE` written as
    a ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN`` escape, as ``repr`` writes it."""
    return "".join(_escape(c) if unicodedata.category(c) in UNPRINTABLE else c for c in str(text))


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "no regular file"


def read_bounded(path: str | os.PathLike[str], limit: int, what: str = "the file") -> bytes:
    """The bytes of the regular file ``path``, refused with :class:`InputFileError` (naming
    ``what`` and the file) when it is a folder, a device, a pipe or a socket, or holds more than
    ``limit`` bytes; an :class:`OSError` when it cannot be opened. Nothing is read from a file
    that is refused (a pipe is opened without waiting for a writer)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    name = repr(os.fspath(path))
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(f"cannot read {what} {name}: it is {_kind(info.st_mode)}, not a regular file; "
                                 "give a file")
        if info.st_size > limit:
            raise InputFileError(f"cannot read {what} {name}: it holds {info.st_size:,} bytes, more than the "
                                 f"{limit:,} it may hold")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:  # it grew while it was read
        raise InputFileError(f"cannot read {what} {name}: it holds more than the {limit:,} bytes it may hold")
    return b"".join(chunks)


__all__ = ["InputFileError", "printable", "read_bounded"]
