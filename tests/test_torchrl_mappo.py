"""The TorchRL MAPPO script on a tiny budget: it trains on the parallel form through TorchRL's
PettingZoo wrapper, keeps the waiting seat's no-ops out of the policy's loss, exports an ONNX
policy the players load, and summarises the run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("torchrl")

import torch
from conftest import play_out_legally

from sniff_env import make_rules
from sniff_env.players import load
from training.lib.config import ConfigError
from training.libraries.torchrl_mappo import Args, check_args, masked_losses, train

TINY = Args(total_frames=256, n_envs=2, frames_per_batch=128, minibatch_size=64, num_epochs=1, hidden=32,
            max_hands=2, eval_every=0, final_games=20, tensorboard=False)


def test_tiny_run_trains_exports_an_onnx_policy_and_writes_its_summary(tmp_path: Path) -> None:
    result = tmp_path / "result.json"
    summary = train(replace(TINY, out_dir=str(tmp_path), exp_name="t", result=str(result)), "the command")
    policy = tmp_path / "t" / "policy.onnx"  # named by the run
    rules = make_rules("sniff", 2)
    player = load(str(policy), rules=rules)
    assert player.meta["trainer"] == "torchrl-mappo" and player.meta["training_steps"] == 256
    assert play_out_legally(player, rules, seed=5, max_hands=2) > 0
    written = json.loads(result.read_text())
    assert written == json.loads(json.dumps(summary)) and written["command"] == "the command"
    assert written["env_steps"] == 256 and written["waiting_no_ops_excluded"] == 256
    low, high = written["final"]["ci95"]
    assert low <= written["final"]["win_rate"] <= high and written["final"]["duplicate_games"] == 20


def test_a_waiting_agents_no_op_never_enters_the_policy_loss() -> None:
    acting = torch.tensor([[1, 0], [0, 1], [1, 0]], dtype=torch.int8).unsqueeze(-1)
    out = {name: torch.rand(3, 2) for name in ("loss_objective", "loss_entropy", "loss_critic")}
    changed = {name: value.clone() for name, value in out.items()}
    for value in changed.values():
        value[acting.squeeze(-1) == 0] += 100.0  # only the waiting entries differ
    first, second = masked_losses(out, acting), masked_losses(changed, acting)
    for name in ("loss_objective", "loss_entropy"):
        torch.testing.assert_close(first[name], second[name])
        torch.testing.assert_close(first[name], out[name][acting.squeeze(-1) == 1].mean())
    assert second["loss_critic"] > first["loss_critic"]  # the critic learns every state's value


def test_configs_that_cannot_run_are_refused_with_what_is_allowed() -> None:
    with pytest.raises(ConfigError, match="multiple of n_envs = 2"):
        check_args(replace(TINY, frames_per_batch=129))
    with pytest.raises(ConfigError, match="NAME.onnx"):
        check_args(replace(TINY, export="policy.pt"))
    with pytest.raises(ConfigError, match="critic"):
        check_args(replace(TINY, critic="global"))
