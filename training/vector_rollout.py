"""Rollouts on the batched engine (:class:`sniff_env.vector.SniffVectorEnv`).

Every seat of every game is the learner, a frozen snapshot from the pool, or a built-in
player compiled over the engine's arrays (``greedy`` and ``heuristic``, any heuristic weights:
:mod:`sniff_env.vector.baselines`, which chooses exactly as the reference players do). Learner
decisions are stored as flat arrays; each (game, seat) forms a chain for GAE, rewards between
two of its decisions accrue to the earlier one, and a decision with a single legal action is
not stored.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from sniff_env.rules import Rules
from sniff_env.vector import SniffVectorEnv
from training.advantages import chain_advantages
from training.evaluate import masked_logits

LEARNER = -1
"""``table`` code of a learner seat; pool snapshots are 0, 1, ... and built-in ``k`` is ``-2 - k``."""
COMPILED_BUILTINS = ("greedy", "heuristic")


def compiled_builtin(engine: Any, spec: str) -> Callable[[np.ndarray], np.ndarray]:
    """The batched choice function of built-in ``spec`` (``greedy``, ``greedy:tiebreak=...``,
    ``heuristic`` or ``heuristic:<weights>``) on ``engine``; other players raise :class:`ValueError`."""
    from sniff_env.players import parse_spec
    from sniff_env.players.heuristic import Weights
    from sniff_env.vector.baselines import CompiledBaselines

    base, opts = parse_spec(spec)
    if base not in COMPILED_BUILTINS or (base == "greedy" and set(opts) - {"tiebreak"}):
        raise ValueError(
            f"the vector engine plays the built-ins {', '.join(COMPILED_BUILTINS)} (greedy with its tiebreak, "
            f"heuristic with any weights); got {spec!r}: use engine='python' for it"
        )
    if base == "greedy":
        return CompiledBaselines(engine, greedy_tiebreak=str(opts.get("tiebreak", "lowest"))).greedy
    return CompiledBaselines(engine, Weights.from_kwargs(**opts)).heuristic


class VectorSelfPlay:
    """The batched games and, per game and seat, who plays it (``LEARNER`` or a pool index)."""

    def __init__(self, rules: Rules, num_envs: int, seed: int, reward: str, max_hands: int,
                 selfplay_prob: float, rng: random.Random, builtins: tuple[str, ...] = ()) -> None:
        self.rules, self.rng, self.selfplay_prob = rules, rng, selfplay_prob
        self.n = rules.num_players
        self.env = SniffVectorEnv(rules, num_envs, seed=seed, reward=reward, max_hands=max_hands)  # type: ignore[arg-type]
        self.builtins = [compiled_builtin(self.env.engine, spec) for spec in builtins]
        self.obs, self.mask, self.seat = (np.array(x) for x in self.env.reset())
        self.table = np.full((num_envs, self.n), LEARNER, np.int64)
        self.pool_size = 0
        self.side = np.array([rules.side_of(s) for s in range(self.n)])
        self.episode_wins: list[float] = []

    def draw_table(self, game: int) -> None:
        row = self.table[game]
        row[:] = LEARNER
        if (self.pool_size == 0 and not self.builtins) or self.rng.random() < self.selfplay_prob:
            return
        learner_side = self.side[self.rng.randrange(self.n)]
        pick = self.rng.randrange(self.pool_size + len(self.builtins))
        row[self.side != learner_side] = pick if pick < self.pool_size else -2 - (pick - self.pool_size)


def collect_vector(
    args: Any, play: VectorSelfPlay, net: torch.nn.Module, frozen: Any, sampler: torch.Generator
) -> tuple[dict[str, torch.Tensor], float]:
    """``num_steps`` decisions in every game; returns learner transitions with advantages and
    returns, and the decisions per second of the collection."""
    t0 = time.time()
    num_envs, n = play.table.shape
    rows_obs: list[np.ndarray] = []
    rows_mask: list[np.ndarray] = []
    rows_act: list[torch.Tensor] = []
    rows_logp: list[torch.Tensor] = []
    rows_val: list[torch.Tensor] = []
    rows_slot: list[np.ndarray] = []
    rew = np.zeros(num_envs * args.num_steps, np.float64)
    done = np.zeros(num_envs * args.num_steps, bool)
    count = 0
    last = np.full((num_envs, n), -1, np.int64)  # record index of each slot's last decision
    total = 0
    scale = args.reward_scale if args.reward == "points" else 1.0
    games = np.arange(num_envs)
    for _ in range(args.num_steps):
        obs, mask, seat = play.obs, play.mask, play.seat
        who = play.table[games, seat]
        actions = np.zeros(num_envs, np.int64)
        learn = np.flatnonzero(who == LEARNER)
        if learn.size:
            o = torch.from_numpy(obs[learn].copy())
            m = torch.from_numpy(mask[learn].astype(bool))
            with torch.no_grad():
                logits, values = net(o)
            logits = masked_logits(logits, m)
            acts = torch.multinomial(torch.softmax(logits, -1), 1, generator=sampler).squeeze(1)
            logps = torch.log_softmax(logits, -1).gather(1, acts[:, None]).squeeze(1)
            actions[learn] = acts.numpy()
            keep = m.sum(1) > 1  # forced moves are not stored
            if keep.any():
                k = keep.numpy()
                start = count
                slots = learn[k] * n + seat[learn[k]]
                rows_obs.append(o[keep].numpy())
                rows_mask.append(m[keep].numpy())
                rows_act.append(acts[keep])
                rows_logp.append(logps[keep])
                rows_val.append(values[keep])
                rows_slot.append(slots)
                count += int(k.sum())
                last[learn[k], seat[learn[k]]] = np.arange(start, count)
        for code in np.unique(who[who < LEARNER]):
            rows = np.flatnonzero(who == code)
            actions[rows] = play.builtins[-2 - int(code)](rows)
        for snap in np.unique(who[who > LEARNER]):
            rows = np.flatnonzero(who == snap)
            o = torch.from_numpy(obs[rows].copy())
            m = torch.from_numpy(mask[rows].astype(bool))
            with torch.no_grad():
                logits, _ = frozen(int(snap))(o)
            actions[rows] = torch.multinomial(
                torch.softmax(masked_logits(logits, m), -1), 1, generator=sampler
            ).squeeze(1).numpy()
        obs, mask, seat, rewards, dones, infos = play.env.step(actions)
        play.obs, play.mask, play.seat = obs.copy(), mask.copy(), seat.copy()
        total += num_envs
        g_idx, s_idx = np.nonzero((play.table == LEARNER) & (last >= 0) & (rewards != 0))
        if g_idx.size:
            recs = last[g_idx, s_idx]
            live = ~done[recs]
            np.add.at(rew, recs[live], rewards[g_idx, s_idx][live].astype(np.float64) * scale)
        if dones.any():
            over = infos.get("game_over", dones)
            for g in np.flatnonzero(dones).tolist():
                for s in range(n):
                    rec = last[g, s]
                    if rec >= 0 and play.table[g, s] == LEARNER:
                        done[rec] = True
                sides = {int(play.side[s]) for s in range(n) if play.table[g, s] == LEARNER}
                if len(sides) == 1 and "winner" in infos:
                    play.episode_wins.append(float(infos["winner"][g] == sides.pop()))
                last[g] = -1
                if over[g]:
                    play.draw_table(g)
    if not count:
        raise RuntimeError("the rollout stored no learner decision; raise num_steps or num_envs")
    obs_all = torch.from_numpy(np.concatenate(rows_obs))
    val_all = torch.cat(rows_val)
    slot_all = np.concatenate(rows_slot)
    rew, done = rew[:count], done[:count]
    values = val_all.numpy().astype(np.float64)
    adv = chain_advantages(rew, values, done, slot_all, args.gamma, args.gae_lambda)
    batch = {
        "obs": obs_all,
        "masks": torch.from_numpy(np.concatenate(rows_mask)),
        "actions": torch.cat(rows_act),
        "logprobs": torch.cat(rows_logp),
        "advantages": torch.from_numpy(adv.astype(np.float32)),
        "returns": torch.from_numpy((adv + values).astype(np.float32)),
        "values": val_all,
    }
    return batch, total / max(time.time() - t0, 1e-9)
