"""Quick in-training evaluation: a policy's win rate against a built-in player on duplicate seeds.

The full tournament (confidence intervals, ratings, charts) is ``sniff eval``; this is the cheap
signal logged to TensorBoard while training.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch

from sniff_env.evaluation.batched import play_out
from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import observer_for
from sniff_env.players import has_compiled, load, load_compiled, parse_spec
from sniff_env.rules import Rules

LogitsFn = Callable[[torch.Tensor], torch.Tensor]


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions pushed to (practically) zero probability."""
    return logits.masked_fill(~mask, -1e9)


def win_rate(policy: LogitsFn, rules: Rules, opponent: str, games: int, seed: int, max_hands: int) -> float:
    """Win rate of the greedy (argmax) policy against ``opponent`` over duplicate pairs of games:
    each seed is played twice, the policy's side in seat 0 and then in seat 1; draws count half."""
    observer = observer_for(rules)
    opp = load(opponent, seed=seed)
    score, played = 0.0, 0
    for g in range(max(games // 2, 1)):
        for learner in (0, 1):
            game = new_game(rules, seed=seed * 100_003 + g, record=False, max_hands=max_hands)
            mine = rules.side_of(learner)
            while game.phase is not Phase.GAME_OVER:
                if game.phase is Phase.HAND_OVER:
                    game.start_hand()
                    continue
                info = info_state(game, game.turn)
                if rules.side_of(game.turn) == mine:
                    obs = torch.from_numpy(observer.encode(info)).unsqueeze(0)
                    mask = torch.from_numpy(observer.mask(info).astype(bool)).unsqueeze(0)
                    with torch.no_grad():
                        action = int(masked_logits(policy(obs), mask).argmax(1).item())
                else:
                    action = opp.act({"action_mask": observer.mask(info)}, {"info_state": info})
                game.step(action)
            played += 1
            score += 0.5 if game.winner is None else float(game.winner == mine)
    return score / played


def policy_actions(policy: LogitsFn, engine: Any, games: Any) -> Any:
    """The masked argmax of ``policy`` for the seat to act in each of ``games`` of a batched
    ``engine`` (a :class:`sniff_env.vector.engine.VectorEngine`), as int64 actions."""
    import numpy as np

    obs = torch.from_numpy(engine.obs[games].copy())
    mask = torch.from_numpy(engine.mask[games].astype(bool))
    with torch.no_grad():
        return masked_logits(policy(obs), mask).argmax(1).numpy().astype(np.int64)


def win_rate_vector(policy: LogitsFn, rules: Rules, opponent: str, games: int, seed: int, max_hands: int,
                    threads: int = 0) -> float:
    """:func:`win_rate` on the batched engine, all games at once, against a compiled built-in
    (``greedy`` or ``heuristic``, or with ``threads`` above 0 the search ``rollouts`` with draws
    of its own, see :func:`sniff_env.players.load_compiled`): each seed is played twice, the
    policy's side first and then second at the table; draws count half. Much faster, so it can
    afford thousands of games."""
    import numpy as np

    from sniff_env.vector.engine import VectorEngine

    pairs = max(games // 2, 1)
    eng = VectorEngine(rules, 2 * pairs, max_hands=max_hands)
    eng.deal(np.arange(2 * pairs), True, np.repeat(seed * 100_003 + np.arange(pairs), 2))
    choose = [lambda games: policy_actions(policy, eng, games), load_compiled(opponent, eng, threads)]
    sides = np.array([rules.side_of(s) for s in range(rules.num_players)])
    mine = sides[np.tile([0, 1], pairs)]  # the policy's side in each game
    try:
        play_out(eng, np.where(sides[None, :] == mine[:, None], 0, 1), choose)
        winner = eng.winner
        return float(np.mean(np.where(winner < 0, 0.5, (winner == mine).astype(float))))
    finally:
        eng.close()


def evaluator(opponent: str, search_threads: int = 0) -> Callable[[LogitsFn, Rules, str, int, int, int], float]:
    """The win-rate function for ``opponent``: :func:`win_rate_vector` for the compiled built-ins
    that make the reference player's very moves (thousands of games in seconds, the same
    results), and with ``search_threads`` above 0 for a search's twin too (the same search on
    ``search_threads`` threads, with draws of its own); else :func:`win_rate`, game by game."""
    name = parse_spec(opponent)[0]
    if has_compiled(name, exact=True):
        return win_rate_vector
    if search_threads and has_compiled(name):
        return functools.partial(win_rate_vector, threads=search_threads)
    return win_rate
