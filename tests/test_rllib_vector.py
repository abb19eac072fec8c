"""The batched path of the RLlib trainer: the vector env's ``NEXT_STEP`` autoreset and per-episode
opponent pool, the RLlib-facing vector env, the league's pieces, clear errors before Ray starts,
and a short run that checkpoints, resumes with its snapshot pool, and exports a playable policy."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from conftest import play_out_legally, scalar_tags
from gymnasium.vector import AutoresetMode

from sniff_env.envs.gym_vector import OpponentPool, SniffGymVectorEnv
from sniff_env.envs.masks import episode_over_mask
from sniff_env.presets import make_rules

if importlib.util.find_spec("ray") is not None:
    from test_rllib_env import ray_local  # noqa: F401  (the fixture)

needs_rllib = pytest.mark.skipif(importlib.util.find_spec("ray") is None or importlib.util.find_spec("torch") is None,
                                 reason="Ray RLlib and torch are optional extras")


def lowest_legal(mask: np.ndarray) -> np.ndarray:
    return np.argmax(mask, axis=1)


def episodes(env: SniffGymVectorEnv, steps: int, seed: int) -> list[list[tuple[float, int, int]]]:
    """Each game's finished episodes (return, winner, learner decisions), lowest legal actions."""
    obs, _ = env.reset(seed=seed)
    next_step = env.autoreset_mode is AutoresetMode.NEXT_STEP
    done: list[list[tuple[float, int, int]]] = [[] for _ in range(env.num_envs)]
    ret, length = np.zeros(env.num_envs), np.zeros(env.num_envs, np.int64)
    restart = np.zeros(env.num_envs, np.bool_)
    for _ in range(steps):
        obs, rewards, terminated, truncated, infos = env.step(lowest_legal(obs["action_mask"]))
        assert not truncated.any()
        if next_step:  # the step after an episode's end only hands over the next episode's start
            assert (rewards[restart] == 0).all() and not terminated[restart].any()
            live = ~restart
        else:
            live = np.ones(env.num_envs, np.bool_)
        ret[live] += rewards[live]
        length[live] += 1
        for b in np.flatnonzero(terminated).tolist():
            winner = infos["winner"][b] if next_step else infos["final_info"]["winner"][b]
            done[b].append((float(ret[b]), int(winner), int(length[b])))
        if next_step and terminated.any():
            np.testing.assert_array_equal(obs["action_mask"][terminated],
                                          np.broadcast_to(episode_over_mask(env.single_action_space.n),
                                                          (int(terminated.sum()), env.single_action_space.n)))
            assert (infos["_winner"] == terminated).all() and (infos["_learner"] == terminated).all()
        ret[terminated] = 0.0
        length[terminated] = 0
        restart = terminated
    return done


def test_next_step_autoreset_plays_the_same_episodes_one_step_later() -> None:
    kwargs = {"learner": "random", "opponents": "greedy", "reward": "points", "max_hands": 2}
    same = episodes(SniffGymVectorEnv(1, **kwargs), 240, seed=7)[0]
    later = episodes(SniffGymVectorEnv(1, autoreset_mode=AutoresetMode.NEXT_STEP, **kwargs), 240, seed=7)[0]
    assert len(later) >= 3 and later == same[: len(later)]
    batch = episodes(SniffGymVectorEnv(8, autoreset_mode=AutoresetMode.NEXT_STEP, **kwargs), 120, seed=3)
    assert sum(map(len, batch)) >= 16
    with pytest.raises(ValueError, match="autoreset_mode must be 'SameStep' or 'NextStep'"):
        SniffGymVectorEnv(1, autoreset_mode="Disabled")


class Counting:
    """A batched policy that plays the lowest legal action and counts the rows it was asked."""

    def __init__(self) -> None:
        self.rows = 0

    def actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.rows += len(obs)
        return lowest_legal(mask)


def test_a_pool_draws_each_games_opponent_per_episode() -> None:
    policy = Counting()
    pool = OpponentPool(["greedy", "heuristic", policy], [0, 1, 1])
    env = SniffGymVectorEnv(16, learner="random", opponents=pool, max_hands=1, autoreset_mode=AutoresetMode.NEXT_STEP)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=1)
    seen: set[int] = set()

    def step() -> np.ndarray:
        nonlocal obs
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, _, terminated, _, infos = env.step(actions)
        if terminated.any():
            seen.update(infos["opponent"][terminated].tolist())
        return terminated

    for _ in range(60):
        step()
    assert seen == {1, 2} and set(env.opponent.tolist()) <= {1, 2} and policy.rows > 0
    pool.set_probs([1, 0, 0])  # from each game's next episode on
    renewed = np.zeros(env.num_envs, np.bool_)
    for _ in range(200):
        renewed |= step()
        if renewed.all():
            break
    step()  # the restart step of the last games to end
    assert renewed.all() and (env.opponent == 0).all()
    rows = policy.rows
    for _ in range(10):
        step()
    assert policy.rows == rows, "no game draws the policy any more"


