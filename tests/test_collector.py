"""The batched collector hands the update what the reference collector does.

From the same games, tables, pool and generators, the collector in its exact mode gives the same
transitions, advantages and returns as :func:`training.lib.reference_collector.collect_vector` (learner,
snapshots and built-ins all at the table); its fast draws sample the same distribution; the
stacked snapshot pass gives each snapshot's own logits; the vectorised GAE is the reference's.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sniff_env import make_rules
from training import ppo
from training.lib.advantages import chain_advantages
from training.lib.collector import Collector, CollectorConfig, buffer_bytes, chain_gae
from training.lib.config import ConfigError
from training.lib.experience import LEARNER, ExperienceSettings, VectorSelfPlay, reward_scale
from training.lib.network import make_net
from training.lib.overlap import OverlappedCollector
from training.lib.reference_collector import SelfPlay, collect_vector
from training.lib.sampling import draw
from training.lib.snapshots import SnapshotBank

ARGS = replace(ppo.Args(), engine="vector", num_envs=48, num_steps=40, hidden=32, selfplay_prob=0.3, max_hands=1)


def table(args: ppo.Args, players: int = 2, seed: int = 11) -> tuple[VectorSelfPlay, list[dict[str, torch.Tensor]], torch.nn.Module]:
    """A batch of games with a pool of two snapshots and both compiled built-ins, and the learner."""
    rules = make_rules("sniff", players)
    rng = random.Random(seed)
    play = VectorSelfPlay(rules, args.num_envs, seed, args.reward, args.max_hands, args.selfplay_prob, rng,
                          ("greedy", "heuristic"))
    torch.manual_seed(3)
    pool = [{k: v.clone() for k, v in make_net(rules, args.hidden, 1.0, args.arch).state_dict().items()}
            for _ in range(2)]
    net = make_net(rules, args.hidden, args.points_prior, args.arch)
    play.pool_size = len(pool)
    for g in range(args.num_envs):
        play.draw_table(g)
    return play, pool, net


@pytest.mark.parametrize(("arch", "players", "reward"), [("mlp", 2, "points"), ("mlp", 4, "game"), ("move", 2, "points")])
def test_exact_collector_gives_the_reference_batch(arch: str, players: int, reward: str) -> None:
    args = replace(ARGS, arch=arch, reward=reward)
    old_play, pool, net = table(args, players)
    new_play, _, _ = table(args, players)
    rules = old_play.rules
    holder = SelfPlay(ExperienceSettings.of(args), rules, random.Random(0), games=False)
    holder.pool = pool
    config = CollectorConfig(args.num_steps, args.gamma, args.gae_lambda, reward_scale(ExperienceSettings.of(args)), exact=True)
    collector = Collector(new_play, config, net, torch.device("cpu"))
    for iteration in range(2):  # the second starts from games, chains and tables the first left
        old, _ = collect_vector(ExperienceSettings.of(args), old_play, net, lambda i: holder.frozen(i, net), torch.Generator().manual_seed(iteration))
        new, _ = collector.collect(net, pool, torch.Generator().manual_seed(iteration))
        for key in ("obs", "masks", "actions", "logprobs", "values", "advantages", "returns"):
            assert torch.equal(old[key], new[key]), (iteration, key)
        assert len(new["actions"]) > args.num_envs
        assert old_play.episode_wins == new_play.episode_wins
        assert np.array_equal(old_play.table, new_play.table)
    assert old_play.episode_wins


def test_fast_collector_stores_only_choices_and_legal_moves() -> None:
    play, pool, net = table(ARGS)
    config = CollectorConfig(ARGS.num_steps, ARGS.gamma, ARGS.gae_lambda, reward_scale(ExperienceSettings.of(ARGS)))
    collector = Collector(play, config, net, torch.device("cpu"))
    batch, rate = collector.collect(net, pool, torch.Generator().manual_seed(1))
    masks, actions = batch["masks"], batch["actions"]
    assert rate > 0 and (masks.sum(1) > 1).all()
    assert masks[torch.arange(len(actions)), actions].all()
    logits, values = net(batch["obs"])
    expected = torch.log_softmax(logits.masked_fill(~masks, -1e9), -1).gather(1, actions[:, None]).squeeze(1)
    assert torch.allclose(batch["logprobs"], expected, atol=1e-5)
    assert torch.allclose(batch["values"], values, atol=1e-5)
    again, _ = Collector(table(ARGS)[0], config, net, torch.device("cpu")).collect(net, pool, torch.Generator().manual_seed(1))
    assert torch.equal(again["actions"], actions) and torch.equal(again["advantages"], batch["advantages"])


def test_legal_list_draws_follow_the_masked_softmax() -> None:
    play, _, _ = table(ARGS)
    eng = play.env.engine
    game = int(np.argmax(eng.S[:, 17]))  # the game with the most legal moves
    legal = eng.legal[game, : eng.S[game, 17]].astype(np.int64)
    logits = torch.zeros(1, eng.num_actions)
    logits[0, legal] = torch.linspace(-1.0, 1.0, legal.size)
    rows = np.full(20_000, game, np.int64)
    acts, logps = draw(logits.expand(rows.size, -1).contiguous(), rows, eng.legal, eng.S[:, 17],
                       torch.Generator().manual_seed(2))
    probs = torch.softmax(logits[0, legal], -1).numpy()
    freq = np.array([(acts == a).mean() for a in legal])
    assert set(acts.tolist()) <= set(legal.tolist())
    assert np.abs(freq - probs).max() < 4 * np.sqrt(probs.max() / rows.size) + 1e-3
    assert np.allclose(logps[: legal.size], np.log(probs[[list(legal).index(a) for a in acts[: legal.size]]]), atol=1e-6)


@pytest.mark.parametrize("arch", ["mlp", "move"])
def test_stacked_snapshots_score_as_each_snapshot(arch: str) -> None:
    args = replace(ARGS, arch=arch)
    play, pool, net = table(args)
    obs = torch.from_numpy(np.array(play.env.engine.obs[:20]))
    which = np.array([1, 0, 1, 1, 0] * 4)
    exact, stacked = SnapshotBank(net, torch.device("cpu"), stacked=False), SnapshotBank(net, torch.device("cpu"))
    exact.update(pool)
    stacked.update(pool)
    assert stacked.stacked == (arch == "mlp")  # the move network picks rows by data: one pass per snapshot
    for snap in (0, 1):
        frozen = make_net(play.rules, args.hidden, 0.0, arch)
        frozen.load_state_dict(pool[snap])
        rows = np.flatnonzero(which == snap)
        with torch.no_grad():
            assert torch.allclose(exact.logits(obs, which)[rows], frozen(obs[rows])[0])
            assert torch.allclose(stacked.logits(obs, which)[rows], frozen(obs[rows])[0], atol=1e-5)


def test_vectorised_gae_is_the_reference_gae() -> None:
    rng = np.random.default_rng(5)
    steps, games = 30, 9
    slots, starts, dones = [], [0], []
    for _ in range(steps):
        rows = np.sort(rng.choice(games, size=rng.integers(0, games + 1), replace=False))
        slots.append(rows * 2 + rng.integers(0, 2, rows.size))
        dones.append(rng.random(rows.size) < 0.1)
        starts.append(starts[-1] + rows.size)
    slot, done = np.concatenate(slots), np.concatenate(dones)
    rewards, values = rng.normal(size=slot.size), rng.normal(size=slot.size)
    expected = chain_advantages(rewards, values, done, slot, 0.97, 0.9)
    assert np.array_equal(chain_gae(rewards, values, done, slot, np.array(starts), 0.97, 0.9, games * 2), expected)


def test_buffers_that_do_not_fit_are_refused_naming_the_options() -> None:
    args = replace(ARGS, num_envs=4)
    play, _, net = table(args)
    assert buffer_bytes(10**6, 10**3, 547, 176) > 16 * 2**30
    with pytest.raises(ConfigError, match="--num-envs"):
        Collector(play, CollectorConfig(10**9, 0.99, 0.95, 1.0), net, torch.device("cpu"))


def test_overlapped_halves_give_the_batches_of_halves_stepped_in_turn() -> None:
    args = replace(ARGS, num_envs=16, num_steps=12)
    batches, wins = [], []
    _, pool, net = table(args)
    for overlap in (True, False):
        halves = [Collector(table(args, seed=seed)[0], CollectorConfig(args.num_steps, args.gamma, args.gae_lambda, 1.0),
                            net, torch.device("cpu")) for seed in (11, 12)]
        both = OverlappedCollector(*halves)
        batches.append([both.collect(net, pool, torch.Generator().manual_seed(k), overlap=overlap)[0] for k in range(3)])
        wins.append(both.pop_wins())
        assert not halves[0].play.episode_wins and not halves[1].play.episode_wins
        both.close()
    assert wins[0] == wins[1] and wins[0]
    for fast, plain in zip(*batches, strict=True):
        assert all(torch.equal(fast[key], plain[key]) for key in fast)


def test_staged_path_of_a_gpu_gives_the_batch_of_the_direct_path() -> None:
    results = []
    for staged in (False, True):
        play, pool, net = table(ARGS)
        config = CollectorConfig(ARGS.num_steps, ARGS.gamma, ARGS.gae_lambda, 1.0)
        results.append(Collector(play, config, net, torch.device("cpu"), staged=staged).collect(
            net, pool, torch.Generator().manual_seed(3))[0])
    assert all(torch.equal(results[0][key], results[1][key]) for key in results[0])


def test_a_batch_that_does_not_fit_names_the_option(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--num-envs 100000000"):
        ppo.main(["--engine", "vector", "--num-envs", "100000000", "--out-dir", str(tmp_path), "--progress", "false",
                  "--tensorboard", "false"])
    assert not any(tmp_path.iterdir())


def test_running_out_of_device_memory_mid_run_names_the_options_and_keeps_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real, calls = ppo.update, []

    def update(*args: object, **kwargs: object) -> dict[str, float]:
        calls.append(1)
        if len(calls) == 3:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ppo, "update", update)
    with pytest.raises(ConfigError, match="--num-minibatches"):
        ppo.main(["--engine", "vector", "--num-envs", "8", "--num-steps", "8", "--hidden", "8", "--checkpoint-every", "1",
                  "--eval-every", "0", "--out-dir", str(tmp_path), "--exp-name", "oom", "--progress", "false",
                  "--tensorboard", "false"])
    ckpt = torch.load(tmp_path / "oom" / "checkpoint.pt", weights_only=True)
    assert ckpt["iteration"] == 2


def test_tables_drawn_at_once_seat_one_opponent_per_side_in_the_configured_shares() -> None:
    rules = make_rules("sniff", num_players=4, partnership=True)
    play = VectorSelfPlay(rules, 8, 3, "points", 5, 0.25, random.Random(5), ("greedy", "heuristic"))
    play.pool_size = 2
    games = np.arange(8)
    codes: list[int] = []
    for _ in range(500):
        play.draw_tables(games)
        for row in play.table.tolist():
            learns = [s for s in range(4) if row[s] == LEARNER]
            if len(learns) == 4:
                codes.append(LEARNER)
                continue
            assert len(learns) == 2 and len({rules.side_of(s) for s in learns}) == 1  # one side learns
            opponent = {row[s] for s in range(4) if s not in learns}
            assert len(opponent) == 1  # the other side is one opponent
            codes.append(opponent.pop())
    shares = {c: codes.count(c) / len(codes) for c in set(codes)}
    assert abs(shares.pop(LEARNER) - 0.25) < 0.03
    assert set(shares) == {0, 1, -2, -3}  # two snapshots and the two built-ins, evenly
    assert all(abs(share - 0.75 / 4) < 0.03 for share in shares.values())
