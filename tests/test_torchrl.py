"""TorchRL's own PettingZoo wrapper on the environment: its spec check and a masked rollout."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl")

import torch
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import sniff_env


def test_pettingzoo_wrapper_passes_check_env_specs_and_rolls_out_masked_actions() -> None:
    env = PettingZooWrapper(env=sniff_env.env(), use_mask=True, seed=0)
    check_env_specs(env, seed=0)
    rollout = env.rollout(60, break_when_any_done=False)
    assert rollout.batch_size == torch.Size([60])
    group = next(iter(env.group_map))
    mask = rollout[group, "action_mask"]
    action = rollout[group, "action"]
    acted = mask.any(-1)  # the agent asked to act; the others' masks are all False
    assert acted.any() and torch.gather(mask, -1, action.unsqueeze(-1)).squeeze(-1)[acted].all()
