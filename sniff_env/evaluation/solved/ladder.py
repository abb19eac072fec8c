"""The ladder of exactly solved variants, and the study that rates players on a rung.

Each rung is a one-hand, 2-player benchmark task of real Sniff (a spinner sniff, fives scoring,
the hand-end bonus; the highest double leads), growing from ``tiny-2p-v0`` in tiles per hand, in
the size of the set and in drawing from the boneyard. :func:`study` builds a rung's whole tree,
solves it by CFR+ to a NashConv target, and gives, exactly (over the tree, not sampled):

* each player's NashConv (the sum over the seats of what a best response gains against it);
* the equilibrium's result against the search (``rollouts:samples=256``) and the heuristic;
* a best response's result against each of them: the most any player can win against them (and
  a best response for the points margin: the most points any player can take from them).
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from sniff_env.atomic import save_figure
from sniff_env.evaluation.benchmark.tasks import Task, get_task
from sniff_env.evaluation.solved.policies import profile_of
from sniff_env.evaluation.solved.psro import psro
from sniff_env.evaluation.solved.solver import Solver
from sniff_env.evaluation.solved.tree import GameTree, all_deals, build_tree

RUNGS = ("tiny-2p-v0", "ladder-d3h3-v0", "ladder-d3h3-draw-v0", "ladder-d4h3-v0")
"""The ladder's tasks, smallest first."""
PLAYERS = ("random", "greedy", "heuristic", "rollouts:samples=32", "rollouts:samples=256", "rollouts:samples=1024")
"""The players every rung rates."""
TARGETS = ("rollouts:samples=256", "heuristic")
"""The players the equilibrium and the best responses play against, exactly."""
CHECKPOINTS = (10, 20, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000)
"""CFR+ iterations at which the average profile's NashConv is measured."""
TARGET_NASH_CONV = 1e-3


def say(message: str, start: float) -> None:
    """One progress line on stderr, with the time since ``start``."""
    print(f"[{time.perf_counter() - start:7.1f} s] {message}", file=sys.stderr, flush=True)


def rung_tree(task: Task, start: float) -> GameTree:
    """The whole tree of ``task``'s hand, saying how the walk goes."""
    deals = all_deals(task.rules)

    def progress(nodes: int, sets: int, done: int, now: float) -> None:
        of = f", deals {done:,}/{len(deals):,}" if done >= 0 else ""
        say(f"{task.name}: tree {nodes:,} nodes, {sets:,} information sets{of}", start)

    return build_tree(task.rules, progress, deals)


def study(task_name: str, players: Sequence[str] = PLAYERS, policies: Sequence[str] = (),
          checkpoints: Sequence[int] = CHECKPOINTS, target: float = TARGET_NASH_CONV, psro_rounds: int = 0,
          log: Callable[[str, float], None] = say,
          partial: Callable[[dict[str, Any]], None] | None = None, equilibrium: bool = True) -> dict[str, Any]:
    """The rung ``task_name`` solved and its players rated (see the module docstring).
    ``policies`` are policy files made for the rung's rules (rated like the players);
    ``psro_rounds`` rounds of PSRO with exact best responses are rated too. ``partial`` hears the
    result after each stage (``"complete": False`` until the last), so a long run that is cut
    short keeps what it found. Without ``equilibrium`` CFR+ is skipped: the players are rated and
    the best responses to the targets computed, to add to an earlier run of the same rung."""
    task = get_task(task_name)
    start = time.perf_counter()
    log(f"{task.name}: building the tree of every deal and line of play", start)
    tree = rung_tree(task, start)
    log(f"{task.name}: {tree.summary()}", start)
    solver = Solver(tree)
    rows: list[dict[str, Any]] = []
    against: list[dict[str, Any]] = []
    result: dict[str, Any] = {
        "task": task.name, "summary": task.summary, "rules": task.rules.to_dict(), **tree.summary(),
        "nash_conv_target": target,
        "payoff": "one hand for the win: +1 to the seat with more points, -1 to the other, 0 on a tie",
        "nash_conv": "sum over both seats of a best response's gain over the player, in payoff (at most 2)",
        "players": rows, "exact_results": against,
        "machine": f"{platform.machine()}, {platform.system()}, Python {platform.python_version()}",
        "complete": False,
    }

    def stage() -> None:
        result["total_s"] = round(time.perf_counter() - start, 1)
        if partial is not None:
            partial(result)

    def cfr_report(its: int, conv: float, secs: float) -> None:
        log(f"{task.name}: CFR+ {its} iterations, NashConv {conv:.3g} ({secs:.0f} s of solving)", start)

    profile_eq = None
    result["cfr_plus"] = []
    if equilibrium:
        t0 = time.perf_counter()
        profile_eq, curve = solver.cfr_plus(checkpoints, target, cfr_report)
        result["solve_s"] = round(time.perf_counter() - t0, 1)
        result["cfr_plus"] = curve
        rows.append({"player": "CFR+ equilibrium", "nash_conv": curve[-1]["nash_conv"], "seconds": result["solve_s"]})
        stage()
    if psro_rounds:
        t0 = time.perf_counter()
        _, result["psro"] = psro(solver, psro_rounds, lambda r, conv, secs: log(
            f"{task.name}: PSRO round {r}, NashConv {conv:.3g} ({secs:.0f} s)", start))
        rows.append({"player": f"PSRO, {psro_rounds} rounds of exact best responses",
                     "nash_conv": result["psro"][-1]["nash_conv"], "seconds": round(time.perf_counter() - t0, 1)})
        stage()
    for spec in [*players, *policies]:
        t0 = time.perf_counter()
        log(f"{task.name}: asking {spec} at {len(tree.paths):,} information sets", start)
        profile = profile_of(
            tree, spec, progress=lambda done, total, s=spec: log(f"{task.name}: {s} {done:,}/{total:,}", start))
        conv = solver.nash_conv(profile)
        secs = time.perf_counter() - t0
        rows.append({"player": spec, "nash_conv": round(conv, 5), "seconds": round(secs, 1)})
        log(f"{task.name}: {spec} NashConv {conv:.4f} ({secs:.0f} s)", start)
        if spec in TARGETS:
            br = solver.best_response_to(profile)
            br_points = solver.best_response_to(profile, points=True)
            row = {"opponent": spec, "best_response": solver.result(br, profile).to_json(),
                   "best_response_for_points": solver.result(br_points, profile).to_json()}
            if profile_eq is not None:
                row = {"opponent": spec, "equilibrium": solver.result(profile_eq, profile).to_json(), **row}
            against.append(row)
            log(f"{task.name}: against {spec}: {row}", start)
        stage()
    against.sort(key=lambda x: TARGETS.index(x["opponent"]))
    result["complete"] = True
    stage()
    return result


