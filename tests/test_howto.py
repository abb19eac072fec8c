"""The how-tos of ``sniff_env/HOWTO.md`` do what they say: each test takes a how-to's code blocks
from the Markdown, follows its steps (into a copy of the package, or registering a player at run
time, as the how-to says) and checks the result works.

- *Add a preset*: the entry goes into ``PRESETS``, the TOML file into ``configs/rulesets/``, the
  row into the presets' test; the preset then plays a game, and the presets' test passes.
- *Add a rules field*: the field, its check, the scoring table and its callers, its kind and its
  legend; the field then changes what a play scores in the reference engine and in the batched
  engine's table, and a bad value is refused.
- *Add a player*: the module and its registry entry at run time; it then plays legal moves in the
  AEC environment and its compiled twin plays the reference player's games in the tournament.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.test_readme import Block, fenced_blocks

ROOT = Path(__file__).resolve().parent.parent
HOWTO = ROOT / "sniff_env" / "HOWTO.md"


def blocks(section: str) -> list[Block]:
    """The fenced blocks of the how-to under the ``##`` heading ``section``, in order."""
    found = [b for b in fenced_blocks(HOWTO.read_text(encoding="utf-8"), "sniff_env/HOWTO.md") if b.section == section]
    assert found, f"HOWTO.md has no blocks under {section!r}"
    return found


def copy_package(tmp: Path) -> Path:
    """A copy of the package, the preset files and the shared test helpers under ``tmp``."""
    shutil.copytree(ROOT / "sniff_env", tmp / "sniff_env", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "configs" / "rulesets", tmp / "configs" / "rulesets")
    (tmp / "tests").mkdir()
    for name in ("conftest.py", "test_presets_config.py"):
        shutil.copy2(ROOT / "tests" / name, tmp / "tests" / name)
    return tmp


def insert_after(path: Path, anchor: str, text: str) -> None:
    """Put ``text`` right after the one occurrence of ``anchor`` in the file ``path``."""
    source = path.read_text(encoding="utf-8")
    assert source.count(anchor) == 1, f"{path.name}: the how-to's place {anchor!r} is not found once"
    path.write_text(source.replace(anchor, anchor + text), encoding="utf-8")


def insert_before(path: Path, anchor: str, text: str) -> None:
    """Put ``text`` right before the one occurrence of ``anchor`` in the file ``path``."""
    source = path.read_text(encoding="utf-8")
    assert source.count(anchor) == 1, f"{path.name}: the how-to's place {anchor!r} is not found once"
    path.write_text(source.replace(anchor, text + anchor), encoding="utf-8")


def run_python(code: str, root: Path, *args: str, path: tuple[Path, ...] = ()) -> str:
    """Run ``code`` (or, with ``args``, ``python -m ...``) with ``root`` first on the import path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (*path, root)),
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    command = [sys.executable, *args] if args else [sys.executable, "-c", code]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{' '.join(command[1:3])} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_add_a_preset(tmp_path: Path) -> None:
    entry, toml, row, check = blocks("Add a preset")
    assert (entry.lang, toml.lang, row.lang, check.lang) == ("python", "toml", "python", "python")
    root = copy_package(tmp_path)
    named = re.match(r'\s*"([\w-]+)"', entry.code)
    assert named, "the preset's entry names no preset"
    name = named.group(1)
    insert_before(root / "sniff_env" / "presets.py", "}\n\nPRESET_NAMES", entry.code)
    (root / "configs" / "rulesets" / f"{name}.toml").write_text(toml.code, encoding="utf-8")
    test_file = root / "tests" / "test_presets_config.py"
    table = test_file.read_text(encoding="utf-8")
    end = table.index("\n}\n", table.index("TABLE: dict["))
    test_file.write_text(table[: end + 1] + row.code + table[end + 1 :], encoding="utf-8")
    assert "plays to 50" in run_python(check.code, root)
    assert name in run_python("", root, "-m", "sniff_env.cli", "rules", "--preset", name, "--players", "3")
    run_python("", root, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_presets_config.py")


def test_add_a_rules_field(tmp_path: Path) -> None:
    field, check_field, table, kinds, check = blocks("Add a rules field")
    root = copy_package(tmp_path)
    package = root / "sniff_env"
    insert_after(package / "rules.py", "    win_during_hand: bool = False\n", field.code)
    insert_after(package / "rules.py", '        _check_int("target", self.target)\n', check_field.code)
    scoring = package / "scoring.py"
    old = re.search(r"@cache\ndef scoring_table\(.*?\n\n\n", scoring.read_text(encoding="utf-8"), re.DOTALL)
    assert old, "scoring.py has no scoring_table to replace"
    scoring.write_text(scoring.read_text(encoding="utf-8").replace(old.group(0), table.code + "\n\n"), encoding="utf-8")
    callers = 0
    for path in package.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        if "scoring_table(rules.scoring)" in source:
            callers += source.count("scoring_table(rules.scoring)")
            path.write_text(source.replace("scoring_table(rules.scoring)", "scoring_table(rules.scoring, rules.min_count)"),
                            encoding="utf-8")
    assert callers >= 4, callers  # the engine, the layout, the observation, the kernels' tables at least
    kind, legend = kinds.code.strip("\n").split("\n")
    insert_after(package / "players" / "compat.py", "FIELD_KINDS: dict[str, FieldKind] = {\n", kind + "\n")
    insert_after(package / "cli" / "rules.py", "LEGEND: dict[str, str] = {\n", legend + "\n")
    out = run_python(check.code, root)
    assert "refused: min_count must be 0 or more" in out
    shown = run_python("", root, "-m", "sniff_env.cli", "rules", "--rule", "min_count=10")
    assert "min_count" in shown and "least count that scores" in shown


def test_add_a_player(tmp_path: Path) -> None:
    module, entry, register, check = blocks("Add a player")
    assert "BUILTIN_PLAYERS" in register.code and "lowest:lowest_chooser" in register.code
    assert entry.code.strip().startswith('"lowest": BuiltinPlayer(')
    (tmp_path / "lowest.py").write_text(module.code, encoding="utf-8")
    out = run_python(check.code, ROOT, path=(tmp_path,))
    assert "lowest against greedy:" in out
