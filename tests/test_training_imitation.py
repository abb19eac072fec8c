"""Imitation warm-start end to end on a tiny budget: record, train, export, play, and PPO from it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import play_out_legally

from sniff_env import make_rules
from training.imitation import Args, main
from training.lib.config import ConfigError
from training.lib.imitation_record import RecordSettings, play_games
from training.lib.torchscript import load_player
from training.ppo import main as ppo_main

TINY = ["--games", "8", "--epochs", "2", "--eval-games", "4", "--workers", "1", "--progress", "false"]


def test_imitation_checkpoint_exports_and_starts_ppo(tmp_path: Path) -> None:
    policy = tmp_path / "im.pt"
    assert main([*TINY, "--out-dir", str(tmp_path), "--exp-name", "im", "--export", str(policy)]) == 0
    ckpt = torch.load(tmp_path / "im" / "checkpoint.pt", weights_only=False)
    assert ckpt["imitation_decisions"] > 0 and 0.0 <= ckpt["imitation"]["win_rate_vs_greedy"] <= 1.0
    rules = make_rules("sniff", 2)
    player = load_player(policy, rules)
    assert player.meta["trainer"] == "imitation"
    assert play_out_legally(player, rules, seed=3, max_hands=3) > 0

    ppo = ["--total-steps", "256", "--num-envs", "8", "--num-steps", "32", "--eval-every", "0",
           "--checkpoint-every", "1", "--progress", "false", "--tensorboard", "false", "--out-dir", str(tmp_path)]
    assert ppo_main([*ppo, "--exp-name", "ft", "--init", str(tmp_path / "im" / "checkpoint.pt")]) == 0
    start = torch.load(tmp_path / "ft" / "checkpoint.pt", weights_only=False)
    assert len(start["pool"]) >= 1  # the starting network is the first opponent
    assert torch.equal(start["pool"][0]["trunk.0.weight"], ckpt["model"]["trunk.0.weight"])
    with pytest.raises(ValueError, match="other rules"):
        ppo_main([*ppo, "--exp-name", "bad", "--preset", "muggins", "--init",
                  str(tmp_path / "im" / "checkpoint.pt")])


def test_records_are_the_teachers_legal_choices_and_reproducible() -> None:
    rules = make_rules("sniff", 2)
    args = RecordSettings.of(Args(games=4, explore=0.2, seed=3))
    a = play_games(rules, args, 0, 4)
    b = play_games(rules, args, 0, 4)
    assert len(a["actions"]) > 0
    assert all(np.array_equal(a[k], b[k]) for k in a)
    rows = np.arange(len(a["actions"]))
    assert (a["masks"][rows, a["actions"]] == 1).all(), "every label is a legal action"
    assert (a["masks"].sum(1) > 1).all(), "forced moves are not recorded"
    # a chunk boundary does not change the games: records of games 2-3 equal the tail of 0-3
    tail = play_games(rules, args, 2, 2)
    assert np.array_equal(tail["actions"], a["actions"][a["games"] >= 2])


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"explore \(--explore\) must be in \[0, 1\]; got 1.5"):
        main(["--explore", "1.5"])
    with pytest.raises(ConfigError, match=r"games \(--games\) must be at least 1; got 0"):
        main(["--games", "0"])
    with pytest.raises(SystemExit, match="not both"):
        main(["--soft-temperature", "1", "--q-scale", "0.3"])


def test_a_bad_init_is_refused_before_any_game_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--init`` is read before the recording (which can take many minutes), and reading it
    draws nothing from torch's generator, so a run with a good file plays what it did before."""
    from training import imitation
    from training.lib.network import make_net

    def no_games(*_: object, **__: object) -> None:
        raise AssertionError("games were recorded before --init was read")

    monkeypatch.setattr(imitation, "record_family", no_games)
    with pytest.raises(ConfigError, match="--init no-such-file.pt is not a readable training checkpoint"):
        main([*TINY, "--init", "no-such-file.pt", "--out-dir", str(tmp_path)])
    with pytest.raises(ConfigError, match="holds another network shape"):
        main([*TINY, "--arch", "mlp", "--init", "checkpoints/sniff-2p.pt", "--out-dir", str(tmp_path)])

    rules = make_rules("sniff", 2)
    torch.manual_seed(5)
    before = torch.random.get_rng_state()
    imitation.check_init(Args(arch="move", init="checkpoints/sniff-2p.pt"), rules)
    assert torch.equal(torch.random.get_rng_state(), before)
    make_net(rules, 16)  # where a network is built outside the check, the generator moves
    assert not torch.equal(torch.random.get_rng_state(), before)


