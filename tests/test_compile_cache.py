"""The compiled functions' disk cache follows the package's sources, and is reused across processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numba
import pytest

import sniff_env
from sniff_env.vector import _compile

PROBE = """
import json
import numpy as np
from sniff_env.presets import make_rules
from sniff_env.vector import kernels as K
from sniff_env.players.compiled.baselines import greedy_key
from sniff_env.vector.tables import build_tables

t = build_tables(make_rules("sniff"))
S = np.zeros((1, K.NS), np.int64)
keys = [greedy_key(S, 0, t.params, t.lo, t.hi, t.score_tab, t.act_tile, t.act_slot, a)
        for a in range(t.num_actions - 1) if t.act_slot[a] == K.LEAD]
stats = greedy_key.stats
print(json.dumps({"package": K.__file__, "keys": keys, "hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                  "path": stats.cache_path}))
"""
"""Greedy's key of every lead from an empty table: ``baselines.greedy_key`` inlines the scoring
rule ``rulebook.play_points`` (through ``kernels.points_for``)."""
RULE = "return count // 5 if div5 else count\n"
CHANGED = "return count // 5 if div5 else 2 * count\n"


def _probe(root: Path, cache: Path) -> dict[str, Any]:
    """Run :data:`PROBE` in a new process on the package copy under ``root``, caching in ``cache``."""
    env = {**os.environ, "PYTHONPATH": str(root), "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    assert result["package"].startswith(str(root))
    result["announced"] = out.stderr.count("compiling the batched engine")
    return result


def test_a_changed_rule_reaches_the_compiled_callers_that_inline_it(tmp_path: Path) -> None:
    root = tmp_path / "src"
    shutil.copytree(Path(sniff_env.__file__).parent, root / "sniff_env", ignore=shutil.ignore_patterns("__pycache__"))
    kernels = root / "sniff_env" / "rulebook.py"
    cache = tmp_path / "cache"
    first = _probe(root, cache)
    again = _probe(root, cache)
    assert (first["misses"], first["hits"], first["announced"]) == (1, 0, 1)  # an empty cache: it says so, once
    assert (again["misses"], again["hits"], again["keys"]) == (0, 1, first["keys"])  # a second process reuses it
    assert again["announced"] == 0
    source = kernels.read_text()
    assert source.count(RULE) == 1
    kernels.write_text(source.replace(RULE, CHANGED))
    after = _probe(root, cache)
    assert after["misses"] == 1 and after["path"] != first["path"] and after["announced"] == 1
    doubled = [key + key // 1024 * 1024 for key in first["keys"]]  # a key is points * 1024 + pips
    assert after["keys"] == doubled != first["keys"]


def test_the_cache_goes_to_the_first_writable_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    read_only_package = blocker / "package"  # nothing can be created below a regular file
    digest = _compile.sources_digest(Path(_compile.__file__).parent)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    assert _compile.cache_dir(tmp_path / "pkg", digest) == tmp_path / "pkg" / "__pycache__" / "numba" / digest
    assert _compile.cache_dir(read_only_package, digest) == tmp_path / "user" / "sniff-env" / "numba" / digest
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    assert _compile.cache_dir(read_only_package, digest) == tmp_path / "numba" / "sniff-env" / digest
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(blocker))
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert _compile.cache_dir(read_only_package, digest) is None


def test_the_digest_covers_every_source_file(tmp_path: Path) -> None:
    for name in ("kernels.py", "baselines.py"):
        (tmp_path / name).write_text("X = 1\n")
    before = _compile.sources_digest(tmp_path)
    (tmp_path / "baselines.py").write_text("X = 2\n")
    assert _compile.sources_digest(tmp_path) != before


def test_processes_compiling_into_one_cache_together_announce_it_once(tmp_path: Path) -> None:
    """A tournament's workers start compiling into the same empty cache at once: the first to
    claim the announcement says so, the others stay quiet; a claim left by a compilation cut
    short long ago is taken again."""
    import time

    from sniff_env.vector import _compile

    assert _compile.claim_announcement(tmp_path) is True
    assert _compile.claim_announcement(tmp_path) is False  # the worker beside it
    marker = tmp_path / _compile.ANNOUNCED_FILE
    old = time.time() - _compile.ANNOUNCED_STALE_S - 60
    os.utime(marker, (old, old))
    assert _compile.claim_announcement(tmp_path) is True  # stale: said again
    assert _compile.claim_announcement(tmp_path / "missing" / "cache") is True  # unwritable: each says so itself
