"""Tianshou's own PettingZoo entry point on the environment: masked random collection and its
masked multi-agent DQN recipe (``test/pettingzoo/tic_tac_toe.py`` of Tianshou), unchanged."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")

import gymnasium
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import sniff_env


def make_env() -> PettingZooEnv:
    return PettingZooEnv(sniff_env.env())


def random_players(env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    return MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)  # type: ignore[arg-type]


def test_masked_random_players_collect_whole_games_into_the_buffer() -> None:
    envs = DummyVectorEnv([make_env for _ in range(2)])
    envs.seed(0)
    buffer = VectorReplayBuffer(4000, len(envs))
    collector = Collector[CollectStats](random_players(make_env()), envs, buffer)
    collector.reset()
    stats = collector.collect(n_episode=4)
    assert stats.n_collected_episodes >= 4 and len(buffer) == stats.n_collected_steps
    batch, _ = buffer.sample(64)
    masks = np.asarray(batch.obs.mask, bool)
    assert masks[np.arange(64), batch.act].all()  # every stored action was legal for its mover
    rewards = np.asarray(stats.returns)
    assert np.allclose(rewards.sum(axis=1), 0.0)  # zero-sum game rewards, one column per agent


def test_masked_dqn_against_a_random_player_trains() -> None:
    torch.manual_seed(0)
    env = make_env()
    space = env.observation_space["observation"]
    assert isinstance(space, gymnasium.spaces.Box)
    net = Net(state_shape=space.shape, action_shape=int(env.action_space.n), hidden_sizes=[64, 64])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.05),
        optim=AdamOptimizerFactory(lr=1e-3),
        n_step_return_horizon=3,
        gamma=0.9,
        target_update_freq=100,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    train_envs = DummyVectorEnv([make_env for _ in range(4)])
    test_envs = DummyVectorEnv([make_env])
    train_envs.seed(1)
    test_envs.seed(2)
    train = Collector[CollectStats](algorithm, train_envs, VectorReplayBuffer(5000, 4), exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train.reset()
    train.collect(n_step=256)
    before = [p.detach().clone() for p in net.parameters()]
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train,
            test_collector=test,
            max_epochs=1,
            epoch_num_steps=2000,
            collection_step_num_env_steps=20,
            test_step_num_episodes=1,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            test_in_training=False,
            show_progress=False,
            multi_agent_return_reduction=lambda rews: rews[:, 0],
        )
    )
    assert result.train_step >= 2000 and result.update_step > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, net.parameters(), strict=True))
