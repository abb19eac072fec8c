"""Compile time: how long the compiled functions take to compile, per group and in all.

Each group of :mod:`sniff_env.play.warm` is compiled alone in a fresh process into an empty
cache (so its figure counts every function it needs), then all of them as ``sniff warmup`` does
(its groups in parallel processes) into another empty cache; the signatures of every compiled
function are counted after the warm-up's games, all compiled in one process. ``--write`` keeps the figures as the estimates
the compile notices give (:data:`sniff_env.vector.notices.ESTIMATES_FILE`).

    sniff speed compile [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

from sniff_env.atomic import write_json_atomic
from sniff_env.play.warm import GROUPS
from sniff_env.vector.notices import ESTIMATES_FILE

SIGNATURES = """
import json
from sniff_env.play.warm import GROUPS
from sniff_env.vector import compiled_functions
from sniff_env.vector.notices import kernel_name, quiet
with quiet():
    for g in GROUPS:
        g.run()
print(json.dumps({kernel_name(d.py_func): len(d.signatures) for d in compiled_functions()}))
"""


def _fresh(cache: str, *argv: str) -> tuple[float, str]:
    """Run ``python argv`` with the compiled functions' cache in the empty folder ``cache``: wall seconds, stdout."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"sniff speed compile: {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - start, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sniff speed compile", description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="keep the figures as the compile notices' estimates")
    args = parser.parse_args(argv)
    groups: dict[str, float] = {}
    kernels: dict[str, float] = {}
    print(f"{'group, alone in an empty cache':<56} {'seconds':>8} {'compiles':>9}")
    for group in GROUPS:
        with tempfile.TemporaryDirectory() as cache:
            _, out = _fresh(cache, "-m", "sniff_env.play.warm", group.key)
        report: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        groups[group.key] = report["seconds"]
        for name, seconds in report["kernels"].items():
            kernels[name] = max(kernels.get(name, 0.0), seconds)
        print(f"{group.label:<56} {report['seconds']:>8.1f} {report['compiles']:>9}", flush=True)
    print(f"{'all groups one after another':<56} {sum(groups.values()):>8.1f}")
    with tempfile.TemporaryDirectory() as cache:
        wall, _ = _fresh(cache, "-m", "sniff_env", "warmup")
    with tempfile.TemporaryDirectory() as cache:  # every function compiled in one process, so each is counted
        _, counts = _fresh(cache, "-c", SIGNATURES)
    print(f"{'sniff warmup (parallel processes), wall clock':<56} {wall:>8.1f}")
    signatures: dict[str, int] = json.loads(counts)
    used = {name: n for name, n in signatures.items() if n}
    print(f"signatures per compiled function after the warm-up: {len(used)} functions, "
          f"{sum(used.values())} signatures; more than one: "
          + (", ".join(f"{k} ×{n}" for k, n in sorted(used.items()) if n > 1) or "none"))
    if args.write:
        data = {"machine": f"{os.cpu_count()} cores", "groups": groups, "kernels": dict(sorted(kernels.items()))}
        write_json_atomic(ESTIMATES_FILE, data)
        print(f"estimates written to {ESTIMATES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
