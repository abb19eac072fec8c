"""How much greedy's free ties are worth against the random player.

Greedy plays the placement that scores most now, ties to the heaviest tile. Placements still
equal after that (one tile on two ends, two tiles of one weight) are the only freedom its
definition leaves. This study plays greedy with each way of breaking those ties against the
uniform random player on the batched engine, on duplicate deals (each deal twice, seats
swapped), and prints every win rate with its 95% interval:

- ``lowest``: the lowest action (the stock greedy); ``heuristic``: the stock heuristic's value
  (``greedy:tiebreak=heuristic``); ``heuristic reversed``: the tie the heuristic values least;
- ``heuristic w=x``: the heuristic's value with one weight changed;
- ``playouts me/opp``: what the seat cannot see dealt at random (as the search deals it), every
  tied placement played out to the end of the hand, greedy's side by ``me`` and the other by
  ``opp`` (``random``, ``greedy`` or ``heuristic``); the best mean margin wins;
- ``hindsight``: the same playouts on the real deal. It reads the hidden tiles, so it is not a
  player: it shows what the ties are worth to someone who could see them;
- for reference, the heuristic player itself, which greedy's definition does not bind.

    python -m training.studies.greedy_ties --games 40000 --seed 11 --workers 2 \\
        --out checkpoints/results/sniff-2p-greedy-ties.json
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from sniff_env.atomic import write_json_atomic
from sniff_env.evaluation.ratings import wilson_interval
from sniff_env.players.compiled.baselines import (
    CompiledBaselines,
    greedy_actions,
    greedy_scan,
    heuristic_choice,
    heuristic_space,
    num_legal,
    side_to_act,
    weight_vector,
)
from sniff_env.players.compiled.deals import determinize
from sniff_env.players.compiled.playouts import RolloutSpace, apply_move, load_deal, rollout_margin, workspace
from sniff_env.players.compiled.splitmix import below
from sniff_env.players.strategy import Weights
from sniff_env.rules import Rules
from sniff_env.vector import compiled
from sniff_env.vector.arrays import Games, RuleTables
from sniff_env.vector.engine import VectorEngine
from sniff_env.workers import max_workers
from training.lib.config import parse_config, rules_for, run_script

RANDOM, GREEDY, HEURISTIC = 0, 1, 2
PLAYOUT_PLAYERS = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}

_jit = compiled()


class Playouts(NamedTuple):
    """Who plays the playouts of a tie-break, and their work space (:func:`playout_tiebreak_actions`)."""

    W: np.ndarray
    """The heuristic's weights, where it plays."""
    samples: int
    hindsight: bool
    """Play on the real deal (reading the hidden tiles) instead of deals of what the seat cannot see."""
    me_player: int
    """Who plays the seat's side and the others' (:data:`RANDOM`, :data:`GREEDY`, :data:`HEURISTIC`)."""
    opp_player: int
    rng: np.ndarray
    work: RolloutSpace
    tied: np.ndarray
    """int64, one per action: the tied actions."""
    keys: np.ndarray
    """int64, one per action: greedy's keys."""
    totals: np.ndarray
    """float64, one per action: the summed margins."""


@_jit
def _play_tied(games: Games, rules: RuleTables, b: int, how: Playouts) -> None:
    """Add to ``how.totals[j]``, for each ``games.legal[b, j]`` with ``how.tied[j]``, its margin to
    the end of the hand on the deal in ``how.work``'s deal arrays, the seat's side played by
    ``how.me_player`` and the others by ``how.opp_player``."""
    work, tied, totals = how.work, how.tied, how.totals
    me = side_to_act(games, b, rules)
    for j in range(num_legal(games, b)):
        if not tied[j]:
            continue
        load_deal(games, b, work)
        a = games.legal[b, j]
        while apply_move(rules, work, a):
            who = how.me_player if side_to_act(work.game, 0, rules) == me else how.opp_player
            if who == RANDOM:
                a = work.legal[0, below(how.rng, num_legal(work.game, 0))]
            elif who == GREEDY:
                a = greedy_scan(work.game, 0, rules, how.keys)[0]
                a = a if a >= 0 else work.legal[0, 0]
            else:
                a = heuristic_choice(work.game, rules, 0, how.W, work.heuristic)
        totals[j] += rollout_margin(games.S, rules.P, b, work)