@pytest.mark.parametrize("probs", [[1, -1, 0], [0, 0, 0], [1, 1], [1, np.nan, 1]])
def test_pool_probabilities_are_checked(probs: list[float]) -> None:
    with pytest.raises(ValueError, match="probs must be 3 non-negative finite weights"):
        OpponentPool(["greedy", "heuristic", "random"], probs)


def test_a_pool_needs_player_specs_or_batched_policies() -> None:
    with pytest.raises(ValueError, match="non-empty list"):
        OpponentPool([])
    with pytest.raises(ValueError, match="a pool entry is a player spec or a batched policy"):
        OpponentPool(["greedy", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="the vector env plays heuristic, greedy, random"):
        SniffGymVectorEnv(1, opponents=OpponentPool(["greedy", "rollouts"]))


# -- the RLlib-facing env ---------------------------------------------------------------------
@needs_rllib
def test_the_rllib_vector_env_refuses_bad_configs_with_the_allowed_ones() -> None:
    from sniff_env.integrations.rllib import EnvConfigError, SniffRLlibVectorEnv

    with pytest.raises(EnvConfigError, match=r"unknown env_config key\(s\) \['opponent'\].*opponents"):
        SniffRLlibVectorEnv({"num_envs": 2, "opponent": "greedy"})
    with pytest.raises(EnvConfigError, match="gym_env_vectorize_mode='vector_entry_point'"):
        SniffRLlibVectorEnv({})
    with pytest.raises(ValueError, match="unknown player 'grredy'"):
        SniffRLlibVectorEnv({"num_envs": 2, "opponents": "grredy"})
    with pytest.raises(EnvConfigError, match="reward_scale must be a positive number"):
        SniffRLlibVectorEnv({"num_envs": 2, "reward_scale": -1})


@needs_rllib
def test_the_rllib_vector_env_speaks_what_rllibs_runners_and_masking_module_read() -> None:
    from sniff_env.integrations.rllib import SniffRLlibVectorEnv

    env = SniffRLlibVectorEnv({"num_envs": 8, "max_hands": 1, "reward": "game", "reward_scale": 2.0,
                               "opponents": "greedy"})
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    obs, _ = env.reset(seed=2)
    assert set(obs) == {"observations", "action_mask"} and obs["action_mask"].dtype == np.float32
    assert env.observation_space.contains(obs)
    ended = 0
    for _ in range(80):
        obs, rewards, terminated, _, infos = env.step(lowest_legal(obs["action_mask"]))
        for b in np.flatnonzero(terminated).tolist():
            ended += 1
            win = infos["win"][b]
            assert infos["_win"][b] and win in (0.0, 0.5, 1.0)
            assert rewards[b] == {1.0: 2.0, 0.0: -2.0, 0.5: 0.0}[win], "the game reward, scaled, follows the win"
    assert ended >= 8
    # RLlib seeds env runners seed + 1, seed + 2, ...: their games must not be the same deals one apart
    a, b = SniffRLlibVectorEnv({"num_envs": 2, "learner": 0}), SniffRLlibVectorEnv({"num_envs": 2, "learner": 0})
    raw_a, raw_b = SniffGymVectorEnv(2), SniffGymVectorEnv(2)
    np.testing.assert_array_equal(raw_a.reset(seed=2)[0]["observation"][1], raw_b.reset(seed=3)[0]["observation"][0])
    assert not np.array_equal(a.reset(seed=2)[0]["observations"][1], b.reset(seed=3)[0]["observations"][0])


# -- the league -------------------------------------------------------------------------------
@needs_rllib
def test_league_draws_follow_the_one_game_paths_table() -> None:
    from training.libraries.rllib_vector import SELF, LeagueSpec

    spec = LeagueSpec(builtins=("greedy", "heuristic"), selfplay_prob=0.5, pool_size=2, snapshot_every=1, seed=1)
    assert spec.labels == (SELF, "greedy", "heuristic", "snapshot", "snapshot")
    np.testing.assert_allclose(spec.probs([False, False]), [0.5, 0.25, 0.25, 0, 0])
    np.testing.assert_allclose(spec.probs([True, False]), [0.5, 1 / 6, 1 / 6, 1 / 6, 0])
    alone = LeagueSpec(builtins=(), selfplay_prob=0.0, pool_size=1, snapshot_every=1, seed=1)
    np.testing.assert_allclose(alone.probs([False]), [1, 0]), "nothing else: self-play"
    np.testing.assert_allclose(alone.probs([True]), [0, 1])


def _module(hidden: int) -> object:
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from sniff_env.integrations.rllib import SniffRLlibVectorEnv

    env = SniffRLlibVectorEnv({"num_envs": 1})
    model = {"fcnet_hiddens": [hidden, hidden], "fcnet_activation": "relu", "head_fcnet_hiddens": []}
    return RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=env.single_observation_space,
                        action_space=env.single_action_space, model_config=model, inference_only=True).build()


