"""The reference collectors: the tests' oracle for :class:`training.lib.collector.Collector`.

``training/ppo.py`` collects with the batched collector alone. These are the collectors it had
before, kept so that the tests can pin the batched one to them (and the speed benchmark can time
the earlier one): :func:`collect` plays the reference engine game by game (:class:`SelfPlay`, any
built-in player) and :func:`collect_vector` the batched engine step by step, with per-step lists
(:class:`training.lib.experience.VectorSelfPlay`). Either way each (game, seat) forms a chain for
GAE, rewards between two of its decisions accrue to the earlier one, a decision with a single
legal action is not stored, and :func:`ppo_batch` assembles the batch; the batched collector's
exact mode hands the update the same batch as :func:`collect_vector`.
"""

from __future__ import annotations

import copy
import random
import time
from typing import Any

import numpy as np
import torch
from torch import nn

from sniff_env.envs.rewards import points_rewards, win_rewards
from sniff_env.game import Game, Phase, new_game
from sniff_env.infostate import info_state
from sniff_env.observation import observer_for
from sniff_env.players import load
from sniff_env.players.specs import split_specs
from sniff_env.rules import Rules
from training.lib.advantages import chain_advantages
from training.lib.device import host_view
from training.lib.experience import (
    INPUT,
    LEARNER,
    Batch,
    ExperienceSettings,
    VectorSelfPlay,
    reward_scale,
    sample,
)
from training.lib.network import Inputs, concat_inputs, forward_inputs, prepare_inputs


def ppo_batch(
    settings: ExperienceSettings, obs: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor, logprobs: torch.Tensor,
    values: torch.Tensor, rewards: np.ndarray, dones: np.ndarray, slots: np.ndarray,
    bootstrap: dict[int, float] | None = None,
) -> Batch:
    """The learner's transitions (each chain's records in time order) with GAE advantages and
    returns over their chains (``slots``); ``bootstrap`` values continue unfinished chains."""
    values = values.float()  # a bfloat16 forward pass (--precision bf16) gives bfloat16 values
    v = values.numpy().astype(np.float64)
    adv = chain_advantages(rewards, v, dones, slots, settings.gamma, settings.gae_lambda, bootstrap)
    return {
        "obs": obs, "masks": masks, "actions": actions, "logprobs": logprobs,
        "advantages": torch.from_numpy(adv.astype(np.float32)),
        "returns": torch.from_numpy((adv + v).astype(np.float32)),
        "values": values,
    }


class TablePlayer:
    """Who sits in a seat: the learner, a frozen snapshot (index into the pool), or a built-in."""

    def __init__(self, kind: str, snapshot: int = -1, builtin: Any = None) -> None:
        self.kind, self.snapshot, self.builtin = kind, snapshot, builtin


class SelfPlay:
    """The games in flight on the reference engine, who sits where, and the snapshot pool (which
    :class:`VectorSelfPlay` shares)."""

    def __init__(self, settings: ExperienceSettings, rules: Rules, rng: random.Random, games: bool = True) -> None:
        self.settings, self.rules, self.rng = settings, rules, rng
        self.n = rules.num_players
        self.observer = observer_for(rules)
        self.games: list[Game] = []
        self.seats: list[list[TablePlayer]] = []
        self.builtins = split_specs(settings.builtin_opponents)
        self.pool: list[dict[str, torch.Tensor]] = []
        self._frozen: dict[int, nn.Module] = {}
        for _ in range(settings.num_envs if games else 0):
            self.games.append(self._new_game())
            self.seats.append(self._draw_table())
        self.episode_returns: list[float] = []
        self.episode_wins: list[float] = []

    def _new_game(self) -> Game:
        return new_game(self.rules, seed=self.rng.getrandbits(62), record=False, max_hands=self.settings.max_hands)

    def _draw_table(self) -> list[TablePlayer]:
        if self.rng.random() < self.settings.selfplay_prob or not (self.pool or self.builtins):
            return [TablePlayer("learner") for _ in range(self.n)]
        learner_seat = self.rng.randrange(self.n)
        options = len(self.pool) + len(self.builtins)
        pick = self.rng.randrange(options)
        seats = []
        for s in range(self.n):
            if self.rules.side_of(s) == self.rules.side_of(learner_seat):
                seats.append(TablePlayer("learner"))
            elif pick < len(self.pool):
                seats.append(TablePlayer("snapshot", snapshot=pick))
            else:
                name = self.builtins[pick - len(self.pool)]
                seats.append(TablePlayer("builtin", builtin=load(name, seed=self.rng.getrandbits(31))))
        return seats

    def frozen(self, index: int, like: nn.Module) -> nn.Module:
        """The pool's snapshot ``index`` as a network (built once per snapshot)."""
        key = id(self.pool[index])
        net = self._frozen.get(key)
        if net is None:
            net = copy.deepcopy(like)
            net.load_state_dict(self.pool[index])
            net.eval()
            self._frozen = {id(sd): self._frozen[id(sd)] for sd in self.pool if id(sd) in self._frozen}
            self._frozen[key] = net
        return net

    def reset_game(self, i: int) -> None:
        self.games[i] = self._new_game()
        self.seats[i] = self._draw_table()


