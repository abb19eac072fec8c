"""``sniff --help`` loads only what building the parser needs; each subcommand's module is
imported when that subcommand is named, and its ``--help`` is the same as from the whole parser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sniff_env.cli import SUBCOMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numba", "torch", "onnxruntime", "gymnasium", "pettingzoo", "fastapi")
MAX_PROJECT_MODULES = 20
"""The rules core that ``import sniff_env`` loads (about fifteen modules), the command line and a few more."""


def test_top_level_help_imports_no_subcommand_and_nothing_heavy() -> None:
    code = (
        "import sys, runpy\nsys.argv = ['sniff', '--help']\n"
        "try:\n    runpy.run_module('sniff_env', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sniff_env', 'training')), file=sys.stderr)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    project, heavy = (eval(line) for line in done.stderr.strip().splitlines()[-2:])
    assert heavy == [], heavy
    assert not any(m.startswith("sniff_env.cli.") for m in project), project
    assert len(project) < MAX_PROJECT_MODULES, project
    assert "usage: sniff" in done.stdout and all(name in done.stdout for name in SUBCOMMANDS)


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_a_subcommands_help_is_the_same_from_its_own_parser(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The parser built for one subcommand gives it the options the whole parser gives it."""
    helps = []
    for parser in (build_parser([name, "--help"]), build_parser()):
        with pytest.raises(SystemExit) as done:
            parser.parse_args([name, "--help"])
        assert done.value.code == 0
        helps.append(capsys.readouterr().out)
    assert helps[0] == helps[1] and helps[0].startswith(f"usage: sniff {name}")


def test_an_unknown_subcommand_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["nosuch"])
    assert done.value.code == 2 and "invalid choice: 'nosuch'" in capsys.readouterr().err
