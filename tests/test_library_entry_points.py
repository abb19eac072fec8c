"""Each library builds and runs the environments through its own entry point, as its docs show:
stable-baselines3's ``make_vec_env``, TorchRL's ``GymEnv`` and ``GymWrapper``, PettingZoo's
``make("parallel", ...)`` with its ``parallel_api_test`` and ``max_cycles_test``, and SuperSuit."""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import max_cycles_test, parallel_api_test

import sniff_env
from sniff_env import sniff_v0
from sniff_env.envs.masks import PLACEHOLDER_ACTION
from sniff_env.envs.single_agent import SniffSingleAgentEnv
from sniff_env.errors import SniffError, UnknownOptionError


@pytest.mark.parametrize(
    "build",
    [
        lambda: sniff_env.env(frameskip=4),
        lambda: sniff_env.raw_env(render_mode="rgb"),
        lambda: SniffSingleAgentEnv(frameskip=4),
        lambda: gymnasium.make("sniff_env/Sniff-v0", frameskip=4),
        lambda: gymnasium.make("sniff_env/Sniff-v0", render_mode="rgb"),
        lambda: gymnasium.make_vec("sniff_env/Sniff-v0", 2, vectorization_mode="vector_entry_point", frameskip=4),
        lambda: pettingzoo.make("parallel", "sniff_env/sniff_v0", frameskip=4),
    ],
)
def test_an_unknown_keyword_or_render_mode_is_a_type_error(build: Callable[[], Any]) -> None:
    with pytest.raises(TypeError) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium.make's own warning about the render mode
        build()
    assert isinstance(caught.value, UnknownOptionError) and isinstance(caught.value, SniffError)
    message = str(caught.value)
    assert "unexpected keyword argument 'frameskip'" in message or "render_mode='rgb'" in message


def test_sb3_make_vec_env_builds_the_registered_env_with_rgb_frames() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env("sniff_env/Sniff-v0", n_envs=4)  # asks for render_mode="rgb_array" first
    assert venv.render_mode == "rgb_array" and venv.num_envs == 4
    obs = venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    assert obs.shape == (4, 547) and masks.any(axis=1).all()
    venv.step(masks.argmax(axis=1))
    frames = venv.get_images()
    assert len(frames) == 4 and all(f.shape == frames[0].shape and f.dtype == np.uint8 for f in frames)
    venv.close()


def test_torchrl_gym_env_builds_the_registered_env() -> None:
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    env = GymEnv("sniff_env/Sniff-v0")  # passes frameskip, and drops it on the TypeError
    check_env_specs(env, seed=0)
    env.close()


def test_torchrl_plays_only_legal_moves_with_the_mask_in_the_observation() -> None:
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv, GymWrapper, TransformedEnv
    from torchrl.envs.transforms import ActionMask

    wrapped = TransformedEnv(GymWrapper(SniffSingleAgentEnv(mask="obs", episode="hand"), categorical_action_encoding=True),
                             ActionMask())
    wrapped.set_seed(0)
    first = wrapped.rollout(1)
    assert bool(first["action_mask"][0, first["action"][0]])  # its first move is legal
    env = TransformedEnv(GymEnv("sniff_env/Sniff-v0", mask="obs", episode="hand", categorical_action_encoding=True),
                         ActionMask())
    env.set_seed(0)
    rollout = env.rollout(60, break_when_any_done=False)  # episodes end and restart on the way
    mask, action = rollout["action_mask"], rollout["action"]
    assert bool(mask.gather(-1, action.unsqueeze(-1)).all()) and bool(rollout["next", "done"].any())


def test_the_mask_layouts_and_the_mask_of_a_finished_episode() -> None:
    from gymnasium.utils.env_checker import check_env

    from sniff_env.envs.gym_vector import SniffGymVectorEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's notes on the unbounded score features
        check_env(SniffSingleAgentEnv(mask="obs", render_mode="rgb_array"))  # its render check too
    flat = SniffSingleAgentEnv(episode="hand", opponents="greedy")
    boxed = gymnasium.make("sniff_env/Sniff-v0", mask="obs", episode="hand", opponents="greedy")
    vector = SniffGymVectorEnv(1, opponents="greedy", episode="hand", threads=1)
    assert boxed.observation_space == vector.single_observation_space
    assert flat.observation_space == vector.single_observation_space["observation"]
    obs_flat, info = flat.reset(seed=3)
    obs_boxed, info_boxed = boxed.reset(seed=3)
    assert boxed.observation_space.contains(obs_boxed) and "action_mask" not in info_boxed
    assert np.array_equal(obs_boxed["observation"], obs_flat)
    assert np.array_equal(obs_boxed["action_mask"], info["action_mask"])
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs_flat, _, terminated, truncated, info = flat.step(action)
        obs_boxed, _, t2, _, _ = boxed.step(action)
        assert np.array_equal(obs_boxed["action_mask"], info["action_mask"]) and terminated == t2
        done = terminated or truncated
    placeholder = np.zeros(flat.action_space.n, np.int8)
    placeholder[PLACEHOLDER_ACTION] = 1
    assert np.array_equal(info["action_mask"], placeholder) and np.array_equal(obs_boxed["action_mask"], placeholder)
    assert np.array_equal(flat.action_masks(), placeholder.astype(bool))
    obs, _ = vector.reset(seed=3)
    for _ in range(40):
        obs, _, terminated, _, infos = vector.step(obs["action_mask"].argmax(axis=1))
        if terminated[0]:
            assert np.array_equal(infos["final_obs"][0]["action_mask"], placeholder)
            break
    assert terminated[0]
    vector.close()