def side_rewards(rules: Rules, before: list[int], after: list[int], game: Game, mode: str) -> list[float]:
    """Reward of each side for one engine step."""
    if mode == "points":
        return points_rewards(before, after)
    return win_rewards(game.winner if game.phase is Phase.GAME_OVER else None, rules.num_sides)


def collect(settings: ExperienceSettings, play: SelfPlay, learner: nn.Module, sampler: torch.Generator, n: int) -> tuple[Batch, float]:
    """Play ``num_steps`` engine decisions in every game of the reference engine; returns the
    learner's transitions with advantages and returns, and the decisions per second of the
    collection. The engine and the batch stay on the CPU; the learner and its snapshots run on
    the learner's device."""
    rules, observer = play.rules, play.observer
    device = next(learner.parameters()).device
    net = host_view(learner, device)
    t0 = time.time()
    # per (game, seat) chains of learner decisions
    records: dict[int, list[list[Any]]] = {}
    decisions = 0
    scale = reward_scale(settings)
    for _ in range(settings.num_steps):
        learner_idx, learner_obs, learner_mask, infos = [], [], [], []
        snap_groups: dict[int, list[tuple[int, Any]]] = {}
        actions = [0] * len(play.games)
        for i, game in enumerate(play.games):
            seat = game.turn
            info = info_state(game, seat)
            who = play.seats[i][seat]
            if who.kind == "learner":
                learner_idx.append(i)
                learner_obs.append(observer.encode(info))
                learner_mask.append(observer.mask(info))
                infos.append(info)
            elif who.kind == "snapshot":
                snap_groups.setdefault(who.snapshot, []).append((i, info))
            else:
                actions[i] = who.builtin.act({"action_mask": observer.mask(info)}, {"info_state": info})
        if learner_idx:
            obs_t = torch.from_numpy(np.stack(learner_obs))
            mask_t = torch.from_numpy(np.stack(learner_mask).astype(bool))
            with torch.no_grad():
                logits, values = net(obs_t)
            acts, logps = sample(logits, mask_t, sampler)
            for j, i in enumerate(learner_idx):
                actions[i] = int(acts[j])
                if len(infos[j].legal) == 1:
                    continue  # a forced move teaches nothing; its rewards go to the last real decision
                slot = i * n + play.games[i].turn
                records.setdefault(slot, []).append(
                    [obs_t[j], mask_t[j], acts[j], logps[j], values[j], 0.0, False]
                )
        for snap, items in snap_groups.items():
            frozen = host_view(play.frozen(snap, learner), device)
            obs_t = torch.from_numpy(np.stack([observer.encode(inf) for _, inf in items]))
            mask_t = torch.from_numpy(np.stack([observer.mask(inf) for _, inf in items]).astype(bool))
            with torch.no_grad():
                logits, _ = frozen(obs_t)
            for (i, _), a in zip(items, sample(logits, mask_t, sampler)[0].tolist(), strict=True):
                actions[i] = a
        for i, game in enumerate(play.games):
            before = list(game.scores)
            game.step(actions[i])
            decisions += 1
            rewards = side_rewards(rules, before, game.scores, game, settings.reward)
            finished = game.phase is Phase.GAME_OVER
            for seat in range(n):
                if play.seats[i][seat].kind != "learner":
                    continue
                chain = records.get(i * n + seat)
                if chain and not chain[-1][6]:
                    chain[-1][5] += rewards[rules.side_of(seat)] * scale
                    if finished:
                        chain[-1][6] = True
            if finished:
                learner_sides = {rules.side_of(s) for s in range(n) if play.seats[i][s].kind == "learner"}
                if len(learner_sides) == 1:
                    side = learner_sides.pop()
                    play.episode_returns.append(1.0 if game.winner == side else 0.0)
                play.reset_game(i)
            elif game.phase is Phase.HAND_OVER:
                game.start_hand()
    # bootstrap values of unfinished chains, then GAE per chain
    slots = [s for s, c in records.items() if c and not c[-1][6]]
    boot: dict[int, float] = {}
    if slots:
        obs_b = []
        for slot in slots:
            i, seat = divmod(slot, n)
            obs_b.append(observer.encode(info_state(play.games[i], seat)))
        with torch.no_grad():
            _, v = net(torch.from_numpy(np.stack(obs_b)))
        boot = {slot: float(x) for slot, x in zip(slots, v.tolist(), strict=True)}
    flat = [(slot, rec) for slot, chain in records.items() for rec in chain]
    if not flat:
        raise RuntimeError("the collection stored no learner decision; raise num_steps or num_envs")
    column = list(zip(*(rec for _, rec in flat), strict=True))
    batch = ppo_batch(
        settings, torch.stack(column[0]), torch.stack(column[1]), torch.stack(column[2]), torch.stack(column[3]),
        torch.stack(column[4]), np.array(column[5], np.float64), np.array(column[6], bool),
        np.array([slot for slot, _ in flat]), boot,
    )
    return batch, decisions / max(time.time() - t0, 1e-9)


