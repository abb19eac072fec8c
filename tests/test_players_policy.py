"""Exported policy files: loading to the contract, refusing mismatches, masked argmax."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from sniff_env import make_rules, new_game
from sniff_env.actions import action_codec
from sniff_env.game import Phase
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.players import load
from sniff_env.players.policy import PolicyError


class Prefer(torch.nn.Module):  # type: ignore[misc]
    """Logits that rise with the action index: the argmax is the highest legal action."""

    def __init__(self, num_actions: int) -> None:
        super().__init__()
        self.register_buffer("bias", torch.arange(num_actions, dtype=torch.float32))

    def forward(self, obs: Any) -> Any:
        return obs[:, :1] * 0.0 + self.bias


def export(path: Path, rules: Any, **meta_changes: Any) -> Path:
    codec = action_codec(rules.max_pip)
    meta = {
        "rules": rules.to_dict(), "num_players": rules.num_players,
        "observation_version": Observer(rules).version, "num_actions": codec.num_actions, "training_steps": 0,
    }
    meta.update(meta_changes)
    module = torch.jit.trace(Prefer(codec.num_actions), torch.zeros(1, Observer(rules).size))
    torch.jit.save(module, str(path), _extra_files={"sniff_meta.json": json.dumps(meta)})
    return path


def test_policy_plays_masked_argmax(tmp_path: Path) -> None:
    rules = make_rules("sniff", 2)
    player = load(str(export(tmp_path / "p.pt", rules)), rules=rules)
    obs = Observer(rules)
    game = new_game(rules, seed=1, record=False)
    for _ in range(10):
        if game.phase is not Phase.PLAY:
            break
        state = info_state(game, game.turn)
        action = player.act({"observation": obs.encode(state), "action_mask": obs.mask(state)}, {"info_state": state})
        assert action == max(game.legal_actions())
        game.step(action)


def test_policy_refuses_mismatches(tmp_path: Path) -> None:
    rules = make_rules("sniff", 2)
    good = export(tmp_path / "good.pt", rules)
    with pytest.raises(PolicyError, match="other rules"):
        load(str(good), rules=make_rules("muggins", 2))
    with pytest.raises(PolicyError, match="layout"):
        load(str(export(tmp_path / "v.pt", rules, observation_version="sniff-obs-v0")), rules=rules)
    with pytest.raises(PolicyError, match="actions"):
        load(str(export(tmp_path / "a.pt", rules, num_actions=3)), rules=rules)
    with pytest.raises(PolicyError, match="players"):
        load(str(export(tmp_path / "n.pt", rules, num_players=3)), rules=rules)
    with pytest.raises(PolicyError, match="does not exist"):
        load(str(tmp_path / "missing.pt"), rules=rules)
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a zip archive")
    with pytest.raises(PolicyError, match="not a readable"):
        load(str(corrupt), rules=rules)
    bare = tmp_path / "bare.pt"
    torch.jit.save(torch.jit.trace(Prefer(4), torch.zeros(1, 8)), str(bare))
    with pytest.raises(PolicyError, match="sniff_meta.json"):
        load(str(bare), rules=rules)
    assert issubclass(PolicyError, ValueError)
