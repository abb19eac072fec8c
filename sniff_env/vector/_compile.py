"""The numba options of every compiled function of the batched engine, and where they are cached.

Compiled functions are cached on disk, keyed to the sources of this package. Numba's own cache
checks only the file of the function it compiles, while the players and rollouts inline the
rules of ``kernels.py`` and :mod:`sniff_env.rulebook`: a changed rule would have stayed in their
cached code. Here every compiled function is cached in a directory named after a digest of all
the package's ``.py`` files and of ``rulebook.py`` and ``encoding.py`` (:data:`SOURCES_DIGEST`), and its cache index
is keyed to that digest too, so a cache built from other sources is never loaded. The directory is the first writable of

* ``$NUMBA_CACHE_DIR/sniff-env/<digest>`` when ``NUMBA_CACHE_DIR`` is set;
* ``__pycache__/numba/<digest>`` in this package (a source checkout);
* ``$XDG_CACHE_HOME/sniff-env/numba/<digest>`` (default ``~/.cache/sniff-env/numba/<digest>``),
  for an install whose package directory is read-only.

Each change of the sources makes a new directory; the directories of older sources are never
read again and can be deleted. With no writable place, the functions compile in every process
(with a warning).

Compiling everything takes a few minutes, once per change of the sources: the first function
a process has to compile while the cache of these sources is still empty prints
:data:`ANNOUNCEMENT` on stderr, and ``sniff warmup`` compiles every kernel ahead, stage by stage.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numba as nb
from numba.core import caching, config

F = TypeVar("F", bound=Callable[..., Any])
PACKAGE = Path(__file__).resolve().parent


RULEBOOK = PACKAGE.parent / "rulebook.py"
"""The rules the kernels compile from (:mod:`sniff_env.vector.compiled_rules`)."""


def sources_digest(package: Path, extra: tuple[Path, ...] = ()) -> str:
    """A digest of the names and contents of the ``.py`` files of ``package`` and of the files
    ``extra`` (16 hex digits)."""
    h = hashlib.sha256()
    for path in (*sorted(package.glob("*.py")), *extra):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


ENCODING = PACKAGE.parent / "encoding.py"
"""The observation encoder the kernels compile (:func:`sniff_env.vector.compiled_rules.with_compiled_rules`)."""
STRATEGY = PACKAGE.parent / "players" / "strategy.py"
"""How the built-in players value moves, compiled by :mod:`sniff_env.players.compiled.baselines`."""
COMPILED_PLAYERS = tuple(sorted((PACKAGE.parent / "players" / "compiled").glob("*.py")))
"""The players compiled over the engine's arrays, whose functions other kernels inline."""
SOURCES_DIGEST = sources_digest(PACKAGE, (RULEBOOK, ENCODING, STRATEGY, *COMPILED_PLAYERS))


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def cache_dir(package: Path = PACKAGE, digest: str = SOURCES_DIGEST) -> Path | None:
    """The first writable of the places listed in the module docstring, None if none is."""
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sniff-env" / "numba"
    numba_dir: str = getattr(config, "CACHE_DIR", "")
    roots = [Path(numba_dir) / "sniff-env"] if numba_dir else []
    roots += [package / "__pycache__" / "numba", user]
    return next((root / digest for root in roots if _writable(root / digest)), None)


CACHE_DIR = cache_dir()
if CACHE_DIR is None:
    warnings.warn("no writable place for the compiled kernels' cache: they compile in every process",
                  RuntimeWarning, stacklevel=1)


ANNOUNCEMENT = ("sniff-env: compiling the batched engine (about 2-3 minutes, once; every later process loads it "
                "from {where}; `sniff warmup` compiles it ahead)...")
"""The line printed when a process starts compiling into an empty cache."""
_announced = False


def cache_is_empty(cache: Path | None = None) -> bool:
    """Whether the cache of these sources (default :data:`CACHE_DIR`) holds no compiled function yet."""
    cache = CACHE_DIR if cache is None else cache
    return cache is None or not any(cache.rglob("*.nbi"))


ANNOUNCED_FILE = "announced"
"""A file in the cache that the first process to compile into it makes: the processes that start
compiling beside it (a tournament's workers) then stay quiet."""
ANNOUNCED_STALE_S = 900.0
"""A claim older than this is taken for a compilation that was cut short: the next one says so again."""