@_jit
def playout_tiebreak_actions(games: Games, rules: RuleTables, ids: np.ndarray, how: Playouts, out: np.ndarray) -> None:
    """Greedy's action in each of ``ids`` (``out[i]``), its ties broken by the best summed margin
    over ``how.samples`` playouts (see :func:`_play_tied`); each on a deal of what the seat cannot
    see (``determinize``) or, with ``how.hindsight``, on the real deal."""
    work, tied, totals = how.work, how.tied, how.totals
    DH, DB = work.deal_hands, work.deal_bone
    n, T = games.hands.shape[1], games.hands.shape[2]
    for i in range(ids.size):
        b = ids[i]
        k = num_legal(games, b)
        best, best_key, ties = greedy_scan(games, b, rules, tied)
        if ties > 1:
            for j in range(k):
                tied[j] = 1 if tied[j] == best_key else 0
                totals[j] = 0.0
            for _ in range(how.samples):
                if how.hindsight:
                    for s in range(n):
                        for t in range(T):
                            DH[0, s, t] = games.hands[b, s, t]
                    for t in range(T):
                        DB[0, t] = games.bone[b, t]
                else:
                    determinize(games.S, games.hands, games.played, rules.P, rules.lo, rules.hi, b, how.rng, DH, DB,
                                work.pool, work.taken)
                _play_tied(games, rules, b, how)
            best_v = -np.inf
            for j in range(k):
                a = games.legal[b, j]
                if tied[j] and (totals[j] > best_v or (totals[j] == best_v and a < best)):
                    best, best_v = a, totals[j]
        out[i] = best if best >= 0 else games.legal[b, 0]


@dataclass(frozen=True)
class Variant:
    """One way of breaking greedy's ties (or, with ``kind="heuristic-player"``, the heuristic)."""

    name: str
    kind: str  # "lowest", "value", "playouts" or "heuristic-player"
    weights: dict[str, float] = field(default_factory=dict)
    reversed: bool = False
    me: str = "greedy"
    opp: str = "random"
    samples: int = 32
    hindsight: bool = False


