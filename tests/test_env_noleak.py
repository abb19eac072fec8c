"""Two games that differ only in hidden tiles give a seat the same observations and infos."""

from __future__ import annotations

import numpy as np

import sniff_env

P0 = [(5, 5), (3, 5), (5, 4), (2, 5), (1, 1), (6, 6), (0, 0)]
P1 = [(5, 0), (0, 2), (2, 2), (3, 3), (1, 2), (4, 4), (6, 1)]
P1_SWAPPED = [(5, 0), (0, 2), (2, 2), (3, 3), (1, 3), (4, 6), (0, 1)]  # unplayed tiles swapped
ALL = [(a, b) for a in range(7) for b in range(a, 7)]


def _rest(*hands: list[tuple[int, int]]) -> list[tuple[int, int]]:
    held = {tuple(sorted(t)) for h in hands for t in h}
    return [t for t in ALL if t not in held]

MOVES = [((5, 5), None), ((5, 0), "west"), ((3, 5), "east"), ((0, 2), "west"),
         ((5, 4), "north"), ((2, 2), "west"), ((2, 5), "west"), ((3, 3), "east")]


def _deal(p1: list[tuple[int, int]], bone: list[tuple[int, int]]) -> dict[str, object]:
    return {"hands": [P0, p1], "boneyard": bone, "leader": 0}


def test_hidden_tiles_do_not_change_the_observation() -> None:
    other_bone = _rest(P0, P1_SWAPPED)[::-1]
    envs = [sniff_env.raw_env("sniff", 2, draw="none") for _ in range(2)]  # seat 0 draws nothing
    envs[0].reset(seed=1, options={"deal": _deal(P1, _rest(P0, P1))})
    envs[1].reset(seed=1, options={"deal": _deal(P1_SWAPPED, other_bone)})
    assert envs[0].state().tobytes() != envs[1].state().tobytes()
    for tile, end in [(None, None), *MOVES]:
        if tile is not None:
            for e in envs:
                e.step(e.action_id(tile, end))
        a, b = (e.observe("player_0") for e in envs)
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])
        assert envs[0].info_state("player_0") == envs[1].info_state("player_0")
        assert envs[0].events("player_0") == envs[1].events("player_0")


def test_others_draws_are_hidden_in_infos() -> None:
    env = sniff_env.raw_env("sniff-us", 2, infos="full")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    seen_hidden = False
    for agent in env.agent_iter(400):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        for event in info["events"]:
            if event.kind == "draw" and event.player != seat:
                assert event.tile == -1
                seen_hidden = True
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    assert seen_hidden