def claim_announcement(cache: Path | None = None) -> bool:
    """Whether this process is the one to announce compiling into ``cache`` (default
    :data:`CACHE_DIR`): the first to make its :data:`ANNOUNCED_FILE`, or any process where there
    is no cache or the claim is stale."""
    cache = CACHE_DIR if cache is None else cache
    if cache is None:
        return True
    marker = cache / ANNOUNCED_FILE
    for _ in range(2):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            return True
        except FileExistsError:
            try:
                if time.time() - marker.stat().st_mtime < ANNOUNCED_STALE_S:
                    return False
                marker.unlink()
            except FileNotFoundError:
                pass
        except OSError:  # a cache this process cannot write into: it says so for itself
            return True
    return False


def announce_compiling() -> None:
    """Print :data:`ANNOUNCEMENT` on stderr if the cache of these sources is empty; at most once
    per process, at its first compilation, and once among processes that start compiling into the
    same cache together (:func:`claim_announcement`)."""
    global _announced
    if _announced:
        return
    _announced = True
    if cache_is_empty() and claim_announcement():
        print(ANNOUNCEMENT.format(where=CACHE_DIR), file=sys.stderr, flush=True)


def quiet_announcement() -> None:
    """Count the notice as given: for a caller that says what it compiles itself (``sniff warmup``)."""
    global _announced
    _announced = True


class _SourcesLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba's cache locator for :data:`CACHE_DIR`; the source stamp includes the digest."""

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        assert CACHE_DIR is not None
        self._cache_path = str(CACHE_DIR / self.get_suitable_cache_subpath(py_file))  # type: ignore[no-untyped-call]

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> object:
        return SOURCES_DIGEST, super().get_source_stamp()  # type: ignore[no-untyped-call]


_ResultCacheImpl: Any = caching.FunctionCache._impl_class  # numba renamed it; take it from where it is used


class _SourcesCacheImpl(_ResultCacheImpl):  # type: ignore[misc]
    _locator_classes: ClassVar[list[type]] = [_SourcesLocator]


class SourcesCache(caching.FunctionCache):
    """Numba's function cache, at :data:`CACHE_DIR`, with the digest in each entry's key (so that
    even a locator chosen through ``NUMBA_CACHE_LOCATOR_CLASSES`` cannot load stale code)."""

    _impl_class = _SourcesCacheImpl
    announce = True
    """Whether compiling this function into an empty cache says so (:func:`announce_compiling`)."""

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The cached function, or None (then numba compiles it, announced if the cache is empty)."""
        found = super().load_overload(sig, target_context)  # type: ignore[no-untyped-call]
        if found is None and self.announce:
            announce_compiling()
        return found

    def _index_key(self, sig: Any, codegen: Any) -> tuple[Any, ...]:
        return (*super()._index_key(sig, codegen), SOURCES_DIGEST)  # type: ignore[no-untyped-call]


def compiled(inline: bool = False, allocates: bool = False, announce: bool = True) -> Callable[[F], F]:
    """``numba.njit``, cached (see the module docstring), releasing the GIL and without reference
    counting unless the function ``allocates``.

    Reference counting is off (numba's ``_nrt`` option, which its type stubs do not list): the
    arrays all belong to the caller and nothing compiled allocates, while numba would otherwise
    update an atomic count for each array argument of each call, which cost more than the rules
    themselves and made threads contend. ``inline`` inlines the function into its callers (numba
    passes an array to a function that is not inlined field by field). ``announce=False`` keeps a
    function that compiles in seconds (the AEC env's encoder) from printing the batched engine's
    notice of minutes."""
    options: dict[str, Any] = {"nogil": True}
    if not allocates:
        options["_nrt"] = False
    if inline:
        options["inline"] = "always"

    def decorate(func: F) -> F:
        dispatcher = nb.njit(**options)(func)
        if CACHE_DIR is not None and inspect.getsourcefile(func):
            cache = SourcesCache(func)  # type: ignore[no-untyped-call]
            cache.announce = announce
            dispatcher._cache = cache
        return dispatcher  # type: ignore[no-any-return]

    return decorate
