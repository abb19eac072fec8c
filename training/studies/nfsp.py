"""NFSP on the small variant, its average policy rated by exact NashConv.

OpenSpiel's own Neural Fictitious Self-Play (``open_spiel.python.pytorch.nfsp``: one agent per
seat, each a DQN best response and an average-policy network trained on its own best-response
play) learns the game of task ``tiny-2p-v0`` through ``rl_environment`` on ``python_sniff``, in
the loop and with the settings of OpenSpiel's ``nfsp_kuhn_pytorch`` example (but ``--hidden``
units). Every ``--eval-every`` episodes both agents' average policies become one tabular policy
of the game's extensive-form copy (see ``exploitability.py``): at each information state, the
seat's network in average-policy mode, fed that state's information-state tensor, over its legal
moves. Its NashConv is OpenSpiel's ``exploitability.nash_conv`` (returns +1 / -1 / 0, so at
most 2), beside the heuristic's and CFR+'s (``--cfr-iterations``) on the same copy.

    python -m training.studies.nfsp --episodes 300000 --eval-every 10000 --seed 0 --hidden 64 \\
        --out checkpoints/results/nfsp-tiny-2p.json --plot checkpoints/results/nfsp-tiny-2p.png
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import random
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from open_spiel.python import policy as os_policy
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import exploitability
from open_spiel.python.pytorch import nfsp

from sniff_env.atomic import save_figure, write_json_atomic
from sniff_env.evaluation.benchmark.tasks import get_task
from sniff_env.infostate import InfoState
from training.studies.exploitability import Setup, cfr_plus, player_choice, prepare, tabular

SETTINGS: dict[str, Any] = {
    "replay_buffer_capacity": 200_000,
    "reservoir_buffer_capacity": 2_000_000,
    "anticipatory_param": 0.1,
    "epsilon_start": 0.06,
    "epsilon_end": 0.001,
    "batch_size": 128,
    "rl_learning_rate": 0.01,
    "sl_learning_rate": 0.01,
    "learn_every": 64,
    "min_buffer_size_to_learn": 1000,
    "optimizer_str": "sgd",
}
"""NFSP's settings in OpenSpiel's Kuhn poker example (its own defaults where it sets none); the
exploration decays over the whole run, as there."""


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Seed ``random``, ``numpy`` and ``torch`` (which OpenSpiel's agents draw from) and run on one
    torch thread; restore all of it afterwards."""
    states = random.getstate(), np.random.get_state(), torch.get_rng_state(), torch.get_num_threads()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    try:
        yield
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])
        torch.set_num_threads(states[3])


def make_agents(env: rl_environment.Environment, hidden: int, seed: int, episodes: int,
                **overrides: Any) -> list[nfsp.NFSP]:
    """One NFSP agent per seat, each network seeded from ``seed`` and its seat; ``overrides``
    change :data:`SETTINGS`."""
    settings = {**SETTINGS, "epsilon_decay_duration": episodes, **overrides}
    reservoir, anticipatory = settings.pop("reservoir_buffer_capacity"), settings.pop("anticipatory_param")
    size, actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    return [nfsp.NFSP(seat, size, actions, [hidden], reservoir, anticipatory, seed=seed + 1000 * seat, **settings)
            for seat in range(env.num_players)]


def train(env: rl_environment.Environment, agents: Sequence[nfsp.NFSP], episodes: int) -> None:
    """OpenSpiel's NFSP loop for ``episodes`` episodes: the seat to move steps, then every agent
    sees the final time step."""
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            output = agents[time_step.observations["current_player"]].step(time_step)
            time_step = env.step([output.action])
        for agent in agents:
            agent.step(time_step)


def average_policy(setup: Setup, agents: Sequence[nfsp.NFSP]) -> os_policy.TabularPolicy:
    """The agents' average policies as one tabular policy of the extensive-form copy: at each
    information state, the probabilities of its seat's agent in average-policy mode, fed the
    state's information-state tensor (:class:`RuntimeError` if one gives an illegal move any).
    The tensor of a decision is the observation of the seat's :class:`InfoState`, which the copy
    keeps; the global RNG that the agents sample with is left as it was."""
    observer, players = setup.game.observer, setup.game.num_players()

    def choose(info: InfoState, legal: tuple[int, ...]) -> dict[int, float]:
        observations: dict[str, Any] = {"info_state": [None] * players, "legal_actions": [[] for _ in range(players)],
                                        "current_player": info.seat}
        observations["info_state"][info.seat] = observer.encode(info)
        observations["legal_actions"][info.seat] = list(legal)
        step = rl_environment.TimeStep(observations=observations, rewards=None, discounts=None, step_type=None)
        agent = agents[info.seat]
        with agent.temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
            probs = np.asarray(agent.step(step, is_evaluation=True).probs, dtype=np.float64)
        illegal = np.delete(probs, list(legal))
        if illegal.any():
            raise RuntimeError(f"seat {info.seat}'s average policy gives illegal moves {illegal.sum():.3g}")
        total = probs[list(legal)].sum()
        return {a: float(probs[a] / total) for a in legal}

    rng = np.random.get_state()
    try:
        return tabular(setup.efg, setup.tree, choose)
    finally:
        np.random.set_state(rng)


