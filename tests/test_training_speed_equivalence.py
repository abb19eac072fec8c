"""The fast PPO update learns what the plain one does: per-row inputs computed once per batch
(the move network's candidate features), or kept from the collection, and the entropy's
probabilities taken by softmax give the same weights after an update on the same batch; the
batched collection gathers the same batch as through ``forward`` alone; the exported policy's
logits stay those of the network."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from unittest import mock

import pytest

torch = pytest.importorskip("torch")

from sniff_env import make_rules
from training import ppo
from training.lib.experience import INPUT, ExperienceSettings, VectorSelfPlay
from training.lib.network import export_policy, forward_inputs, make_net, policy_meta, prepare_inputs
from training.lib.reference_collector import SelfPlay, collect, collect_vector

ARGS = replace(ppo.Args(), num_envs=12, num_steps=24, hidden=32, update_epochs=2, num_minibatches=3)
KEYS = {
    "mlp": {"pi.bias", "pi.weight", "skip", "trunk.0.bias", "trunk.0.weight", "trunk.2.bias", "trunk.2.weight",
            "v.bias", "v.weight"},
    "move": {"draw_hot", "fit_hot", "hi", "inline", "is_double", "lead_open", "lo", "move_in.bias", "move_in.weight",
             "move_out.1.bias", "move_out.1.weight", "move_out.3.bias", "move_out.3.weight", "pair", "pips",
             "placed", "points", "skip", "slot_hot", "state_in.bias", "state_in.weight", "tile_hot", "tile_idx",
             "trunk.0.bias", "trunk.0.weight", "trunk.2.bias", "trunk.2.weight", "v.bias", "v.weight"},
}
KEYS["move-tiles"] = KEYS["move"] | {"tile_embed", "tile_in.bias", "tile_in.weight", "tile_mix.bias", "tile_mix.weight",
                                     "tile_mlp.0.bias", "tile_mlp.0.weight", "tile_mlp.2.bias", "tile_mlp.2.weight",
                                     "tile_out.bias", "tile_out.weight", "tile_qkv.bias", "tile_qkv.weight"}


class Plain(torch.nn.Module):
    """The network seen only through ``forward``: the update computes everything per minibatch."""

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.net(obs)  # type: ignore[no-any-return]


def rollout(arch: str) -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    """A fresh network and a batch it collected on the reference engine."""
    args = replace(ARGS, arch=arch)
    rules = make_rules("sniff", 2)
    torch.manual_seed(3)
    net = make_net(rules, args.hidden, args.points_prior, arch)
    if arch == "move-tiles":  # its tile branch starts at zero: give it a say
        torch.nn.init.normal_(net.tile_out.weight, std=0.1)
    settings = ExperienceSettings.of(args)
    batch, _ = collect(settings, SelfPlay(settings, rules, random.Random(4)), net, torch.Generator().manual_seed(5), 2)
    return net, batch


@contextmanager
def softmax_as_exp_of_log_softmax() -> Iterator[None]:
    """The update's probabilities as it first took them: the exponential of the log-probabilities."""
    with mock.patch.object(torch, "softmax", lambda x, dim: torch.log_softmax(x, dim).exp()):
        yield


def trained(arch: str, net: torch.nn.Module, batch: dict[str, torch.Tensor], plain: bool) -> dict[str, torch.Tensor]:
    """The weights after one PPO update of a copy of ``net`` on ``batch``; ``plain``: the
    reference update (the network through ``forward`` alone, the original probabilities)."""
    copy = make_net(make_rules("sniff", 2), ARGS.hidden, ARGS.points_prior, arch)
    copy.load_state_dict(net.state_dict())
    model = Plain(copy) if plain else copy
    optimizer = torch.optim.Adam(model.parameters(), lr=ARGS.learning_rate, eps=1e-5)
    with softmax_as_exp_of_log_softmax() if plain else nullcontext():
        ppo.update(ARGS, model, optimizer, batch, torch.Generator().manual_seed(6))
    return copy.state_dict()


