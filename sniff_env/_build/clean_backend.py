"""The build backend: setuptools', leaving the source tree as it found it.

Setuptools builds in the source tree: a wheel or sdist leaves ``build/`` and
``sniff_env.egg-info/`` behind in the checkout. This backend runs setuptools' own hooks and then
removes those two folders where the build made them (one that was there before is kept), so
``pip wheel .``, ``pip install .`` and ``python -m build`` leave a checkout clean. Every other hook
is setuptools' own.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # every hook this module does not wrap

LEFTOVERS = ("build", "sniff_env.egg-info")
"""What setuptools leaves in the source tree, relative to it (the build runs there)."""


@contextmanager
def _clean_tree() -> Iterator[None]:
    """Remove, after the build, each of :data:`LEFTOVERS` that was not there before it."""
    fresh = [Path(name) for name in LEFTOVERS if not Path(name).exists()]
    try:
        yield
    finally:
        for path in fresh:
            shutil.rmtree(path, ignore_errors=True)


def _cleaned(hook: Callable[..., str]) -> Callable[..., str]:
    def run(*args: Any, **kwargs: Any) -> str:
        with _clean_tree():
            return hook(*args, **kwargs)

    run.__name__, run.__doc__ = hook.__name__, hook.__doc__
    return run


build_wheel = _cleaned(_setuptools.build_wheel)
build_sdist = _cleaned(_setuptools.build_sdist)
prepare_metadata_for_build_wheel = _cleaned(_setuptools.prepare_metadata_for_build_wheel)
