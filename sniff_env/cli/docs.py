"""``sniff docs --out DIR``: the API reference, HTML pages built from the docstrings by pdoc.

Every module of the package gets a page (pdoc alone, given the package, would follow its
``__all__`` and skip the submodules). A module whose optional library is not installed is left
out, saying which; pdoc comes with the ``dev`` extra.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

from sniff_env.errors import SniffError

PACKAGE = "sniff_env"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the folder to write the pages to (index.html is the first page)")


def is_old_name(info: pkgutil.ModuleInfo) -> bool:
    """Whether the module is a moved module's old name (:mod:`sniff_env.moved`), which has no page."""
    spec = info.module_finder.find_spec(info.name.rpartition(".")[2], None)  # type: ignore[call-arg]
    origin = spec.origin if spec else None
    return bool(origin and origin.endswith(".py") and "from sniff_env.moved import" in Path(origin).read_text())


def module_names() -> list[str]:
    """The package and every module under it, but the ``__main__`` ones (importing those runs them)
    and the old names of moved modules."""
    def walk(path: list[str], prefix: str) -> list[str]:  # pkgutil.walk_packages, but an old package is not imported
        names = []
        for info in pkgutil.iter_modules(path, prefix):
            if info.name.rpartition(".")[2] == "__main__" or is_old_name(info):
                continue
            names.append(info.name)
            try:
                sub = importlib.import_module(info.name).__path__ if info.ispkg else None
            except ImportError:  # an optional library is missing: the page notes it, the walk goes on
                sub = None
            names += walk(list(sub), f"{info.name}.") if sub else []
        return names

    return [PACKAGE, *sorted(walk(list(importlib.import_module(PACKAGE).__path__), f"{PACKAGE}."))]


def _importable(names: list[str]) -> tuple[list[ModuleType], list[str]]:
    """The modules of ``names`` that import, and a note for each one whose library is missing."""
    modules, skipped = [], []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ImportError as exc:  # an optional extra that is not installed
            skipped.append(f"{name} (needs {exc.name or exc})")
    return modules, skipped


def _own_constructors(module: ModuleType) -> None:
    """Give each named tuple of ``module`` its constructor's module: the generated ``__new__``
    has none, so pdoc could not read the string annotations of its fields."""
    for value in vars(module).values():
        if isinstance(value, type) and hasattr(value, "_fields") and value.__module__ == module.__name__:
            new: Any = value.__new__
            if getattr(new, "__module__", "").startswith("namedtuple_"):
                new.__module__ = module.__name__


def build(out: Path) -> list[str]:
    """Write the pages of every importable module into ``out``; returns the modules left out."""
    import pdoc
    import pdoc.doc
    import pdoc.render

    package = importlib.import_module(PACKAGE)
    for name in getattr(package, "__all__", ()):
        getattr(package, name)  # the lazy names, so that pdoc finds what ``__all__`` lists
    modules, skipped = _importable(module_names())
    for module in modules:
        _own_constructors(module)
    pdoc.render.configure(docformat="restructuredtext")
    docs = {m.__name__: pdoc.doc.Module(m) for m in modules}
    for doc in docs.values():  # each page's navigation lists every submodule, not only its ``__all__``
        prefix = doc.fullname + "."
        doc.__dict__["submodules"] = [docs[name] for name in sorted(docs)
                                      if name.startswith(prefix) and "." not in name[len(prefix):]]
    for doc in docs.values():
        page = out / f"{doc.fullname.replace('.', '/')}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(pdoc.render.html_module(doc, docs), encoding="utf-8")
    (out / "index.html").write_text(pdoc.render.html_index(docs), encoding="utf-8")
    (out / "search.js").write_text(pdoc.render.search_index(docs), encoding="utf-8")
    return skipped


def run(args: argparse.Namespace) -> int:
    try:
        import pdoc  # noqa: F401
    except ImportError:
        raise SniffError('the API reference is built by pdoc: pip install "sniff-env[dev]" (or pip install pdoc)') from None
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        skipped = build(args.out)
    for note in skipped:
        print(f"left out {note}", file=sys.stderr)
    print(f"wrote the API reference to {args.out / 'index.html'}")
    return 0