def assert_same_update(arch: str, net: torch.nn.Module, batch: dict[str, torch.Tensor]) -> None:
    fast, plain = trained(arch, net, batch, plain=False), trained(arch, net, batch, plain=True)
    assert set(fast) == KEYS[arch]  # shipped checkpoints still load
    moved = False
    for key, value in plain.items():
        # atol: well under 1% of the update's steps (lr 3e-4, six of them): the move scorer's last
        # bias shifts every candidate alike, so its true gradient is 0 and Adam moves it by rounding
        torch.testing.assert_close(fast[key], value, rtol=1e-5, atol=1e-5, msg=key)
        moved |= not torch.equal(value, net.state_dict()[key])
    assert moved, "the update changed no weight"


@pytest.mark.parametrize("arch", ["mlp", "move", "move-tiles"])
def test_update_with_prepared_inputs_learns_the_same(arch: str) -> None:
    net, batch = rollout(arch)
    assert_same_update(arch, net, batch)


def vector_rollout(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A batch that ``net`` collects on the batched engine, every seed fixed."""
    args = replace(ARGS, engine="vector", num_envs=16, num_steps=16)
    play = VectorSelfPlay(make_rules("sniff", 2), args.num_envs, 7, args.reward, args.max_hands, 0.0,
                          random.Random(8), ("greedy",))
    play.pool_size = 0
    batch, _ = collect_vector(ExperienceSettings.of(args), play, net, None, torch.Generator().manual_seed(9))
    play.env.close()
    return batch


@pytest.mark.parametrize("arch", ["mlp", "move"])
def test_vector_collection_keeps_the_batch_and_its_inputs_learn_the_same(arch: str) -> None:
    torch.manual_seed(3)
    net = make_net(make_rules("sniff", 2), ARGS.hidden, ARGS.points_prior, arch)
    fast, plain = vector_rollout(net), vector_rollout(Plain(net))
    assert not any(key.startswith(INPUT) for key in plain)
    for key in ("obs", "masks", "actions"):
        assert torch.equal(fast[key], plain[key]), key
    for key in ("logprobs", "values", "advantages", "returns"):
        torch.testing.assert_close(fast[key], plain[key], rtol=1e-5, atol=1e-5, msg=key)
    kept = {key.removeprefix(INPUT): value for key, value in fast.items() if key.startswith(INPUT)}
    assert set(kept) == ({"idx", "real", "feats"} if arch == "move" else set())
    if kept:  # the collection's features are those the update would prepare (candidates in any order)
        prepared = by_action(prepare_inputs(net, fast["obs"]), net.num_actions)
        torch.testing.assert_close(by_action(kept, net.num_actions), prepared)
    assert_same_update(arch, net, fast)


def by_action(inputs: dict[str, torch.Tensor], num_actions: int) -> torch.Tensor:
    """[B, A, 1 + F]: per action, whether it is a real candidate, then its features."""
    real = inputs["real"]
    rows = real.nonzero()[:, 0]
    out = torch.zeros(len(real), num_actions, 1 + inputs["feats"].shape[-1])
    values = torch.cat([torch.ones(len(rows), 1), inputs["feats"][real]], 1)
    return out.index_put((rows, inputs["idx"][real]), values)


@pytest.mark.parametrize("arch", ["move", "move-tiles"])
def test_prepared_forward_matches_forward_and_export(tmp_path: Path, arch: str) -> None:
    net, batch = rollout(arch)
    obs = batch["obs"]
    with torch.no_grad():
        logits, value = net(obs)
        fast_logits, fast_value = forward_inputs(net, prepare_inputs(net, obs))
        rows = torch.arange(0, len(obs), 3)
        picked = forward_inputs(net, prepare_inputs(net, obs), rows)[0]
        padded = forward_inputs(net, prepare_inputs(net, obs, grouped=False))[0]
    torch.testing.assert_close(fast_logits, logits, rtol=1e-6, atol=1e-5)
    torch.testing.assert_close(padded, fast_logits)
    torch.testing.assert_close(fast_value, value)
    torch.testing.assert_close(picked, logits[rows], rtol=1e-6, atol=1e-5)
    rules = make_rules("sniff", 2)
    path = export_policy(net, tmp_path / "move.pt", policy_meta(rules, 0, "ppo", {"arch": arch, "hidden": 32}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = torch.jit.load(str(path))
    with torch.no_grad():
        torch.testing.assert_close(scripted(obs), logits)
