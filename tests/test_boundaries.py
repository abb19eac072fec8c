"""Module boundaries, read from the sources with ``ast``: what is private stays private, and the
batched engine does not build on the players.

The rule for a name with one leading underscore (``_x``; dunders are public):

* **A private name belongs to the module that defines it.** No module imports another module's
  ``_x`` (``from m import _x``) or reaches it as an attribute of anything but ``self``/``cls``
  (``m._x``, ``game._legal``), unless the module itself defines ``_x`` (a function, class,
  assigned name, ``self._x`` attribute, ``__slots__`` entry or keyword argument): an object
  reaching into another instance of its own class is the class's business.
* **A private module belongs to its package.** ``m/_mod.py`` may be imported by the modules of
  package ``m`` (and of its sub-packages), by no one else.
* **Names a public interface spells with an underscore are public**: a named tuple's
  ``_replace``, ``_asdict``, ``_fields``, ``_make``; PettingZoo's ``_cumulative_rewards``;
  ``torch._check`` (documented); and the numba cache internals that ``vector/_compile.py``
  subclasses to key its disk cache (:data:`INTERFACE`).

And ``sniff_env/vector`` imports nothing from ``sniff_env.players`` (the players use the batched
engine; ``pyproject.toml``'s import contracts hold every layer to the same).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sniff_env", "training")

INTERFACE = {
    "_replace", "_asdict", "_fields", "_make", "_field_defaults",  # collections.namedtuple
    "_cumulative_rewards", "_accumulate_rewards", "_deads_step_first",  # pettingzoo.AECEnv's helpers for its envs
    "_exit",  # os._exit (documented: leave without cleanup, in a forked worker)
    "_check",  # torch._check
    "_CacheLocator", "_SourceFileBackedLocatorMixin", "_cache", "_index_key",  # numba's cache, in vector/_compile.py
}


@cache
def sources() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of :data:`PACKAGES`, parsed: ``(path from the root, tree)``."""
    return tuple((path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(), filename=str(path)))
                 for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py")))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def own_names(tree: ast.Module) -> set[str]:
    """The names a module defines: what it may use on any object."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(
                node.value, ast.Name) and node.value.id in ("self", "cls"):
            names.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            names.update(e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return names


def module_of(rel: str) -> list[str]:
    """``sniff_env/vector/kernels.py`` -> ``["sniff_env", "vector", "kernels"]`` (a package: its path)."""
    parts = rel.removesuffix(".py").split("/")
    return parts[:-1] if parts[-1] == "__init__" else parts


def resolved(rel: str, node: ast.ImportFrom) -> list[str]:
    """The absolute module path an ``import from`` names."""
    if not node.level:
        return (node.module or "").split(".")
    here = module_of(rel)
    package = here if rel.endswith("__init__.py") else here[:-1]
    base = package[: len(package) - node.level + 1]
    return base + (node.module.split(".") if node.module else [])


def _module_path_ok(rel: str, target: list[str]) -> bool:
    """Whether ``rel`` may import module ``target``: each private part's package must hold ``rel``."""
    here = module_of(rel)
    for i, part in enumerate(target):
        if _private(part) and here[:i] != target[:i]:
            return False
    return True


def _is_module(parts: list[str]) -> bool:
    path = ROOT.joinpath(*parts)
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def violations(rel: str, tree: ast.Module) -> Iterator[str]:
    own = own_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = resolved(rel, node)
            if not _module_path_ok(rel, target):
                yield f"from {'.' * node.level}{node.module or ''} import ..."
            for alias in node.names:
                if _private(alias.name) and not (_is_module([*target, alias.name]) and _module_path_ok(
                        rel, [*target, alias.name])):
                    yield f"from {'.' * node.level}{node.module or ''} import {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if not _module_path_ok(rel, alias.name.split(".")):
                    yield f"import {alias.name}"
        elif (isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own | INTERFACE
              and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            yield ast.unparse(node)


def test_no_module_uses_another_modules_private_names() -> None:
    found = sorted((rel, v) for rel, tree in sources() for v in violations(rel, tree))
    assert found == [], "private names used outside their module (see the module docstring)"


def _player_imports(tree: ast.Module, rel: str) -> Iterator[tuple[bool, str]]:
    """``(lazy, what)`` for each import of ``sniff_env.players`` in ``tree``."""
    top = set(map(id, tree.body))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            target = resolved(rel, node)
            names = [".".join(target)] + [".".join([*target, a.name]) for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name == "sniff_env.players" or name.startswith("sniff_env.players."):
                yield id(node) not in top and not _in_type_checking(tree, node), name
                break


def _in_type_checking(tree: ast.Module, node: ast.AST) -> bool:
    for block in tree.body:
        if (isinstance(block, ast.If) and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                and any(n is node for n in ast.walk(block))):
            return True
    return False


def test_vector_does_not_import_players() -> None:
    found = []
    for rel, tree in sources():
        if rel.startswith("sniff_env/vector/"):
            found += [f"{rel}: {'lazy ' if lazy else ''}import of {name}" for lazy, name in _player_imports(tree, rel)]
    assert found == [], "the batched engine builds on the core, never on the players"


def test_the_checks_catch_what_they_should() -> None:
    """Each kind of breach, planted in a made-up module, is caught."""
    tree = ast.parse(
        "from ..game import _forced_lead_for\nfrom ..vector._compile import compiled\nimport sniff_env.vector._compile\n"
        "def f(g):\n    g._legal = None\n    return g._advance(), self._mine, e._replace(tile=1)\n"
    )
    assert sorted(violations("sniff_env/players/x.py", tree)) == [
        "from ..game import _forced_lead_for", "from ..vector._compile import ...", "g._advance", "g._legal",
        "import sniff_env.vector._compile",
    ]
    assert list(violations("sniff_env/vector/x.py", ast.parse("from ._compile import compiled"))) == []
    lazy = ast.parse("def load():\n    from ..players import load\n")
    assert list(_player_imports(lazy, "sniff_env/vector/x.py")) == [(True, "sniff_env.players")]
    top = ast.parse("from ..players.heuristic import Weights\n")
    assert list(_player_imports(top, "sniff_env/vector/x.py")) == [(False, "sniff_env.players.heuristic")]


COMMAND_LINE = ("sniff_env.cli", "sniff_env.cli", "sniff_env.cli.eval", "sniff_env.cli.play",
                "sniff_env.cli.replay", "sniff_env.cli.serve")
"""The modules of the ``sniff`` command's subcommands."""


def _imported(rel: str, tree: ast.Module) -> Iterator[str]:
    """The dotted names of every module ``tree`` imports (at any depth)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = resolved(rel, node)
            yield ".".join(target)
            yield from (".".join([*target, a.name]) for a in node.names)
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_the_training_side_imports_no_command_line_module() -> None:
    """Trainers, studies and benchmarks share the checked options through ``sniff_env.options``,
    not through a subcommand's module."""
    found = sorted({f"{rel}: {name}" for rel, tree in sources() if rel.startswith("training/")
                    for name in _imported(rel, tree)
                    if any(name == m or name.startswith(m + ".") for m in COMMAND_LINE)})
    assert found == []
    planted = ast.parse("from sniff_env.cli.rules import add_arguments\n")
    assert any(n.startswith("sniff_env.cli") for n in _imported("training/x.py", planted))
