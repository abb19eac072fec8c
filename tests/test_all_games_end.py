"""Every game ends, on every environment: random legal play of every preset with 2, 3 and 4 players
(and 4 in partnerships) on the AEC, parallel, Gymnasium, vector and OpenSpiel environments, under
their default bound of 100 hands (some rule sets let random play drift below zero for ever).

The suite plays 200 games of each combination on the two vector envs (one batch each) and a few
on the others. ``python -m tests.test_all_games_end --games 200`` plays 200 games of each
combination on every environment and prints the table kept in
``checkpoints/results/all-games-end.md``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from sniff_env.game import DEFAULT_MAX_HANDS, Phase
from sniff_env.presets import PRESET_NAMES, make_rules

SEATINGS = ((2, False), (3, False), (4, False), (4, True))
COMBOS = [(preset, n, partnership) for preset in PRESET_NAMES for n, partnership in SEATINGS]
DECISIONS_PER_HAND = 400
"""More decisions than any hand can take (every tile placed, every draw taken): a game that runs
past ``DEFAULT_MAX_HANDS`` hands of them never ended."""
LIMIT = (DEFAULT_MAX_HANDS + 1) * DECISIONS_PER_HAND


@dataclass(frozen=True)
class Played:
    """What a set of games of one combination on one environment came to."""

    games: int
    ended: int
    most_hands: int
    at_bound: int
    """Games that ended at the bound (``DEFAULT_MAX_HANDS`` hands) rather than at the target."""


def _options(partnership: bool) -> dict[str, bool]:
    return {"partnership": True} if partnership else {}


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def _summary(hands: list[int], games: int) -> Played:
    return Played(games, len(hands), max(hands, default=0), sum(h >= DEFAULT_MAX_HANDS for h in hands))


def play_aec(preset: str, n: int, partnership: bool, games: int, seed: int) -> Played:
    import sniff_env

    rng, hands = np.random.default_rng(seed), []
    env = sniff_env.env(preset, n, **_options(partnership))
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter(LIMIT):
            obs, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else _pick(obs["action_mask"], rng))
        raw = env.unwrapped
        if raw.game.phase is Phase.GAME_OVER and not raw.agents:
            hands.append(raw.game.hand_index + 1)
    return _summary(hands, games)


def play_parallel(preset: str, n: int, partnership: bool, games: int, seed: int) -> Played:
    from sniff_env.sniff_v0 import parallel_env

    rng, hands = np.random.default_rng(seed), []
    env = parallel_env(preset, n, **_options(partnership))
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        for _ in range(LIMIT):
            if not env.agents:
                break
            actions = {a: _pick(obs[a]["action_mask"], rng) if obs[a]["action_mask"].any() else 0 for a in env.agents}
            obs, _, terminations, _, _ = env.step(actions)
        if not env.agents and all(terminations.values()):
            hands.append(env.unwrapped.game.hand_index + 1)
    return _summary(hands, games)


def play_gym(preset: str, n: int, partnership: bool, games: int, seed: int) -> Played:
    from sniff_env.envs.single_agent import SniffSingleAgentEnv

    rng, hands = np.random.default_rng(seed), []
    env = SniffSingleAgentEnv(preset, n, learner="random", opponents=None, **_options(partnership))
    for g in range(games):
        _, info = env.reset(seed=seed + g)
        for _ in range(LIMIT):
            _, _, terminated, truncated, info = env.step(_pick(info["action_mask"], rng))
            if terminated or truncated:
                break
        if terminated and not truncated:
            hands.append(env.aec.game.hand_index + 1)
    return _summary(hands, games)


def _first_episodes(step: Callable[[], np.ndarray], hand_index: Callable[[], np.ndarray], games: int) -> list[int]:
    """Step a batch until each of its ``games`` finished its first episode; their hands each."""
    hands = np.zeros(games, np.int64)
    done = np.zeros(games, np.bool_)
    for _ in range(LIMIT):
        before = hand_index().copy()
        ended = step() & ~done
        hands[ended] = before[ended] + 1
        done |= ended
        if done.all():
            break
    return hands[done].tolist()


def play_vector(preset: str, n: int, partnership: bool, games: int, seed: int) -> Played:
    from sniff_env.envs.batch_env import SniffVectorEnv

    rng = np.random.default_rng(seed)
    env = SniffVectorEnv(make_rules(preset, n, **_options(partnership)), games, seed=seed, reward="game", threads=1)
    env.reset()
    hands = _first_episodes(lambda: env.step(env.random_actions(rng))[4].copy(), lambda: env.engine.hand_index, games)
    env.close()
    return _summary(hands, games)


def play_gym_vector(preset: str, n: int, partnership: bool, games: int, seed: int) -> Played:
    from sniff_env.envs.gym_vector import SniffGymVectorEnv

    rng = np.random.default_rng(seed)
    env = SniffGymVectorEnv(games, preset, n, learner="random", opponents="random", threads=1,
                            **_options(partnership))
    obs, _ = env.reset(seed=seed)
    state = {"obs": obs}

    def step() -> np.ndarray:
        masks = state["obs"]["action_mask"]
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)  # uniform over each game's legal moves
        state["obs"], _, terminated, truncated, _ = env.step(actions)
        assert not truncated.any()
        return np.asarray(terminated)

    hands = _first_episodes(step, lambda: env._engine.hand_index, games)
    env.close()
    return _summary(hands, games)


def play_openspiel(preset: str, n: int, partnership: bool, games: int, seed: int) -> Played:
    import pyspiel

    import sniff_env.integrations.openspiel  # noqa: F401  (registers python_sniff)

    rng, hands = np.random.default_rng(seed), []
    params: dict[str, object] = {"ruleset": preset, "num_players": n, **({"partnership": 1} if partnership else {})}
    game = pyspiel.load_game("python_sniff", params)
    for _ in range(games):
        state = game.new_initial_state()
        for _ in range(2 * LIMIT):
            if state.is_terminal():
                break
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
        if state.is_terminal():
            hands.append(state.play.game.hand_index + 1)
    return _summary(hands, games)


ENVS: dict[str, Callable[[str, int, bool, int, int], Played]] = {
    "AEC": play_aec, "parallel": play_parallel, "Gymnasium": play_gym, "vector": play_vector,
    "Gymnasium vector": play_gym_vector, "OpenSpiel": play_openspiel,
}
"""Each environment, by the name the table gives it, and how it plays random games."""
PER_COMBINATION_IN_SUITE = {"AEC": 2, "parallel": 1, "Gymnasium": 1, "vector": 200, "Gymnasium vector": 200,
                            "OpenSpiel": 1}


def _check(name: str) -> None:
    failures = []
    for k, (preset, n, partnership) in enumerate(COMBOS):
        games = PER_COMBINATION_IN_SUITE[name]
        played = ENVS[name](preset, n, partnership, games, 1000 * k)
        if played.ended != games or played.most_hands > DEFAULT_MAX_HANDS:
            failures.append(f"{preset} {n}p{' partnership' if partnership else ''}: {played}")
    assert not failures, f"games that did not end on the {name} env: {failures}"


@pytest.mark.parametrize("name", [n for n in ENVS if n != "OpenSpiel"])
def test_every_game_ends(name: str) -> None:
    _check(name)


@pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None, reason="OpenSpiel is not installed (the openspiel extra)")
def test_every_openspiel_game_ends() -> None:
    _check("OpenSpiel")


def test_the_bound_changes_no_game_that_ends_sooner_and_none_lifts_it() -> None:
    import sniff_env

    runs = []
    for max_hands in (None, DEFAULT_MAX_HANDS, "default"):
        env = sniff_env.raw_env("sniff", 2, **({} if max_hands == "default" else {"max_hands": max_hands}))
        env.reset(seed=5)
        while not all(env.terminations.values()):
            env.step(env.game.legal_actions()[0])
        runs.append((env.game.events, env.game.scores, env.rewards))
    assert runs[0] == runs[1] == runs[2]
    unbounded = sniff_env.raw_env("muggins", 3, max_hands=None)  # random play here never reaches 200
    unbounded.reset(seed=1)
    rng = np.random.default_rng(1)
    while unbounded.game.hand_index < DEFAULT_MAX_HANDS and not all(unbounded.terminations.values()):
        unbounded.step(_pick(unbounded.observe(unbounded.agent_selection)["action_mask"], rng))
    assert unbounded.game.hand_index == DEFAULT_MAX_HANDS and not any(unbounded.terminations.values())


def table(games: int, envs: list[str], out: Callable[[str], None] = print) -> tuple[list[str], bool]:
    """Play ``games`` random games of every combination on each of ``envs``: the Markdown table,
    each line handed to ``out`` as it is made, and whether every game ended."""
    ok = True
    lines = [f"| preset | players | {' | '.join(envs)} | most hands | at the {DEFAULT_MAX_HANDS}-hand bound |",
             "|---|---|" + "---:|" * len(envs) + "---:|---:|"]
    for line in lines:
        out(line)
    for k, (preset, n, partnership) in enumerate(COMBOS):
        results = [ENVS[name](preset, n, partnership, games, 1000 * k) for name in envs]
        ok = ok and all(r.ended == r.games for r in results)
        cells = [f"{r.ended}/{r.games}" for r in results]
        bound = sum(r.at_bound for r in results) / sum(r.games for r in results)
        line = (f"| `{preset}` | {n}{' (partners)' if partnership else ''} | {' | '.join(cells)} | "
                f"{max(r.most_hands for r in results)} | {bound:.0%} |")
        lines.append(line)
        out(line)
    return lines, ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.test_all_games_end", description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="random games per combination and environment")
    parser.add_argument("--env", action="append", choices=list(ENVS), help="an environment (default: all)")
    args = parser.parse_args(argv)
    envs = args.env or [e for e in ENVS if e != "OpenSpiel" or importlib.util.find_spec("pyspiel")]
    start = time.perf_counter()
    _, ok = table(args.games, envs)
    print(f"{args.games} random games of each combination on each environment, in {time.perf_counter() - start:.0f} s",
          file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
