"""How close a learned best response comes to the exact one, on a solved rung of the ladder.

``training.exploit`` trains a best response (PPO on the batched engine, against the frozen player
alone) for a budget; here its exported policy is rated exactly over the rung's whole tree
(``sniff_env.evaluation.solved``) against the same player, beside the exact best response (for
the win and for points). The share of the exact best response's gain it reaches says how far
``sniff exploit``'s figures on the full game, where nothing is exact, fall short of the truth.

    python -m training.studies.learned_best_response --task ladder-d3h3-v0 --opponents random,heuristic \\
        --seconds 300 --out checkpoints/results/ladder/learned-best-response-d3h3.json
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from sniff_env.atomic import write_json_atomic
from sniff_env.evaluation.benchmark.tasks import get_task
from sniff_env.evaluation.solved.ladder import say
from sniff_env.evaluation.solved.policies import profile_of
from sniff_env.evaluation.solved.solver import Result, Solver
from sniff_env.evaluation.solved.tree import build_tree
from training.exploit import best_response


def gain(r: Result) -> float:
    """The payoff against the player (+1 a win, -1 a loss): a best response's gain over it."""
    return r.win - r.loss


def study(task_name: str, opponents: list[str], seconds: float, runs: Path, seed: int,
          reward: str = "points") -> dict[str, Any]:
    task = get_task(task_name)
    start = time.perf_counter()
    say(f"{task.name}: building the tree", start)
    solver = Solver(build_tree(task.rules))
    rows = []
    for spec in opponents:
        say(f"{task.name}: training a best response to {spec} for {seconds:.0f} s", start)
        policy = best_response(spec, task.rules, runs / f"{task.name}-{spec.replace(':', '_')}", seconds=seconds,
                               max_hands=1, seed=seed, force=True, reward=reward)
        say(f"{task.name}: rating {policy} exactly", start)
        player = profile_of(solver.tree, spec)
        learned = solver.result(profile_of(solver.tree, str(policy)), player)
        exact = solver.result(solver.best_response_to(player), player)
        exact_points = solver.result(solver.best_response_to(player, points=True), player)
        rows.append({
            "opponent": spec, "budget_s": seconds, "reward": reward,
            "learned": learned.to_json(), "exact_best_response": exact.to_json(),
            "exact_best_response_for_points": exact_points.to_json(),
            "share_of_gain": round(gain(learned) / gain(exact), 3) if gain(exact) > 0 else None,
            "share_of_points_gain": round(learned.margin / exact_points.margin, 3) if exact_points.margin > 0 else None,
        })
        say(f"{task.name}: against {spec}: learned {learned.to_json()}, exact {exact.to_json()}, "
            f"share of the gain {rows[-1]['share_of_gain']}", start)
    return {"task": task.name, "seed": seed, "rows": rows,
            "gain": "payoff (win - loss) against the player; a best response's gain over it, since the game is fair"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="ladder-d3h3-v0", help="a rung of the ladder")
    parser.add_argument("--opponents", default="random,heuristic", help="players to exploit, comma-separated")
    parser.add_argument("--seconds", type=float, default=300.0, help="training budget of each best response")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward", choices=("points", "game"), default="points",
                        help="what the best response is trained for: the points margin or the game's result")
    parser.add_argument("--runs", type=Path, default=Path("runs/learned-best-response"), help="where the runs go")
    parser.add_argument("--out", default=None, help="write the table as JSON here")
    args = parser.parse_args(argv)
    result = study(args.task, [o for o in args.opponents.split(",") if o], args.seconds, args.runs, args.seed, args.reward)
    result["command"] = "python -m training.studies.learned_best_response " + " ".join(
        argv if argv is not None else sys.argv[1:])
    if args.out:
        write_json_atomic(args.out, result, indent=2)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
