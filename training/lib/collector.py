"""The batched collector: self-play on the batched engine into buffers allocated once.

Each step every game makes one decision. The learner's network scores the learner's games in one
pass, every frozen snapshot of the pool scores its games in one stacked pass
(:class:`training.lib.snapshots.SnapshotBank`), the compiled built-ins choose theirs, and the engine
steps all games at once. What the update needs is written straight into buffers sized
``num_steps x num_envs`` on the learner's device (observations, masks, actions, log-probabilities,
values) and, on the CPU, each stored decision's chain, reward and ending; rewards, endings and the
advantages over each (game, seat) chain are array operations over those buffers.

With ``exact=True`` the collector draws actions as :func:`training.lib.reference_collector.collect_vector`
does (``torch.multinomial`` over every learner row, then over each snapshot's rows in turn, and
one network call per snapshot), so from the same state it hands the update the same batch; that
is how the tests pin it to the reference collector. The default draws from the same
distributions more cheaply: only over each game's legal list (:mod:`training.lib.sampling`), with no
network call for a forced move (its only action is certain, and a forced move is never stored).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from training.lib.config import ConfigError
from training.lib.experience import LEARNER, Batch, VectorSelfPlay, sample
from training.lib.network import forward_inputs, prepare_inputs
from training.lib.privileged import hidden_size, hidden_view
from training.lib.sampling import draw
from training.lib.snapshots import SnapshotBank

NOBODY = np.iinfo(np.int64).min
"""``who`` of a game whose move is forced this step (no player is asked)."""
BUFFER_BYTES_LIMIT = 16 * 2**30
"""The most memory the trajectory buffers may take (``num_envs x num_steps`` decisions)."""


@dataclass(frozen=True)
class CollectorConfig:
    """What the collector needs of a trainer's settings."""

    num_steps: int
    gamma: float
    gae_lambda: float
    reward_scale: float
    """Multiplier of the engine's rewards (the trainer's ``reward_scale`` for points, 1 for games)."""
    exact: bool = False
    """Draw as the reference collector does (for tests); default: the cheaper, equal-in-law draw."""


def buffer_bytes(num_envs: int, num_steps: int, obs_size: int, num_actions: int, hidden_width: int = 0) -> int:
    """The memory of the trajectory buffers for ``num_envs x num_steps`` decisions (with their
    hidden views, ``hidden_width`` bytes each, when the run keeps them)."""
    per_row = obs_size * 4 + num_actions + 8 + 4 + 4 + 8 + 8 + 1 + 8 + hidden_width
    return num_envs * num_steps * per_row