def plot_curves(results: Sequence[dict[str, Any]], path: str) -> None:
    """CFR+'s NashConv against iterations, one line per rung (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = [r for r in results if r["cfr_plus"]]
    if not curves:
        raise ValueError("none of these results ran CFR+ (each was a --no-equilibrium run): no curve to draw")
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for r in curves:
        its = [p["iterations"] for p in r["cfr_plus"]]
        ax.plot(its, [p["nash_conv"] for p in r["cfr_plus"]], marker="o", label=f"{r['task']} ({r['histories']:,} histories)")
    ax.axhline(curves[-1]["nash_conv_target"], color="grey", linestyle=":", label="target")
    ax.set(xscale="log", yscale="log", xlabel="CFR+ iterations", ylabel="NashConv of the average strategy",
           title="CFR+ on the ladder's rungs")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def solved(result: dict[str, Any]) -> bool:
    """Whether a result's CFR+ reached its NashConv target (else its run only rated players)."""
    curve = result.get("cfr_plus") or []
    return bool(curve) and curve[-1]["nash_conv"] <= result["nash_conv_target"]


def markdown_table(results: Sequence[dict[str, Any]]) -> str:
    """The ladder's reference table (one column per rung; results of the same rung are merged) as Markdown."""
    def policy_file(spec: str) -> str | None:
        if spec.startswith("guided:agent="):
            spec = spec.split("=", 1)[1].split(",")[0]
        return spec if spec.endswith(".onnx") else None

    def short(spec: str, files: set[str]) -> str:
        if spec.startswith("guided:agent="):
            return f"guided search steered by {short(spec.split('=', 1)[1].split(',')[0], files)}"
        if spec.endswith(".onnx"):  # a rung's one policy file is its PPO agent; several are told apart by name
            return "the PPO trained on the rung" if len(files) == 1 else f"the policy {spec}"
        return spec.replace(":samples=", ":")

    merged: dict[str, dict[str, Any]] = {}
    for r in sorted(results, key=lambda r: (RUNGS.index(r["task"]) if r["task"] in RUNGS else len(RUNGS), not solved(r))):
        if not solved(r):  # a run that adds players to a rung: its CFR+ rows are no equilibrium
            r = {**r, "players": [p for p in r["players"] if p["player"] != "CFR+ equilibrium"],
                 "exact_results": [{k: v for k, v in x.items() if k != "equilibrium"} for x in r["exact_results"]]}
        if r["task"] not in merged:
            merged[r["task"]] = {**r, "players": list(r["players"]), "exact_results": [dict(x) for x in r["exact_results"]]}
            continue
        into = merged[r["task"]]
        into["players"] += [p for p in r["players"] if p["player"] not in {q["player"] for q in into["players"]}]
        for x in r["exact_results"]:
            hit = [y for y in into["exact_results"] if y["opponent"] == x["opponent"]]
            if hit:
                hit[0].update({k: v for k, v in x.items() if k not in hit[0]})
            else:
                into["exact_results"].append(dict(x))
    results = list(merged.values())
    head = ["", *(f"`{r['task']}`" for r in results)]
    lines = [head, ["---"] * len(head)]
    lines.append(["histories / information states (with a choice)",
                  *(f"{r['histories']:,} / {r['information_states']:,} ({r['information_states_with_a_choice']:,})"
                    for r in results)])
    lines.append(["tree build / CFR+ to the target",
                  *(f"{r['build_s']:.0f} s / {r['solve_s']:.0f} s ({r['cfr_plus'][-1]['iterations']} it.)"
                    if solved(r) else f"{r['build_s']:.0f} s / not solved" for r in results)])
    labelled = []  # each rung's players by their row's name
    for r in results:
        files = {f for p in r["players"] if (f := policy_file(p["player"]))}
        labelled.append({short(p["player"], files): p for p in r["players"]})
    names = list(dict.fromkeys(name for rows in labelled for name in rows))
    for name in names:
        lines.append([f"NashConv: {name}", *(f"{rows[name]['nash_conv']:.4g}" if name in rows else "" for rows in labelled)])
    for target in TARGETS:
        for who in ("equilibrium", "best_response", "best_response_for_points"):
            cells = []
            for r in results:
                hit = [x for x in r["exact_results"] if x["opponent"] == target]
                cells.append(f"{hit[0][who]['win_rate']:.2%}, {hit[0][who]['margin']:+.3f}" if hit and who in hit[0] else "")
            lines.append([f"{who.replace('_', ' ')} vs {short(target, set())}: win rate, points", *cells])
    return "\n".join("| " + " | ".join(row) + " |" for row in lines)
