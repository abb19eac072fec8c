"""Illegal actions, bad constructor arguments and bad reset options give clear, typed errors."""

from __future__ import annotations

import numpy as np
import pytest

import sniff_env
from sniff_env import DealError, IllegalMoveError, RulesError


def _illegal_action(env: sniff_env.envs.aec.raw_env) -> int:
    mask = env.observe(env.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[0])


def test_raw_env_illegal_action_raises_and_leaves_state() -> None:
    env = sniff_env.raw_env()
    env.reset(seed=3)
    before_obs = env.observe(env.agent_selection)["observation"].copy()
    before = (env.agent_selection, env.scores, len(env.game.hand_actions), env.state().tobytes())
    with pytest.raises(IllegalMoveError, match="not legal"):
        env.step(_illegal_action(env))
    for bad in (None, -1, 10_000):
        with pytest.raises(IllegalMoveError):
            env.step(bad)  # type: ignore[arg-type]
    assert (env.agent_selection, env.scores, len(env.game.hand_actions), env.state().tobytes()) == before
    assert np.array_equal(env.observe(env.agent_selection)["observation"], before_obs)


def test_wrapped_env_illegal_action_ends_game_with_penalty() -> None:
    env = sniff_env.env()
    env.reset(seed=3)
    mover = env.agent_selection
    env.step(_illegal_action(env.unwrapped))  # PettingZoo logs a warning
    assert all(env.terminations.values())
    assert env._cumulative_rewards[mover] == -1
    assert all(r == 0 for a, r in env._cumulative_rewards.items() if a != mover)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"colour": "red"}, ValueError, "unknown option.*reward, episode"),
        ({"reward": "money"}, ValueError, "reward='money'.*'game', 'points'"),
        ({"episode": "set"}, ValueError, "episode='set'"),
        ({"max_cycles": 0}, ValueError, "max_cycles must be a positive"),
        ({"max_hands": "3"}, ValueError, "max_hands must be a positive"),
        ({"scoring": "sevens"}, RulesError, "scoring='sevens'"),
        ({"ruleset": "poker"}, RulesError, "unknown preset 'poker'"),
        ({"num_players": 9}, RulesError, "9 players"),
        ({"render_mode": "rgb"}, TypeError, "render_mode='rgb'"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict[str, object], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        sniff_env.raw_env(**kwargs)  # type: ignore[arg-type]


def test_bad_reset_options() -> None:
    env = sniff_env.raw_env()
    env.reset(seed=1)
    state = env.state().tobytes()
    with pytest.raises(TypeError, match="mapping"):
        env.reset(options=["deal"])  # type: ignore[arg-type]
    with pytest.raises(DealError):
        env.reset(options={"deal": {"hands": [[(0, 0)], [(0, 0)]]}})
    with pytest.raises(DealError, match="unknown deal key"):
        env.reset(options={"deal": {"hands": [], "tiles": []}})
    assert env.state().tobytes() == state, "a refused reset leaves the game as it was"
    with pytest.warns(UserWarning, match="ignoring unknown reset option"):
        env.reset(seed=1, options={"dael": {}})


def test_action_helpers() -> None:
    env = sniff_env.raw_env("muggins-sniff")
    assert env.action_id((5, 3), "east") == env.action_id((3, 5), "east") == env.observer.ts.index((3, 5)) * 5 + 1
    assert env.decode_action(env.action_id((4, 4), "west", inline=True)).inline
    assert env.decode_action(env.draw_action).draw
    assert str(env.decode_action(env.action_id((6, 1)))) == "1-6 lead"
    with pytest.raises(ValueError, match="end='up'"):
        env.action_id((1, 2), "up")
    with pytest.raises(ValueError, match="not in the double-6 set"):
        env.action_id((1, 7), "west")
    with pytest.raises(ValueError, match="not a double"):
        env.action_id((1, 2), "west", inline=True)
    with pytest.raises(ValueError, match="out of range"):
        env.decode_action(env.num_actions)


def test_a_refused_reset_leaves_the_generator_as_it_was() -> None:
    env, twin = sniff_env.raw_env(), sniff_env.raw_env()
    for e in (env, twin):
        e.reset(seed=1)
    bad = {"deal": {"hands": [[(0, 0)], [(0, 0)]]}}
    for seed in (None, 99):
        with pytest.raises(DealError):
            env.reset(seed=seed, options=bad)
    env.reset()
    twin.reset()
    assert env.state().tobytes() == twin.state().tobytes()
