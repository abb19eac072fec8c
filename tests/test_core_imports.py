"""The rules core imports without any RL library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CORE = ("tiles", "rules", "presets", "actions", "scoring", "deal", "game", "infostate", "observation", "errors")
HEAVY = ("pettingzoo", "gymnasium", "torch", "numba")


def test_core_leaves_rl_libraries_unimported() -> None:
    code = "\n".join(
        [
            "import sys",
            "import sniff_env",
            *(f"import sniff_env.{m}" for m in CORE),
            "game = sniff_env.new_game(sniff_env.make_rules('sniff', 2), seed=0)",
            "game.step(game.legal_actions()[0])",
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))",
        ]
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]", out.stdout