def test_vector_teacher_records_trains_from_a_policy_and_reuses_its_data(tmp_path: Path) -> None:
    """The compiled search as teacher on the batched engine, starting from a shipped policy; the
    recorded decisions are saved and a second run trains on them without playing."""
    vec = ["--engine", "vector", "--teacher", "rollouts:samples=2", "--opponents", "heuristic,greedy",
           "--arch", "move", "--init", "checkpoints/sniff-2p.pt", "--games", "6", "--epochs", "1",
           "--eval-games", "4", "--progress", "false", "--out-dir", str(tmp_path)]
    assert main([*vec, "--exp-name", "v"]) == 0
    saved = tmp_path / "v" / "teacher-data.npz"
    with np.load(saved) as data:
        assert len(data["actions"]) > 20 and set(data["games"].tolist()) == set(range(6))
        legal = data["masks"][np.arange(len(data["actions"])), data["actions"]]
        assert legal.all()  # every recorded teacher move is legal where it was recorded
    assert main([*vec, "--exp-name", "w", "--data", str(saved)]) == 0
    assert not (tmp_path / "w" / "teacher-data.npz").exists()
    first = torch.load(tmp_path / "v" / "checkpoint.pt", weights_only=False)
    second = torch.load(tmp_path / "w" / "checkpoint.pt", weights_only=False)
    assert first["imitation_decisions"] == second["imitation_decisions"]
    for key, value in first["model"].items():  # same decisions, same seed: the same network
        assert torch.equal(value, second["model"][key]), key
    with pytest.raises(ConfigError, match=r"teachers are heuristic, rollouts:samples=N \(and value=margin or win, playout_NAME=X\) and hindsight"):
        main([*vec, "--exp-name", "x", "--teacher", "search"])
    with pytest.raises(ConfigError, match=r"--teacher 'rollouts:samples=2,playout_bad=1': unknown playout weight"):
        main([*vec, "--exp-name", "y", "--teacher", "rollouts:samples=2,playout_bad=1"])
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()  # refused before any game


