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


def test_pettingzoo_wrapper_plays_whole_games_of_the_parallel_form_and_no_op_moves_change_nothing() -> None:
    from torchrl.envs.utils import step_mdp

    parallel = sniff_env.sniff_v0.parallel_env()
    env = PettingZooWrapper(env=parallel, use_mask=True, seed=0)
    check_env_specs(env, seed=0)
    noop, played, games = parallel.noop_action, [], 0
    td = env.reset()
    for _ in range(2000):
        td = env.rand_step(td)  # every agent's action drawn from its mask: none is all zeros
        acting = td["player", "observation", "acting"].squeeze(-1).bool()
        action, mask = td["player", "action"], td["player", "action_mask"]
        assert acting.sum() == 1 and mask.gather(-1, action.unsqueeze(-1)).all()
        assert (action[~acting] == noop).all() and not mask[acting, noop].any()
        played.append(int(action[acting]))
        if td["next", "done"].item():
            game = parallel.unwrapped.game  # what the game applied: the moves of the agents to act, in order
            assert [a for hand in game.records for a, _ in hand.actions] == played
            assert game.winner is not None or game.hand_index + 1 >= game.max_hands
            games, played = games + 1, []
            if games == 3:
                break
            td = env.reset()
        else:
            td = step_mdp(td)
    assert games == 3


def test_the_parallel_form_ignores_what_a_waiting_agent_hands_in() -> None:
    import copy

    env = sniff_env.sniff_v0.parallel_env(reward="points")
    obs, _ = env.reset(seed=4)
    for _ in range(30):
        mover = next(a for a in env.agents if obs[a]["acting"][0])
        move = int(obs[mover]["action_mask"].argmax())
        twin = copy.deepcopy(env)
        waiting = {a: env.noop_action for a in env.agents if a != mover}
        obs, rewards, *_ = env.step({mover: move, **waiting})
        other, twin_rewards, *_ = twin.step({mover: move, **dict.fromkeys(waiting, 0)})  # not a no-op: ignored
        assert rewards == twin_rewards
        assert all((obs[a]["observation"] == other[a]["observation"]).all() for a in obs)
        assert env.unwrapped.game.scores == twin.unwrapped.game.scores
    with pytest.raises(KeyError, match="the agent to act"):
        env.step({a: env.noop_action for a in env.agents if not obs[a]["acting"][0]})