def variants(samples: int) -> list[Variant]:
    """Every tie-break the study measures, in the order of its table."""
    out = [Variant("lowest", "lowest"), Variant("heuristic", "value"),
           Variant("heuristic reversed", "value", reversed=True)]
    for name, values in (("reply", (0.0, 0.5, 2.0)), ("follow_up", (0.0, 1.0)), ("variety", (0.0, 2.0)),
                         ("playable", (0.0, 2.0)), ("double", (0.0, 4.0)), ("block", (5.0,))):
        out += [Variant(f"heuristic {name}={v:g}", "value", weights={name: v}) for v in values]
    for me in ("greedy", "heuristic"):
        for opp in ("random", "greedy", "heuristic"):
            out.append(Variant(f"playouts {me}/{opp}", "playouts", me=me, opp=opp, samples=samples))
    out.append(Variant("hindsight (reads hidden tiles)", "playouts", samples=max(1, samples // 4), hindsight=True))
    out.append(Variant("heuristic player (not greedy)", "heuristic-player"))
    return out


def chooser(engine: VectorEngine, variant: Variant, seed: int) -> Callable[[np.ndarray], np.ndarray]:
    """The batched choice function of ``variant`` on ``engine``."""
    if variant.kind == "heuristic-player":
        return CompiledBaselines(engine).heuristic
    stock = weight_vector(Weights())
    w = weight_vector(Weights.from_kwargs(None, **variant.weights)) * (-1.0 if variant.reversed else 1.0)
    space = heuristic_space(engine)
    flags, keys = (np.zeros(engine.num_actions, np.int64) for _ in range(2))
    how = Playouts(stock, variant.samples, variant.hindsight, PLAYOUT_PLAYERS[variant.me], PLAYOUT_PLAYERS[variant.opp],
                   np.array([seed & (2**64 - 1)], np.uint64), workspace(engine), flags, keys, space.values)

    def choose(games: np.ndarray) -> np.ndarray:
        games = np.ascontiguousarray(games, np.int64)
        out = np.zeros(games.size, np.int64)
        if variant.kind == "playouts":
            playout_tiebreak_actions(engine.games, engine.tables.arrays, games, how, out)
        else:
            greedy_actions(engine.games, engine.tables.arrays, games, w, space, flags, variant.kind == "value", out)
        return out

    return choose


def against_random(rules: Rules, variant: Variant, games: int, seed: int, max_hands: int) -> dict[str, Any]:
    """``variant`` against the uniform random player on ``games`` duplicate games (deal ``i`` of
    ``seed`` twice, the variant's side first then second); draws count half."""
    t0 = time.time()
    pairs = max(games // 2, 1)
    eng = VectorEngine(rules, 2 * pairs, max_hands=max_hands, threads=1)
    eng.deal(np.arange(2 * pairs), True, np.repeat(seed * 100_003 + np.arange(pairs), 2))
    choose = chooser(eng, variant, seed)
    rng = np.random.default_rng(seed)
    sides = np.array([rules.side_of(s) for s in range(rules.num_players)])
    mine = np.tile([0, 1], pairs)
    while (live := eng.continue_games()).size:
        actions = eng.sample_actions(rng).astype(np.int64)
        ours = live[sides[eng.turn[live]] == mine[live]]
        if ours.size:
            actions[ours] = choose(ours)
        eng.step(actions)
    wins = float(np.sum(np.where(eng.winner < 0, 0.5, (eng.winner == mine).astype(float))))
    lo, hi = wilson_interval(wins, 2 * pairs)
    return {"name": variant.name, "games": 2 * pairs, "wins": wins, "win_rate": round(wins / (2 * pairs), 5),
            "ci95": [round(lo, 5), round(hi, 5)], "hindsight": variant.hindsight,
            "seconds": round(time.time() - t0, 1)}


@dataclass
class Args:
    preset: str = field(default="sniff", metadata={"help": "rules preset"})
    rules: str = field(default="", metadata={"help": "rules overrides, e.g. 'target=200'"})
    games: int = field(default=20000, metadata={"min": 1, "help": "duplicate games per tie-break"})
    seed: int = field(default=11, metadata={"min": 0, "help": "seed of the deals, the random player and the playouts"})
    samples: int = field(default=32, metadata={"min": 1, "help": "playouts per tied placement (hindsight: a quarter)"})
    max_hands: int = field(default=200, metadata={"min": 1, "help": "a game ends after this many hands at most"})
    only: str = field(default="", metadata={"help": "measure only the tie-breaks whose names start with these "
                                                     "(comma-separated)"})
    workers: int = field(default=1, metadata={"min": 1, "max": max_workers(), "help": "processes that play the tie-breaks"})
    out: str = field(default="", metadata={"help": "write the results to this JSON file"})


def _measure(job: tuple[Rules, Variant, int, int, int]) -> dict[str, Any]:
    return against_random(*job)


def main(argv: list[str] | None = None) -> int:
    args = parse_config(Args, argv, __doc__.splitlines()[0] if __doc__ else "")
    rules = rules_for(args.preset, 2, args.rules)
    chosen = variants(args.samples)
    if args.only:
        prefixes = tuple(p.strip() for p in args.only.split(",") if p.strip())
        chosen = [v for v in chosen if v.name.startswith(prefixes)]
        if not chosen:
            raise SystemExit(f"--only {args.only!r} names no tie-break; they are: "
                             + ", ".join(v.name for v in variants(args.samples)))
    jobs = [(rules, v, args.games, args.seed, args.max_hands) for v in chosen]
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(_measure, jobs))
    else:
        results = [_measure(job) for job in jobs]
    _print(results, args)
    if args.out:
        command = "python -m training.studies.greedy_ties " + " ".join(argv if argv is not None else sys.argv[1:])
        write_json_atomic(args.out, {"preset": args.preset, "rules": args.rules, "opponent": "random",
                                     "seed": args.seed, "samples": args.samples, "command": command,
                                     "results": results})
        print(f"wrote {args.out}")
    return 0


def _print(results: list[dict[str, Any]], args: Args) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"greedy's tie-breaks against random: {args.preset}, 2 players, seed {args.seed}")
    for col in ("tie-break", "games", "win rate", "95% CI", "s"):
        table.add_column(col, justify="left" if col == "tie-break" else "right")
    for r in results:
        lo, hi = r["ci95"]
        table.add_row(r["name"], str(r["games"]), f"{100 * r['win_rate']:.2f}%", f"[{100 * lo:.2f}, {100 * hi:.2f}]",
                      f"{r['seconds']:.0f}")
    Console().print(table)


if __name__ == "__main__":
    run_script(main)