def test_pettingzoo_make_parallel_passes_the_parallel_api_test() -> None:
    env = pettingzoo.make("parallel", "sniff_env/sniff_v0", ruleset="muggins", num_players=3)
    assert type(env).__name__ == "SniffParallelEnv" and env.unwrapped.rules.num_players == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the test's own reset option, which the env names and ignores
        parallel_api_test(env, num_cycles=400)
    env = sniff_v0.parallel_env("sniff", 4, partnership=True)
    observations, _ = env.reset(seed=0)
    acting = [a for a in env.agents if observations[a]["acting"][0]]
    assert acting == [env.unwrapped.agent_selection]
    noop = env.noop_action
    for agent in env.agents:  # every agent has a legal action: the agent to act its moves, the others the no-op
        mask = observations[agent]["action_mask"]
        assert mask.any() and bool(mask[noop]) == (agent not in acting) and mask.shape == (noop + 1,)


def _seeded(make: Callable[..., Any], seed: int) -> Callable[..., Any]:
    """``make`` with random legal play in place of illegal moves, its game and spaces seeded."""

    def build(**kwargs: Any) -> Any:
        env = make(illegal="random", **kwargs)
        env.reset(seed=seed)
        for agent in env.possible_agents:
            env.action_space(agent).seed(seed)
        return env

    return build


def test_pettingzoo_max_cycles_test_passes_when_illegal_moves_play_randomly() -> None:
    # max_cycles_test samples actions without their masks: with illegal="random" each one that is
    # not legal (nearly all) is replaced by a random legal move, and the game goes on
    for seed in range(3):
        max_cycles_test(types.SimpleNamespace(env=_seeded(sniff_v0.env, seed),
                                              parallel_env=_seeded(sniff_v0.parallel_env, seed)))


def test_illegal_random_plays_a_legal_move_in_place_of_an_illegal_one() -> None:
    env = sniff_env.env(illegal="random")
    env.reset(seed=2)
    mover, hand = env.agent_selection, len(env.unwrapped.game.hand_actions)
    illegal = int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0])
    env.step(illegal)
    assert len(env.unwrapped.game.hand_actions) == hand + 1 and not any(env.terminations.values())
    with pytest.raises(ValueError, match="illegal='raise'"):
        sniff_env.env(illegal="raise")


def test_supersuit_vectorizes_the_parallel_env() -> None:
    ss = pytest.importorskip("supersuit")
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(sniff_v0.parallel_env(episode="hand")), 2,
                                num_cpus=0, base_class="gymnasium")
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    ends, returns = 0, np.zeros(4)
    for _ in range(120):
        mask = obs["action_mask"]
        obs, rewards, terminated, _, _ = vec.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
        ends += int(terminated.sum())
        returns += rewards
    assert ends >= 4  # whole hands were played, each ending for both agents of its game
    assert returns[0] == -returns[1] and returns[2] == -returns[3]  # zero-sum in each game
    vec.close()


def test_supersuits_box_observation_wrappers_refuse_the_dict_saying_why() -> None:
    ss = pytest.importorskip("supersuit")
    wrappers = {"dtype": lambda e: ss.dtype_v0(e, np.float64), "flatten": ss.flatten_v0, "normalize_obs": ss.normalize_obs_v0,
                "frame_stack": lambda e: ss.frame_stack_v1(e, 2), "pad_observations": ss.pad_observations_v0,
                "black_death": ss.black_death_v3}
    for name, wrap in wrappers.items():
        with pytest.raises((AttributeError, AssertionError), match="Box") as caught:
            wrap(sniff_v0.parallel_env()).reset(seed=0)
        if isinstance(caught.value, AttributeError):  # the ones that ask for a Box's bounds hear why and what to use
            assert "action mask" in str(caught.value) and "gymnasium.make('sniff_env/Sniff-v0')" in str(caught.value), name
    space = sniff_v0.env().observation_space("player_0")
    assert isinstance(space, gymnasium.spaces.Dict) and not hasattr(space, "low")  # a Dict as any other
