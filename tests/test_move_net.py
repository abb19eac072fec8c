"""The shared move scorer: it covers every legal move, its reply features are the heuristic's,
and it exports and plays like any policy."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import play_out_legally

from sniff_env import make_rules
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.players import load
from sniff_env.players.heuristic import best_points, public_layout
from sniff_env.presets import PRESETS
from sniff_env.tiles import mask_tiles, tile_set
from training.lib.move_net import MoveNet
from training.lib.network import export_policy, make_net
from training.lib.torchscript import load_player


def _positions(rules, seeds: int = 2, cap: int = 150):  # type: ignore[no-untyped-def]
    rnd = load("random", seed=1)
    for seed in range(seeds):
        game = new_game(rules, seed=seed, record=False, max_hands=3)
        for _ in range(cap):
            if game.phase is Phase.GAME_OVER:
                break
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            info = info_state(game, game.turn)
            yield info
            game.step(rnd.act({}, {"info_state": info}))


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_candidates_cover_every_legal_move(preset: str, players: int) -> None:
    rules = make_rules(preset, players)
    net, observer = MoveNet(rules), Observer(rules)
    for info in _positions(rules):
        idx = net.candidates(torch.from_numpy(observer.encode(info))[None])[0].tolist()
        assert set(info.legal) <= set(idx), info.legal


def _moves_played(net: MoveNet, rules):  # type: ignore[no-untyped-def]
    """Every legal placement of 3 games' positions (2-player rules) that leaves the hand in play,
    as ``(info, tiles the next seat may hold, the move's features, the layout after it)``; the
    first double's sniff opening is left to the learned part, so positions before it are skipped."""
    observer, ts = Observer(rules), tile_set(rules.max_pip)
    for info in _positions(rules, seeds=3, cap=300):
        if not info.plays or info.sniff_tile < 0:
            continue
        nxt = (info.seat + 1) % 2
        possible = [t for t in mask_tiles(info.unseen_mask) if not any(info.lacking[nxt] >> q & 1 for q in ts.tiles[t])]
        obs = torch.from_numpy(observer.encode(info))[None]
        legal = [a for a in info.legal if a != observer.codec.draw_action]
        feats = net.move_features(obs, torch.tensor([legal]))[0]
        base = public_layout(info)
        for j, a in enumerate(legal):
            after = base.copy()
            after.step(a)
            if after.phase is Phase.PLAY:
                yield info, possible, feats[j], after


def test_reply_threat_is_the_heuristics_best_reply() -> None:
    rules = make_rules("sniff", 2)
    checked = 0
    for _info, possible, feats, after in _moves_played(MoveNet(rules), rules):
        best = max(best_points(after, possible, False), default=0)
        assert float(feats[2]) * 8 * rules.max_pip == pytest.approx(best, abs=1e-4)
        checked += 1
    assert checked > 50


def test_exported_move_net_plays_legally_and_matches(tmp_path: Path) -> None:
    rules = make_rules("muggins", 3)
    net = make_net(rules, hidden=32, points_prior=5.0, arch="move")
    observer = Observer(rules)
    meta = {"rules": rules.to_dict(), "num_players": 3, "observation_version": observer.version,
            "num_actions": observer.codec.num_actions, "training_steps": 0}
    path = export_policy(net, tmp_path / "move.pt", meta)
    player = load_player(path, rules)
    assert play_out_legally(player, rules, seed=4, max_hands=2) > 0
    info = next(iter(_positions(rules, seeds=1, cap=5)))
    x = torch.from_numpy(np.stack([observer.encode(info)] * 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = torch.jit.load(str(path))
    assert torch.allclose(scripted(x), net.logits(x, net.trunk(x)))


def test_unknown_architecture_is_refused() -> None:
    with pytest.raises(ValueError, match="architecture"):
        make_net(make_rules("sniff", 2), arch="transformer")


def test_mobility_features_count_who_can_still_play() -> None:
    rules = make_rules("sniff", 2)
    ts = tile_set(rules.max_pip)
    checked = 0
    for info, possible, feats, after in _moves_played(MoveNet(rules, mobility=True), rules):
        open_pips = after.open_pips()
        kept = mask_tiles(after.hands[info.seat])
        fit = [t for t in kept if any(open_pips >> q & 1 for q in ts.tiles[t])]
        theirs = sum(any(open_pips >> q & 1 for q in ts.tiles[t]) for t in possible) / max(len(possible), 1)
        got = feats[12:16].tolist()
        assert got[0] * 7 == pytest.approx(len(fit), abs=1e-4)
        assert got[1] == float(not fit and bool(kept))
        assert got[2] == pytest.approx(theirs, abs=1e-5)
        assert got[3] * 7 * 2 * rules.max_pip == pytest.approx(sum(sum(ts.tiles[t]) for t in kept), abs=1e-3)
        checked += 1
    assert checked > 50


def test_mobility_network_exports_and_rebuilds(tmp_path: Path) -> None:
    from training.lib.network import load_exported

    rules = make_rules("sniff", 2)
    net = make_net(rules, hidden=32, points_prior=5.0, arch="move-mobility", move_hidden=16)
    observer = Observer(rules)
    meta = {"rules": rules.to_dict(), "num_players": 2, "observation_version": observer.version,
            "num_actions": observer.codec.num_actions, "training_steps": 0,
            "args": {"arch": "move-mobility", "hidden": 32, "move_hidden": 16}}
    path = export_policy(net, tmp_path / "mobility.pt", meta)
    rebuilt, _ = load_exported(path)
    assert isinstance(rebuilt, MoveNet) and rebuilt.mobility
    x = torch.from_numpy(np.stack([observer.encode(info) for info in _positions(rules, seeds=1, cap=6)]))
    assert torch.allclose(rebuilt(x)[0], net(x)[0])
    assert play_out_legally(load_player(path, rules), rules, seed=2, max_hands=1) > 0


def test_tile_tokens_say_where_each_tile_is_and_what_it_scores() -> None:
    rules = make_rules("sniff", 2)
    ts = tile_set(rules.max_pip)
    net = MoveNet(rules, mobility=True, tiles=True)
    checked = 0
    for info, possible, feats, after in _moves_played(net, rules):
        tokens = feats[net.base_move :].reshape(ts.size, -1)
        kept = set(mask_tiles(after.hands[info.seat]))
        unseen = set(mask_tiles(info.unseen_mask))
        open_pips = after.open_pips()
        for t in range(ts.size):
            kept_t, possible_t, other_t, table_t, ways, points = tokens[t].tolist()
            assert (kept_t, possible_t, other_t) == (t in kept, t in possible, t in unseen and t not in possible)
            assert table_t == (t not in kept and t not in unseen)
            assert (ways > 0) == any(open_pips >> q & 1 for q in ts.tiles[t])
            assert points * 8 * rules.max_pip == pytest.approx(best_points(after, [t], False)[0], abs=1e-4)
        checked += 1
    assert checked > 50


def test_tile_network_grows_from_a_mobility_one_and_exports(tmp_path: Path) -> None:
    from training.lib.init_weights import init_from
    from training.lib.network import load_exported

    rules = make_rules("sniff", 2)
    observer = Observer(rules)
    torch.manual_seed(0)
    base = make_net(rules, hidden=32, points_prior=5.0, arch="move-mobility", move_hidden=16)
    meta = {"rules": rules.to_dict(), "num_players": 2, "observation_version": observer.version,
            "num_actions": observer.codec.num_actions, "training_steps": 0,
            "args": {"arch": "move-mobility", "hidden": 32, "move_hidden": 16}}
    base_path = export_policy(base, tmp_path / "mobility.pt", meta)
    x = torch.from_numpy(np.stack([observer.encode(info) for info in _positions(rules, seeds=1, cap=12)]))
    grown = make_net(rules, hidden=32, arch="move-tiles", move_hidden=16)
    init_from(grown, str(base_path), rules, observer.version)
    assert torch.equal(grown(x)[0], base(x)[0])  # the tile branch starts at zero
    with pytest.raises(ValueError, match="another network shape"):
        init_from(make_net(rules, hidden=64, arch="move-tiles", move_hidden=16), str(base_path), rules,
                  observer.version)
    move = export_policy(make_net(rules, hidden=32, arch="move", move_hidden=16), tmp_path / "move.pt",
                         {**meta, "args": {**meta["args"], "arch": "move"}})
    with pytest.raises(ValueError, match="another network shape"):  # only the tile branch may be new
        init_from(make_net(rules, hidden=32, arch="move-tiles", move_hidden=16), str(move), rules, observer.version)
    torch.nn.init.normal_(grown.tile_out.weight, std=0.5)
    assert not torch.allclose(grown(x)[0], base(x)[0])
    # padding (no tokens) skips the attention: the same as computing it for every row
    cand = grown.candidate_mask(x)
    idx = grown.candidates(x)
    flat = (grown.move_features(x, idx) * torch.gather(cand, 1, idx)[..., None])[..., grown.base_move :]
    assert (flat == 0).all(-1).any() and (flat != 0).any(-1).any()
    dense = grown.tile_pool(flat.unflatten(-1, (grown.t, grown.tile_features)))
    torch.testing.assert_close(grown.tile_pooled(flat), dense)
    path = export_policy(grown, tmp_path / "tiles.pt", {**meta, "args": {**meta["args"], "arch": "move-tiles"}})
    rebuilt, _ = load_exported(path)
    assert isinstance(rebuilt, MoveNet) and rebuilt.tiles
    assert torch.allclose(rebuilt(x)[0], grown(x)[0])
    assert play_out_legally(load_player(path, rules), rules, seed=2, max_hands=1) > 0


@pytest.mark.parametrize("arch", ["move", "move-tiles"])
def test_move_networks_score_in_bfloat16_as_in_float32(arch: str) -> None:
    """Under ``--precision bf16`` (torch's autocast) both forward paths run and give the float32
    scores to bfloat16's precision, with the same best move."""
    from training.lib.network import forward_inputs, prepare_inputs

    rules = make_rules("sniff", 2)
    observer = Observer(rules)
    obs = []
    for seed in range(6):
        game = new_game(rules, seed=seed)
        for _ in range(seed):
            game.step(game.legal_actions()[0])
        obs.append(observer.encode(info_state(game, game.turn)))
    x = torch.from_numpy(np.stack(obs))
    net = make_net(rules, 64, 0.0, arch)
    with torch.no_grad():
        full, _ = net(x)
        prepared, _ = forward_inputs(net, prepare_inputs(net, x))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            low, _ = net(x)
            low_prepared, _ = forward_inputs(net, prepare_inputs(net, x))
    for ref, got in ((full, low), (prepared, low_prepared)):
        real = ref > -1e3
        assert torch.equal(real, got.float() > -1e3)
        assert torch.allclose(got.float()[real], ref[real], atol=0.05, rtol=0.02)


def _batch(rules, games: int = 8):  # type: ignore[no-untyped-def]
    """Observations of a few positions of random play, one per game, each some plays in."""
    observer = Observer(rules)
    obs = []
    for seed in range(games):
        game = new_game(rules, seed=seed)
        for _ in range(seed):
            game.step(game.legal_actions()[-1])
        obs.append(observer.encode(info_state(game, game.turn)))
    return torch.from_numpy(np.stack(obs))


@pytest.mark.parametrize("grouped", [True, False])
def test_fixed_tiles_score_as_the_network_and_only_the_projection_learns(grouped: bool) -> None:
    """With the tile attention fixed, the prepared inputs carry each move's pool of tiles instead of
    its tokens; the logits are the network's own, a training step leaves the attention's weights as
    they were and moves the projection that reads the pool, and the same step on a network whose
    attention is not fixed gives that projection the same gradient."""
    from training.lib.network import forward_inputs, prepare_inputs

    rules = make_rules("sniff", 2)
    x = _batch(rules)
    torch.manual_seed(3)
    net = make_net(rules, 64, 5.0, "move-tiles", 16)
    torch.nn.init.normal_(net.tile_out.weight, std=0.3)  # a grown network starts at zero: make it count
    twin = make_net(rules, 64, 5.0, "move-tiles", 16)
    twin.load_state_dict(net.state_dict())
    net.fix_tiles()
    inputs = prepare_inputs(net, x, grouped)
    assert "pooled" in inputs and inputs["feats"].shape[-1] == net.base_move
    with torch.no_grad():
        want = net(x)[0]
    got, _ = forward_inputs(net, inputs)
    real = want > -1e3
    assert torch.equal(real, got > -1e3)
    assert torch.allclose(got[real], want[real], atol=1e-5)

    fixed = {name: p.detach().clone() for name, p in net.named_parameters() if not p.requires_grad}
    assert fixed and all(name.startswith(("tile_in.", "tile_qkv.", "tile_mix.", "tile_mlp.", "tile_embed"))
                         for name in fixed)
    got.masked_fill(~real, 0.0).square().sum().backward()
    twin_logits, _ = forward_inputs(twin, prepare_inputs(twin, x, grouped))
    twin_logits.masked_fill(~real, 0.0).square().sum().backward()
    assert torch.allclose(net.tile_out.weight.grad, twin.tile_out.weight.grad, atol=1e-4, rtol=1e-4)
    assert twin.tile_qkv.weight.grad is not None and net.tile_qkv.weight.grad is None
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    before = net.tile_out.weight.detach().clone()
    optimizer.step()
    assert all(torch.equal(p, fixed[name]) for name, p in net.named_parameters() if name in fixed)
    assert not torch.equal(net.tile_out.weight, before)


def test_only_a_network_with_tiles_can_fix_them(tmp_path: Path) -> None:
    from training.ppo import main

    with pytest.raises(ValueError, match="only a network with tiles"):
        make_net(make_rules("sniff", 2), 32, 5.0, "move-mobility", 16).fix_tiles()
    with pytest.raises(SystemExit, match="--fix-tiles keeps the tile attention of --arch move-tiles fixed; "
                                         "--arch 'move' has none"):
        main(["--arch", "move", "--fix-tiles", "true", "--out-dir", str(tmp_path)])
    assert not any(tmp_path.iterdir())  # refused before any run folder is written


def test_a_ppo_run_with_fixed_tiles_trains_all_but_the_attention(tmp_path: Path) -> None:
    """``ppo.py --fix-tiles``: from a move-tiles start, the checkpoint's tile attention is the
    start's, bit for bit, while the projection of its pool and the rest of the network moved."""
    from training.ppo import main

    rules = make_rules("sniff", 2)
    observer = Observer(rules)
    torch.manual_seed(1)
    start = make_net(rules, hidden=32, points_prior=5.0, arch="move-tiles", move_hidden=16)
    torch.nn.init.normal_(start.tile_out.weight, std=0.3)
    meta = {"rules": rules.to_dict(), "num_players": 2, "observation_version": observer.version,
            "num_actions": observer.codec.num_actions, "training_steps": 0,
            "args": {"arch": "move-tiles", "hidden": 32, "move_hidden": 16}}
    init = export_policy(start, tmp_path / "start.pt", meta)
    assert main(["--engine", "vector", "--arch", "move-tiles", "--hidden", "32", "--move-hidden", "16",
                 "--init", str(init), "--fix-tiles", "true", "--num-envs", "16", "--num-steps", "16",
                 "--total-steps", "512", "--max-hands", "3", "--learning-rate", "1e-3", "--eval-every", "0",
                 "--checkpoint-every", "0", "--tensorboard", "false", "--progress", "false", "--export", "",
                 "--out-dir", str(tmp_path), "--exp-name", "fixed"]) == 0
    state = torch.load(tmp_path / "fixed" / "checkpoint.pt", weights_only=False)["model"]
    was = start.state_dict()
    for name in ("tile_embed", "tile_in.weight", "tile_qkv.weight", "tile_mix.bias", "tile_mlp.0.weight"):
        assert torch.equal(state[name], was[name]), name
    for name in ("tile_out.weight", "trunk.0.weight", "move_in.weight"):
        assert not torch.equal(state[name], was[name]), name
