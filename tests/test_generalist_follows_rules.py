"""A generalist loaded by name plays every rule set its card lists on the default env, without
``rules=``; a policy loaded for fixed rules, or handed rules it cannot play, is refused."""

from __future__ import annotations

import pytest

import sniff_env
from sniff_env.players import load
from sniff_env.players.compat import trained_rules
from sniff_env.players.policy import PolicyError


def play_one_game(ruleset: str, player: object, seed: int = 3) -> int:
    env = sniff_env.env(ruleset=ruleset)
    env.reset(seed=seed)
    moves = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(player.act(obs, info))  # type: ignore[attr-defined]
        moves += 1
    return moves


def test_a_generalist_plays_each_rule_set_of_its_card() -> None:
    player = load("generalist-2p")
    family = [r.name for r in trained_rules(player.meta)]  # type: ignore[attr-defined]
    assert len(family) >= 5
    for ruleset in family:
        assert play_one_game(ruleset, player) > 0, ruleset
        assert player.rules.name == ruleset  # type: ignore[attr-defined]


def test_fixed_rules_and_rules_it_cannot_play_are_refused() -> None:
    fixed = load("generalist-2p", rules=sniff_env.make_rules("sniff", 2))
    with pytest.raises(PolicyError, match="other rules than the game's"):
        play_one_game("muggins", fixed)
    specialist = load("sniff-2p")
    with pytest.raises(PolicyError):
        play_one_game("muggins", specialist)
