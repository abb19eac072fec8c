"""How the code reads from outside, as numbers: which modules outside the engine import its
kernels, the largest parameter counts, the Markdown's size per file and in all, the PPO trainer's
arguments and collection paths, the function-level imports of project modules, and how long
``sniff --help`` takes to import. ``python -m tests.house_metrics [--root DIR] [--out FILE.json]``;
``--root`` measures another checkout (an older version, to compare)."""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sniff_env", "training")
ENGINE = ("sniff_env/vector/", "sniff_env/players/compiled/")
KERNELS = "sniff_env.vector.kernels"


def sources(root: Path) -> list[Path]:
    """The project's Python files, tests excluded."""
    return sorted(p for pkg in PACKAGES for p in (root / pkg).rglob("*.py") if "__pycache__" not in p.parts)


def module_of(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(node: ast.AST, module: str) -> list[str]:
    """The absolute names an import statement in ``module`` brings in (``from a import b`` gives
    ``a`` and ``a.b``, since ``b`` may be a module)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            up = module.split(".")[: len(module.split(".")) - node.level]
            base = ".".join([*up, base] if base else up)
        return [base, *(f"{base}.{a.name}" for a in node.names)]
    return []


def kernel_importers(root: Path) -> list[str]:
    """Modules outside the engine's two packages that import the kernels module."""
    out = []
    for path in sources(root):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(ENGINE):
            continue
        names = {n for node in ast.walk(ast.parse(path.read_text())) for n in imported(node, module_of(root, path))}
        if KERNELS in names:
            out.append(rel)
    return out


def parameter_counts(root: Path) -> list[tuple[int, str]]:
    """Every function's parameter count (``self``/``cls`` not counted), largest first."""
    rows = []
    for path in sources(root):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
                if a.args and a.args[0].arg in ("self", "cls"):
                    n -= 1
                rows.append((n, f"{path.relative_to(root).as_posix()}:{node.name}"))
    return sorted(rows, reverse=True)


def markdown(root: Path) -> dict[str, int]:
    """Bytes of each tracked Markdown file outside ``checkpoints/`` (the cards and results)."""
    files = subprocess.run(["git", "ls-files", "*.md"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    return {f: (root / f).stat().st_size for f in sorted(files) if not f.startswith("checkpoints/")}


def ppo_arguments(root: Path) -> int:
    """The fields of ``training/ppo.py``'s own ``Args`` and of the bases it declares there."""
    tree = ast.parse((root / "training" / "ppo.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Args":
            return sum(isinstance(s, ast.AnnAssign) for s in node.body)
    return 0


def function_level_imports(root: Path) -> list[str]:
    """``file:line module`` of every import of a project module inside a function."""
    out = []
    for path in sources(root):
        module = module_of(root, path)
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                names = imported(node, module)
                if names and names[0].split(".")[0] in PACKAGES:
                    out.append(f"{path.relative_to(root).as_posix()}:{node.lineno} {names[0]}")
    return sorted(set(out))


def help_seconds(root: Path, runs: int = 7) -> tuple[float, int]:
    """The median wall time of ``python -m sniff_env --help`` and how many project modules it imports."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sniff_env", "--help"], cwd=root, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    code = "import sys, runpy; sys.argv=['sniff','--help']\ntry: runpy.run_module('sniff_env', run_name='__main__')\n" \
           "except SystemExit: pass\nprint(sum(m.split('.')[0] in ('sniff_env','training') for m in sys.modules), file=sys.stderr)"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True)
    baseline = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        baseline.append(time.perf_counter() - t)
    return statistics.median(times) - statistics.median(baseline), int(out.stderr.strip().splitlines()[-1])


def measure(root: Path) -> dict[str, Any]:
    params = parameter_counts(root)
    md = markdown(root)
    help_s, help_modules = help_seconds(root)
    return {
        "kernel_importers_outside_engine": kernel_importers(root),
        "largest_parameter_counts": [f"{n} {name}" for n, name in params[:5]],
        "functions_over_12_parameters": sum(n > 12 for n, _ in params),
        "markdown_bytes": md, "markdown_total_bytes": sum(md.values()),
        "ppo_arguments": ppo_arguments(root),
        "function_level_imports": len(function_level_imports(root)),
        "help_import_ms": round(help_s * 1000), "help_project_modules": help_modules,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    m = measure(args.root.resolve())
    for key, value in m.items():
        if key == "markdown_bytes":
            for f, n in value.items():
                print(f"  {f}: {n / 1000:.1f} KB")
        elif isinstance(value, list):
            print(f"{key}: {len(value)}" + "".join(f"\n  {v}" for v in value))
        else:
            print(f"{key}: {value}")
    if args.out:
        args.out.write_text(json.dumps(m, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
