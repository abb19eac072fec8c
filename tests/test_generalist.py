"""One network for several presets: recorded, trained, exported and played on each of them, and
chosen by ``sniff play`` only where no agent was trained for the rules alone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import play_out_legally

from sniff_env.players import load
from sniff_env.players.agents import (
    Agent,
    agent_for,
    default_opponent,
    greedy_rate,
    read_card,
    shipped_agents,
)
from sniff_env.players.compat import best_fit, trained_rules
from sniff_env.players.policy import PolicyError
from sniff_env.presets import make_rules
from training.export import export_checkpoint
from training.imitation import main
from training.lib.move_net import MoveNet

FAMILY = ("sniff", "muggins", "sniff-cribbage")
TINY = ["--presets", ",".join(FAMILY), "--engine", "vector", "--teacher", "heuristic", "--opponents", "greedy",
        "--arch", "move", "--hidden", "32", "--games", "9", "--epochs", "1", "--eval-games", "4",
        "--eval-opponents", "greedy", "--progress", "false"]


def test_one_network_learns_and_plays_every_preset_of_its_family(tmp_path: Path) -> None:
    policy = tmp_path / "g.onnx"
    assert main([*TINY, "--out-dir", str(tmp_path), "--exp-name", "g", "--export", str(policy)]) == 0
    with np.load(tmp_path / "g" / "teacher-data.npz") as data:
        assert sorted(set(data["preset"].tolist())) == [0, 1, 2]  # every preset recorded
        assert np.array_equal(data["games"] % 3, data["preset"])  # game g of preset i is g * 3 + i
        # the rules block of each row's observation is that preset's
        from sniff_env.observation import Observer

        block = Observer(make_rules("sniff", 2)).pieces["rules"]
        for i, name in enumerate(FAMILY):
            rows = data["obs"][data["preset"] == i][:, block.start:block.stop]
            assert (rows == Observer.rules_block(make_rules(name, 2))).all(), name
    ckpt = torch.load(tmp_path / "g" / "checkpoint.pt", weights_only=False)
    assert [r["name"] for r in ckpt["rules_family"]] == list(FAMILY)
    assert {f"win_rate_vs_greedy@{name}" for name in FAMILY} <= set(ckpt["imitation"])
    for name in FAMILY:  # the one file plays each preset of its family
        rules = make_rules(name, 2)
        player = load(str(policy), rules=rules)
        assert play_out_legally(player, rules, seed=5, max_hands=2) > 0
    again = export_checkpoint(tmp_path / "g" / "checkpoint.pt", tmp_path / "again.onnx")  # the checkpoint keeps it
    assert load(str(again), rules=make_rules("muggins", 2)).meta["rules_family"] == player.meta["rules_family"]
    with pytest.raises(PolicyError, match="scoring fives .trained. vs threes"):
        load(str(policy), rules=make_rules("sniff", 2, scoring="threes"))
    with pytest.raises(PolicyError, match="num_players 2 .trained. vs 3 .asked."):
        load(str(policy), rules=make_rules("muggins", 3))


def test_the_family_is_checked_before_any_game(tmp_path: Path) -> None:
    for bad in ("sniff,nope", "sniff,sniff", ","):
        with pytest.raises(SystemExit, match="--presets must name distinct presets"):
            main([*TINY[2:], "--presets", bad, "--out-dir", str(tmp_path)])
    assert not any(tmp_path.iterdir()), "nothing is recorded for a refused family"


def test_a_broken_family_in_a_policys_metadata_is_refused() -> None:
    meta = {"rules": make_rules("sniff", 2).to_dict(), "rules_family": []}
    with pytest.raises(ValueError, match="non-empty list"):
        trained_rules(meta)
    with pytest.raises(KeyError):
        trained_rules({})
    with pytest.raises(ValueError):
        trained_rules({"rules": meta["rules"], "rules_family": [{"name": "sniff", "max_pip": "six"}]})


def test_the_reply_points_follow_each_rows_rules() -> None:
    """A network built for one preset reads, per observation, whether points are the count / 5:
    on `sniff-cribbage` positions its features equal those of a network built for that preset."""
    from sniff_env.game import new_game
    from sniff_env.infostate import info_state
    from sniff_env.observation import Observer
    from sniff_env.players import load as load_player

    crib, plain = make_rules("sniff-cribbage", 2), make_rules("sniff", 2)
    own, other = MoveNet(crib), MoveNet(plain)
    observer, greedy = Observer(crib), load_player("greedy", seed=1)
    rows, idx = [], []
    game = new_game(crib, seed=11, record=False)
    for _ in range(40):
        if game.phase.name != "PLAY":
            break
        info = info_state(game, game.turn)
        rows.append(observer.encode(info))
        idx.append((list(info.legal) * 8)[:8])
        game.step(greedy.act({"action_mask": observer.mask(info)}, {"info_state": info}))
    obs, actions = torch.from_numpy(np.stack(rows)), torch.tensor(idx)
    threat_own, threat_other = own.move_features(obs, actions), other.move_features(obs, actions)
    assert threat_own[..., 2].abs().sum() > 0, "some reply scores in these positions"
    assert torch.equal(threat_own, threat_other)


def _generalist(tmp_path: Path, rates: dict[str, float]) -> Agent:
    """A generalist's card for sniff, muggins and muggins-sleepers, with these rates against greedy."""
    strength = [{"against": "greedy", "preset": p, "games": 100, "win_rate": r, "ci95": [r - 0.1, r + 0.1],
                 "command": f"sniff eval all-2p greedy --preset {p}"} for p, r in rates.items()]
    card = {"name": "all-2p", "file": "all-2p.onnx", "summary": "every preset", "preset": "sniff", "players": 2,
            "rules": {}, "training": "t", "strength": strength, "family": ["sniff", "muggins", "muggins-sleepers"]}
    path = tmp_path / "all-2p.json"
    path.write_text(json.dumps(card))
    return read_card(path)


