"""Built-in player speed: choices per second of the reference players and of their compiled twins.

Both sides choose for the same kind of states: positions of random legal play (2-player
``sniff`` by default). The reference side times ``player.act`` on the seat's information state
(building that state is not timed); the compiled side times one call of
:class:`sniff_env.players.compiled.baselines.CompiledBaselines` over every game of a batch in play. Each
figure is the median of ``--repeats`` windows of ``--seconds``; the first compile is not timed.

    sniff speed players [--preset sniff] [--players 2] [--batch 1024] [--repeats 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from sniff_env.game import Phase, new_game
from sniff_env.infostate import InfoState, info_state
from sniff_env.options import (
    add_rules_arguments,
    positive_float,
    positive_int,
    rules_from_args,
    seed_int,
)
from sniff_env.players import load
from sniff_env.rules import Rules

PLAYERS = ("greedy", "heuristic")


def sample_states(rules: Rules, count: int, seed: int) -> list[InfoState]:
    """``count`` information states of seats to act, from games of random legal play."""
    rng = random.Random(seed)
    states: list[InfoState] = []
    game_seed = seed
    while len(states) < count:
        game = new_game(rules, seed=game_seed, record=False, max_hands=3)
        game_seed += 1
        while game.phase is not Phase.GAME_OVER and len(states) < count:
            if game.phase is Phase.HAND_OVER:
                game.start_hand()
                continue
            states.append(info_state(game, game.turn))
            game.step(rng.choice(game.legal_actions()))
    return states


def reference_rate(spec: str, states: list[InfoState], seconds: float) -> float:
    """Choices per second of ``load(spec).act`` over ``states``, cycling."""
    player = load(spec)
    done, i = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        player.act(None, {"info_state": states[i]})
        i = (i + 1) % len(states)
        done += 1
    return done / (time.perf_counter() - start)


def compiled_rate(spec: str, rules: Rules, batch: int, seconds: float, seed: int) -> float:
    """Choices per second of the compiled ``spec`` over ``batch`` games of random play."""
    from sniff_env.players.compiled.baselines import CompiledBaselines
    from sniff_env.vector.engine import GAME_OVER, PLAY, VectorEngine

    eng = VectorEngine(rules, batch, threads=1)
    eng.deal(np.arange(batch), True, seed + np.arange(batch))
    fast = CompiledBaselines(eng)
    choose = fast.greedy if spec == "greedy" else fast.heuristic
    rng = np.random.default_rng(seed)
    choose(np.flatnonzero(eng.phase == PLAY))  # compile outside the window
    done, timed = 0, 0.0
    while timed < seconds:
        live = np.flatnonzero(eng.phase == PLAY)
        t0 = time.perf_counter()
        choose(live)
        timed += time.perf_counter() - t0
        done += live.size
        eng.step(eng.sample_actions(rng))
        ended = np.flatnonzero(eng.phase != PLAY)
        if ended.size:
            eng.deal(ended, eng.phase[ended] == GAME_OVER, rng.integers(0, 2**62, ended.size))
    eng.close()
    return done / timed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sniff speed players", description=__doc__.split("\n")[0])
    add_rules_arguments(parser)
    parser.add_argument("--batch", type=positive_int, default=1024, help="games per compiled call")
    parser.add_argument("--seconds", type=positive_float, default=2.0, help="length of each timed window")
    parser.add_argument("--repeats", type=positive_int, default=5, help="windows per figure (the median is shown)")
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args(argv)
    rules = rules_from_args(args)
    states = sample_states(rules, 2000, args.seed)
    print(f"{rules.name}, {rules.num_players} players: choices per second, median of {args.repeats}")
    print(f"{'player':<10} {'reference':>12} {'compiled':>14} {'ratio':>8}")
    for spec in PLAYERS:
        ref = statistics.median(reference_rate(spec, states, args.seconds) for _ in range(args.repeats))
        fast = statistics.median(
            compiled_rate(spec, rules, args.batch, args.seconds, args.seed + r) for r in range(args.repeats)
        )
        print(f"{spec:<10} {ref:>12,.0f} {fast:>14,.0f} {fast / ref:>7.0f}×")
    return 0