def collect_vector(
    settings: ExperienceSettings, play: VectorSelfPlay, net: nn.Module, frozen: Any, sampler: torch.Generator
) -> tuple[Batch, float]:
    """``num_steps`` decisions in every game of the batched engine; returns learner transitions
    with advantages and returns, and the decisions per second of the collection."""
    t0 = time.time()
    num_envs, n = play.table.shape
    rows_obs: list[np.ndarray] = []
    rows_mask: list[np.ndarray] = []
    rows_act: list[torch.Tensor] = []
    rows_logp: list[torch.Tensor] = []
    rows_val: list[torch.Tensor] = []
    rows_slot: list[np.ndarray] = []
    rows_inputs: list[Inputs] = []
    rew = np.zeros(num_envs * settings.num_steps, np.float64)
    done = np.zeros(num_envs * settings.num_steps, bool)
    count = 0
    last = np.full((num_envs, n), -1, np.int64)  # record index of each slot's last decision
    total = 0
    scale = reward_scale(settings)
    games = np.arange(num_envs)
    for _ in range(settings.num_steps):
        obs, mask, seat = play.obs, play.mask, play.seat
        who = play.table[games, seat]
        actions = np.zeros(num_envs, np.int64)
        learn = np.flatnonzero(who == LEARNER)
        if learn.size:
            o = torch.from_numpy(obs[learn])  # fancy indexing copies already
            m = torch.from_numpy(mask[learn].astype(bool, copy=False))
            with torch.inference_mode():
                inputs = prepare_inputs(net, o, grouped=False)
                logits, values = forward_inputs(net, inputs)
            acts, logps = sample(logits, m, sampler)
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
                rows_inputs.append({key: value[keep] for key, value in inputs.items() if key != "obs"})
                count += int(k.sum())
                last[learn[k], seat[learn[k]]] = np.arange(start, count)
        for code in np.unique(who[who < LEARNER]):
            rows = np.flatnonzero(who == code)
            actions[rows] = play.builtins[-2 - int(code)](rows)
        for snap in np.unique(who[who > LEARNER]):
            rows = np.flatnonzero(who == snap)
            o = torch.from_numpy(obs[rows])
            m = torch.from_numpy(mask[rows].astype(bool, copy=False))
            with torch.inference_mode():
                logits, _ = frozen(int(snap))(o)
            actions[rows] = sample(logits, m, sampler)[0].numpy()
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
        raise RuntimeError("the collection stored no learner decision; raise num_steps or num_envs")
    batch = ppo_batch(
        settings, torch.from_numpy(np.concatenate(rows_obs)), torch.from_numpy(np.concatenate(rows_mask)),
        torch.cat(rows_act), torch.cat(rows_logp), torch.cat(rows_val), rew[:count], done[:count],
        np.concatenate(rows_slot),
    )
    batch |= {INPUT + key: value for key, value in concat_inputs(rows_inputs).items()}
    return batch, total / max(time.time() - t0, 1e-9)
