"""The Tianshou DQN script on a tiny budget: it trains, acts legally, exports, repeats itself."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tianshou")

import torch
from conftest import play_out_legally
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.utils.torch_utils import policy_within_training_step

from sniff_env import make_rules
from sniff_env.players import load
from training.lib.config import ConfigError
from training.lib.network import make_net
from training.libraries.tianshou_dqn import Args, QNetwork, check_args, main, make_venv, train

TINY = Args(
    total_timesteps=480, learning_starts=160, n_envs=16, collect_steps=2, updates_per_step=0.25,
    batch_size=32, buffer_size=512, hidden=32, target_update_freq=8, eval_every=0, opponent="greedy",
    tensorboard=False,
)


def test_tiny_run_trains_and_exports_a_legal_policy(tmp_path: Path) -> None:
    policy = tmp_path / "dqn.onnx"
    args = replace(TINY, out_dir=str(tmp_path), exp_name="t", export=str(policy), eval_every=320, eval_games=4,
                   tensorboard=True)
    torch.manual_seed(args.seed)
    untrained = QNetwork(make_net(make_rules("sniff", 2), args.hidden)).state_dict()
    qnet = train(args)
    assert any(not torch.equal(v, untrained[k]) for k, v in qnet.state_dict().items())
    assert any((tmp_path / "t" / "tb").iterdir())  # the evaluations' TensorBoard log
    rules = make_rules("sniff", 2)
    player = load(str(policy), rules=rules)
    assert player.meta["trainer"] == "tianshou-dqn" and player.meta["training_steps"] == args.total_timesteps
    assert play_out_legally(player, rules, seed=5, max_hands=2) > 0


def test_same_seed_same_weights_other_seed_other_weights(tmp_path: Path) -> None:
    def weights(seed: int, name: str) -> dict[str, torch.Tensor]:
        return dict(train(replace(TINY, seed=seed, out_dir=str(tmp_path), exp_name=name)).state_dict())

    first, again, other = weights(3, "a"), weights(3, "b"), weights(4, "c")
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert any(not torch.equal(first[k], other[k]) for k in first)


def test_collection_and_targets_keep_to_the_mask() -> None:
    """Exploring collection stores only legal actions, and the greedy choice on a next state (the
    action double DQN bootstraps from) is legal even where an illegal action has the largest Q."""
    torch.manual_seed(0)
    np.random.seed(0)
    envs = make_venv(TINY)
    qnet = QNetwork(make_net(make_rules("sniff", 2), 32))
    policy = DiscreteQLearningPolicy(model=qnet, action_space=envs.action_space[0], eps_training=0.5)
    buffer = VectorReplayBuffer(2000, len(envs))
    collector = Collector[CollectStats](policy, envs, buffer, exploration_noise=True)  # type: ignore[arg-type]
    collector.reset(gym_reset_kwargs={"seed": 1})
    with policy_within_training_step(policy):
        stats = collector.collect(n_step=1600)
    assert stats.n_collected_episodes > 0
    data = buffer[buffer.sample_indices(0)]  # every stored transition
    assert len(data) == 1600
    assert np.asarray(data.obs.mask, bool)[np.arange(len(data)), data.act].all()
    with torch.no_grad():
        qnet.net.pi.bias.fill_(0.0)
        qnet.net.pi.bias[0] = 1e6  # action 0 looks best everywhere
    live = np.asarray(data.obs.mask, bool).any(1) & ~np.asarray(data.obs.mask, bool)[:, 0]
    assert live.any()
    rows = Batch(obs=data.obs[live], info=[None] * int(live.sum()))
    assert (policy(rows).act != 0).all()  # never the illegal favourite
    assert np.asarray(data.obs.mask, bool)[live][np.arange(int(live.sum())), policy(rows).act].all()


def test_env_refuses_partial_steps_and_early_resets() -> None:
    envs = make_venv(TINY)
    obs, _ = envs.reset(seed=1)
    with pytest.raises(ValueError, match="step together"):
        envs.step(np.zeros(2, np.int64), id=[0, 1])
    with pytest.raises(ValueError, match="have not ended"):
        envs.reset(env_id=[0])
    legal = np.asarray(obs.mask, bool).argmax(1)
    _, rewards, terminated, truncated, _ = envs.step(legal)
    assert rewards.shape == terminated.shape == truncated.shape == (TINY.n_envs,)


@pytest.mark.parametrize(("flag", "value", "needle"), [
    ("--reward", "coins", r"reward \(--reward\) must be one of 'points', 'game'; got 'coins'"),
    ("--total-timesteps", "500", "multiple of n_envs x collect_steps"),
    ("--eps-start", "0.01", "eps_end <= eps_start"),
    ("--eps-end", "1.5", r"eps_end \(--eps-end\) must be in \[0, 1\]; got 1.5"),
    ("--learning-starts", "640", "below total_timesteps"),
    ("--updates-per-step", "0.01", "at least one gradient step"),
    ("--buffer-size", "16", "at least one batch"),
    ("--device", "tpu", "unknown device 'tpu'"),
])
def test_bad_config_is_refused_before_any_work(tmp_path: Path, flag: str, value: str, needle: str) -> None:
    base = ["--total-timesteps", "640", "--learning-starts", "0", "--n-envs", "16", "--collect-steps", "2",
            "--batch-size", "32", "--out-dir", str(tmp_path), "--tensorboard", "false"]
    with pytest.raises(SystemExit, match=needle):
        main([*base, flag, value])
    assert not any(tmp_path.iterdir())


def test_check_args_raises_config_error() -> None:
    with pytest.raises(ConfigError, match=r"n_envs \(--n-envs\) must be at least 1; got 0"):
        check_args(replace(TINY, n_envs=0))
    check_args(TINY)