def test_the_strongest_fitting_agent_plays_a_specialist_first_where_cards_tie(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = {name: a for name, a in shipped_agents().items() if not a.generalist}
    rates = {name: greedy_rate(shipped[name], preset) for name, preset in (("sniff-2p", "sniff"), ("muggins-2p", "muggins"))}
    assert min(rates.values()) > 0.5  # the specialists' cards state their rates against greedy
    weaker = _generalist(tmp_path, {"sniff": rates["sniff-2p"] - 0.01, "muggins": rates["muggins-2p"]})
    assert weaker.generalist and weaker.rule_args == "--preset {sniff,muggins,muggins-sleepers} --players 2"
    agents = shipped | {"all-2p": weaker}
    monkeypatch.setattr("sniff_env.players.agents.shipped_agents", lambda: agents)
    assert agent_for(make_rules("sniff", 2))[0].name == "sniff-2p-tiles"  # type: ignore[index]
    assert agent_for(make_rules("muggins", 2))[0].name == "muggins-2p"  # type: ignore[index]  # a tie
    spec, note = default_opponent(make_rules("muggins-sleepers", 2))  # no specialist, no rate: the generalist
    assert spec == "all-2p" and note == ("all-2p plays: the strongest shipped agent for muggins-sleepers with "
                                         "2 players (trained for 3 presets, this one among them)")
    stronger = _generalist(tmp_path, {"muggins": rates["muggins-2p"] + 0.01})
    agents["all-2p"] = stronger
    assert agent_for(make_rules("muggins", 2))[0].name == "all-2p"  # type: ignore[index]
    assert agent_for(make_rules("sniff", 2))[0].name == "sniff-2p-tiles"  # type: ignore[index]  # no rate at sniff
    agents["all-2p"] = weaker
    spec, note = default_opponent(make_rules("muggins-sleepers", 2, target=100))
    assert spec == "all-2p" and "trained for target 250; it plays target 100" in note
    assert agent_for(make_rules("sniff-us", 2)) is None  # not in its family
    assert agent_for(make_rules("muggins-sleepers", 3)) is None


def test_a_family_must_begin_with_the_cards_preset(tmp_path: Path) -> None:
    card = {"name": "x", "file": "x.onnx", "summary": "", "preset": "muggins", "players": 2, "rules": {},
            "training": "t", "strength": [], "family": ["sniff", "muggins"]}
    path = tmp_path / "x.json"
    path.write_text(json.dumps(card))
    with pytest.raises(PolicyError, match="must begin with its preset 'muggins'"):
        read_card(path)


def test_best_fit_picks_the_closest_rule_set() -> None:
    family = (make_rules("sniff", 2), make_rules("muggins", 2))
    fit = best_fit(family, make_rules("muggins", 2, target=100))
    assert fit.ok and fit.trained == family[1] and [d.field for d in fit.readable] == ["target"]
    assert not best_fit(family, make_rules("sniff-us", 2)).ok
