"""The project's imports read from its sources: which modules a module loads when it is imported
(its module-level imports, those under ``if TYPE_CHECKING:`` left out, followed through the project's
modules and the packages above them), and the imports of project modules made inside functions."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from house_metrics import PACKAGES, ROOT, imported, module_of, sources


@cache
def files() -> dict[str, Path]:
    """Each project module's name and file."""
    return {module_of(ROOT, p): p for p in sources(ROOT)}


@cache
def tree(module: str) -> ast.Module:
    return ast.parse(files()[module].read_text())


def module_level(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run when ``body`` does: those of nested blocks too (``try``,
    ``if``, ``with``, class bodies), not those of functions nor under ``if TYPE_CHECKING:``."""
    out: list[ast.Import | ast.ImportFrom] = []
    for s in body:
        if isinstance(s, ast.Import | ast.ImportFrom):
            out.append(s)
        elif isinstance(s, ast.If) and "TYPE_CHECKING" in ast.unparse(s.test):
            out += module_level(s.orelse)
        elif not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
            for block in ("body", "orelse", "finalbody", "handlers"):
                out += module_level(getattr(s, block, []))
    return out


def with_parents(name: str) -> list[str]:
    """The project modules importing ``name`` runs: it and the packages above it."""
    parts = name.split(".")
    return [m for m in (".".join(parts[:i]) for i in range(1, len(parts) + 1)) if m in files()]


def targets(node: ast.Import | ast.ImportFrom, module: str) -> list[str]:
    """The deepest modules an import statement in ``module`` names: ``from a import b`` names
    ``a.b`` where that is a module, else ``a``."""
    names = imported(node, module)
    if isinstance(node, ast.Import):
        return names
    return [n for n in names[1:] if n in files()] or names[:1]


@cache
def loads(module: str) -> frozenset[str]:
    """Everything importing ``module`` loads: project modules by name, other packages by their
    top-level name."""
    seen: set[str] = set()
    todo = with_parents(module)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        if m not in files():
            continue
        for node in module_level(tree(m).body):
            for name in targets(node, m):
                todo += with_parents(name) if name.split(".")[0] in PACKAGES else [name.split(".")[0]]
    return frozenset(seen)


def function_level() -> dict[tuple[str, str], set[int]]:
    """``(file, module)`` of every import of a project module inside a function, with its lines."""
    out: dict[tuple[str, str], set[int]] = {}
    for module, path in files().items():
        rel = path.relative_to(ROOT).as_posix()
        for fn in ast.walk(tree(module)):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    for target in targets(node, module):
                        if target.split(".")[0] in PACKAGES:
                            out.setdefault((rel, target), set()).add(node.lineno)
    return out


def module_of_file(rel: str) -> str:
    return module_of(ROOT, ROOT / rel)
