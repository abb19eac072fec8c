"""The project's policy network as a BenchMARL model, the actor of
:mod:`training.libraries.benchmarl_mappo` (a module of its own: BenchMARL pickles its model
configs, so their classes live at module level, and importing them needs BenchMARL)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sniff_env.integrations.benchmarl import SniffTask  # first: it lets BenchMARL 1.5 import on TorchRL 0.14

# isort: split
from benchmarl.models.common import Model, ModelConfig
from torch import nn

from training.lib.config import rules_for
from training.lib.network import make_net
from training.libraries.torchrl_mappo import SharedPolicy

__all__ = ["PolicyNetConfig", "PolicyNetModel", "SniffTask", "policy_net"]


class PolicyNetModel(Model):  # type: ignore[misc]
    """:class:`~training.lib.network.PolicyNet` over every seat (one set of parameters), reading
    each agent's observation vector and writing its logits, the no-op's included."""

    def __init__(self, preset: str, num_players: int, rules: str, hidden: int, points_prior: float,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.policy = SharedPolicy(make_net(rules_for(preset, num_players, rules), hidden, points_prior, "mlp"))
        self.obs_key = next(k for k in self.in_keys if k[-1] == "observation")

    def _forward(self, tensordict: Any) -> Any:
        tensordict.set(self.out_key, self.policy(tensordict.get(self.obs_key)))
        return tensordict


@dataclass
class PolicyNetConfig(ModelConfig):  # type: ignore[misc]
    """BenchMARL's config of :class:`PolicyNetModel`: the rules it plays and the network's size."""

    preset: str = "sniff"
    num_players: int = 2
    rules: str = ""
    hidden: int = 256
    points_prior: float = 5.0

    @staticmethod
    def associated_class() -> type:
        return PolicyNetModel


def policy_net(policy: nn.Module) -> nn.Module:
    """The project network inside an experiment's policy (what is evaluated and exported)."""
    for module in policy.modules():
        if isinstance(module, PolicyNetModel):
            net: nn.Module = module.policy.net
            return net
    raise LookupError("the experiment's policy holds no PolicyNetModel")
