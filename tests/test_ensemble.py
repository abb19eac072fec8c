"""An ensemble of exported networks is the mean of their logits, plays as a policy, and refuses
members made for other rules or fewer than two."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import play_out_legally

from sniff_env import make_rules
from sniff_env.players.policy import PolicyError
from training.lib.torchscript import load_checked, load_player
from training.studies.ensemble import ensemble

MEMBERS = ["checkpoints/sniff-2p.pt", "checkpoints/sniff-2p-large.pt"]


def test_the_ensemble_is_the_mean_of_its_members_logits(tmp_path: Path) -> None:
    out = ensemble(MEMBERS, tmp_path / "mean.pt")
    rules = make_rules("sniff", 2)
    module, meta, _ = load_checked(out, rules)
    assert meta["ensemble"] == MEMBERS
    obs = torch.from_numpy(np.random.default_rng(0).random((16, meta["obs_size"]), dtype=np.float32))
    members = [load_checked(p, rules)[0] for p in MEMBERS]
    with torch.no_grad():
        want = (members[0](obs) + members[1](obs)) / 2
        assert torch.allclose(module(obs), want, atol=1e-5)
        assert not torch.allclose(members[0](obs), want, atol=1e-3)  # the members differ: the mean is not either
    assert play_out_legally(load_player(out, rules), rules, seed=4, max_hands=2) > 0


def test_members_that_cannot_join_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="at least two policies"):
        ensemble(MEMBERS[:1], tmp_path / "one.pt")
    with pytest.raises(PolicyError, match="muggins-2p was trained for other rules"):
        ensemble([MEMBERS[0], "checkpoints/muggins-2p.pt"], tmp_path / "mixed.pt")
    assert not any(tmp_path.iterdir())  # nothing written
