"""Every README.md is executed: every code block runs, or each command in it is checked by its own parser.

The READMEs are the top one, a short front door (:data:`TOP_LIMIT` bytes at most, its first two lines
the two commands that set up and run the main job and the test suite), and one in each folder that
owns a part of the documentation (:func:`readmes` finds them all); every check below runs on every one.

- ``python`` blocks run in a fresh interpreter (a block that imports a library of an optional
  extra is skipped, saying so, only where that library is missing); ``pycon`` blocks are doctests;
- ``bash`` / ``sh`` / ``console`` blocks, the two command lines at the top, and inline commands in
  the prose are split into commands: the cheap ones (:data:`RUN`) really run; every other
  ``sniff ...`` is parsed by the ``sniff`` parser, ``python -m training...`` by the script's own
  parser (its config file read and its fields checked), with ``--dry-run`` where the script has it;
- ``text`` blocks are compared with what they show, ``toml`` and ``json`` blocks are parsed;
- anything that can be checked in none of these ways is in :data:`EXEMPT`, with the reason.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import doctest
import importlib
import importlib.util
import inspect
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
TOP_LIMIT = 15_000
"""The most bytes the top README may hold: a front door, the rest lives next to what it describes."""

SKIP_DIRS = {".venv", "runs", "node_modules", "build", "dist", "api-reference", "__pycache__"}
"""Folders never searched for READMEs (besides hidden ones and ``*.egg-info``): environments, outputs."""

EXPECTED = {"README.md", "sniff_env/README.md", "sniff_env/integrations/README.md", "sniff_env/evaluation/benchmark/README.md",
            "training/README.md", "training/studies/README.md", "checkpoints/README.md"}
"""The READMEs the documentation is split into (relative to the repository): none may go missing."""


def readmes() -> list[str]:
    """Every README.md of the tree, relative to the repository, the top one first."""
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not (d.startswith(".") or d in SKIP_DIRS or d.endswith(".egg-info")))
        if "README.md" in files:
            found.append((Path(folder) / "README.md").relative_to(ROOT).as_posix())
    return sorted(found, key=lambda name: (name != "README.md", name))


READMES = readmes()
TEXTS = {name: (ROOT / name).read_text(encoding="utf-8") for name in READMES}
RECORDS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "checkpoints" / "results").glob("*.md"))
"""The records of what was measured, each figure with its command: their commands are checked too."""
DOCS = {**TEXTS, **{name: (ROOT / name).read_text(encoding="utf-8") for name in RECORDS}}
LIBRARY_SECTION = ("sniff_env/integrations/README.md", "Use it with your library")
"""The section (file, ``##`` heading) that shows every library's own entry point."""

OPTIONAL = {
    "torch": "train", "sb3_contrib": "integrations", "stable_baselines3": "integrations",
    "tianshou": "integrations", "torchrl": "integrations", "shimmy": "integrations",
    "pyspiel": "openspiel", "open_spiel": "openspiel", "ray": "rllib", "supersuit": "integrations",
    "moviepy": "integrations", "benchmarl": "benchmarl",
}
"""Top-level modules of the optional extras: where one is missing, what needs it is skipped."""

RUN = {
    "sniff rules --all": 60,
    "sniff agents": 60,
    "sniff agents sniff-2p": 60,
    "sniff benchmark tasks": 60,
    "sniff demo": 60,
}
"""Commands cheap enough to run for real (a subprocess; its time limit in seconds): exit status 0."""

EXEMPT = {
    "python3 -m venv .venv": "creates a virtual environment (the install line CI runs)",
    "python -m pytest -q -n 2": "runs the whole suite, which holds this test (CI runs it)",
    ".venv/bin/python -m pytest -q -n 2": "runs the whole suite, which holds this test (CI runs it)",
    "python -m tests.entry_points": "tries every library's entry point in fresh processes (minutes); the suite "
    "tests each one itself",
    "python -m tests.test_golden --regen": "rewrites the golden games; its only option is --regen",
    "tensorboard --logdir runs": "TensorBoard's own program, not this project's",
    "sniff eval": "names the command in prose; it needs players",
    "sniff replay": "names the command in prose; it needs a log",
    "sniff exploit": "names the command in prose; it needs a player",
    "python -m tests.house_metrics --out FILE": "a synopsis: FILE is where the figures go (it times sniff --help for seconds)",
    "sniff eval PLAYER PLAYER ... --games N --workers 2 --out checkpoints/results/NAME": "a synopsis: "
    "PLAYER, N and NAME are placeholders",
    "python -m sniff_env": "the sniff command under another name (tests/test_packaging.py runs it)",
    "python -m training.NAME": "a synopsis: NAME stands for any trainer",
    "sniff speed NAME": "a synopsis: NAME stands for any speed script (sniff speed lists them)",
    "python -m tests.test_all_games_end --games 200": "plays 200 random games of every combination on six "
    "environments (27 minutes on two cores); tests/test_all_games_end.py plays it small",
}
"""Commands (exact, after joining lines) that are neither run nor parsed, and why."""

EXEMPT_PREFIXES = {".venv/bin/pip install": "installs packages (the install line CI runs)"}

EXEMPT_TEXT = {
    "── sniff · 2 players": "a capture of an interactive terminal session (the terminal table's "
    "own tests render positions)",
}
"""``text`` blocks, by their first line's start, that show output no test reproduces, and why."""

OBSERVATION = "observation layout"


@dataclasses.dataclass(frozen=True)
class Block:
    """A fenced code block: its README, language, code, the line of its opening fence and its section."""

    file: str
    lang: str
    code: str
    line: int
    section: str

    @property
    def id(self) -> str:
        return f"{self.file}:line{self.line}-{self.lang or 'plain'}"

    @property
    def where(self) -> str:
        return f"{self.file} line {self.line} ({self.section})"


def fenced_blocks(text: str, file: str = "README.md") -> list[Block]:
    """Every fenced block of ``text`` (the README ``file``), with the ``##`` section it lies in."""
    blocks, section = [], ""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        fence = re.match(r"^```(\S*)\s*$", line)
        if fence:
            end = lines.index("```", i + 1)
            blocks.append(Block(file, fence.group(1), "\n".join(lines[i + 1 : end]) + "\n", i + 1, section))
            i = end
        i += 1
    return blocks


def split_commands(code: str) -> list[list[str]]:
    """The commands of a shell block: lines joined at trailing backslashes, comments dropped,
    ``&&`` chains split, a leading ``time`` or ``$`` prompt removed."""
    out: list[list[str]] = []
    for line in code.replace("\\\n", " ").split("\n"):
        words = shlex.split(line.removeprefix("$ "), comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            command, words = words[:cut], words[cut + 1 :]
            if command and command[0] == "time":
                command = command[1:]
            if command:
                out.append(command)
    return out


def inline_commands(text: str) -> list[tuple[int, list[str]]]:
    """Commands quoted inline in the prose (outside fenced blocks), with their line."""
    found = []
    outside = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.DOTALL)
    for m in re.finditer(r"`([^`]+)`", outside):
        span = " ".join(m.group(1).split())
        if re.match(r"(time )?(sniff [a-z]|python -m )", span):
            found.append((outside.count("\n", 0, m.start()) + 1, split_commands(span)[0]))
    return found


BLOCKS = [block for name in DOCS for block in fenced_blocks(DOCS[name], name)]
TOP = "\n".join(line.strip() for line in TEXT.split("\n")[:2])
COMMANDS: list[tuple[str, list[str]]] = (
    [(f"README.md:line{n}", cmd) for n, line in enumerate(TOP.split("\n"), 1) for cmd in split_commands(line)]
    + [(b.id, cmd) for b in BLOCKS if b.lang in ("bash", "sh", "console") for cmd in split_commands(b.code)]
    + [(f"{name}:line{n}-inline", cmd) for name in DOCS for n, cmd in inline_commands(DOCS[name])]
)


def _missing_extra(modules: set[str]) -> str | None:
    for name in sorted(modules):
        if name in OPTIONAL and importlib.util.find_spec(name) is None:
            return f"{name} is not installed (the optional extra [{OPTIONAL[name]}])"
    return None


NEEDS = {"sniff_env.integrations.openspiel": "pyspiel", "sniff_env.integrations.sb3": "stable_baselines3",
         "sniff_env.integrations.rllib": "ray", "sniff_env.integrations.benchmarl": "benchmarl"}
"""The project's adapters and the optional library each imports."""


def _imports(code: str) -> set[str]:
    """The top-level modules ``code`` imports, and the optional libraries its adapters import."""
    names = set(re.findall(r"^\s*(?:from|import) ([\w.]+)", code, re.MULTILINE))
    return {n.split(".")[0] for n in names} | {lib for adapter, lib in NEEDS.items() if adapter in names}


def _env() -> dict[str, str]:
    # one thread each: torch's and the engine's threads spin against each other on a small machine
    return {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _exemption(command: str) -> str | None:
    if command in EXEMPT:
        return EXEMPT[command]
    return next((why for prefix, why in EXEMPT_PREFIXES.items() if command.startswith(prefix)), None)


class _Parsed(BaseException):
    """Raised by the patched ``parse_args`` once a script's own parser accepted its arguments."""


def _parse_training_script(name: str, args: list[str]) -> None:
    """``python -m training.NAME args``, checked by that script's own parser without running it:
    ``parse_config`` of its ``Args`` (the ``--config`` file read, its fields checked), or its
    argparse parser stopped right after parsing; a script with ``--dry-run`` runs with it."""
    path = name.replace(".", "/") + ".py"
    if not (ROOT / path).is_file():
        pytest.fail(f"python -m {name}: no such script")
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in OPTIONAL:
            pytest.skip(_missing_extra({exc.name.split(".")[0]}) or str(exc))
        raise
    source = inspect.getsource(module)
    cls = getattr(module, "Args", None)
    if dataclasses.is_dataclass(cls) and "parse_config(Args" in source:
        from training.lib.config import parse_config

        parse_config(cls, args, path)
    elif '"--dry-run"' in source:
        with contextlib.redirect_stdout(io.StringIO()):
            assert module.main([*args, "--dry-run"]) == 0, f"python {path} {shlex.join(args)} --dry-run failed"
    else:
        real = argparse.ArgumentParser.parse_args

        def parse_then_stop(self: argparse.ArgumentParser, *a: Any, **k: Any) -> Any:
            raise _Parsed(real(self, *a, **k))

        with mock.patch.object(argparse.ArgumentParser, "parse_args", parse_then_stop), pytest.raises(_Parsed):
            module.main(args)


def _check_test_files(args: list[str]) -> None:
    """``python -m pytest ... FILES``: each named test file exists and holds tests (running them
    here would run the suite inside itself)."""
    files = [a for a in args if not a.startswith("-")]
    assert files, "a pytest command in the README names no test file"
    for name in files:
        path = ROOT / name
        assert path.is_file(), f"python -m pytest {name}: no such test file"
        assert re.search(r"^def test_", path.read_text(), re.MULTILINE), f"{name} holds no test"


@pytest.mark.parametrize("where, argv", COMMANDS, ids=[f"{w}:{shlex.join(c)[:60]}" for w, c in COMMANDS])
def test_command(
    where: str, argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the commands name files relative to the repository
    command = shlex.join(argv)
    why = _exemption(command)
    if why is not None:
        pytest.skip(f"exempt: {why}")
    program = Path(argv[0]).name
    key = shlex.join([program, *argv[1:]])
    try:
        if program == "sniff" and key in RUN:
            done = subprocess.run(
                [sys.executable, "-m", "sniff_env.cli", *argv[1:]], check=False, cwd=ROOT, env=_env(),
                capture_output=True, text=True, timeout=RUN[key],
            )
            assert done.returncode == 0, f"{command} ({where}) failed:\n{done.stderr[-2000:]}"
            assert done.stdout.strip(), f"{command} printed nothing"
        elif program == "sniff":
            from sniff_env.cli import build_parser

            build_parser().parse_args(argv[1:])
        elif program in ("python", "python3") and len(argv) > 2 and argv[1] == "-m" and argv[2].startswith("training."):
            _parse_training_script(argv[2], argv[3:])
        elif program in ("python", "python3") and argv[1:3] == ["-m", "pytest"]:
            _check_test_files(argv[3:])
        else:
            pytest.fail(f"{where}: no way to check {command!r}: run it, parse it, or exempt it with a reason")
    except SystemExit as exc:  # argparse refused the arguments
        pytest.fail(f"{where}: {command!r} is refused by its parser ({exc}): {capsys.readouterr().err}")


def test_every_exemption_is_still_in_the_readme() -> None:
    commands = {shlex.join(c) for _, c in COMMANDS}
    assert set(EXEMPT) <= commands, f"exempt but in no README: {sorted(set(EXEMPT) - commands)}"
    assert set(RUN) <= commands, f"run but in no README: {sorted(set(RUN) - commands)}"
    firsts = {b.code.split("\n")[0] for b in BLOCKS if b.lang == "text"}
    assert all(any(f.startswith(p) for f in firsts) for p in EXEMPT_TEXT), "an exempt text block is gone"


PYTHON = [b for b in BLOCKS if b.lang == "python"]


@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_python_block_runs(block: Block, tmp_path: Path) -> None:
    missing = _missing_extra(_imports(block.code))
    if missing:
        pytest.skip(missing)
    done = subprocess.run(
        [sys.executable, "-c", block.code], check=False, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, f"{block.where} fails:\n{done.stderr[-3000:]}"


PYCON = [b for b in BLOCKS if b.lang == "pycon"]


@pytest.mark.parametrize("block", PYCON, ids=[b.id for b in PYCON])
def test_pycon_block_is_a_passing_doctest(block: Block) -> None:
    test = doctest.DocTestParser().get_doctest(block.code, {}, block.id, str(ROOT / block.file), block.line)
    assert test.examples, f"{block.where}: a pycon block with no >>> example"
    out = io.StringIO()
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=out.write)
    assert result.failed == 0, out.getvalue()


OTHERS = [b for b in BLOCKS if b.lang not in ("python", "pycon", "bash", "sh", "console")]


@pytest.mark.parametrize("block", OTHERS, ids=[b.id for b in OTHERS])
def test_other_block_is_valid(block: Block) -> None:
    first = block.code.split("\n")[0]
    if block.lang == "toml":
        tomllib.loads(block.code)
    elif block.lang == "json":
        json.loads(block.code)
    elif block.lang == "text" and first.startswith(OBSERVATION):
        from sniff_env import make_rules
        from sniff_env.observation import Observer

        shown = re.search(r"sniff-obs-v\d+/pip(\d+)/p(\d+)", first)
        assert shown, f"{block.where}: the layout names no rules"
        rules = make_rules("sniff", int(shown.group(2)), max_pip=int(shown.group(1)))
        assert block.code.rstrip("\n") == Observer(rules).describe().rstrip("\n"), (
            f"{block.where}: the observation layout shown is not Observer(rules).describe()"
        )
    elif block.lang == "text" and any(first.startswith(p) for p in EXEMPT_TEXT):
        pytest.skip("exempt: " + next(why for p, why in EXEMPT_TEXT.items() if first.startswith(p)))
    else:
        pytest.fail(f"{block.where}: a {block.lang or 'plain'} block no check knows; tag it and check it")


def test_the_library_section_shows_every_library() -> None:
    code = "\n".join(b.code for b in PYTHON if (b.file, b.section) == LIBRARY_SECTION)
    for needle in ("pettingzoo.make", "gymnasium.make(", "make_vec", "MaskablePPO", "PettingZooEnv",
                   "PettingZooWrapper", "pyspiel.load_game", "OpenSpielCompatibilityV0", "Experiment("):
        assert needle in code, f"the section {LIBRARY_SECTION!r} has no block using {needle}"


def test_the_readme_is_covered() -> None:
    """The parsing above found what is there: a section without its blocks would pass silently."""
    assert EXPECTED <= set(READMES), f"READMEs gone: {sorted(EXPECTED - set(READMES))}"
    langs = {b.lang for b in BLOCKS}
    assert {"python", "pycon", "bash", "text"} <= langs, langs
    assert len(PYTHON) >= 8 and len(COMMANDS) >= 40, (len(PYTHON), len(COMMANDS))
    for name, text in TEXTS.items():
        assert text.count("```") == 2 * sum(b.file == name for b in BLOCKS), f"{name}: an unbalanced or indented fence"
    assert any(b.file == "README.md" and b.lang == "python" for b in BLOCKS), "the top README shows no environment loop"
    assert any(b.file == "README.md" and b.lang == "bash" for b in BLOCKS), "the top README shows no commands"


def test_the_top_readme_is_a_front_door() -> None:
    """At most :data:`TOP_LIMIT` bytes; its first two lines are the two commands (``.ci/run`` runs the
    second); it links to every other README."""
    size = len(TEXT.encode("utf-8"))
    assert size <= TOP_LIMIT, f"README.md is {size} bytes; move what it describes next to it, under {TOP_LIMIT}"
    first, second, third = TEXT.split("\n")[:3]
    for line in (first, second):
        assert line.startswith("    python3 -m venv .venv && "), f"not an indented command line: {line!r}"
    assert third.strip() == "", "the two command lines stand alone, a blank line after them"
    main_job, tests = split_commands(first.strip())[-1], split_commands(second.strip())[-1]
    assert Path(main_job[0]).name == "sniff", f"the first line does not end by running the sniff command: {main_job}"
    assert tests[0] == ".venv/bin/python" and tests[1:3] == ["-m", "pytest"], f"the second line runs no tests: {tests}"
    linked = {os.path.normpath(target.split("#")[0]) for target in re.findall(r"\]\(([^)#]+README\.md)[^)]*\)", TEXT)}
    assert set(READMES) - {"README.md"} <= linked, f"READMEs the top one does not link to: {sorted(set(READMES) - linked - {'README.md'})}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    outside = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", outside, re.MULTILINE)}


@pytest.mark.parametrize("name", READMES)
def test_every_link_finds_its_file_and_section(name: str) -> None:
    """Links to a section of the same README, and relative links and images to other files (a README's
    section included) resolve from the README's own folder."""
    text = re.sub(r"```.*?```", "", TEXTS[name], flags=re.DOTALL)
    folder = (ROOT / name).parent
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):  # http(s), mailto: not checked here
            continue
        path, _, anchor = target.partition("#")
        file = (folder / path).resolve() if path else ROOT / name
        if not file.exists():
            bad.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text(encoding="utf-8")):
            bad.append(f"{target}: no such section")
    assert not bad, f"{name}: {bad}"


def test_every_link_to_a_section_finds_it() -> None:
    links = [link for text in TEXTS.values() for link in re.findall(r"\]\(#([^)]+)\)", text)]
    assert links, "no README links to its own sections"
    assert re.findall(r"\]\(([^)#]+)#([^)]+)\)", TEXT), "the top README links to no section of another"
