"""The batched engine as a ``gymnasium.vector.VectorEnv`` (and its SB3 adapter)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import sniff_env  # noqa: F401  (registers the ids)
from sniff_env import IllegalMoveError
from sniff_env.envs.gym_vector import SniffGymVectorEnv
from sniff_env.envs.masks import episode_over_mask
from sniff_env.envs.rewards import win_rewards
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.players import load
from sniff_env.presets import make_rules

ID = "sniff_env/Sniff-v0"


def first_legal(masks: np.ndarray) -> np.ndarray:
    return np.asarray(masks.argmax(axis=1))


def test_spaces_metadata_and_reset() -> None:
    env = SniffGymVectorEnv(6, "muggins", 3, learner="random")  # the class: the dict, same-step autoreset
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    single = env.single_observation_space
    assert isinstance(single, gymnasium.spaces.Dict) and env.single_action_space.n == 176
    obs, _ = env.reset(seed=5)
    assert env.observation_space.contains(obs) and obs["observation"].shape == (6, single["observation"].shape[0])
    masks = env.unwrapped.action_masks()
    assert masks.dtype == bool and np.array_equal(masks, obs["action_mask"] == 1) and masks.any(axis=1).all()
    learner = env.unwrapped.learner
    assert np.array_equal(env.unwrapped._engine.turn, learner)  # every game waits for its learner
    again, _ = env.reset(seed=5)
    assert np.array_equal(again["observation"], obs["observation"]) and np.array_equal(env.unwrapped.learner, learner)
    with pytest.raises(ValueError, match="no options"):
        env.reset(options={"deal": {}})
    with pytest.raises(ValueError, match=r"mask='dict' is not allowed; choose one of \('info', 'obs'\)"):
        SniffGymVectorEnv(2, mask="dict")


def test_make_vec_hands_out_what_gymnasium_make_does() -> None:
    """The flat observation, the mask in the info, next-step autoreset: ``gymnasium.make``'s layout,
    batched, as Gymnasium's own vector envs over ``gymnasium.make`` hand it out."""
    env = gymnasium.make_vec(ID, num_envs=6, ruleset="muggins", num_players=3, learner="random")
    single = gymnasium.make(ID, ruleset="muggins", num_players=3)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert env.single_observation_space == single.observation_space and env.single_action_space == single.action_space
    obs, infos = env.reset(seed=5)
    _, info = single.reset(seed=5)
    assert env.observation_space.contains(obs) and obs.shape == (6, *single.observation_space.shape)
    assert infos["action_mask"].dtype == info["action_mask"].dtype and infos["_action_mask"].all()
    assert np.array_equal(infos["action_mask"] == 1, env.unwrapped.action_masks())
    env = gymnasium.make_vec(ID, num_envs=6, ruleset="muggins", num_players=3, learner="random", max_hands=1)
    obs, infos = env.reset(seed=5)
    dict_layout = SniffGymVectorEnv(6, "muggins", 3, learner="random", max_hands=1,
                                    autoreset_mode=AutoresetMode.NEXT_STEP)
    theirs, _ = dict_layout.reset(seed=5)
    placeholder = np.broadcast_to(episode_over_mask(176), (6, 176))
    ended = 0
    for _ in range(60):  # both layouts play the same games: the same views, masks, rewards and ends
        actions = first_legal(infos["action_mask"])
        obs, rewards, terminated, _, infos = env.step(actions)
        theirs, their_rewards, their_ends, _, _ = dict_layout.step(actions)
        assert np.array_equal(obs, theirs["observation"]) and np.array_equal(infos["action_mask"], theirs["action_mask"])
        assert np.array_equal(rewards, their_rewards) and np.array_equal(terminated, their_ends)
        assert np.array_equal(infos["action_mask"][terminated], placeholder[terminated])  # the game's end
        ended += int(terminated.sum())
    assert ended >= 6
    same_step = SniffGymVectorEnv(1, max_hands=1, mask="info")
    obs, infos = same_step.reset(seed=1)
    while True:
        obs, _, terminated, _, infos = same_step.step(first_legal(infos["action_mask"]))
        if terminated[0]:
            break
    final = infos["final_obs"][0]
    assert final.shape == obs.shape[1:] and np.array_equal(infos["final_info"]["action_mask"][0], placeholder[0])
    assert np.array_equal(infos["action_mask"][0] == 1, same_step.action_masks()[0])  # the next game's first mask


