"""``training/HOWTO.md`` does what it says: its example trainer, written out as a module with its
config beside it, trains on a tiny budget, evaluates, and exports an ONNX policy that the player
registry loads and that plays only legal moves."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from conftest import play_out_legally

from sniff_env import make_rules
from sniff_env.players import load
from training.lib.run_args import RunArgs

HOWTO = Path(__file__).resolve().parent.parent / "training" / "HOWTO.md"


def blocks(language: str) -> list[str]:
    """The fenced code blocks of ``language`` in the how-to, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", HOWTO.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE)


def test_the_howto_example_trains_and_exports_a_policy_that_plays_legally(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (code,), (config,) = blocks("python"), blocks("toml")
    module_path = tmp_path / "tiny_clone.py"
    module_path.write_text(code, encoding="utf-8")
    config_path = tmp_path / "tiny_clone.toml"
    config_path.write_text(config, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("tiny_clone", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "tiny_clone", module)  # dataclasses resolve the module by name
    spec.loader.exec_module(module)
    assert issubclass(module.Args, RunArgs)
    assert {f.name for f in dataclasses.fields(RunArgs)} <= {f.name for f in dataclasses.fields(module.Args)}

    policy = tmp_path / "tiny-clone.onnx"
    monkeypatch.chdir(tmp_path)  # the config's relative paths land in the temporary folder
    assert module.main(["--config", str(config_path), "--games", "4", "--epochs", "5", "--eval-games", "2",
                        "--export", str(policy)]) == 0
    assert "win rate against greedy" in capsys.readouterr().out

    rules = make_rules("sniff", 2)
    player = load(str(policy), rules=rules)
    assert play_out_legally(player, rules, seed=5, max_hands=2) > 0
