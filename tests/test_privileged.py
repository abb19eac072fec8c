"""Training-time privileged information: a critic that reads every hidden tile and a head that
guesses where the unseen tiles are; the exported policy reads the seat's observation only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from sniff_env import make_rules
from sniff_env.observation import Observer
from sniff_env.players import load
from sniff_env.vector import VectorEngine
from sniff_env.vector import kernels as K
from training.lib.init_weights import init_from
from training.lib.network import make_net
from training.lib.privileged import hidden_view, tile_guess_loss
from training.ppo import main

RUN = ["--engine", "vector", "--num-envs", "32", "--num-steps", "16", "--total-steps", "2048", "--max-hands", "5",
       "--eval-every", "0", "--checkpoint-every", "0", "--tensorboard", "false", "--progress", "false"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_hidden_view_holds_each_unseen_tile_once_where_it_is(players: int) -> None:
    rules = make_rules("sniff", players)
    engine = VectorEngine(rules, 16, threads=1)
    engine.deal(np.arange(16), True, np.arange(16))
    rng = np.random.default_rng(players)
    for _ in range(4):
        view = hidden_view(engine, np.arange(16)).reshape(16, players, -1)
        for b in range(16):
            seat = int(engine.S[b, K.TURN])
            for k in range(1, players):
                assert np.array_equal(view[b, k - 1], engine.hands[b, (seat + k) % players])
            undrawn = engine.bone[b, engine.S[b, K.BONE_POS] : engine.S[b, K.BONE_LEN]]
            assert sorted(np.flatnonzero(view[b, players - 1]).tolist()) == sorted(undrawn.tolist())
            seen = engine.hands[b, seat].astype(bool) | (engine.played_by[b] >= 0)
            assert np.array_equal(view[b].sum(0) == 1, ~seen) and view[b].sum(0).max() <= 1
        engine.step(np.array([engine.legal[b, rng.integers(engine.num_legal[b])] for b in range(16)]))


def test_the_tile_guess_counts_only_the_unseen_tiles() -> None:
    hidden = torch.zeros(1, 2, 3, dtype=torch.uint8)  # 2 places (the other seat, the boneyard), 3 tiles
    hidden[0, 0, 0] = 1  # tile 0 with the other seat, tile 2 in the boneyard, tile 1 seen
    hidden[0, 1, 2] = 1
    guess = torch.zeros(1, 3, 2)
    guess[0, 0, 0] = guess[0, 2, 1] = 10.0
    guess[0, 1, 0] = -50.0  # a wild guess about the seen tile costs nothing
    assert float(tile_guess_loss(guess, hidden.view(1, 6))) < 1e-3
    guess[0, 2] = torch.tensor([10.0, 0.0])
    assert float(tile_guess_loss(guess, hidden.view(1, 6))) > 4.0


def test_a_run_with_the_full_critic_exports_a_policy_of_the_observation_alone(tmp_path: Path) -> None:
    assert main([*RUN, "--critic", "full", "--aux-tiles", "0.5", "--out-dir", str(tmp_path), "--exp-name", "full",
                 "--export", str(tmp_path / "full.onnx")]) == 0
    state = torch.load(tmp_path / "full" / "checkpoint.pt", weights_only=False)["model"]
    assert any(k.startswith("critic.") for k in state) and any(k.startswith("tile_guess.") for k in state)
    rules = make_rules("sniff", 2)
    player = load(str(tmp_path / "full.onnx"), rules=rules)
    net = make_net(rules, critic="full", tile_guess=True)
    net.load_state_dict(state)
    assert player.network.process.input == "obs"  # the observation, nothing else
    observer = Observer(rules)
    obs = torch.from_numpy(np.random.default_rng(0).random((4, observer.size), np.float32))
    want = net.logits(obs, net.trunk(obs)).detach().numpy()
    assert np.allclose(player.network.logits(obs.numpy()), want, atol=1e-4)
    # a plain run starts from it (the critic and the head are left out), and it from a plain one
    plain = make_net(rules)
    init_from(plain, str(tmp_path / "full" / "checkpoint.pt"), rules, observer.version)
    grown = make_net(rules, critic="full", tile_guess=True)
    init_from(grown, str(tmp_path / "full" / "checkpoint.pt"), rules, observer.version)
    assert torch.equal(grown.critic.body[0].weight, net.critic.body[0].weight)


@pytest.mark.parametrize(("argv", "says"), [
    (["--critic", "full", "--engine", "python"], "--critic full and --aux-tiles read the batched engine's hidden tiles"),
    (["--aux-tiles", "1", "--engine", "vector", "--arch", "move"], "--aux-tiles reads the mlp network's trunk"),
])
def test_privileged_options_refuse_what_cannot_read_the_hidden_tiles(argv: list[str], says: str,
                                                                      tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=says):
        main([*argv, "--out-dir", str(tmp_path)])


def test_a_move_tiles_snapshot_scores_as_its_network() -> None:
    """The pool's snapshots of a move-tiles network (which keeps constant tables outside its state)
    score as the network itself, one by one or stacked."""
    from training.lib.snapshots import SnapshotBank

    rules = make_rules("sniff", 2)
    net = make_net(rules, 64, 5.0, "move-tiles", 16)
    engine = VectorEngine(rules, 8, threads=1)
    engine.deal(np.arange(8), True, np.arange(8))
    obs = torch.from_numpy(np.array(engine.obs))
    want = net(obs)[0].detach()
    for stacked in (True, False):
        bank = SnapshotBank(net, torch.device("cpu"), stacked=stacked)
        bank.update([{k: v.clone() for k, v in net.state_dict().items()}])
        assert torch.allclose(bank.logits(obs, np.zeros(8, np.int64)), want, atol=1e-5)
