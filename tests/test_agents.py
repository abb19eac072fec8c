"""The shipped agents: installed by name, described by their cards, playing any target they can read."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import tomllib
from pathlib import Path

import pytest
from conftest import play_out_legally

from sniff_env.players import PlayerSpecError, load
from sniff_env.players.agents import agent_for, agent_named, default_opponent, read_card, shipped_agents
from sniff_env.players.compat import FIELD_KINDS, FieldKind, compare_rules
from sniff_env.players.onnx_policy import read_onnx
from sniff_env.players.policy import PolicyError
from sniff_env.presets import make_rules
from sniff_env.rules import Rules, field_names

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("generalist-2p", "generalist-3p", "generalist-4p", "muggins-2p", "sniff-2p-large", "sniff-2p-tiles",
           "sniff-2p", "sniff-4p-partnership")


def rules_of(command: str) -> Rules:
    """The rules a ``sniff eval`` command line plays."""
    from sniff_env.cli.eval import add_arguments
    from sniff_env.options import rules_from_args

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return rules_from_args(parser.parse_args(shlex.split(command)[2:]))


def test_every_shipped_agent_has_a_card_true_to_its_file() -> None:
    agents = shipped_agents()
    assert tuple(agents) == SHIPPED
    for name, agent in agents.items():
        _, meta = read_onnx(agent.path)
        assert agent.rules == Rules.from_dict(meta["rules"]), name
        assert agent.family == tuple(Rules.from_dict(r) for r in meta.get("rules_family", [])), name
        assert agent.num_players == meta["num_players"]
        story = agent.card_path.read_text(encoding="utf-8")
        for s in agent.strength:
            assert f"{s.win_rate:.1%}" in story and f"{s.ci95[0]:.1%}".rstrip("%") in story, (name, s.against)
            assert s.command.startswith(f"sniff eval {name} {s.against}") and s.command in story
            assert rules_of(s.command) in (agent.family or (agent.rules,)), "the command plays the agent's rules"
            assert rules_of(s.command).name == (s.preset or agent.rules.name)


def test_agents_load_by_name_from_any_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    player = load("sniff-2p", seed=1)
    assert player.name == "sniff-2p" and player.rules == make_rules("sniff", 2)  # type: ignore[attr-defined]
    with pytest.raises(PlayerSpecError, match="installed agents: generalist-2p, generalist-3p, generalist-4p, muggins-2p, sniff-2p-large, sniff-2p-tiles, sniff-2p, sniff-4p-partnership"):
        agent_named("sniff-3p")
    with pytest.raises(PlayerSpecError, match=r"a shipped agent \(generalist-2p, generalist-3p, generalist-4p, muggins-2p, sniff-2p-large, sniff-2p-tiles, sniff-2p, sniff-4p-partnership\)"):
        load("sniff-3p")


def test_a_broken_card_is_a_policy_error(tmp_path: Path) -> None:
    card = tmp_path / "x.json"
    card.write_text('{"name": "x"}')
    with pytest.raises(PolicyError, match="must be a JSON object with keys name, file, summary"):
        read_card(card)
    card.write_text("{")
    with pytest.raises(PolicyError, match="cannot be read"):
        read_card(card)


def test_the_agent_that_fits_the_preset_and_players_is_chosen() -> None:
    assert agent_for(make_rules("sniff", 2))[0].name == "sniff-2p-tiles"  # type: ignore[index]  # its card: stronger
    assert agent_for(make_rules("muggins", 2))[0].name == "generalist-2p"  # type: ignore[index]  # its card: stronger
    assert agent_for(make_rules("muggins-sleepers", 2))[0].name == "generalist-2p"  # type: ignore[index]
    assert agent_for(make_rules("sniff", 4, partnership=True))[0].name == "sniff-4p-partnership"  # type: ignore[index]
    assert agent_for(make_rules("sniff", 3))[0].name == "generalist-3p"  # type: ignore[index]  # the only 3-player agent
    assert agent_for(make_rules("sniff", 4))[0].name == "generalist-4p"  # type: ignore[index]  # each for themselves
    assert agent_for(make_rules("muggins", 4, partnership=True)) is None and agent_for(make_rules("sniff", 3, max_pip=9)) is None
    spec, note = default_opponent(make_rules("sniff", 2, target=30))
    assert spec == "sniff-2p-tiles" and note.startswith("sniff-2p-tiles was trained for target 100; it plays target 30 here")
    spec, note = default_opponent(make_rules("muggins", 4, partnership=True))
    assert spec == "heuristic" and "no shipped agent was trained for muggins with 4 players in partnerships" in note
    spec, note = default_opponent(make_rules("muggins", 4))
    assert spec == "generalist-4p" and "strongest shipped agent for muggins with 4 players" in note
    spec, note = default_opponent(make_rules("muggins-sleepers", 3))
    assert spec == "generalist-3p" and "strongest shipped agent for muggins-sleepers with 3 players" in note
    assert default_opponent(make_rules("sniff", 2))[1] == ("sniff-2p-tiles plays: the shipped agent trained for sniff "
                                                           "with 2 players")


def test_every_rules_field_has_a_kind() -> None:
    assert set(FIELD_KINDS) == set(field_names()) - {"name"}
    assert [f for f, k in FIELD_KINDS.items() if k is FieldKind.SCALED] == ["target"]


def test_the_target_is_read_and_other_differences_are_refused() -> None:
    trained = make_rules("sniff", 2)
    short = compare_rules(trained, dataclasses.replace(trained, target=30))
    assert short.ok and [d.field for d in short.readable] == ["target"]
    assert compare_rules(trained, trained).notice("a") is None
    fit = compare_rules(trained, dataclasses.replace(trained, target=30, scoring="threes", hand_size=6))
    assert not fit.ok and fit.notice("a") is None
    assert [(d.field, d.kind) for d in fit.refused] == [("hand_size", FieldKind.UNSEEN), ("scoring", FieldKind.SHOWN)]
    assert "scoring fives (trained) vs threes (asked) (the network was trained on one value only)" in fit.refusal("a")
    layout = compare_rules(trained, make_rules("sniff", 2, max_pip=9))
    assert "max_pip 6 (trained) vs 9 (asked) (it changes the network's input or output)" in layout.refusal("a")


def test_an_agent_plays_a_short_game_and_refuses_other_rules() -> None:
    rules = make_rules("sniff", 2, target=30)
    player = load("sniff-2p", rules=rules)
    assert play_out_legally(player, rules, seed=5, max_hands=50) > 0
    with pytest.raises(PolicyError, match=r"sniff-2p was trained for other rules .*sniff spinner \(trained\) vs none"):
        load("sniff-2p", rules=make_rules("muggins", 2))


def test_play_and_serve_seat_the_fitting_agent_and_say_so() -> None:
    from sniff_env.play.session import Session, check_log_player, chosen_opponents

    rules = make_rules("sniff", 2, target=30)
    assert chosen_opponents(["greedy"], rules) == (["greedy"], None)
    opponents, note = chosen_opponents([], rules, "strong")
    assert opponents == ["sniff-2p-tiles"] and note and note.endswith("(engine: sniff-2p-tiles)")
    strong = Session.start(rules, opponents, seed=3, level="strong")
    assert strong.seats[1].name == "Strong" and any("plays target 30 here" in n for n in strong.notes)
    opponents, note = chosen_opponents([], rules)  # by default the strongest level: the agent steering the search
    assert opponents[0].startswith("guided:agent=sniff-2p-tiles,") and note and "(engine: sniff-2p-tiles with a search" in note
    session = Session.start(rules, ["sniff-2p"], seed=3)
    assert session.seats[1].name == "sniff-2p" and any("plays target 30 here" in n for n in session.notes)
    check_log_player(1, "sniff-2p")  # a log may name a shipped agent


def test_sniff_agents_lists_the_cards(capsys: pytest.CaptureFixture[str]) -> None:
    from sniff_env.cli import main

    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in SHIPPED) and "73.9%" in out
    assert main(["agents", "sniff-4p-partnership"]) == 0
    assert "--rule partnership=true" in capsys.readouterr().out
    assert rules_of("sniff eval x y " + shipped_agents()["sniff-4p-partnership"].rule_args) == make_rules(
        "sniff", 4, partnership=True)


def test_the_wheel_lists_every_package_and_ships_only_the_agents() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "sniff_env").rglob("__init__.py")}
    assert set(config["packages"]) == found | {"sniff_env.checkpoints"}
    assert config["package-dir"] == {"sniff_env.checkpoints": "checkpoints"}
    shipped = config["package-data"]["sniff_env.checkpoints"]
    assert "*.onnx" in shipped and not any(p.endswith(".pt") or "results" in p for p in shipped)


def _card(name: str, rates: dict[str, float]) -> dict[str, object]:
    """A 2-player sniff card stating these win rates (by opponent)."""
    return {"name": name, "file": f"{name}.onnx", "summary": "", "preset": "sniff", "players": 2, "rules": {},
            "training": "t", "strength": [{"against": o, "games": 100, "win_rate": r, "ci95": [r - 0.1, r + 0.1],
                                           "command": f"sniff eval {name} {o}"} for o, r in rates.items()]}


def test_the_cards_are_compared_against_the_strongest_opponent_both_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cards = {"a": {"greedy": 0.80, "heuristic": 0.50}, "b": {"greedy": 0.70, "heuristic": 0.60}, "c": {"greedy": 0.75}}
    agents = {}
    for name, rates in cards.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(_card(name, rates)))
        agents[name] = read_card(tmp_path / f"{name}.json")
    sniff = make_rules("sniff", 2)
    monkeypatch.setattr("sniff_env.players.agents.shipped_agents", lambda: {k: agents[k] for k in ("a", "b")})
    assert agent_for(sniff)[0].name == "b"  # type: ignore[index]  # both state heuristic: b beats it more often
    monkeypatch.setattr("sniff_env.players.agents.shipped_agents", lambda: {k: agents[k] for k in ("b", "c")})
    assert agent_for(sniff)[0].name == "c"  # type: ignore[index]  # c states no heuristic rate: greedy decides
    monkeypatch.setattr("sniff_env.players.agents.shipped_agents", lambda: {k: agents[k] for k in ("a", "c")})
    assert agent_for(sniff)[0].name == "a"  # type: ignore[index]
