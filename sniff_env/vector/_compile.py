"""The numba options of every compiled function of the batched engine, and where they are cached.

Compiled functions are cached on disk, keyed to the sources of this package. Numba's own cache
checks only the file of the function it compiles, while the players and rollouts link in the
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

Every compile of a function here says so on stderr, with the time it takes and an estimate
(:mod:`sniff_env.vector.notices`), in whatever process it happens; ``sniff warmup`` compiles
every kernel ahead, its groups in parallel processes.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from numba.core import caching, config, types
from numba.core.registry import CPUDispatcher

from sniff_env.vector import notices

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
"""The players compiled over the engine's arrays, whose functions other kernels call."""
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


notices.NOTICES.cache = CACHE_DIR


def cache_is_empty(cache: Path | None = None) -> bool:
    """Whether the cache of these sources (default :data:`CACHE_DIR`) holds no compiled function yet."""
    cache = CACHE_DIR if cache is None else cache
    return cache is None or not any(cache.rglob("*.nbi"))


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

    def _index_key(self, sig: Any, codegen: Any) -> tuple[Any, ...]:
        return (*super()._index_key(sig, codegen), SOURCES_DIGEST)  # type: ignore[no-untyped-call]

    @property
    def index_path(self) -> Path:
        """The file of this function's cache index: present once a signature of it is cached."""
        return Path(self.cache_path) / f"{self._impl.filename_base}.nbi"


def call_type(arg: Any) -> Any:
    """The type a compiled function is compiled for when called with an argument of type ``arg``
    from compiled code: without its value where it is a constant, and a whole number narrower
    than 64 bits as ``int64`` (an action read from an ``int16`` array, say)."""
    arg = types.unliteral(arg)
    if isinstance(arg, types.Integer) and arg.bitwidth < 64:
        return types.int64
    return arg


class _OneSignature(CPUDispatcher):  # type: ignore[misc]
    """Numba's dispatcher, except that a call from compiled code is typed by :func:`call_type`:
    a constant argument (``0``, ``-1``, ``True``) or a narrow whole number would otherwise compile
    a specialization of its own."""

    def get_call_template(self, args: Any, kws: Any) -> Any:
        return super().get_call_template(tuple(call_type(a) for a in args),
                                         {k: call_type(v) for k, v in kws.items()})


DISPATCHERS: list[Any] = []
"""Every function compiled through :func:`compiled`, in the order they were defined."""


def compiled_functions() -> list[Any]:
    """Every function compiled through :func:`compiled` so far (numba dispatchers: their
    ``py_func`` and ``signatures`` tell what and for which argument types)."""
    return list(DISPATCHERS)


def is_cached(function: Any) -> bool:
    """Whether the disk cache holds a compiled signature of ``function`` (one of :func:`compiled_functions`)."""
    cache = getattr(function, "_cache", None)
    return isinstance(cache, SourcesCache) and cache.index_path.exists()


def compiled(inline: bool = False, allocates: bool = False) -> Callable[[F], F]:
    """``numba.njit``, cached (see the module docstring), releasing the GIL, without reference
    counting unless the function ``allocates``, and typed by its arguments' types only (one
    signature per function where the callers pass the same types, see :class:`_OneSignature`).

    Reference counting is off (numba's ``_nrt`` option, which its type stubs do not list): the
    arrays all belong to the caller and nothing compiled allocates, while numba would otherwise
    update an atomic count for each array argument of each call, which cost more than the rules
    themselves and made threads contend.

    ``inline`` puts a typed copy of the function into each compiled caller (numba's
    ``inline="always"``): for small helpers and for code on the hottest paths, where a call
    would cost more than the work (numba passes each array to a function that is not inlined
    field by field). Every copy costs compile time in every caller, so the large functions that
    many kernels reach (a move's effect, the observation encoder, the heuristic's choice) are
    compiled once and called: that keeps the whole compile under a minute where inlining them
    everywhere took ten."""
    options: dict[str, Any] = {"nogil": True}
    if not allocates:
        options["_nrt"] = False
    if inline:
        options["inline"] = "always"

    def decorate(func: F) -> F:
        dispatcher = _OneSignature(py_func=func, locals={}, targetoptions=options)
        if CACHE_DIR is not None and inspect.getsourcefile(func):
            dispatcher._cache = SourcesCache(func)  # type: ignore[no-untyped-call]
        DISPATCHERS.append(dispatcher)
        return dispatcher  # type: ignore[no-any-return]

    return decorate
