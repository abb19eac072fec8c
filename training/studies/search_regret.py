"""How far each player's moves fall from the rollout search's: regret under a many-deal search.

The shipped 2-player networks learn the move values of ``rollouts:samples=32``. This study asks
how close a player's choices come to those of the search with many deals, on the same positions:
heuristic self-play games on the batched engine, each stopped at a decision drawn at random
(only decisions with two legal moves or more). At each position the reference search
(``--reference`` deals a move) values every legal move; a player's **regret** is the mean, over
positions, of the best move's value less the value of the move it chose, in hand points. It also
prints how often the player picks the reference's best move and, for ``rollouts:samples=N``
players, the **label noise**: the mean square, per legal move, of the difference between its values
and the reference's, both centred over the legal moves (what a network regressing on N-deal
values must average away). Each regret is also broken down by the number of tiles the mover
holds. Every player is judged on the same positions; the reference's own noise makes small
regrets read slightly high.

    python -m training.studies.search_regret rollouts:samples=32 rollouts:samples=256 \
        checkpoints/sniff-2p.pt checkpoints/sniff-2p-large.pt --games 3000 --seed 5
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import torch

from sniff_env.atomic import write_json_atomic
from sniff_env.observation import Observer
from sniff_env.players import load_compiled, parse_spec
from sniff_env.players.compiled.rollouts import RolloutSearch
from sniff_env.vector.engine import VectorEngine
from training.imitation import centred_q_loss
from training.lib.config import rules_for
from training.lib.imitation_record import actor_fn
from training.lib.torchscript import TRUST_HELP


def _chooser(engine: Any, spec: str, seed: int, trust_code: bool = False) -> tuple[Any, bool]:
    """``(fn, valued)``: ``fn(games)`` gives every action's value for a ``rollouts`` spec
    (``valued``), else ``spec``'s actions as the imitation recorder's actor plays them (a compiled
    built-in, or an exported policy file's masked argmax)."""
    base, opts = parse_spec(spec)
    if base == "rollouts":
        return RolloutSearch(engine, seed=seed, **opts).q_values, True
    return actor_fn(engine, spec, engine.rules, trust_code), False


def measure(players: list[str], games: int, seed: int, reference: int, max_step: int = 60,
            trust_code: bool = False) -> dict[str, Any]:
    """Every player's regret, agreement and (``rollouts`` players) label noise on the positions of
    ``games`` heuristic self-play games of 2-player ``sniff``, each stopped at a decision drawn
    uniformly from its first ``max_step`` steps; see the module doc."""
    rules = rules_for("sniff", 2, "")
    hand = Observer(rules).pieces["hand"]
    eng = VectorEngine(rules, games, max_hands=40, threads=1)
    rng = np.random.default_rng(seed)
    eng.deal(np.arange(games), True, rng.integers(0, 2**62, games).tolist())
    heuristic = load_compiled("heuristic", eng)
    ref = RolloutSearch(eng, samples=reference, seed=seed + 1)
    choosers = [_chooser(eng, spec, seed + 2 + k, trust_code) for k, spec in enumerate(players)]
    stop = rng.integers(0, max_step, games)
    ref_q: list[np.ndarray] = []
    held: list[np.ndarray] = []
    picks: list[list[np.ndarray]] = [[] for _ in players]
    values: list[list[np.ndarray]] = [[] for _ in players]
    for step in range(max_step):
        live = eng.continue_games()
        if not live.size:
            break
        here = live[(stop[live] == step) & (eng.num_legal[live] > 1)]
        if here.size:
            ref_q.append(ref.q_values(here))
            held.append(eng.obs[here, hand.start : hand.start + hand.size].sum(1).round().astype(np.int64))
            for k, (fn, valued) in enumerate(choosers):
                out = fn(here)
                if valued:
                    values[k].append(out)
                    out = np.argmax(out, axis=1)
                picks[k].append(np.asarray(out, np.int64))
        act = np.zeros(games, np.int64)
        act[live] = heuristic(live)
        eng.step(act)
    eng.close()
    q = np.concatenate(ref_q)  # -inf where illegal
    top = q.argmax(1)
    best = q[np.arange(len(q)), top]
    sizes = np.concatenate(held)
    counts = dict(zip(*(v.tolist() for v in np.unique(sizes, return_counts=True)), strict=True))
    report: dict[str, Any] = {"positions": len(q), "hand_sizes": counts, "reference_samples": reference, "seed": seed,
                              "players": {}}
    for k, spec in enumerate(players):
        pick = np.concatenate(picks[k])
        regret = best - q[np.arange(len(q)), pick]
        row = {"regret": float(regret.mean()), "regret_half_width": float(1.96 * regret.std(ddof=1) / np.sqrt(len(q))),
               "agreement": float((pick == top).mean()),
               "by_hand_size": {n: float(regret[sizes == n].mean()) for n in counts}}
        if values[k]:  # centred over the legal moves, as the networks regress on them
            row["label_noise"] = float(centred_q_loss(torch.from_numpy(np.concatenate(values[k])), torch.from_numpy(q),
                                                      torch.from_numpy(np.isfinite(q))))
        report["players"][spec] = row
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("players", nargs="+", help="player specs: heuristic, greedy, rollouts:samples=N or a policy file")
    parser.add_argument("--games", type=int, default=3000, help="games, one position from each (fewer: see the doc)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--reference", type=int, default=512, help="deals a move of the reference search")
    parser.add_argument("--out", default="", help="also write the figures to this JSON file")
    parser.add_argument("--trust-code", action="store_true", help=TRUST_HELP)
    args = parser.parse_args(argv)
    if args.games < 1 or args.reference < 1:
        parser.error("--games and --reference must be at least 1")
    try:
        report = measure(args.players, args.games, args.seed, args.reference, trust_code=args.trust_code)
    except ValueError as exc:  # a player spec the batched engine cannot play, a missing or foreign policy file
        parser.error(str(exc))
    print(f"{report['positions']:,} positions; regret in hand points under rollouts:samples={args.reference}")
    for spec, row in report["players"].items():
        noise = f", label noise {row['label_noise']:.2f}" if "label_noise" in row else ""
        print(f"{spec:<45} regret {row['regret']:.3f} ± {row['regret_half_width']:.3f}, "
              f"agrees {row['agreement']:.1%}{noise}")
    print("regret by tiles in the mover's hand (positions): " + ", ".join(f"{n} ({c})" for n, c in report["hand_sizes"].items()))
    for spec, row in report["players"].items():
        print(f"{spec:<45} " + " ".join(f"{v:6.3f}" for v in row["by_hand_size"].values()))
    if args.out:
        write_json_atomic(args.out, report)


if __name__ == "__main__":
    main()
