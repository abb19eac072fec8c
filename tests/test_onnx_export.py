"""ONNX export: the shipped agents' ONNX files choose the torch network's move, carry its
metadata and play without torch; a fresh export round-trips."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

from conftest import play_out_legally

from sniff_env import make_rules
from sniff_env.observation import Observer
from sniff_env.players import load
from sniff_env.players.policy import META_FILE, PolicyNetwork, load_network
from sniff_env.rules import Rules
from sniff_env.vector.engine import VectorEngine
from training.lib.network import export_policy, make_net, policy_meta
from training.lib.onnx_export import OPSET, sample_observations
from training.lib.torchscript import read_torchscript

AGENTS = sorted(p.stem for p in Path("checkpoints").glob("*.pt"))
POSITIONS = 10_000
TIE = 1e-5
"""Logits closer than this, relative to the best one's size (at least 1), are a tie in float32."""


def positions(network: PolicyNetwork, rules: Rules, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and masks of positions with a choice, from games on the batched
    engine where ``network`` moves three times in four and a random legal move the rest."""
    gen = np.random.default_rng(seed)
    engine = VectorEngine(rules, 512, threads=1)
    engine.deal(np.arange(512), True, seed * 1_000 + np.arange(512))
    obs, masks, found = [], [], 0
    while found < count:
        live = engine.continue_games()
        assert live.size, "the games ended before enough positions"
        choice = live[engine.num_legal[live] > 1]
        obs.append(engine.obs[choice].copy())
        masks.append(engine.mask[choice].astype(bool))
        found += choice.size
        actions = engine.sample_actions(gen).astype(np.int64)
        mine = gen.random(live.size) < 0.75
        actions[live[mine]] = network.actions(engine.obs[live[mine]], engine.mask[live[mine]])
        engine.step(actions)
    engine.close()
    return np.concatenate(obs)[:count], np.concatenate(masks)[:count]


@pytest.mark.parametrize("agent", AGENTS)
def test_shipped_onnx_agent_chooses_the_torch_move(agent: str) -> None:
    onnx_net, meta, rules = load_network(f"checkpoints/{agent}.onnx")
    torch_net, torch_meta = read_torchscript(f"checkpoints/{agent}.pt")  # shipped: trusted by its card's hash
    assert meta == torch_meta
    obs, masks = positions(onnx_net, rules, POSITIONS)
    chosen = onnx_net.actions(obs, masks)
    logits = torch_net.logits(obs)
    best = np.where(masks, logits, -np.inf).max(axis=1)
    # the ONNX choice is the torch argmax, or ties with it (then both are the best move)
    gap = best - logits[np.arange(POSITIONS), chosen]
    assert masks[np.arange(POSITIONS), chosen].all()
    tie = TIE * np.maximum(1.0, np.abs(best))
    assert (gap <= tie).all(), f"{int((gap > tie).sum())} of {POSITIONS} positions differ"


def test_onnx_agent_plays_without_torch() -> None:
    script = textwrap.dedent("""
        import importlib.abc, sys

        class NoTorch(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ImportError(f"{name} is blocked")
                return None

        sys.meta_path.insert(0, NoTorch())
        from sniff_env import make_rules
        from sniff_env.players import load
        from sniff_env.players.policy import PolicyError
        from conftest import play_out_legally

        rules = make_rules("sniff", 2)
        player = load("checkpoints/sniff-2p.onnx", rules=rules)
        assert play_out_legally(player, rules, seed=5, max_hands=2) > 0
        try:
            load("checkpoints/sniff-2p.pt", rules=rules)
        except PolicyError as exc:
            assert "TorchScript files are programs" in str(exc) and "python -m training.export" in str(exc), exc
        else:
            raise AssertionError("a player loaded a TorchScript file")
        assert "torch" not in sys.modules
        print(type(player.network).__name__)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=os.environ | {"PYTHONPATH": f".{os.pathsep}tests"}, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["OnnxNetwork"]


def test_export_round_trips(tmp_path: Path) -> None:
    # the MLP: the move scorer exports too (sniff-2p above) but takes torch.export much longer
    rules = make_rules("muggins", 3)
    net = make_net(rules, hidden=16, points_prior=5.0).eval()
    meta = policy_meta(rules, 7, "ppo", {"hidden": 16, "arch": "mlp"})
    path = export_policy(net, tmp_path / "move.onnx", meta)
    model = onnx.load(str(path))
    assert json.loads({p.key: p.value for p in model.metadata_props}[META_FILE]) == meta
    assert [o.version for o in model.opset_import if o.domain == ""] == [OPSET]
    batch, size = model.graph.input[0].type.tensor_type.shape.dim
    assert batch.dim_param and size.dim_value == Observer(rules).size
    player = load(str(path), rules=rules)
    assert play_out_legally(player, rules, seed=4, max_hands=2) > 0
    obs = sample_observations(rules, 12, seed=3)
    with torch.no_grad():
        want = net.logits(torch.from_numpy(obs), net.trunk(torch.from_numpy(obs))).numpy()
    for rows in (slice(0, 1), slice(0, 12)):  # a batch of one, and a batch mixing positions
        assert np.abs(player.network.logits(obs[rows]) - want[rows]).max() < 1e-4
