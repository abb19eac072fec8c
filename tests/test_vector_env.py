"""The vector environment: rewards, episodes and automatic resets, checked against replays."""

from __future__ import annotations

import numpy as np
import pytest

from sniff_env.envs.batch_env import SniffVectorEnv
from sniff_env.game import Phase, new_game


def _play_until_every_slot_done(env: SniffVectorEnv, rng: np.random.Generator, limit: int = 20000) -> tuple[
    list[list[int]], list[list[np.ndarray]], list[dict[str, object]]
]:
    """Random play until every slot finished an episode; per slot: its actions, its rewards and
    the infos of its first episode end."""
    _, mask, _ = env.reset()
    B = env.num_envs
    actions: list[list[int]] = [[] for _ in range(B)]
    rewards: list[list[np.ndarray]] = [[] for _ in range(B)]
    first: list[dict[str, object]] = [{} for _ in range(B)]
    for _ in range(limit):
        a = env.random_actions(rng)
        assert (mask[np.arange(B), a] == 1).all()
        _, mask, _, r, done, infos = env.step(a)
        for b in range(B):
            if not first[b]:
                actions[b].append(int(a[b]))
                rewards[b].append(r[b].copy())
                if done[b]:
                    first[b] = {k: np.array(v[b]) for k, v in infos.items()}
        if all(first):
            return actions, rewards, first
    raise AssertionError("episodes did not end")


@pytest.mark.parametrize("players,extra", [(2, {}), (3, {}), (4, {"partnership": True})])
def test_game_reward_matches_reference_replay(players: int, extra: dict[str, bool]) -> None:
    env = SniffVectorEnv("sniff", 6, seed=100, reward="game", num_players=players, **extra)
    actions, rewards, first = _play_until_every_slot_done(env, np.random.default_rng(0))
    rules = env.rules
    loser = -1.0 / (rules.num_sides - 1)
    for b in range(env.num_envs):
        assert first[b]["seed"] == 100 + b
        game = new_game(rules, seed=100 + b, record=False)
        for a in actions[b]:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
            game.step(a)
        assert game.phase is Phase.GAME_OVER
        assert first[b]["final_scores"].tolist() == game.scores
        assert first[b]["winner"] == game.winner
        total = np.sum(rewards[b], axis=0)
        expected = [1.0 if rules.side_of(s) == game.winner else loser for s in range(players)]
        np.testing.assert_allclose(total, expected)
        assert not np.any(rewards[b][:-1])


def test_points_reward_is_zero_sum_and_adds_up_to_the_score_difference() -> None:
    env = SniffVectorEnv("sniff-us", 5, seed=7, reward="points")
    _, rewards, first = _play_until_every_slot_done(env, np.random.default_rng(1))
    for b in range(env.num_envs):
        per_step = np.array(rewards[b])
        np.testing.assert_allclose(per_step.sum(axis=1), 0.0, atol=1e-6)
        s0, s1 = first[b]["final_scores"].tolist()
        np.testing.assert_allclose(per_step.sum(axis=0), [s0 - s1, s1 - s0], rtol=1e-6)


def test_hand_episodes_continue_the_game() -> None:
    env = SniffVectorEnv("sniff", 4, seed=3, reward="game", episode="hand")
    rng = np.random.default_rng(2)
    env.reset()
    hands_done = np.zeros(4, int)
    for _ in range(400):
        before = env.engine.hand_index.copy()
        _, _, _, r, done, infos = env.step(env.random_actions(rng))
        hands_done += done
        for b in np.flatnonzero(done):
            if not infos["game_over"][b]:
                assert env.engine.hand_index[b] == before[b] + 1
            assert r[b].sum() == 0.0 and set(r[b].tolist()) <= {1.0, -1.0, 0.0}
    assert (hands_done >= 2).all()


def test_reset_with_seeds_gives_the_reference_deal() -> None:
    env = SniffVectorEnv("sniff-digital", 3, num_players=3)
    _, _, seat = env.reset(seeds=[11, 12, 13])
    for b, seed in enumerate([11, 12, 13]):
        game = new_game(env.rules, seed=seed)
        assert seat[b] == game.turn
        assert env.engine.hands[b].nonzero()[1].tolist() == [t for h in game.deal.hands for t in h]


def test_threads_change_nothing() -> None:
    """The batch split between threads (and back to one thread after ``close``) gives the same
    results as a single thread."""
    envs = [SniffVectorEnv("sniff", 600, seed=5, threads=t) for t in (1, 2)]
    assert len(envs[1].engine._chunks) == 2
    rng = np.random.default_rng(3)
    outs = [env.reset() for env in envs]
    for step in range(120):
        if step == 80:
            envs[1].close()
        actions = envs[0].random_actions(rng)
        outs = [env.step(actions) for env in envs]
        for a, b in zip(outs[0][:5], outs[1][:5], strict=True):
            np.testing.assert_array_equal(a, b)
        assert outs[0][5].keys() == outs[1][5].keys()
        for key in outs[0][5]:
            np.testing.assert_array_equal(outs[0][5][key], outs[1][5][key])
