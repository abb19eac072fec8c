"""Time a move of each level of the ladder: milliseconds per choice, where there is a choice.

The positions are those of games of random legal play (2-player ``sniff`` by default); only
positions with more than one legal move are timed (a forced move costs nothing). Each level's
player is the one :func:`sniff_env.play.levels.level_opponent` seats for the rules; its first
choice is made untimed (loading the network, compiling the search). The median and the 95th
percentile are shown, and the mean. ``--spec SPEC`` (repeatable) times any other player on the
same positions, after the levels (``--levels ""``: none of them).

    sniff speed levels [--preset sniff] [--players 2] [--positions 200] [--spec SPEC ...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sniff_env.options import add_rules_arguments, positive_int, rules_from_args, seed_int
from sniff_env.play.levels import LEVELS, level_opponent
from sniff_env.play.session import fresh_player
from sniff_env.speed.players import sample_states


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sniff speed levels", description=__doc__)
    add_rules_arguments(parser)
    parser.add_argument("--positions", type=positive_int, default=200, help="positions with a choice timed per level")
    parser.add_argument("--levels", default=",".join(LEVELS), help="the levels to time, comma-separated")
    parser.add_argument("--spec", action="append", default=[], metavar="SPEC",
                        help="a player spec to time on the same positions (repeatable), e.g. rollouts:samples=1024")
    parser.add_argument("--seed", type=seed_int, default=0)
    args = parser.parse_args(argv)
    rules = rules_from_args(args)
    states = [s for s in sample_states(rules, 4 * args.positions, args.seed) if len(s.legal) > 1][: args.positions]
    print(f"{rules.name}, {rules.num_players} players: ms per move over {len(states)} positions with a choice")
    timed = [(level, level_opponent(level, rules)[0]) for level in (s.strip() for s in args.levels.split(","))
             if level]
    players = []
    for label, spec in [*timed, *(("spec", spec) for spec in args.spec)]:
        try:
            players.append((label, spec, fresh_player(spec, rules, args.seed)))
        except ValueError as exc:  # a spec that names no player, or a bad option (PlayerSpecError is one)
            parser.error(f"--spec {spec}: {exc}")
    for label, spec, player in players:
        player.act(None, {"info_state": states[0]})
        times = []
        for state in states:
            start = time.perf_counter()
            player.act(None, {"info_state": state})
            times.append(1000 * (time.perf_counter() - start))
        print(f"  {label:<9} {np.median(times):8.2f} median {np.mean(times):8.2f} mean "
              f"{np.percentile(times, 95):8.2f} p95   {spec}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
