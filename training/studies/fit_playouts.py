"""Fit the heuristic's weights to a player's choices: a playout policy that plays like it.

The heuristic values a placement as its points plus a weighted sum of terms (the reply it
allows, the seat's follow-up, the pips it sheds, ...; :func:`sniff_env.players.strategy.heuristic_value`),
so its choice is the argmax of a linear function of its weights. This study plays ``--games``
games of ``player`` against itself (2-player ``sniff``), records at each decision between two
placements or more (no draw offered) every placement's terms and the placement chosen, and fits
a conditional logit, ``P(a) ∝ exp(θ · terms(a))``, by maximum likelihood on the games before the
last ``--held-out`` fifth. It prints, on the held-out decisions, how often the argmax of the
stock weights and of the fitted ones (``θ`` over its points coefficient) agree with the player,
and the fitted weights as a spec's options; ``--out`` writes them as JSON.

The rollout search plays out its deals with the heuristic; weights fitted to the search's own
choices make those playouts play more as the search does (the ``playout_*`` options of
``rollouts`` and ``guided``).

    python -m training.studies.fit_playouts rollouts:samples=256 --games 120 --workers 2
    python -m training.studies.fit_playouts heuristic --games 40      # recovers the stock weights
"""

from __future__ import annotations

import argparse
import multiprocessing

import numpy as np

from sniff_env import make_rules
from sniff_env.actions import action_codec
from sniff_env.atomic import write_json_atomic
from sniff_env.infostate import InfoState
from sniff_env.options import worker_count
from sniff_env.players.heuristic import HeuristicPlayer, Weights
from training.studies.self_play import self_play

TERMS = ("reply", "follow_up", "pip", "pip_late", "double", "variety", "playable", "block")
"""The weights fitted (the compiled playouts' terms; ``counter`` and the draw threshold aside)."""


def terms(state: InfoState) -> tuple[list[int], np.ndarray]:
    """The legal placements of ``state`` and ``[len(actions), 1 + len(TERMS)]``: each one's
    points and the value of each term at weight 1 (the heuristic's value is their dot product
    with ``(1, *weights)``)."""
    base = _POINTS_ONLY.evaluate(state)
    actions = sorted(base)
    out = np.zeros((len(actions), 1 + len(TERMS)))
    out[:, 0] = [base[a] for a in actions]
    for k, player in enumerate(_ONE_TERM):
        unit = player.evaluate(state)
        out[:, k + 1] = [unit[a] - base[a] for a in actions]
    return actions, out


_ZERO = {name: 0.0 for name in Weights.field_names()}
_POINTS_ONLY = HeuristicPlayer(weights=Weights(**_ZERO))
"""The heuristic with every weight 0: its value of a placement is the placement's points."""
_ONE_TERM = tuple(HeuristicPlayer(weights=Weights(**{**_ZERO, name: 1.0})) for name in TERMS)
"""For each of :data:`TERMS`, the heuristic with that weight 1 and every other 0."""


def play(task: tuple[str, int]) -> list[tuple[np.ndarray, int]]:
    """``(terms, index of the placement chosen)`` at each decision of one game of ``spec``
    against itself, dealt by ``seed``."""
    spec, seed = task
    draw = action_codec(make_rules("sniff", 2).max_pip).draw_action
    out = []
    for state, action in self_play(spec, seed):
        if len(state.legal) > 1 and draw not in state.legal:
            actions, x = terms(state)
            out.append((x, actions.index(action)))
    return out


def fit(data: list[tuple[np.ndarray, int]], iterations: int = 200) -> np.ndarray:
    """The ``θ`` of the conditional logit that maximises the likelihood of the choices (Newton's
    method with a step halved until the likelihood rises; a tiny ridge keeps it finite)."""
    theta = np.zeros(data[0][0].shape[1])
    theta[0] = 1.0
    ridge = 1e-6

    def loglik(t: np.ndarray) -> float:
        total = 0.0
        for x, c in data:
            z = x @ t
            m = z.max()
            total += z[c] - m - np.log(np.exp(z - m).sum())
        return total - ridge * float(t @ t)

    current = loglik(theta)
    for _ in range(iterations):
        grad = -2 * ridge * theta
        hess = -2 * ridge * np.eye(theta.size)
        for x, c in data:
            z = x @ theta
            p = np.exp(z - z.max())
            p /= p.sum()
            mean = p @ x
            grad += x[c] - mean
            hess -= (x * p[:, None]).T @ x - np.outer(mean, mean)
        step = np.linalg.solve(hess, -grad)
        scale = 1.0
        while scale > 1e-6:
            trial = theta + scale * step
            value = loglik(trial)
            if value >= current:
                break
            scale /= 2
        if scale <= 1e-6 or value - current < 1e-9:
            theta, current = (trial, value) if value >= current else (theta, current)
            break
        theta, current = trial, value
    return theta


def agreement(data: list[tuple[np.ndarray, int]], weights: np.ndarray) -> float:
    """How often the argmax of ``terms · (1, *weights)`` (ties: the lowest action) is the choice."""
    w = np.concatenate([[1.0], weights])
    return float(np.mean([int(np.argmax(x @ w)) == c for x, c in data]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("player", help="the player spec whose choices are fitted")
    parser.add_argument("--games", type=int, default=120, help="games of the player against itself")
    parser.add_argument("--seed", type=int, default=1, help="the first game's deal seed")
    parser.add_argument("--held-out", type=float, default=0.2, help="the share of games kept to measure")
    parser.add_argument("--workers", type=worker_count, default=1, help="processes that play the games")
    parser.add_argument("--out", default="", help="write the fitted weights to this JSON file")
    args = parser.parse_args(argv)
    if args.games < 2 or not 0 < args.held_out < 1 or args.workers < 1:
        parser.error("need --games of 2 or more, --held-out between 0 and 1, --workers of 1 or more")
    tasks = [(args.player, args.seed + g) for g in range(args.games)]
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            games = pool.map(play, tasks, chunksize=1)
    else:
        games = [play(t) for t in tasks]
    cut = args.games - max(1, round(args.held_out * args.games))
    train = [d for g in games[:cut] for d in g]
    test = [d for g in games[cut:] for d in g]
    theta = fit(train)
    fitted = theta[1:] / theta[0]
    stock = np.array([getattr(Weights(), name) for name in TERMS])
    print(f"{len(train)} decisions to fit ({cut} games), {len(test)} held out ({args.games - cut} games)")
    held_out = {"stock": agreement(test, stock), "fitted": agreement(test, fitted)}
    print(f"held-out agreement with {args.player}: stock weights {held_out['stock']:.3f}, "
          f"fitted {held_out['fitted']:.3f} (fitting decisions: {agreement(train, stock):.3f}, "
          f"{agreement(train, fitted):.3f}); points coefficient {theta[0]:.3f}")
    for name, s, f in zip(TERMS, stock, fitted):
        print(f"  {name:10s} stock {s:7.3f}  fitted {f:7.3f}")
    options = ",".join(f"playout_{name}={f:.3g}" for name, f in zip(TERMS, fitted))
    print(f"as options: {options}")
    if args.out:
        write_json_atomic(args.out, {"player": args.player, "games": args.games, "seed": args.seed,
                                     "weights": {n: float(f) for n, f in zip(TERMS, fitted)}, "options": options,
                                     "held_out_agreement": held_out})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
