"""The AEC environment steps the compiled engine and replays the reference engine on demand.

These tests hold the two together through the environment itself: at every step, every seat's
observation, the mover's mask, the scores and the count must be what the reference engine's
replayed game shows; events read late must be the events of their own decision.
"""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sniff_env import raw_env
from sniff_env.game import Phase
from sniff_env.presets import PRESET_NAMES

SEATINGS: list[tuple[int, dict[str, Any]]] = [(2, {}), (3, {}), (4, {}), (4, {"partnership": True})]
CASES: list[tuple[str, int, dict[str, Any]]] = [(p, n, kw) for p in PRESET_NAMES for n, kw in SEATINGS] + [
    ("sniff", 2, {"scoring": "threes", "reward": "points"}),
    ("sniff-digital", 3, {"scoring": "primes", "max_pip": 12, "episode": "hand"}),
    ("sniff-us", 2, {"scoring": "fibonacci", "max_pip": 9, "max_hands": 2}),
    ("sniff", 2, {"sniff_sides_open": "after_both_ends", "double_placement": "choice", "max_cycles": 40}),
    ("muggins-digital", 2, {"draw": "max_two", "must_play_drawn": True, "boneyard_reserve": 3}),
    ("sniff-cribbage", 3, {"next_hand_lead": "winner", "voluntary_draw": True, "must_play_drawn": True}),
]


def _check_against_reference(env: raw_env) -> None:
    game = env.game
    for agent in env.possible_agents:
        seat = env._seat_of[agent]
        seen = env.observe(agent)
        assert np.array_equal(seen["observation"], env.observer.encode_game(game, seat)), (agent, game.hand_index)
        live = agent == env.agent_selection and not (env.terminations[agent] or env.truncations[agent])
        want = np.zeros(env.num_actions, np.int8)
        if live:
            want[game.legal_actions()] = 1
            assert game.phase is Phase.PLAY and game.turn == seat
        assert np.array_equal(seen["action_mask"], want), agent
    assert env.count == game.count
    assert env.scores == {a: game.scores[env._side[i]] for i, a in enumerate(env.possible_agents)}


@pytest.mark.parametrize(("preset", "players", "options"), CASES, ids=[f"{p}-{n}-{kw}" for p, n, kw in CASES])
def test_every_seat_sees_what_the_reference_engine_shows(preset: str, players: int, options: dict[str, Any]) -> None:
    env = raw_env(preset, players, **options)
    rng = random.Random(f"{preset}{players}{options}")
    for game_no in range(2):
        env.reset(seed=rng.getrandbits(62) if game_no else 7)
        _check_against_reference(env)
        steps = 0
        while env.agents and steps < 400:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            _check_against_reference(env)
            steps += 1


def test_a_scripted_deal_is_dealt_by_both_engines() -> None:
    env = raw_env("sniff", 2)
    deal = {"hands": [[(6, 6), (5, 5), (0, 1), (2, 3), (1, 4), (0, 0), (3, 3)],
                      [(4, 6), (5, 6), (1, 1), (2, 2), (0, 2), (1, 3), (2, 5)]], "leader": 0}
    env.reset(seed=3, options={"deal": deal})
    _check_against_reference(env)
    assert env.observe("player_0")["observation"][: env.observer.ts.size].sum() == 7


def _play(env: raw_env, seed: int, read_now: bool) -> tuple[list[Any], list[Any]]:
    """Random play to the end of one game; the infos handed out, read at once or kept unread."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    kept: list[Any] = []
    read: list[Any] = []
    while env.agents:
        agent = env.agent_selection
        _, _, term, trunc, info = env.last()
        (read.append(dict(info)) if read_now else kept.append(info))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    return read, kept


def test_events_read_late_are_the_events_of_their_decision() -> None:
    now, _ = _play(raw_env("sniff", 3, infos="full"), 11, read_now=True)
    env = raw_env("sniff", 3, infos="full")
    _, kept = _play(env, 11, read_now=False)
    env.reset(seed=12)  # the infos of the finished game still read that game
    late = [dict(info) for info in kept]
    assert late == now
    kinds = {e.kind for info in late for e in info["events"]}
    assert {"play", "hand_end", "game_end"} <= kinds


def test_an_info_reads_whole_and_its_info_state_only_for_its_decision() -> None:
    env = raw_env("sniff", 2, infos="full")
    env.reset(seed=5)
    info = env.infos[env.agent_selection]
    assert "events" in info and "info_state" in info
    assert "events" in repr(info) and list(info) == ["events"] and len(info) == 1
    assert pickle.loads(pickle.dumps(info)) == {"events": info["events"]}
    state = info["info_state"]
    assert state.seat == env._seat_of[env.agent_selection]
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    assert list(state.legal) == sorted(legal.tolist())
    env.step(int(legal[0]))
    stale = env.infos[env.agent_selection]  # not read at its decision
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="earlier decision"):
        stale["info_state"]
    assert stale["events"] and "info_state" in stale
    env.reset(seed=6)
    other = env.infos["player_1" if env.agent_selection == "player_0" else "player_0"]
    assert "info_state" not in other and other.get("info_state") is None


def test_importing_the_package_leaves_numba_unloaded_until_an_env_is_built() -> None:
    code = "import sys, sniff_env\nprint('numba' in sys.modules)\nsniff_env.raw_env()\nprint('numba' in sys.modules)"
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True,
                         timeout=300)
    assert out.stdout.split() == ["False", "True"], out.stdout
