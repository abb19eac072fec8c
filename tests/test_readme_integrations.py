"""Every code block of the README's "Use it with your library" section runs as written."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

HEADING = "## Use it with your library"
README = Path(__file__).resolve().parent.parent / "README.md"
OPTIONAL = ("sb3_contrib", "tianshou", "torchrl", "pyspiel", "shimmy")
"""Libraries of the optional extras: a block that imports one is skipped where it is missing."""


def snippets(text: str) -> list[str]:
    """The ``python`` code blocks between :data:`HEADING` and the next heading of its level."""
    start = text.find(HEADING + "\n")
    if start < 0:
        raise AssertionError(f"README.md has no section {HEADING!r}")
    end = text.find("\n## ", start + len(HEADING))
    return re.findall(r"```python\n(.*?)```", text[start : end if end >= 0 else None], re.DOTALL)


BLOCKS = snippets(README.read_text(encoding="utf-8")) if HEADING in README.read_text(encoding="utf-8") else []


def test_the_section_has_the_blocks() -> None:
    blocks = snippets(README.read_text(encoding="utf-8"))
    text = "\n".join(blocks)
    for needle in ("pettingzoo.make", "gymnasium.make(", "make_vec", "MaskablePPO", "PettingZooEnv", "PettingZooWrapper"):
        assert needle in text, f"the section has no snippet using {needle}"


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_snippet_runs(code: str) -> None:
    for name in OPTIONAL:
        if re.search(rf"^\s*(from|import) {name}\b", code, re.MULTILINE) and importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed (an optional extra)")
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)  # torch's threads spin against the engine's on a small machine
    exec(compile(code, f"README:{HEADING}", "exec"), {"__name__": "__readme__"})  # noqa: S102  (the point)
