"""training/libraries/rllib_selfplay.py: the league's tables and mapping, the export of the masking module
into the project's policy file, clear errors, and a short run that checkpoints, resumes, evaluates
and exports a policy ``sniff eval`` plays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from conftest import scalar_tags
from test_rllib_env import ray_local  # noqa: F401  (the fixture)

from sniff_env.presets import make_rules
from training.libraries.rllib_selfplay import (
    LEARNER,
    Args,
    RayUnavailableError,
    _check_reachable,
    draw_table,
    export_checkpoint,
    main,
    module_for_agent,
    policy_net,
    train,
)

SMOKE = Path(__file__).resolve().parent.parent / "configs" / "training" / "rllib-smoke.toml"


def test_selfplay_tables_put_main_everywhere() -> None:
    rules = make_rules("sniff", 2)
    rng = np.random.default_rng(0)
    modules, seats, label = draw_table(rng, rules, ["player_0", "player_1"], [], [], 0.0)
    assert (modules, seats, label) == ({"player_0": LEARNER, "player_1": LEARNER}, {}, "self")


def test_league_tables_seat_main_on_one_side_against_one_opponent() -> None:
    rules = make_rules("sniff", 4, partnership=True)
    agents = [f"player_{i}" for i in range(4)]
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(200):
        modules, seats, label = draw_table(rng, rules, agents, ["snapshot_0"], ["greedy"], 0.0)
        seen.add(label)
        mine = [i for i, a in enumerate(agents) if modules.get(a) == LEARNER]
        assert len(mine) == 2 and rules.side_of(mine[0]) == rules.side_of(mine[1])
        others = [a for a in agents if modules.get(a) != LEARNER]
        if label == "greedy":
            assert seats == dict.fromkeys(others, "greedy")
        else:
            assert label == "snapshot" and seats == {} and {modules[a] for a in others} == {"snapshot_0"}
    assert seen == {"greedy", "snapshot"}


def test_mapping_reads_the_episode_table() -> None:
    episode = SimpleNamespace(custom_data={"table": {"player_0": LEARNER, "player_1": "snapshot_3"}})
    assert module_for_agent("player_1", episode) == "snapshot_3"
    assert module_for_agent("player_0", episode) == LEARNER


def _masking_module(rules: object, hidden: int) -> object:
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from sniff_env.integrations.rllib import SniffMultiAgentEnv

    env = SniffMultiAgentEnv({"ruleset": rules.name, "num_players": rules.num_players})  # type: ignore[attr-defined]
    model = {"fcnet_hiddens": [hidden, hidden], "fcnet_activation": "relu", "head_fcnet_hiddens": []}
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"], model_config=model,
    ).build()


def test_the_exported_network_computes_the_modules_logits() -> None:
    rules = make_rules("sniff", 2)
    module = _masking_module(rules, 16)
    net = policy_net(module.state_dict(), rules, 16)  # type: ignore[attr-defined]
    obs = torch.rand(5, net.obs_size)
    mask = torch.ones(5, net.num_actions)
    with torch.no_grad():
        theirs = module.forward_inference({"obs": {"observations": obs, "action_mask": mask}})  # type: ignore[attr-defined]
        ours = net(obs)[0]
    torch.testing.assert_close(ours, theirs["action_dist_inputs"])
    with pytest.raises(ValueError, match="hidden 32"):
        policy_net(module.state_dict(), rules, 32)  # type: ignore[attr-defined]


def test_unreachable_address_is_a_clear_error() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RayUnavailableError, match="no Ray cluster answers"):
        _check_reachable(f"127.0.0.1:{port}", timeout=2.0)
    with pytest.raises(RayUnavailableError, match="HOST:PORT"):
        _check_reachable("somewhere")


def test_unknown_config_field_exits_with_the_known_ones(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('learning_rat = 0.1\n')
    with pytest.raises(SystemExit, match="learning_rat.*learning_rate"):
        main(["--config", str(bad)])


def test_the_export_is_named_by_the_run_and_a_name_players_cannot_load_is_refused_before_ray_starts() -> None:
    from training.libraries.rllib_selfplay import export_path

    assert export_path(Args(exp_name="league-a", out_dir="out")) == Path("out/league-a/policy.onnx")
    assert export_path(Args(export="x.pt")) == Path("x.pt")
    with pytest.raises(SystemExit, match=r"NAME.onnx .*NAME.pt .*got the suffix '.zip'"):
        main(["--export", "policy.zip", "--iterations", "1"])


def test_a_negative_budget_of_learner_decisions_is_refused() -> None:
    with pytest.raises(SystemExit, match=r"total_timesteps \(--total-timesteps\) must be at least 0; got -5"):
        main(["--total-timesteps", "-5"])


def test_the_device_places_the_learner_and_a_bad_one_is_refused_before_ray_starts() -> None:
    from training.lib.device import DeviceError
    from training.libraries.rllib_selfplay import Args, build_config, learner_gpus

    assert learner_gpus("cpu") == 0 and learner_gpus("auto") == int(torch.cuda.is_available())
    assert build_config(Args(device="cpu")).num_gpus_per_learner == 0
    with pytest.raises(DeviceError, match="RLlib places its learner itself"):
        learner_gpus("cuda:1")
    with pytest.raises(SystemExit, match="unknown device 'tpu'"):
        main(["--device", "tpu"])
    if not torch.cuda.is_available():
        with pytest.raises(SystemExit, match="cuda"):
            main(["--device", "cuda"])


def test_short_run_checkpoints_resumes_and_exports_a_playable_policy(tmp_path: Path, ray_local: None) -> None:  # noqa: F811
    import tomllib

    from training.lib.config import from_sources

    values = tomllib.loads(SMOKE.read_text())
    args = from_sources(Args, values, {"out_dir": str(tmp_path), "num_env_runners": 0, "iterations": 2})
    ckpt = train(args)
    default_export = tmp_path / args.exp_name / "policy.onnx"  # no --export: the ONNX policy, named by the run
    assert default_export.is_file()
    run = json.loads((ckpt / "sniff_run.json").read_text())
    assert run["iteration"] == 2 and run["learner_steps"] >= 2 * args.train_batch_size // 2
    tags = scalar_tags(tmp_path / args.exp_name / "tb")
    assert {"eval/winrate_vs_greedy", "eval/winrate_vs_heuristic", "losses/policy_loss", "charts/SPS"} <= tags
    assert "league/size" in tags

    # a budget of learner decisions one past the checkpoint's stops the resumed run after one iteration
    resumed = from_sources(Args, values, {"out_dir": str(tmp_path), "resume": str(ckpt), "iterations": 10,
                                          "total_timesteps": run["learner_steps"] + 1,
                                          "export": str(tmp_path / "policy.onnx")})
    train(resumed)
    again = json.loads((ckpt / "sniff_run.json").read_text())
    assert again["iteration"] == 3 and again["learner_steps"] > run["learner_steps"]

    for policy in (default_export, tmp_path / "policy.onnx"):
        out = subprocess.run(
            [sys.executable, "-m", "sniff_env.cli", "eval", str(policy), "greedy", "--games", "20", "--no-progress"],
            capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ, "COLUMNS": "400"},  # the tables cut a long temporary path to fit 80 columns
        )
        assert out.returncode == 0, out.stderr
        assert "policy" in out.stdout and "greedy" in out.stdout

    with pytest.raises(ValueError, match="muggins"):
        export_checkpoint(ckpt, tmp_path / "wrong.pt", make_rules("muggins", 2))
    path = export_checkpoint(ckpt, tmp_path / "again.pt", make_rules("sniff", 2))
    assert path.is_file()