@pytest.mark.parametrize(("preset", "n", "opponent"), [("sniff", 2, "heuristic"), ("muggins", 3, "heuristic"),
                                                      ("sniff", 2, "sniff-2p")])
def test_games_match_the_reference_engine_with_the_other_seats_player(preset: str, n: int, opponent: str) -> None:
    """Each game is the reference game of its seed: the learner's observations, the other seats'
    replies inside the step (a compiled built-in, or a shipped agent's batched network), the
    terminal reward and the final observation."""
    rules = make_rules(preset, n, target=31)
    env = SniffGymVectorEnv(3, preset, n, target=31, learner=1, opponents=opponent)
    obs, _ = env.reset(seed=40)
    observer = Observer(rules)
    heuristic = load(opponent) if opponent == "heuristic" else load(opponent, rules=rules)
    games = [new_game(rules, seed=40 + b) for b in range(3)]
    finished = [False] * 3

    def to_learner(game: object) -> None:
        while True:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
            if game.phase is not Phase.PLAY or game.turn == 1:
                return
            game.step(heuristic.act(None, {"info_state": info_state(game, game.turn)}))

    for game in games:
        to_learner(game)
    for _ in range(400):
        for b, game in enumerate(games):
            if not finished[b]:
                assert np.array_equal(obs["observation"][b], observer.encode(info_state(game, 1)))
        actions = first_legal(obs["action_mask"])
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        for b, game in enumerate(games):
            if finished[b]:
                continue
            game.step(int(actions[b]))
            to_learner(game)
            over = game.phase is Phase.GAME_OVER
            assert terminated[b] == over
            if over:
                assert rewards[b] == win_rewards(game.winner, rules.num_sides)[rules.side_of(1)]
                assert np.array_equal(info["final_obs"][b]["observation"], observer.encode(info_state(game, 1)))
                assert info["final_info"]["winner"][b] == (-1 if game.winner is None else game.winner)
                finished[b] = True
            else:
                assert rewards[b] == 0.0
        if all(finished):
            break
    assert all(finished)


@pytest.mark.parametrize("opponents", ["greedy:tiebreak=heuristic", "random", ["heuristic:pip=2", "greedy"]])
def test_other_built_ins_and_points_rewards(opponents: object) -> None:
    env = SniffGymVectorEnv(64, "sniff-us", 3, opponents=opponents, reward="points", learner="random", target=31)
    obs, _ = env.reset(seed=1)
    total = np.zeros(64)
    ends = 0
    for _ in range(60):
        obs, rewards, terminated, _, info = env.step(first_legal(obs["action_mask"]))
        total += rewards
        ends += int(terminated.sum())
        if terminated.any():
            assert info["_final_obs"].sum() == terminated.sum()
    assert ends > 0 and np.abs(total).sum() > 0 and np.all(total == np.round(total * 2) / 2)


def test_bad_arguments_and_illegal_actions_leave_the_games_as_they_were() -> None:
    with pytest.raises(ValueError, match="vector env plays"):
        SniffGymVectorEnv(2, opponents="search")
    with pytest.raises(ValueError, match="one per other seat"):
        SniffGymVectorEnv(2, "sniff", 3, opponents=["greedy"])
    with pytest.raises(ValueError, match="learner must be"):
        SniffGymVectorEnv(2, learner=2)
    env = SniffGymVectorEnv(4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, np.int64))
    obs, _ = env.reset(seed=2)
    bad = first_legal(obs["action_mask"])
    bad[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    before = env._engine.S.copy()
    with pytest.raises(IllegalMoveError, match="game 2"):
        env.step(bad)
    with pytest.raises(IllegalMoveError, match="whole numbers"):
        env.step(first_legal(obs["action_mask"]) + 0.5)
    assert np.array_equal(env._engine.S, before)


def test_maskable_ppo_trains_on_the_sb3_adapter() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from sniff_env.integrations.sb3 import SniffSB3VecEnv

    venv = SniffSB3VecEnv(32, ruleset="sniff", episode="hand")
    venv.seed(3)
    obs = venv.reset()
    assert obs.shape == (32, venv.observation_space.shape[0])
    assert np.array_equal(get_action_masks(venv), venv.action_masks())
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=128, n_epochs=1, seed=0)
    model.learn(1024)
    assert model.num_timesteps >= 1024 and len(model.ep_info_buffer) == 0  # no Monitor: SB3 keeps no episodes
    _, _, dones, infos = venv.step(first_legal(venv.action_masks()))
    for i in np.flatnonzero(dones):
        assert infos[i]["terminal_observation"].shape == obs.shape[1:]
