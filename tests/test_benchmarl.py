"""BenchMARL on Sniff through its own ``Experiment``: the task builds, every move in a collected
batch is one the env played (the waiting seats' no-ops included), those no-ops carry no policy
gradient, and the trainer exports a policy the players load."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("benchmarl") is None:  # found, it must import: no import error is skipped
    pytest.skip("BenchMARL is not installed", allow_module_level=True)

import torch
from conftest import play_out_legally

from sniff_env import make_rules
from sniff_env.players import load
from training.lib.config import ConfigError
from training.libraries.benchmarl_mappo import Args, check_args, experiment_config, train
from training.libraries.benchmarl_models import PolicyNetConfig, SniffTask

GROUP = "player"
TINY = Args(max_n_frames=200, frames_per_batch=100, n_envs=2, minibatch_iters=1, minibatch_size=50, hidden=32,
            max_hands=2, final_games=20, loggers="")


def experiment(tmp_path: Path, algorithm: str = "mappo") -> Any:
    from benchmarl.algorithms import IppoConfig, MappoConfig
    from benchmarl.experiment import Experiment
    from benchmarl.models import MlpConfig

    config = (MappoConfig if algorithm == "mappo" else IppoConfig).get_from_yaml()
    return Experiment(task=SniffTask(ruleset="sniff", num_players=2, max_hands=2), algorithm_config=config,
                      model_config=PolicyNetConfig(hidden=32), critic_model_config=MlpConfig.get_from_yaml(),
                      seed=3, config=experiment_config(TINY, tmp_path))


def test_every_move_of_a_collected_batch_is_one_the_env_played(tmp_path: Path) -> None:
    exp = experiment(tmp_path)
    batch = next(iter(exp.collector))
    exp.collector.shutdown()
    acting = batch[GROUP, "observation", "acting"].squeeze(-1).bool()  # [envs, steps, seats]
    action, mask = batch[GROUP, "action"], batch[GROUP, "action_mask"]
    noop = mask.shape[-1] - 1
    assert (acting.sum(-1) == 1).all()  # one seat acts at each step
    assert mask.gather(-1, action.unsqueeze(-1)).all()  # every move is legal for its seat
    waiting = ~acting
    assert (action[waiting] == noop).all() and (mask[waiting].sum(-1) == 1).all()  # the no-op, its only move
    assert not mask[acting][:, noop].any()  # the no-op is never offered to the seat to act


def test_the_waiting_seats_no_ops_carry_no_policy_gradient(tmp_path: Path) -> None:
    exp = experiment(tmp_path)
    batch = next(iter(exp.collector))
    exp.collector.shutdown()
    waiting = ~batch[GROUP, "observation", "acting"].squeeze(-1).bool()
    actor = exp.algorithm.get_policy_for_loss(GROUP)  # the policy BenchMARL's PPO loss differentiates
    params = [p for p in actor.parameters() if p.requires_grad]
    with torch.enable_grad():
        log_prob = actor.get_dist(batch.clone()).log_prob(batch[GROUP, "action"])
        assert torch.count_nonzero(log_prob[waiting]) == 0
        waiting_grads = torch.autograd.grad(log_prob[waiting].sum(), params, retain_graph=True, allow_unused=True)
        acting_grads = torch.autograd.grad(log_prob[~waiting].sum(), params, allow_unused=True)
    assert all(g is None or torch.count_nonzero(g) == 0 for g in waiting_grads)
    assert any(g is not None and torch.count_nonzero(g) > 0 for g in acting_grads)  # the decisions do


@pytest.mark.parametrize("algorithm", ["mappo", "ippo"])
def test_a_tiny_run_trains_exports_an_onnx_policy_and_writes_its_summary(tmp_path: Path, algorithm: str) -> None:
    result = tmp_path / "result.json"
    summary = train(replace(TINY, out_dir=str(tmp_path), exp_name="t", result=str(result), algorithm=algorithm),
                    "the command")
    rules = make_rules("sniff", 2)
    player = load(str(tmp_path / "t" / "policy.onnx"), rules=rules)
    assert player.meta["trainer"] == f"benchmarl-{algorithm}" and summary["env_steps"] == 200
    assert play_out_legally(player, rules, seed=5, max_hands=2) > 0
    written = json.loads(result.read_text())
    assert written == json.loads(json.dumps(summary)) and written["command"] == "the command"
    low, high = written["final"]["ci95"]
    assert low <= written["final"]["win_rate"] <= high and written["algorithm"] == algorithm.upper()


def test_bad_task_keywords_and_configs_are_refused_with_what_is_allowed() -> None:
    with pytest.raises(ValueError, match="reward_scale must be a positive number"):
        SniffTask(reward_scale=0)
    with pytest.raises(ValueError, match="unknown preset .no-such-rules."):
        SniffTask(ruleset="no-such-rules")
    with pytest.raises(ConfigError, match="multiple of n_envs = 2"):
        check_args(replace(TINY, frames_per_batch=101))
    with pytest.raises(ConfigError, match="loggers must be among"):
        check_args(replace(TINY, loggers="wandb"))
    with pytest.raises(ConfigError, match="NAME.onnx"):
        check_args(replace(TINY, export="policy.pt"))
