"""The layers of the code, as written in ``pyproject.toml``'s import contracts, and an import graph
without circles (imports inside functions and under ``TYPE_CHECKING`` count: one hidden there to
dodge a circle is still a circle)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = {
    "actions", "atomic", "deal", "encoding", "errors", "game", "gamelog", "infostate", "layout", "moved", "observation",
    "options", "presets", "render", "rule_codes", "rulebook", "rules", "scoring", "tiles", "untrusted", "workers",
}
"""The rules core: the only modules at the top of ``sniff_env`` (besides its entry points)."""
ENTRY = {"__init__", "__main__", "sniff_v0"}
"""The package's own face: its names, ``python -m sniff_env``, and PettingZoo's ``sniff_v0`` module."""


def circles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module of the graph ``imports``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in imports.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in list(imports):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_circle() -> None:
    graph = grimp.build_graph("sniff_env", "training", include_external_packages=False)
    imports = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    assert circles(imports) == []


def test_a_planted_circle_is_found() -> None:
    assert circles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert circles({"a": ["b"], "b": []}) == []


def test_the_import_contracts_hold() -> None:
    command = Path(sys.executable).with_name("lint-imports")
    if not command.exists():
        pytest.fail("import-linter is not installed beside this interpreter (it is in the dev extra)")
    done = subprocess.run([str(command), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0 and "0 broken" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_top_of_sniff_env_is_the_rules_core() -> None:
    top = {p.stem for p in (ROOT / "sniff_env").glob("*.py")}
    assert top - ENTRY == CORE


def test_nothing_edits_the_import_path() -> None:
    found = []
    for package in ("sniff_env", "training"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.path":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
