"""Quick in-training evaluation: a policy's win rate against a built-in player on duplicate seeds.

The full tournament (confidence intervals, ratings, charts) is ``sniff eval``; this is the cheap
signal logged to TensorBoard while training.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from sniff_env.game import Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import Observer
from sniff_env.rules import Rules

LogitsFn = Callable[[torch.Tensor], torch.Tensor]


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions pushed to (practically) zero probability."""
    return logits.masked_fill(~mask, -1e9)


def win_rate(policy: LogitsFn, rules: Rules, opponent: str, games: int, seed: int, max_hands: int) -> float:
    """Win rate of the greedy (argmax) policy against ``opponent`` over duplicate pairs of games:
    each seed is played twice, the policy's side in seat 0 and then in seat 1; draws count half."""
    from sniff_env.players import load

    observer = Observer(rules)
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
