"""The AEC environment (the reference engine) and the batched compiled engine in lockstep.

The same seeds (or the same scripted deal) and the same actions must give the seat to act the
same observation and mask in both, and the environment's rewards and episode ends must be what
the batched engine's scores and winners say.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from sniff_env import raw_env
from sniff_env.envs.rewards import points_rewards, win_rewards
from sniff_env.presets import PRESET_NAMES
from sniff_env.vector import kernels as K
from sniff_env.vector.engine import VectorEngine

SEATINGS: list[tuple[int, dict[str, Any]]] = [(2, {}), (3, {}), (4, {}), (4, {"partnership": True})]
CASES: list[tuple[str, int, dict[str, Any]]] = [(p, n, kw) for p in PRESET_NAMES for n, kw in SEATINGS] + [
    ("sniff", 2, {"scoring": "threes", "reward": "points"}),
    ("sniff-digital", 3, {"scoring": "primes", "max_pip": 12, "episode": "hand"}),
    ("sniff-us", 2, {"scoring": "fibonacci", "max_pip": 9, "max_hands": 2}),
    ("sniff", 2, {"sniff_sides_open": "after_both_ends", "double_placement": "choice", "max_cycles": 40}),
    ("muggins-digital", 2, {"draw": "max_two", "must_play_drawn": True, "boneyard_reserve": 3}),
    ("sniff-cribbage", 3, {"next_hand_lead": "winner", "voluntary_draw": True, "must_play_drawn": True}),
    ("muggins", 4, {"partnership": True, "reward": "points", "episode": "hand"}),
]


class Lockstep:
    """One environment and a one-game batched engine dealt the same game."""

    def __init__(self, env: raw_env) -> None:
        self.env = env
        self.eng = VectorEngine(env.rules, 1, max_hands=env.max_hands, threads=1)

    def start(self, seed: int, deal: dict[str, Any] | None = None) -> None:
        env, eng = self.env, self.eng
        env.reset(seed=seed, options=None if deal is None else {"deal": deal})
        eng.deal([0], True, [env.game.seed], None if deal is None else [deal])
        self.episode_start = eng.scores[0].tolist()
        self.check()

    def check(self) -> None:
        env, eng = self.env, self.eng
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        assert eng.phase[0] == K.PLAY and env.agents.index(agent) == eng.turn[0]
        seen = env.observe(agent)
        where = (agent, env.game.hand_index, len(env.game.plays))
        assert np.array_equal(seen["observation"], eng.obs[0]), where
        assert np.array_equal(seen["action_mask"], eng.mask[0]), agent

    def step(self, action: int) -> None:
        env, eng = self.env, self.eng
        before = eng.scores[0].tolist()
        env.step(action)
        eng.step(np.array([action]))
        after = eng.scores[0].tolist()
        sides = [env.rules.side_of(s) for s in range(env.rules.num_players)]
        assert list(env.scores.values()) == [after[side] for side in sides]
        phase = int(eng.phase[0])
        over = phase == K.GAME_OVER or (phase == K.HAND_OVER and env.episode == "hand")
        side_reward = [0.0] * len(after) if env.reward_mode == "game" else points_rewards(before, after)
        if over and env.reward_mode == "game":
            side_reward = win_rewards(self._winner(after), len(after))
        assert list(env.rewards.values()) == [side_reward[side] for side in sides]
        assert all(env.terminations[a] == over for a in env.agents)
        if phase == K.HAND_OVER and not over:
            eng.continue_games()
        self.check()

    def _winner(self, scores: list[int]) -> int | None:
        """The side that won the episode as the batched engine tells it."""
        if self.env.episode == "game":
            winner = int(self.eng.winner[0])
            return None if winner < 0 else winner
        gain = [s - s0 for s, s0 in zip(scores, self.episode_start, strict=True)]
        leaders = [s for s, g in enumerate(gain) if g == max(gain)]
        return leaders[0] if len(leaders) == 1 else None


@pytest.mark.parametrize(("preset", "players", "options"), CASES, ids=[f"{p}-{n}-{kw}" for p, n, kw in CASES])
def test_the_env_and_the_batched_engine_agree(preset: str, players: int, options: dict[str, Any]) -> None:
    pair = Lockstep(raw_env(preset, players, **options))
    env, rng = pair.env, random.Random(f"{preset}{players}{options}")
    for game_no in range(2):
        pair.start(rng.getrandbits(62) if game_no else 7)
        steps = 0
        while not any(env.terminations.values()) and not any(env.truncations.values()) and steps < 400:
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            pair.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        assert steps == 400 or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]


def test_a_scripted_deal_is_dealt_alike() -> None:
    pair = Lockstep(raw_env("sniff", 2))
    deal = {"hands": [[(6, 6), (5, 5), (0, 1), (2, 3), (1, 4), (0, 0), (3, 3)],
                      [(4, 6), (5, 6), (1, 1), (2, 2), (0, 2), (1, 3), (2, 5)]], "leader": 0}
    pair.start(3, deal)
    assert pair.env.observe("player_0")["observation"][: pair.env.observer.ts.size].sum() == 7
    for _ in range(6):
        pair.step(int(np.flatnonzero(pair.eng.mask[0])[-1]))
