"""The package as others get it: its licence and metadata, ``python -m sniff_env``, a wheel built
from a checkout that leaves the checkout clean, and the API reference built from the docstrings."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import warnings
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_licence_and_the_metadata() -> None:
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Copyright (c) the sniff-env authors" in licence
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    assert PROJECT["authors"] == [{"name": "the sniff-env authors"}]
    assert PROJECT["keywords"] and any(c.startswith("Topic :: Games") for c in PROJECT["classifiers"])
    assert any(dep.startswith("pillow") for dep in PROJECT["dependencies"])  # the rgb_array frames


def test_python_dash_m_runs_the_sniff_command() -> None:
    done = subprocess.run([sys.executable, "-m", "sniff_env", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.startswith("usage: sniff ") and "warmup" in done.stdout


def _checkout_files() -> list[str]:
    """The files of the checkout: tracked, and new ones that git does not ignore."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True, timeout=60).stdout.decode()
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def test_a_wheel_built_from_a_checkout_leaves_it_clean(tmp_path: Path) -> None:
    source, out = tmp_path / "checkout", tmp_path / "wheels"
    for name in _checkout_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    before = sorted(p.name for p in source.iterdir())
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                           str(out), str(source)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(p.name for p in source.iterdir()) == before  # no build/, no sniff_env.egg-info/
    wheel = next(out.glob("sniff_env-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "sniff_env/__main__.py" in names and "sniff_env/envs/drawing.py" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "sniff_env/checkpoints/sniff-2p.md" in names  # the cards go with the agents
    assert "sniff_env/checkpoints/README.md" not in names  # the folder's guide stays in the repository


def test_the_api_reference_builds_without_warnings(tmp_path: Path) -> None:
    pytest.importorskip("pdoc")
    from sniff_env.cli import docs

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        skipped = docs.build(tmp_path)
    assert not [str(w.message) for w in caught]
    assert not skipped, f"modules left out: {skipped}"
    pages = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.html")}
    assert {"index.html", "sniff_env.html", "sniff_env/envs/aec.html", "sniff_env/envs/batch_env.html"} <= pages
    assert len(pages) == len(docs.module_names()) + 1
    assert "parallel_env" in (tmp_path / "sniff_env" / "sniff_v0.html").read_text(encoding="utf-8")
    top = (tmp_path / "sniff_env.html").read_text(encoding="utf-8")  # its navigation lists every direct submodule
    children = {n for n in docs.module_names() if n.count(".") == 1}
    assert len(children) > 20 and all(f'href="sniff_env/{n.split(".")[1]}.html"' in top for n in children), [
        n for n in children if f'href="sniff_env/{n.split(".")[1]}.html"' not in top]
