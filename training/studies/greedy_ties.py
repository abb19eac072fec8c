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
from typing import Any

import numpy as np

from sniff_env.atomic import write_json_atomic
from sniff_env.evaluation.ratings import wilson_interval
from sniff_env.players.compiled.baselines import (
    CompiledBaselines,
    greedy_actions,
    greedy_scan,
    heuristic_choice,
    weight_vector,
)
from sniff_env.players.compiled.rollouts import (
    apply_move,
    below,
    determinize,
    load_deal,
    rollout_margin,
    workspace,
)
from sniff_env.players.strategy import Weights
from sniff_env.rules import Rules
from sniff_env.vector import compiled
from sniff_env.vector.compiled_rules import side_of
from sniff_env.vector.engine import VectorEngine
from sniff_env.vector.kernels import NLEGAL, NS, P_N, P_PARTNER, P_T, TURN
from sniff_env.workers import max_workers
from training.lib.config import parse_config, rules_for, run_script

RANDOM, GREEDY, HEURISTIC = 0, 1, 2
PLAYOUT_PLAYERS = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}

_jit = compiled()


@_jit
def _play_tied(S: np.ndarray, played: np.ndarray, P: np.ndarray, lo: np.ndarray, hi: np.ndarray,
               pip_tiles: np.ndarray, score_tab: np.ndarray, act_tile: np.ndarray, act_slot: np.ndarray,
               legal: np.ndarray, b: int, W: np.ndarray, me_player: int, opp_player: int, rng: np.ndarray,
               work: tuple[np.ndarray, ...], tied: np.ndarray, keys: np.ndarray, totals: np.ndarray) -> None:
    """Add to ``totals[j]``, for each ``legal[b, j]`` with ``tied[j]``, its margin to the end of
    the hand on the deal in ``work``'s first two arrays, the seat's side played by ``me_player``
    and the others by ``opp_player`` (``keys``: work space for greedy)."""
    RS, RH, RP, RL, row, scratch, values = work[2], work[3], work[4], work[6], work[7], work[8], work[9]
    me = side_of(S[b, TURN], P[P_PARTNER])
    for j in range(S[b, NLEGAL]):
        if not tied[j]:
            continue
        load_deal(S, played, b, work)
        a = legal[b, j]
        while apply_move(P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, work, a):
            who = me_player if side_of(RS[0, TURN], P[P_PARTNER]) == me else opp_player
            if who == RANDOM:
                a = RL[0, below(rng, RS[0, NLEGAL])]
            elif who == GREEDY:
                a = greedy_scan(RS, 0, P, lo, hi, score_tab, act_tile, act_slot, RL, keys)[0]
                a = a if a >= 0 else RL[0, 0]
            else:
                a = heuristic_choice(RS, RH, RP, P, lo, hi, score_tab, act_tile, act_slot, RL, 0, W, row, scratch,
                                     values)
        totals[j] += rollout_margin(S, P, b, work)


@_jit
def playout_tiebreak_actions(S: np.ndarray, hands: np.ndarray, bone: np.ndarray, played: np.ndarray, P: np.ndarray,
                             lo: np.ndarray, hi: np.ndarray, pip_tiles: np.ndarray, score_tab: np.ndarray,
                             act_tile: np.ndarray, act_slot: np.ndarray, legal: np.ndarray, games: np.ndarray,
                             W: np.ndarray, samples: int, hindsight: bool, me_player: int, opp_player: int,
                             rng: np.ndarray, work: tuple[np.ndarray, ...], tied: np.ndarray, keys: np.ndarray,
                             totals: np.ndarray, out: np.ndarray) -> None:
    """Greedy's action in each of ``games`` (``out[i]``), its ties broken by the best summed
    margin over ``samples`` playouts (see :func:`_play_tied`); each on a deal of what the seat
    cannot see (``determinize``) or, with ``hindsight``, on the real deal. ``tied`` and ``keys``
    (int64, one per action) are work space."""
    T, n = P[P_T], P[P_N]
    DH, DB, pool, taken = work[0], work[1], work[10], work[11]
    for i in range(games.size):
        b = games[i]
        k = S[b, NLEGAL]
        best, best_key, ties = greedy_scan(S, b, P, lo, hi, score_tab, act_tile, act_slot, legal, tied)
        if ties > 1:
            for j in range(k):
                tied[j] = 1 if tied[j] == best_key else 0
                totals[j] = 0.0
            for _ in range(samples):
                if hindsight:
                    for s in range(n):
                        for t in range(T):
                            DH[0, s, t] = hands[b, s, t]
                    for t in range(T):
                        DB[0, t] = bone[b, t]
                else:
                    determinize(S, hands, played, P, lo, hi, b, rng, DH, DB, pool, taken)
                _play_tied(S, played, P, lo, hi, pip_tiles, score_tab, act_tile, act_slot, legal, b, W, me_player,
                           opp_player, rng, work, tied, keys, totals)
            best_v = -np.inf
            for j in range(k):
                a = legal[b, j]
                if tied[j] and (totals[j] > best_v or (totals[j] == best_v and a < best)):
                    best, best_v = a, totals[j]
        out[i] = best if best >= 0 else legal[b, 0]


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
    t = engine.tables
    stock = weight_vector(Weights())
    w = weight_vector(Weights.from_kwargs(None, **variant.weights)) * (-1.0 if variant.reversed else 1.0)
    work, rng = workspace(engine), np.array([seed & (2**64 - 1)], np.uint64)
    row, scratch = np.zeros((1, NS), np.int64), np.zeros((3, t.num_tiles), np.int64)
    values = np.zeros(engine.num_actions, np.float64)
    flags, keys = (np.zeros(engine.num_actions, np.int64) for _ in range(2))

    def choose(games: np.ndarray) -> np.ndarray:
        games = np.ascontiguousarray(games, np.int64)
        out = np.zeros(games.size, np.int64)
        if variant.kind == "playouts":
            playout_tiebreak_actions(engine.S, engine.hands, engine.bone, engine.play_record, t.params, t.lo, t.hi,
                                     t.pip_tiles, t.score_tab, t.act_tile, t.act_slot, engine.legal, games, stock,
                                     variant.samples, variant.hindsight, PLAYOUT_PLAYERS[variant.me],
                                     PLAYOUT_PLAYERS[variant.opp], rng, work, flags, keys, values, out)
        else:
            greedy_actions(engine.S, engine.hands, engine.play_record, t.params, t.lo, t.hi, t.score_tab, t.act_tile,
                           t.act_slot, engine.legal, games, w, row, scratch, values, flags, variant.kind == "value",
                           out)
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