def test_several_runs_data_train_one_network_of_the_width_asked(tmp_path: Path) -> None:
    """Two runs' saved decisions train one network, their games numbered on after each other; a
    move network of another width exports, reloads and seeds a run of the same width only."""
    from training.lib.network import load_exported
    from training.ppo import main as ppo

    base = ["--engine", "vector", "--teacher", "rollouts:samples=2", "--opponents", "heuristic", "--arch", "move",
            "--games", "4", "--eval-games", "2", "--progress", "false", "--out-dir", str(tmp_path)]
    assert main([*base, "--exp-name", "a", "--epochs", "0"]) == 0
    assert main([*base, "--exp-name", "b", "--epochs", "0", "--seed", "2"]) == 0
    files = [tmp_path / name / "teacher-data.npz" for name in "ab"]
    sizes = [len(np.load(f)["actions"]) for f in files]
    wide = tmp_path / "wide.pt"
    assert main([*base, "--exp-name", "c", "--epochs", "1", "--q-scale", "0.3", "--hidden", "24",
                 "--move-hidden", "12", "--data", ",".join(map(str, files)), "--holdout", "0.25",
                 "--export", str(wide)]) == 0
    ckpt = torch.load(tmp_path / "c" / "checkpoint.pt", weights_only=False)
    assert sizes[0] < ckpt["imitation_decisions"] < sum(sizes)  # the held-out games are the last file's last
    assert 0.0 < ckpt["imitation"]["held_out_q_loss"] < float("inf")
    assert ckpt["model"]["move_in.weight"].shape[0] == 12 and ckpt["model"]["trunk.0.weight"].shape[0] == 24
    net, meta = load_exported(wide)
    assert meta["args"]["move_hidden"] == 12 and net.state_in.out_features == 12
    ppo_args = ["--engine", "vector", "--arch", "move", "--hidden", "24", "--total-steps", "64", "--num-envs", "4",
                "--num-steps", "16", "--eval-every", "0", "--progress", "false", "--tensorboard", "false",
                "--out-dir", str(tmp_path), "--init", str(wide)]
    assert ppo([*ppo_args, "--exp-name", "p", "--move-hidden", "12"]) == 0
    with pytest.raises(ValueError, match="another network shape .*--move-hidden"):
        ppo([*ppo_args, "--exp-name", "q"])
    with pytest.raises(SystemExit, match="other fields"):
        np.savez(tmp_path / "bad.npz", **{k: v for k, v in np.load(files[0]).items() if k != "values"})
        main([*base, "--exp-name", "d", "--data", f"{files[0]},{tmp_path / 'bad.npz'}"])


def test_hindsight_teacher_labels_every_move_and_the_actor_plays(tmp_path: Path) -> None:
    """The hindsight teacher values every legal move (finite there, -inf elsewhere) while an
    exported policy plays the seat; the network regresses its logits on those values."""
    base = ["--engine", "vector", "--teacher", "hindsight", "--opponents", "heuristic", "--arch", "move",
            "--init", "checkpoints/sniff-2p.pt", "--games", "6", "--epochs", "1", "--eval-games", "4",
            "--q-scale", "0.1", "--progress", "false", "--out-dir", str(tmp_path)]
    assert main([*base, "--exp-name", "h", "--actor", "checkpoints/sniff-2p.pt"]) == 0
    with np.load(tmp_path / "h" / "teacher-data.npz") as data:
        values, masks = data["values"], data["masks"].astype(bool)
        assert len(values) > 20
        assert np.array_equal(np.isfinite(values), masks)
        assert np.array_equal(data["actions"], np.argmax(values, axis=1))
    first = torch.load(tmp_path / "h" / "checkpoint.pt", weights_only=False)["model"]
    start = {k.removeprefix("net."): v for k, v in torch.jit.load("checkpoints/sniff-2p.pt").state_dict().items()}
    assert set(first) == set(start)
    assert any(not torch.equal(v, start[k]) for k, v in first.items())  # it learned something
    with pytest.raises(SystemExit, match="need --engine vector"):
        main(["--teacher", "hindsight", "--games", "2"])
    with pytest.raises(SystemExit, match="not both"):
        main([*base, "--exp-name", "x", "--soft-temperature", "2"])


def test_centred_q_loss_sees_only_differences_between_legal_moves() -> None:
    from training.imitation import centred_q_loss

    mask = torch.tensor([[True, True, False, True], [False, True, True, False]])
    targets = torch.tensor([[1.0, -2.0, float("-inf"), 4.0], [float("-inf"), 0.5, 1.5, float("-inf")]])
    shifted = torch.where(mask, targets, torch.full_like(targets, 99.0)) + torch.tensor([[3.0], [-7.0]])
    assert centred_q_loss(shifted, targets, mask).item() == pytest.approx(0.0, abs=1e-6)
    off = shifted.clone()
    off[0, 1] += 1.0  # one legal logit off by 1 in a row of 3: centred errors 2/3, -1/3, -1/3
    assert centred_q_loss(off, targets, mask).item() == pytest.approx((4 / 9 + 1 / 9 + 1 / 9) / 3 / 2)
    off[0, 2] += 50.0  # an illegal logit does not count
    assert centred_q_loss(off, targets, mask).item() == pytest.approx((4 / 9 + 1 / 9 + 1 / 9) / 3 / 2)