@needs_rllib
def test_a_snapshot_plays_legal_seeded_moves_and_one_of_another_shape_is_refused() -> None:
    from training.libraries.rllib_vector import ModulePolicy, actor_state

    learner, runner_module = _module(16), _module(16)
    state = actor_state(learner.state_dict())  # type: ignore[attr-defined]
    snaps = [ModulePolicy(), ModulePolicy()]
    for snap in snaps:
        snap.bind([1, 0, 3])
        snap.load(state, like=runner_module)
    rng = np.random.default_rng(0)
    obs = rng.random((64, 547), dtype=np.float32)
    mask = (rng.random((64, 176)) < 0.05).astype(np.int8)
    mask[np.arange(64), rng.integers(176, size=64)] = 1
    first, second = snaps[0].actions(obs, mask), snaps[1].actions(obs, mask)
    assert mask[np.arange(64), first].all()
    np.testing.assert_array_equal(first, second)  # the same seed, the same draws
    other = actor_state(_module(32).state_dict())  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="a snapshot of other rules or another network width"):
        ModulePolicy().load(other, like=runner_module)


@needs_rllib
@pytest.mark.parametrize("argv, words", [
    (["--engine", "vector", "--builtin-opponents", "greedy,rollouts"], "the vector env plays heuristic, greedy, random"),
    (["--engine", "vector", "--builtin-opponents", "muggins-2p"], "trained for other rules"),
    (["--builtin-opponents", "greedy,grredy"], "unknown player 'grredy'"),
])
def test_a_league_opponent_the_engine_cannot_play_is_refused_before_ray_starts(argv: list[str], words: str) -> None:
    import ray

    from training.libraries.rllib_selfplay import main

    with pytest.raises(SystemExit, match=words):
        main(argv)
    assert not ray.is_initialized()


@needs_rllib
def test_vector_run_checkpoints_resumes_its_league_and_exports_a_playable_policy(
    tmp_path: Path, ray_local: None
) -> None:
    from training.libraries.rllib_selfplay import Args, export_checkpoint, main, read_run, train
    from training.libraries.rllib_vector import load_league

    base = {"engine": "vector", "num_env_runners": 0, "num_envs_per_env_runner": 32, "train_batch_size": 256,
            "minibatch_size": 128, "num_epochs": 1, "hidden": 16, "max_hands": 1, "snapshot_every": 1,
            "pool_size": 2, "eval_every": 2, "eval_games": 10, "checkpoint_every": 1, "out_dir": str(tmp_path)}
    ckpt = train(Args(iterations=2, **base))  # type: ignore[arg-type]
    league = load_league(ckpt)
    assert len(league) == 2 and all(s is not None for s in league)
    assert not np.array_equal(league[0]["pi.net.mlp.0.weight"], league[1]["pi.net.mlp.0.weight"])  # type: ignore[index]
    steps = read_run(ckpt)["learner_steps"]
    assert steps >= 2 * 256
    tags = scalar_tags(tmp_path / "rllib-sniff" / "tb")
    assert {"charts/episodic_return", "eval/winrate_vs_greedy", "losses/policy_loss", "league/size"} <= tags
    assert any(t.startswith("league/winrate_vs_") for t in tags)

    with pytest.raises(SystemExit, match="trained with --engine vector"):
        main(["--resume", str(ckpt), "--out-dir", str(tmp_path), "--num-env-runners", "0", "--num-cpus", "1"])
    policy = tmp_path / "policy.onnx"
    train(Args(iterations=3, resume=str(ckpt), export=str(policy), **base))  # type: ignore[arg-type]
    again = read_run(ckpt)
    assert again["iteration"] == 3 and again["learner_steps"] > steps
    resumed = load_league(ckpt)
    # the third snapshot went to slot 0; slot 1 is the restored second one
    np.testing.assert_array_equal(resumed[1]["pi.net.mlp.0.weight"], league[1]["pi.net.mlp.0.weight"])  # type: ignore[index]
    assert not np.array_equal(resumed[0]["pi.net.mlp.0.weight"], league[0]["pi.net.mlp.0.weight"])  # type: ignore[index]

    from sniff_env.players import load

    rules = make_rules("sniff", 2)
    assert play_out_legally(load(str(policy), rules=rules), rules, seed=5, max_hands=1) > 0
    assert export_checkpoint(ckpt, tmp_path / "again.onnx", rules).is_file()
