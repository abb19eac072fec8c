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


def _probe(root: Path, cache: Path | None, probe: str = PROBE, **env_vars: str) -> dict[str, Any]:
    """Run ``probe`` in a new process on the package copy under ``root``, caching in ``cache``
    (None: no ``NUMBA_CACHE_DIR``, the package's own place or the user's)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(root), **env_vars, **({"NUMBA_CACHE_DIR": str(cache)} if cache else {}))
    out = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    assert result["package"].startswith(str(root))
    result["announced"] = out.stderr.count("sniff-env: compiling ")
    result["stderr"] = out.stderr
    return result


def _copy(tmp_path: Path) -> Path:
    """A copy of the package under ``tmp_path / "src"`` (without compiled files); its root."""
    root = tmp_path / "src"
    shutil.copytree(Path(sniff_env.__file__).parent, root / "sniff_env", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_a_changed_rule_reaches_the_compiled_callers_that_call_it(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    kernels = root / "sniff_env" / "rulebook.py"
    cache = tmp_path / "cache"
    first = _probe(root, cache)
    again = _probe(root, cache)
    assert (first["misses"], first["hits"], first["announced"]) == (1, 0, 1)  # it says so, once
    assert "compiling the built-in players (greedy_key)" in first["stderr"]
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


OTHER = """
import json
import numpy as np
from sniff_env.presets import make_rules
from sniff_env.vector import kernels as K
from sniff_env.vector.tables import build_tables

t = build_tables(make_rules("sniff"))
keys = [K.points_for(t.params, t.score_tab, c) for c in range(13)]
stats = K.points_for.stats
print(json.dumps({"package": K.__file__, "keys": keys, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "path": stats.cache_path}))
"""
"""Another compiled function than :data:`PROBE`'s: ``kernels.points_for``."""


def test_every_compile_says_so_even_where_the_cache_holds_others(tmp_path: Path) -> None:
    """The notice is not kept for an empty cache: a new function compiling beside cached ones
    says what compiles too, with an estimate, and how long it took where it took a while."""
    root, cache = _copy(tmp_path), tmp_path / "cache"
    first = _probe(root, cache)
    assert first["announced"] == 1 and any(cache.rglob("*.nbi"))
    other = _probe(root, cache, OTHER)
    assert other["misses"] == 1 and other["announced"] == 1, other["stderr"]
    line = next(x for x in other["stderr"].splitlines() if x.startswith("sniff-env: compiling "))
    assert "the batched engine (points_for)" in line and "later runs load it from the cache" in line
    assert _probe(root, cache, OTHER)["announced"] == 0  # loaded: nothing to say


def test_a_read_only_install_compiles_once_into_the_user_cache(tmp_path: Path) -> None:
    """Where nothing can be written beside the package (a wheel in a read-only site-packages,
    here a package whose ``__pycache__`` cannot be made), the first process compiles into the
    user's cache and the next loads it from there."""
    root = _copy(tmp_path)
    (root / "sniff_env" / "vector" / "__pycache__").write_text("not a folder: nothing can be cached here")
    user = tmp_path / "user-cache"
    env = {"XDG_CACHE_HOME": str(user), "PYTHONDONTWRITEBYTECODE": "1"}
    first = _probe(root, None, **env)
    again = _probe(root, None, **env)
    assert first["path"].startswith(str(user / "sniff-env" / "numba")), first["path"]
    assert (first["misses"], first["hits"], first["announced"]) == (1, 0, 1)
    assert (again["misses"], again["hits"], again["path"]) == (0, 1, first["path"])


def test_processes_compiling_one_function_together_announce_it_once(tmp_path: Path) -> None:
    """A tournament's workers start compiling the same function into the same cache at once: the
    first to claim it says so, the others stay quiet; a claim left by a compile cut short long
    ago is taken again."""
    import time

    from sniff_env.vector import notices

    assert notices.claim("k", tmp_path) is True
    assert notices.claim("k", tmp_path) is False  # the worker beside it
    assert notices.claim("other", tmp_path) is True
    marker = tmp_path / "compiling-k"
    old = time.time() - notices.CLAIM_STALE_S - 60
    os.utime(marker, (old, old))
    assert notices.claim("k", tmp_path) is True  # stale: said again
    assert notices.claim("k", tmp_path / "missing" / "cache") is True  # unwritable: each says so itself