def test_choice_value_loss_is_the_centred_value_of_the_policys_moves() -> None:
    """The choice term is minus the centred target of the softmax policy's moves: its exact value
    on a small case, blind to illegal logits, lowest when the weight sits on the best move, and
    its gradient raises the best move's logit and lowers the worst's."""
    from training.imitation import choice_value_loss

    mask = torch.tensor([[True, True, False, True]])
    targets = torch.tensor([[1.0, -2.0, float("-inf"), 4.0]])  # centred: 0, -3, 3
    flat = torch.zeros(1, 4)
    assert choice_value_loss(flat, targets, mask, 1.0).item() == pytest.approx(0.0, abs=1e-6)
    logits = torch.tensor([[0.0, 0.0, 0.0, float(np.log(2.0))]])  # policy 1/4, 1/4, 1/2
    assert choice_value_loss(logits, targets, mask, 1.0).item() == pytest.approx(-(0 - 3 / 4 + 3 / 2))
    assert choice_value_loss(logits + torch.tensor([[0, 0, 50.0, 0]]), targets, mask, 1.0).item() == \
        pytest.approx(-(0 - 3 / 4 + 3 / 2))
    sharp = choice_value_loss(logits, targets, mask, 0.1).item()
    assert sharp < choice_value_loss(logits, targets, mask, 1.0).item() and sharp > -3.0
    grad = torch.zeros(1, 4, requires_grad=True)
    choice_value_loss(grad, targets, mask, 0.5).backward()
    assert grad.grad[0, 3] < 0 < grad.grad[0, 1] and grad.grad[0, 2] == 0  # descent raises move 3, lowers move 1
    with pytest.raises(SystemExit, match="--choice-weight needs --q-scale"):
        main(["--choice-weight", "1", "--games", "2"])


def test_held_out_q_loss_is_the_centred_loss_over_every_decision() -> None:
    """The held-out fit that imitation prints is :func:`centred_q_loss` over all the decisions,
    each weighing alike across the chunks it is computed in."""
    from torch import nn

    from training.imitation import centred_q_loss, held_out_q_loss

    class Echo(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.ones(()))

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return x * self.w, x[:, 0]

    rng = np.random.default_rng(0)
    rows = 9000  # more than one chunk of 8,192
    masks = rng.random((rows, 5)) < 0.7
    masks[:, 0] = True
    values = np.where(masks, rng.normal(0, 3, (rows, 5)), -np.inf).astype(np.float32)
    data = {"obs": rng.normal(0, 1, (rows, 5)).astype(np.float32), "masks": masks.astype(np.int8),
            "values": values, "actions": np.zeros(rows, np.int64)}
    whole = centred_q_loss(torch.from_numpy(data["obs"]), torch.from_numpy(values) * 0.3, torch.from_numpy(masks))
    assert held_out_q_loss(Echo(), data, 0.3) == pytest.approx(whole.item(), rel=1e-5)
    assert np.isnan(held_out_q_loss(Echo(), {k: v[:0] for k, v in data.items()}, 0.3))


