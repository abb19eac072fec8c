"""The RLlib adapter: config checks, the turn-based multi-agent protocol, masks, opponents, and
RLlib's own PPO with its action-masking module training on it with no glue."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from sniff_env.errors import IllegalMoveError
from sniff_env.integrations.rllib import CONFIG_KEYS, EnvConfigError, SniffMultiAgentEnv
from sniff_env.players import PlayerSpecError


@pytest.fixture
def ray_local() -> Iterator[None]:
    """A small Ray on this machine (two CPUs, a 200 MB object store), always shut down."""
    import ray

    ray.init(num_cpus=2, object_store_memory=200 * 1024 * 1024, include_dashboard=False, logging_level="ERROR")
    try:
        yield
    finally:
        ray.shutdown()


def play_out(env: SniffMultiAgentEnv, seed: int) -> tuple[list[str], dict, dict, dict]:
    """A seeded uniform-random legal game; returns who acted, and the last step's results."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    movers: list[str] = []
    while True:
        assert len(obs) == 1, "only the agent to act observes"
        (agent, ob), = obs.items()
        assert env.observation_spaces[agent].contains(ob)
        movers.append(agent)
        obs, rewards, term, trunc, infos = env.step({agent: int(rng.choice(np.flatnonzero(ob["action_mask"])))})
        if term["__all__"] or trunc["__all__"]:
            return movers, obs, rewards, infos


def test_unknown_config_key_lists_the_allowed_ones() -> None:
    with pytest.raises(EnvConfigError) as err:
        SniffMultiAgentEnv({"ruleset": "sniff", "scorng": "primes"})
    message = str(err.value)
    assert "scorng" in message and "scoring" in message and "reward_scale" in message and "max_hands" in message


@pytest.mark.parametrize(
    "config, words",
    [({"reward_scale": 0}, "reward_scale"), ({"illegal": "ignore"}, "illegal"), ({"reward": "money"}, "reward"),
     ({"opponents": {"player_7": "greedy"}}, "player_7"),
     ({"opponents": {"player_0": "greedy", "player_1": "greedy"}}, "no learning seat")],
)
def test_bad_values_are_refused(config: dict, words: str) -> None:
    with pytest.raises(EnvConfigError, match=words):
        SniffMultiAgentEnv(config)


def test_a_bad_player_spec_is_refused() -> None:
    with pytest.raises(PlayerSpecError):
        SniffMultiAgentEnv({"opponents": {"player_1": "search:oops"}})


def test_every_config_key_is_a_rules_field_or_an_option() -> None:
    env = SniffMultiAgentEnv({"ruleset": "muggins", "num_players": 3, "scoring": "fives", "max_hands": 2})
    assert env.rules.num_players == 3 and env.possible_agents == ["player_0", "player_1", "player_2"]
    assert {"ruleset", "num_players", "reward", "opponents", "max_pip"} <= set(CONFIG_KEYS)


def test_observations_carry_the_keys_rllib_masking_reads() -> None:
    env = SniffMultiAgentEnv({"max_hands": 1})
    obs, infos = env.reset(seed=3)
    (agent, ob), = obs.items()
    assert set(ob) == {"observations", "action_mask"} and set(infos) == {agent}
    assert ob["action_mask"].dtype == np.float32 and ob["action_mask"].sum() >= 1
    raw = env.aec.observe(agent)
    np.testing.assert_array_equal(ob["observations"], raw["observation"])
    np.testing.assert_array_equal(ob["action_mask"], raw["action_mask"])


def test_a_game_ends_with_every_learner_observed_and_scored() -> None:
    env = SniffMultiAgentEnv({"max_hands": 2, "reward": "game"})
    movers, obs, rewards, infos = play_out(env, seed=11)
    assert set(movers) == set(obs) == set(rewards) == set(infos) == {"player_0", "player_1"}
    wins = sorted(infos[a]["win"] for a in infos)
    assert wins in ([0.0, 1.0], [0.5, 0.5])
    if wins == [0.0, 1.0]:  # the game reward follows the winner
        assert all(rewards[a] == (1.0 if infos[a]["win"] else -1.0) for a in infos)


def test_points_rewards_sum_to_zero_over_a_game() -> None:
    env = SniffMultiAgentEnv({"max_hands": 2, "reward": "points", "reward_scale": 0.5})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=5)
    totals = {"player_0": 0.0, "player_1": 0.0}
    done = False
    while not done:
        (agent, ob), = obs.items()
        obs, rewards, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(ob["action_mask"])))})
        for a, r in rewards.items():
            totals[a] += r
        done = term["__all__"] or trunc["__all__"]
    assert totals["player_0"] == pytest.approx(-totals["player_1"])
    scores = env.aec.scores
    assert totals["player_0"] == pytest.approx(0.5 * (scores["player_0"] - scores["player_1"]))


def test_builtin_seats_play_inside_the_env_and_never_appear() -> None:
    env = SniffMultiAgentEnv({"max_hands": 2, "opponents": {"player_1": "greedy"}})
    movers, obs, _, infos = play_out(env, seed=2)
    assert set(movers) == set(obs) == set(infos) == {"player_0"}
    assert env.opponents == {"player_1": "greedy"}
    env.set_opponents({"player_0": "heuristic"})
    assert env.opponents == {"player_1": "greedy"}, "opponents change at the next reset only"
    movers, *_ = play_out(env, seed=3)
    assert set(movers) == {"player_1"} and env.opponents == {"player_0": "heuristic"}


def test_illegal_action_penalises_or_raises() -> None:
    env = SniffMultiAgentEnv({"max_hands": 1})
    obs, _ = env.reset(seed=4)
    (agent, ob), = obs.items()
    illegal = int(np.flatnonzero(ob["action_mask"] == 0)[0])
    _, rewards, term, _, infos = env.step({agent: illegal})
    assert term["__all__"] and rewards[agent] == -1.0 and infos[agent] == {"win": 0.0, "illegal_action": illegal}
    strict = SniffMultiAgentEnv({"max_hands": 1, "illegal": "raise"})
    obs, _ = strict.reset(seed=4)
    with pytest.raises(IllegalMoveError):
        strict.step({agent: illegal})
    with pytest.raises(ValueError, match="turn"):
        strict.step({"player_0": 0, "player_1": 0})


def test_importing_without_ray_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "try:\n    import sniff_env.integrations.rllib\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert 'pip install "sniff-env[rllib]"' in out.stdout


def test_rllib_ppo_with_action_masking_trains_with_no_glue(ray_local: None) -> None:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    config = (
        PPOConfig()
        .environment(SniffMultiAgentEnv, env_config={"max_hands": 1, "reward": "points", "reward_scale": 0.05})
        .env_runners(num_env_runners=0)
        .multi_agent(policies={"main"}, policy_mapping_fn=lambda agent_id, episode, **kw: "main")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "main": RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [32]})
        }))
        .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
    )
    algo = config.build_algo()
    try:
        results = [algo.train() for _ in range(2)]
    finally:
        algo.stop()
    assert algo.iteration == 2
    sampled = [r["env_runners"]["num_module_steps_sampled_lifetime"]["main"] for r in results]
    assert sampled[0] >= 128 and sampled[1] > sampled[0]
    assert np.isfinite(results[-1]["learners"]["main"]["policy_loss"])