def run(setup: Setup, episodes: int, eval_every: int, seed: int = 0, hidden: int = 64,
        **overrides: Any) -> list[dict[str, Any]]:
    """Train NFSP for ``episodes`` and rate the average policy every ``eval_every`` episodes and
    at the end: episodes, NashConv, seconds since the start (training and rating) and seconds
    of the rating itself at each checkpoint."""
    rows: list[dict[str, Any]] = []
    with seeded(seed):
        env = rl_environment.Environment(setup.game, chance_event_sampler=rl_environment.ChanceEventSampler(seed))
        agents = make_agents(env, hidden, seed, episodes, **overrides)
        random.seed(seed)  # the agents' networks reseed numpy and torch as they are built
        np.random.seed(seed)
        torch.manual_seed(seed)
        start, done = time.perf_counter(), 0
        while done < episodes:
            batch = min(eval_every, episodes - done)
            train(env, agents, batch)
            done += batch
            t0 = time.perf_counter()
            conv = float(exploitability.nash_conv(setup.efg, average_policy(setup, agents)))
            now = time.perf_counter()
            rows.append({"episodes": done, "nash_conv": conv, "seconds": round(now - start, 1),
                         "rating_s": round(now - t0, 2)})
            print(f"{done:>10,} episodes: NashConv {conv:.4f} ({now - start:.0f} s)", flush=True)
    return rows


def references(setup: Setup, cfr_iterations: int) -> dict[str, float]:
    """NashConv of the heuristic and, unless ``cfr_iterations`` is 0, of CFR+ after that many
    iterations, on the same copy."""
    rules = get_task(setup.task).rules
    out = {"heuristic": float(exploitability.nash_conv(setup.efg, tabular(setup.efg, setup.tree,
                                                                          player_choice("heuristic", rules))))}
    if cfr_iterations:
        out[f"CFR+ {cfr_iterations}"] = cfr_plus(setup.efg, [cfr_iterations])[0][1]
    return out


def plot(rows: list[dict[str, Any]], lines: dict[str, float], out: str | Path, title: str) -> Path:
    """Write a PNG of NashConv against episodes (log scale), with ``lines`` as horizontal references."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot([r["episodes"] for r in rows], [r["nash_conv"] for r in rows], marker="o", markersize=3,
            label="NFSP average policy")
    for (name, value), style in zip(lines.items(), ("--", ":", "-."), strict=False):
        if value > 0:
            ax.axhline(value, color="grey", linewidth=0.9, linestyle=style, label=f"{name}: {value:.2g}")
    ax.set_yscale("log")
    ax.set_xlabel("episodes (hands)")
    ax.set_ylabel("NashConv")
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="tiny-2p-v0", help="a one-hand 2-player task (default: tiny-2p-v0)")
    parser.add_argument("--episodes", type=int, default=100_000, help="training episodes (hands)")
    parser.add_argument("--eval-every", type=int, default=10_000, help="episodes between NashConv checkpoints")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, default=64, help="units of the one hidden layer of each network")
    parser.add_argument("--cfr-iterations", type=int, default=100,
                        help="CFR+ iterations of the reference line (0: none; the heuristic's is always drawn)")
    parser.add_argument("--out", default=None, help="write the checkpoints as JSON here")
    parser.add_argument("--plot", default=None, help="write a PNG of NashConv against episodes here")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error(f"--episodes must be at least 1; got {args.episodes}")
    if not 1 <= args.eval_every <= args.episodes:
        parser.error(f"--eval-every must be from 1 to --episodes ({args.episodes}); got {args.eval_every}")
    if args.hidden < 1 or args.cfr_iterations < 0:
        parser.error("--hidden must be at least 1 and --cfr-iterations at least 0")
    try:
        setup = prepare(args.task)
    except ValueError as exc:  # an unknown task, or one that is not one hand for 2 players
        parser.error(str(exc))
    print(f"{setup.task}: {setup.tree.histories:,} histories, {len(setup.tree.infostates):,} information states "
          f"(copied in {setup.seconds:.1f} s)", flush=True)
    rows = run(setup, args.episodes, args.eval_every, args.seed, args.hidden)
    lines = references(setup, args.cfr_iterations)
    for name, value in lines.items():
        print(f"{name}: NashConv {value:.3g}")
    tensors = {(info.seat, setup.game.observer.encode(info).tobytes()) for info, _ in setup.tree.infostates.values()}
    result = {
        "command": "python -m training.studies.nfsp " + " ".join(argv if argv is not None else sys.argv[1:]),
        "options": vars(args),
        "task": setup.task, "game": str(setup.game), "histories": setup.tree.histories,
        "information_states": len(setup.tree.infostates),
        "distinct_seat_tensors": len(tensors),  # as many as information states: each seat's tensors tell its apart
        "agent": {"algorithm": "open_spiel.python.pytorch.nfsp.NFSP, one per seat", "hidden_layers": [args.hidden],
                  **SETTINGS, "epsilon_decay_duration": args.episodes},
        "returns": "game reward: +1 to the winner of the hand, -1 to the loser, 0 on a tie",
        "nash_conv": "sum over both seats of a best response's gain over the average policy (at most 2); "
                     "exploitability = NashConv / 2",
        "checkpoints": rows, "references": lines,
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(), "torch_threads": 1,
                    "python": platform.python_version(), "torch": torch.__version__},
    }
    if args.out:
        write_json_atomic(args.out, result, indent=2)
        print(f"wrote {args.out}")
    if args.plot:
        plot(rows, lines, args.plot, f"NFSP on {setup.task}: NashConv of the average policy")
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