def test_the_search_teacher_values_moves_by_points_or_by_the_chance_of_winning() -> None:
    """``rollouts:samples=N`` values each legal move by the hand's points; with ``value=win`` by
    the chance of winning the game (between 0 and 1); an option the teacher lacks is refused."""
    from sniff_env.vector.engine import VectorEngine
    from training.lib.imitation_record import teacher_fn

    engine = VectorEngine(make_rules("sniff", 2), 8, threads=1)
    engine.deal(np.arange(8), True, list(range(8)))
    games = np.flatnonzero(engine.num_legal > 1)
    margin = teacher_fn(engine, "rollouts:samples=8", 1, 0)[0](games)
    win = teacher_fn(engine, "rollouts:samples=8,value=win", 1, 0)[0](games)
    legal = engine.mask[games].astype(bool)
    assert np.isfinite(win[legal]).all() and np.isneginf(win[~legal]).all()
    assert win[legal].min() >= -0.01 and win[legal].max() <= 1.01 and win[legal].max() > win[legal].min()
    assert np.abs(margin[legal]).max() > 1.5  # points: on another scale
    with pytest.raises(ValueError, match="value must be one of 'margin', 'win'"):
        teacher_fn(engine, "rollouts:samples=8,value=draw", 1, 0)
    with pytest.raises(ValueError, match="teachers are heuristic"):
        teacher_fn(engine, "rollouts:samples=8,depth=2", 1, 0)


def test_the_search_teacher_plays_its_playouts_with_the_weights_a_spec_gives() -> None:
    """``playout_NAME=X`` gives the teacher the search whose heuristic playouts use those weights
    (the very values of that search, seed for seed); an unknown weight is refused by name."""
    from sniff_env.players.compiled.rollouts import RolloutSearch
    from sniff_env.players.rollouts import playout_weights
    from sniff_env.vector.engine import VectorEngine
    from training.lib.imitation_record import teacher_fn

    engine = VectorEngine(make_rules("sniff", 2), 8, threads=1)
    engine.deal(np.arange(8), True, list(range(8)))
    games = np.flatnonzero(engine.num_legal > 1)
    shaped = teacher_fn(engine, "rollouts:samples=8,playout_block=3.0,playout_variety=-0.4", 1, 5)[0](games)
    stock = teacher_fn(engine, "rollouts:samples=8", 1, 5)[0](games)
    weights = playout_weights({"playout_block": 3.0, "playout_variety": -0.4})
    same = RolloutSearch(engine, samples=8, seed=5, weights=weights).q_values(games)
    legal = engine.mask[games].astype(bool)
    np.testing.assert_array_equal(shaped[legal], same[legal])
    assert not np.array_equal(shaped[legal], stock[legal])
    with pytest.raises(ValueError, match="unknown playout weight option"):
        teacher_fn(engine, "rollouts:samples=8,playout_nonsense=1.0", 1, 0)


def test_guided_targets_are_the_guided_players_scores() -> None:
    """With ``--prior`` the targets are the search's values plus prior x the network's logit /
    LOGIT_SCALE, as the guided player scores its moves; illegal moves stay out."""
    from torch import nn

    from sniff_env.players.guided import LOGIT_SCALE
    from training.imitation import guided_values

    class Echo(nn.Module):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return 2.0 * x, x[:, 0]

    rng = np.random.default_rng(1)
    masks = rng.random((50, 4)) < 0.6
    masks[:, 1] = True
    values = np.where(masks, rng.normal(0, 3, (50, 4)), -np.inf).astype(np.float32)
    obs = rng.normal(0, 1, (50, 4)).astype(np.float32)
    data = {"obs": obs, "masks": masks.astype(np.int8), "values": values, "actions": np.ones(50, np.int64)}
    Echo.parameters = lambda self: iter([torch.zeros(1)])  # type: ignore[method-assign]  # on the CPU
    scores = guided_values(Echo(), data, 0.6)
    assert np.allclose(scores[masks], (values + 0.6 / LOGIT_SCALE * 2.0 * obs)[masks], atol=1e-5)
    assert np.isneginf(scores[~masks]).all() and np.array_equal(data["values"], values), "the data are not changed"


def test_a_prior_needs_the_network_it_weighs_and_move_values() -> None:
    with pytest.raises(SystemExit, match="--prior needs --init"):
        main(["--prior", "0.3", "--q-scale", "0.3", "--games", "2"])
    with pytest.raises(SystemExit, match="--prior needs --init"):
        main(["--prior", "0.3", "--init", "checkpoints/sniff-2p.pt", "--games", "2"])
