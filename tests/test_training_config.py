"""A trainer's arguments are checked where they are read: type, finiteness and each field's bounds.

Every trainer refuses an out-of-range value before it does any work, with a ``ConfigError``
that names the field, its flag and what it allows; the bounds are data in each field's metadata,
and every default lies within them.
"""

from __future__ import annotations

import dataclasses
import importlib
import typing
from pathlib import Path

import pytest

from training.lib.config import ConfigError, bounds, check_fields, from_sources, parse_config

TRAINERS = ("training.ppo", "training.imitation", "training.libraries.sb3_maskable", "training.libraries.tianshou_dqn",
            "training.libraries.rllib_selfplay", "training.studies.greedy_ties", "training.studies.tune_heuristic")


def args_class(module: str) -> type:
    return importlib.import_module(module).Args  # type: ignore[no-any-return]


@pytest.mark.parametrize("module", TRAINERS)
def test_every_default_lies_within_its_fields_bounds(module: str) -> None:
    check_fields(args_class(module)())


@pytest.mark.parametrize("module", TRAINERS)
def test_every_numeric_field_states_its_bounds(module: str) -> None:
    """A count, rate or coefficient without bounds would take any value: each one names them."""
    cls = args_class(module)
    hints = typing.get_type_hints(cls)
    unbounded = [f.name for f in dataclasses.fields(cls)
                 if hints[f.name] in (int, float) and not bounds(f.metadata) and f.name != "points_prior"]
    assert not unbounded, f"{module}: fields without bounds: {unbounded}"


@pytest.mark.parametrize(("module", "flag", "value", "words"), [
    ("training.ppo", "--gamma", "2", r"gamma \(--gamma\) must be in \[0, 1\]; got 2.0"),
    ("training.ppo", "--update-epochs", "0", r"update_epochs \(--update-epochs\) must be at least 1; got 0"),
    ("training.ppo", "--num-minibatches", "0", "num_minibatches .* at least 1"),
    ("training.ppo", "--clip-coef", "-1", r"clip_coef \(--clip-coef\) must be above 0; got -1.0"),
    ("training.ppo", "--pool-size", "-1", "pool_size .* at least 0"),
    ("training.ppo", "--learning-rate", "nan", r"learning_rate \(--learning-rate\) must be a finite number; got nan"),
    ("training.ppo", "--arch", "cnn", r"arch \(--arch\) must be one of 'mlp', 'move', 'move-mobility', 'move-tiles'; got 'cnn'"),
    ("training.ppo", "--num-players", "9", "no game of 9 players"),
    ("training.ppo", "--preset", "chess", "unknown preset 'chess'; presets: sniff"),
    ("training.imitation", "--hidden", "0", r"hidden \(--hidden\) must be at least 1; got 0"),
    ("training.imitation", "--epochs", "-1", "epochs .* at least 0"),
    ("training.imitation", "--holdout", "1", r"holdout \(--holdout\) must be in \[0, 1\); got 1.0"),
    ("training.imitation", "--q-scale", "inf", "q_scale .* finite"),
    ("training.imitation", "--rules", "scoring=sevens", "scoring"),
    ("training.libraries.sb3_maskable", "--batch-size", "1", "batch_size .* at least 2"),
    ("training.libraries.sb3_maskable", "--gamma", "-0.5", r"gamma .* in \[0, 1\]"),
])
def test_out_of_range_values_are_refused_before_any_work(tmp_path: Path, module: str, flag: str, value: str,
                                                         words: str) -> None:
    main = importlib.import_module(module).main
    with pytest.raises(ConfigError, match=words):
        main(["--out-dir", str(tmp_path), flag, value])
    assert not any(tmp_path.iterdir())


def test_a_config_files_value_is_checked_like_a_flag(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text("selfplay_prob = 1.5\n")
    with pytest.raises(ConfigError, match=r"selfplay_prob \(--selfplay-prob\) must be in \[0, 1\]; got 1.5"):
        parse_config(args_class("training.ppo"), ["--config", str(cfg)], "")
    cfg.write_text("selfplay_prob = 0.25\n")
    assert parse_config(args_class("training.ppo"), ["--config", str(cfg), "--gamma", "1"], "").gamma == 1.0


def test_the_bounds_are_inclusive_or_exclusive_as_stated() -> None:
    ppo = args_class("training.ppo")
    assert from_sources(ppo, {"gamma": 0, "stop_after": 0, "learning_rate": 0, "clip_coef": 1e-9}, {}).gamma == 0.0
    with pytest.raises(ConfigError, match="above 0"):
        from_sources(ppo, {"clip_coef": 0}, {})


def test_the_help_shows_what_each_field_allows(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_config(args_class("training.ppo"), ["--help"], "")
    text = " ".join(capsys.readouterr().out.split())
    assert "(in [0, 1]; default: 0.99)" in text
    assert "(at least 1; default: 4)" in text


def test_arguments_built_in_code_are_checked_too() -> None:
    ppo = args_class("training.ppo")
    with pytest.raises(ConfigError, match="num_envs .* at least 1"):
        check_fields(ppo(num_envs=0))
    with pytest.raises(ConfigError, match="field hidden must be int"):
        check_fields(ppo(hidden=2.5))  # type: ignore[arg-type]
