"""What moved in the training code keeps working for one release, with a DeprecationWarning that
says what to use: the old experience module, the collector's old config name, the expert-iteration
script's old module, and PPO's ``--engine python`` and ``--collector reference``."""

from __future__ import annotations

import importlib
import sys
from dataclasses import replace
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from training import ppo
from training.lib import collector, experience, reference_collector


def fresh_import(name: str, monkeypatch: pytest.MonkeyPatch) -> object:
    """``name`` imported anew (its module-level warning given again)."""
    monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module(name)


def test_the_old_experience_module_reexports_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.warns(DeprecationWarning, match="training.lib.experience"):
        old = fresh_import("training.lib.ppo_rollout", monkeypatch)
    assert old.RolloutSettings is experience.ExperienceSettings  # type: ignore[attr-defined]
    assert old.VectorSelfPlay is experience.VectorSelfPlay  # type: ignore[attr-defined]
    assert old.collect_vector is reference_collector.collect_vector  # type: ignore[attr-defined]
    assert old.SelfPlay is reference_collector.SelfPlay  # type: ignore[attr-defined]


def test_the_collectors_old_config_name_warns() -> None:
    with pytest.warns(DeprecationWarning, match="CollectorConfig"):
        assert collector.RolloutConfig is collector.CollectorConfig
    with pytest.raises(AttributeError):
        _ = collector.NoSuchName  # type: ignore[attr-defined]


def test_the_expert_iteration_module_forwards_to_the_study(monkeypatch: pytest.MonkeyPatch) -> None:
    from training.studies import expert_iteration

    with pytest.warns(DeprecationWarning, match="training.studies.expert_iteration"):
        old = fresh_import("training.expert_iteration", monkeypatch)
    assert old.main is expert_iteration.main and old.Args is expert_iteration.Args  # type: ignore[attr-defined]


def test_deprecated_choices_say_what_to_give() -> None:
    assert ppo.deprecations(ppo.Args()) == []
    said = ppo.deprecations(replace(ppo.Args(), engine="python", collector="reference"))
    assert len(said) == 2 and "give --engine vector" in said[0] and "give --collector exact" in said[1]


def test_the_deprecated_choices_run_on_the_batched_collector_with_a_warning(tmp_path: Path) -> None:
    """``--engine python --collector reference`` warns and trains as ``--collector exact`` does."""
    tiny = ["--total-steps", "256", "--num-envs", "8", "--num-steps", "16", "--hidden", "16", "--eval-every", "0",
            "--tensorboard", "false", "--progress", "false", "--out-dir", str(tmp_path)]
    with pytest.warns(DeprecationWarning) as caught:
        assert ppo.main([*tiny, "--exp-name", "old", "--engine", "python", "--collector", "reference"]) == 0
    assert {"--engine python", "--collector reference"} <= {str(w.message).split(" is ")[0] for w in caught}
    assert ppo.main([*tiny, "--exp-name", "new", "--collector", "exact"]) == 0
    old, new = (torch.load(tmp_path / run / "checkpoint.pt", weights_only=False)["model"] for run in ("old", "new"))
    for key in new:
        assert torch.equal(old[key], new[key]), key
