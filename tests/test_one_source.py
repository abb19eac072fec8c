"""Each rule is written once, in ``sniff_env/rulebook.py``: both engines follow a change there."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sniff_env
from sniff_env import rulebook

PROBE = """
import json
import numpy as np
from sniff_env.game import new_game
from sniff_env.presets import make_rules
from sniff_env.vector.engine import VectorEngine

rules = make_rules("sniff", 2, hand_end="subtract_own")
seeds = [1, 2, 3]
games = [new_game(rules, seed=s, record=False) for s in seeds]
for g in games:
    while g.phase == 0:
        g.step(g.legal_actions()[0])
engine = VectorEngine(rules, len(seeds), threads=1)
engine.deal(np.arange(len(seeds)), True, seeds)
while (engine.phase == 0).any():
    engine.step(np.array([engine.legal[b, :engine.num_legal[b]].min() if engine.phase[b] == 0 else 0
                          for b in range(len(seeds))]))
print(json.dumps({"game": [g.scores for g in games], "vector": engine.scores.tolist(),
                  "ended_by": [g.results[-1].ended_by for g in games]}))
"""
"""The first hand of a few seeded games, lowest legal action first, under a rule set whose hand
end (everyone loses their pips rounded to five) uses ``rulebook.round5``: the scores of the
Python engine and of the batched engine."""
CHANGE = """

_round5_as_written = round5


def round5(x: int) -> int:
    \"\"\"The rule as written, then five more: every rounded total costs five more.\"\"\"
    return _round5_as_written(x) + 5
"""
"""A change of ``round5`` made by behaviour, whatever its code says: appended to the rulebook, the
rule is redefined on top of itself."""


def _probe(root: Path, cache: Path | None) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True,
                         timeout=600, check=False)
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_a_rule_changed_in_the_rulebook_changes_both_engines(tmp_path: Path) -> None:
    package = Path(sniff_env.__file__).parent
    root = tmp_path / "src"
    shutil.copytree(package, root / "sniff_env", ignore=shutil.ignore_patterns("__pycache__"))
    book = root / "sniff_env" / "rulebook.py"
    book.write_text(book.read_text() + CHANGE)
    before = _probe(package.parent, None)
    after = _probe(root, tmp_path / "cache")  # the one compile of the changed rules
    assert before["game"] == before["vector"]
    assert after["game"] == after["vector"]
    assert after["ended_by"] == before["ended_by"]  # the play is the same: only the hand end differs
    assert after["game"] == [[s - 5 for s in scores] for scores in before["game"]]


def _callees(func: ast.FunctionDef) -> set[str]:
    return {str(getattr(node.func, "id", None) or getattr(node.func, "attr", None))
            for node in ast.walk(func) if isinstance(node, ast.Call)}


def _applies(rule: str, func: ast.FunctionDef, local: dict[str, ast.FunctionDef], seen: set[str]) -> bool:
    """Whether ``func`` calls ``rule``, itself or through functions of its own module."""
    callees = _callees(func)
    if rule in callees:
        return True
    seen.add(func.name)
    return any(_applies(rule, local[c], local, seen) for c in callees - seen if c in local)


@pytest.mark.parametrize("module", ["game.py", "scoring.py", "layout.py", "deal.py", "vector/kernels.py"])
def test_the_engines_define_no_rule_of_their_own(module: str) -> None:
    """A function of an engine named after a rule (less leading underscores) only applies the
    rulebook's: it calls it (or a function of its module that does)."""
    tree = ast.parse((Path(sniff_env.__file__).parent / module).read_text())
    local = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    redefined = [f"{f.name} without calling rulebook.{f.name.lstrip('_')}" for f in local.values()
                 if f.name.lstrip("_") in rulebook.__all__ and not _applies(f.name.lstrip("_"), f, local, set())]
    assert not redefined, f"{module} defines " + ", ".join(redefined)


def test_every_rule_is_compiled() -> None:
    from sniff_env.vector import compiled_rules

    for name in rulebook.__all__:
        compiled = getattr(compiled_rules, name)
        assert compiled.py_func.__code__ is getattr(rulebook, name).__code__


def test_the_words_that_explain_rounding_are_the_rules() -> None:
    """Every explanation of the hand end says what ``round5`` does with :data:`scoring.ROUNDING`
    or :data:`scoring.ROUNDED` (``sniff rules``, the score sheets, how to play), and no module
    words it on its own; those words and the examples of its docstring hold for the
    rule as it is: edit the rule and this test names the prose to edit with it."""
    import re

    from sniff_env.scoring import ROUNDED, ROUNDING, rounding_note

    assert ROUNDING.endswith("rounds to the nearest multiple of 5") and ROUNDED.endswith("to the nearest 5")
    for x in range(400):
        nearest = min(range(0, 405, 5), key=lambda m: abs(m - x))
        assert rulebook.round5(x) == nearest, (x, rulebook.round5(x))
    package = Path(sniff_env.__file__).parent
    own_words = [str(p.relative_to(package)) for p in package.rglob("*.py") if p.name not in ("scoring.py", "rulebook.py")
                 and re.search(r"nearest (multiple of )?5", p.read_text())]
    assert not own_words, f"these modules word the rounding rule themselves: {own_words}"
    examples = re.findall(r"(\d+) -> (\d+)", (rulebook.round5.__doc__ or "") + rounding_note())
    assert len(examples) >= 5
    assert all(rulebook.round5(int(a)) == int(b) for a, b in examples)