class Collector:
    """Self-play experience of a :class:`VectorSelfPlay` collected into preallocated buffers on ``device``."""

    def __init__(self, play: VectorSelfPlay, config: CollectorConfig, like: nn.Module, device: torch.device,
                 staged: bool | None = None) -> None:
        """``staged``: copy each step's rows through host staging buffers (pinned on a GPU) with
        asynchronous copies to the device, as a GPU needs; default: on any device but the CPU,
        where the rows are gathered straight into the buffers (a test runs the staged path there)."""
        eng = play.env.engine
        B, n = play.table.shape
        A, O = eng.num_actions, eng.obs_size
        self.critic_full = getattr(like, "critic", None) is not None
        self.privileged = self.critic_full or getattr(like, "tile_guess", None) is not None
        """Whether decisions keep their hidden view (:mod:`training.lib.privileged`), for training only."""
        width = hidden_size(n, eng.tables.num_tiles) if self.privileged else 0
        need = buffer_bytes(B, config.num_steps, O, A, width)
        if need > BUFFER_BYTES_LIMIT:
            raise ConfigError(
                f"the rollout buffers for --num-envs {B} x --num-steps {config.num_steps} would take "
                f"{need / 2**30:.1f} GiB (at most {BUFFER_BYTES_LIMIT / 2**30:.0f} GiB): lower --num-envs or --num-steps"
            )
        self.play, self.config, self.device = play, config, device
        self.staged = device.type != "cpu" if staged is None else staged
        self.engine = eng
        cap = B * config.num_steps
        pin = device.type == "cuda"
        try:
            self.obs = torch.empty(cap, O, device=device)
            self.mask = torch.empty(cap, A, dtype=torch.bool, device=device)
            self.actions = torch.empty(cap, dtype=torch.int64, device=device)
            self.logprobs = torch.empty(cap, device=device)
            self.values = torch.empty(cap, device=device)
            # host staging of a step's rows (pinned for asynchronous copies to a GPU)
            self._stage_obs = torch.empty(B, O, pin_memory=pin)
            self._stage_mask = torch.empty(B, A, dtype=torch.bool, pin_memory=pin)
        except torch.OutOfMemoryError as exc:
            raise ConfigError(f"the rollout buffers do not fit on {device} ({exc}); lower --num-envs or "
                              f"--num-steps") from None
        self.rewards = np.zeros(cap, np.float64)
        self.dones = np.zeros(cap, bool)
        self.slots = np.zeros(cap, np.int64)
        self.step_start = np.zeros(config.num_steps + 1, np.int64)
        self.last = np.full((B, n), -1, np.int64)
        self.games = np.arange(B)
        with warnings.catch_warnings():  # the engine's arrays are read-only views: they are only read
            warnings.simplefilter("ignore", UserWarning)
            self._engine_obs = torch.from_numpy(eng.obs)
            self._engine_mask = torch.from_numpy(eng.mask.view(np.int8))
        self.hidden = torch.empty(cap if self.privileged else 0, width, dtype=torch.uint8, device=device)
        self.bank = SnapshotBank(like, device, stacked=not config.exact)
        self.network_s = 0.0
        """Seconds spent in the networks' forward passes (learner and snapshots) so far."""

    # -- one step's choices --------------------------------------------------------------------
    def _stage(self, rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """The observations and masks of games ``rows``, on the device (not stored)."""
        k = rows.size
        obs, mask = self._gather(rows, self._stage_obs[:k], self._stage_mask[:k])
        nb = self.device.type == "cuda"
        return obs.to(self.device, non_blocking=nb), mask.to(self.device, non_blocking=nb)

    def _gather(self, rows: np.ndarray, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Copy the observations and masks of games ``rows`` into CPU tensors ``obs`` and ``mask``
        (a mask is 0 or 1: its int8 bytes are read as booleans; ``index_select`` gathers about
        three times faster than ``np.take`` here)."""
        index = torch.from_numpy(rows)
        torch.index_select(self._engine_obs, 0, index, out=obs)
        torch.index_select(self._engine_mask, 0, index, out=mask.view(torch.int8))
        return obs, mask.view(torch.bool)

    def _store(self, at: int, rows: np.ndarray) -> slice:
        """Write the observations and masks of games ``rows`` as records ``at`` on; their span."""
        span = slice(at, at + rows.size)
        if not self.staged:
            self._gather(rows, self.obs[span], self.mask[span])
        else:
            obs, mask = self._stage(rows)
            self.obs[span] = obs
            self.mask[span] = mask
        return span

    def _learner_exact(self, net: nn.Module, learn: np.ndarray, nlegal: np.ndarray, count: int,
                       sampler: torch.Generator, actions: np.ndarray) -> np.ndarray:
        obs, mask = self._stage(learn)
        with torch.inference_mode():
            logits, values = forward_inputs(net, prepare_inputs(net, obs, grouped=False))
        acts, logps = sample(logits.cpu(), mask.cpu(), sampler)
        actions[learn] = acts.numpy()
        keep = nlegal[learn] > 1
        kept = torch.from_numpy(np.flatnonzero(keep)).to(self.device)
        span = slice(count, count + int(keep.sum()))
        self.obs[span] = obs.index_select(0, kept)  # the rows already staged, not gathered again
        self.mask[span] = mask.index_select(0, kept)
        self.actions[span] = acts.to(self.device)[kept]
        self.logprobs[span] = logps.to(self.device)[kept]
        self.values[span] = self._privileged(net, learn[keep], span, values[kept])
        return learn[keep]

    def _privileged(self, net: nn.Module, rows: np.ndarray, span: slice, values: torch.Tensor) -> torch.Tensor:
        """Store the hidden views of the stored decisions ``rows`` (records ``span``) when the
        run reads them; the values of those decisions: the full critic's, if the run has one."""
        if not self.privileged:
            return values
        self.hidden[span] = torch.from_numpy(hidden_view(self.engine, rows)).to(self.device)
        if not self.critic_full:
            return values
        with torch.inference_mode():
            return net.critic(self.obs[span], self.hidden[span])  # type: ignore[no-any-return]

    def _learner_fast(self, net: nn.Module, learn: np.ndarray, nlegal: np.ndarray, count: int,
                      sampler: torch.Generator, actions: np.ndarray) -> np.ndarray:
        eng = self.engine
        rows = learn[nlegal[learn] > 1]
        if not rows.size:
            return rows
        span = self._store(count, rows)
        t0 = time.perf_counter()
        with torch.inference_mode():
            logits, values = forward_inputs(net, prepare_inputs(net, self.obs[span], grouped=False))
            logits = logits.float().cpu()  # waits for the device
        self.network_s += time.perf_counter() - t0
        acts, logps = draw(logits, rows, eng.legal, eng.num_legal, sampler)
        actions[rows] = acts
        self.actions[span] = torch.from_numpy(acts).to(self.device)
        self.logprobs[span] = torch.from_numpy(logps).to(self.device)
        self.values[span] = self._privileged(net, rows, span, values)
        return rows

    def _snapshots(self, who: np.ndarray, rows: np.ndarray, sampler: torch.Generator, actions: np.ndarray) -> None:
        eng = self.engine
        if self.config.exact:
            for snap in np.unique(who[rows]).tolist():
                group = rows[who[rows] == snap]
                obs, mask = self._stage(group)
                logits = self.bank.logits_each(snap, obs)
                actions[group] = sample(logits.cpu(), mask.cpu(), sampler)[0].numpy()
            return
        obs, _ = self._stage(rows)
        t0 = time.perf_counter()
        logits = self.bank.logits(obs, who[rows]).float().cpu()
        self.network_s += time.perf_counter() - t0
        actions[rows] = draw(logits, rows, eng.legal, eng.num_legal, sampler)[0]

    # -- the rollout ---------------------------------------------------------------------------
    def collect(self, net: nn.Module, pool: list[dict[str, torch.Tensor]], sampler: torch.Generator) -> tuple[Batch, float]:
        """``num_steps`` decisions in every game; the learner's stored decisions with advantages
        and returns (views of the buffers, valid until the next call), and the engine decisions per
        second of the collection."""
        t0 = time.perf_counter()
        self.begin(pool)
        for _ in range(self.config.num_steps):
            self.advance(self.choose(net, sampler))
        batch = self.finish()
        return batch, self.engine.num_envs * self.config.num_steps / max(time.perf_counter() - t0, 1e-9)

    def begin(self, pool: list[dict[str, torch.Tensor]]) -> None:
        """Start a rollout against the pool as it is now (chains start afresh; the games go on)."""
        self.play.pool_size = len(pool)
        if pool:
            self.bank.update(pool)
        self._count, self._step = 0, 0
        self.rewards[:] = 0.0
        self.dones[:] = False
        self.last[:] = -1

    def choose(self, net: nn.Module, sampler: torch.Generator) -> np.ndarray:
        """Every game's action this step (the learner's decisions stored as they are made)."""
        play, eng, cfg = self.play, self.engine, self.config
        n = play.table.shape[1]
        count = self._count
        self.step_start[self._step] = count
        actions = np.zeros(eng.num_envs, np.int64)
        seat = eng.turn
        nlegal = eng.num_legal
        who = play.table[self.games, seat]
        if not cfg.exact:  # a forced move needs no player: its only action is certain
            forced = nlegal == 1
            actions[forced] = eng.legal[forced, 0]
            who = np.where(forced, NOBODY, who)
        learn = np.flatnonzero(who == LEARNER)
        if learn.size:
            step = self._learner_exact if cfg.exact else self._learner_fast
            stored = step(net, learn, nlegal, count, sampler, actions)
            self.slots[count : count + stored.size] = stored * n + seat[stored]
            self.last[stored, seat[stored]] = np.arange(count, count + stored.size)
            self._count = count + stored.size
        for code in np.unique(who[(who < LEARNER) & (who != NOBODY)]).tolist():
            rows = np.flatnonzero(who == code)
            actions[rows] = play.builtins[-2 - code](rows)
        snaps = np.flatnonzero(who > LEARNER)
        if snaps.size:
            self._snapshots(who, snaps, sampler, actions)
        return actions

    def advance(self, actions: np.ndarray) -> None:
        """Step every game by ``actions`` and book the rewards and endings (no generator is read:
        this may run on another thread while the other half of an overlapped batch chooses)."""
        _, _, _, rewards, dones, infos = self.play.env.step(actions)
        self._bookkeep(rewards, dones, infos)
        self._step += 1

    def finish(self) -> Batch:
        """The rollout's batch (see :meth:`collect`)."""
        count, eng = self._count, self.engine
        self.step_start[self._step] = count
        if not count:
            raise RuntimeError("the rollout stored no learner decision; raise num_steps or num_envs")
        self.play.obs, self.play.mask, self.play.seat = eng.obs, eng.mask, eng.turn.copy()
        return self._batch(count)

    def pop_wins(self) -> list[float]:
        """The learner's results (1 won, 0 not) in the games with opponents finished since the last call."""
        wins = list(self.play.episode_wins)
        self.play.episode_wins.clear()
        return wins

    def _bookkeep(self, rewards: np.ndarray, dones: np.ndarray, infos: dict[str, np.ndarray]) -> None:
        """Rewards to each learner chain's newest decision; endings of the finished games."""
        play, last = self.play, self.last
        learner = play.table == LEARNER
        g_idx, s_idx = np.nonzero(learner & (last >= 0) & (rewards != 0))
        if g_idx.size:
            recs = last[g_idx, s_idx]
            live = ~self.dones[recs]
            self.rewards[recs[live]] += rewards[g_idx, s_idx][live].astype(np.float64) * self.config.reward_scale
        if not dones.any():
            return
        finished = np.flatnonzero(dones)
        ends = learner[finished] & (last[finished] >= 0)
        self.dones[last[finished][ends]] = True
        if "winner" in infos:
            mine = learner[finished]
            one_side = ~mine.all(1)
            side = play.side[mine.argmax(1)]
            won = infos["winner"][finished] == side
            play.episode_wins.extend(won[one_side].astype(float).tolist())
        last[finished] = -1
        over = infos.get("game_over", dones)
        ended = finished[over[finished]]  # the opponents' draw: one per finished game
        if self.config.exact:  # game by game, the reference's draws
            for g in ended.tolist():
                play.draw_table(g)
        else:
            play.draw_tables(ended)

    def _batch(self, count: int) -> Batch:
        """The stored decisions with GAE advantages and returns over their chains (a chain whose
        newest decision is unfinished continues from that decision's own value)."""
        cfg = self.config
        values = self.values[:count].double().cpu().numpy()
        adv = chain_gae(self.rewards[:count], values, self.dones[:count], self.slots[:count],
                        self.step_start[: self._step + 1], cfg.gamma, cfg.gae_lambda, self.play.table.size)
        adv_t = torch.from_numpy(adv)
        return {
            "obs": self.obs[:count], "masks": self.mask[:count], "actions": self.actions[:count],
            "logprobs": self.logprobs[:count],
            "advantages": adv_t.float().to(self.device),
            "returns": (adv_t + torch.from_numpy(values)).float().to(self.device),
            "values": self.values[:count],
        } | ({"hidden": self.hidden[:count]} if self.privileged else {})


def chain_gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, slots: np.ndarray,
              step_start: np.ndarray, gamma: float, lam: float, num_slots: int) -> np.ndarray:
    """GAE over interleaved chains, as :func:`training.lib.advantages.chain_advantages` computes it,
    for records laid out step by step (``step_start[t]`` the first of step ``t``; a chain has at
    most one record a step): one vectorised pass per step, newest first."""
    adv = np.zeros(len(rewards), np.float64)
    next_value = np.zeros(num_slots, np.float64)
    next_gae = np.zeros(num_slots, np.float64)
    seen = np.zeros(num_slots, bool)
    for t in range(len(step_start) - 2, -1, -1):
        span = slice(int(step_start[t]), int(step_start[t + 1]))
        s, v, d = slots[span], values[span], dones[span]
        known = seen[s] & ~d
        nv = np.where(d, 0.0, np.where(known, next_value[s], v))
        g = np.where(known, next_gae[s], 0.0)
        nonterminal = np.where(d, 0.0, 1.0)
        delta = rewards[span] + gamma * nv * nonterminal - v
        adv[span] = delta + gamma * lam * nonterminal * g
        next_value[s], next_gae[s], seen[s] = v, adv[span], True
    return adv


def __getattr__(name: str) -> type:
    """``RolloutConfig``, deprecated: :class:`CollectorConfig` ("rollouts" names the search player)."""
    if name == "RolloutConfig":
        warnings.warn("training.lib.collector.RolloutConfig is deprecated and goes in the next release: use "
                      "CollectorConfig", DeprecationWarning, stacklevel=2)
        return CollectorConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
