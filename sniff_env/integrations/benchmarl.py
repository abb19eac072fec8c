"""BenchMARL's task for Sniff: MAPPO, IPPO and BenchMARL's other discrete-action algorithms on the
parallel form of the game.

    from benchmarl.algorithms import MappoConfig
    from benchmarl.experiment import Experiment, ExperimentConfig
    from benchmarl.models import MlpConfig
    from sniff_env.integrations.benchmarl import SniffTask

    experiment = Experiment(task=SniffTask(ruleset="sniff", num_players=2), algorithm_config=MappoConfig.get_from_yaml(),
                            model_config=MlpConfig.get_from_yaml(), critic_model_config=MlpConfig.get_from_yaml(),
                            seed=0, config=ExperimentConfig.get_from_yaml())
    experiment.run()

The task steps :func:`sniff_env.sniff_v0.parallel_env` through TorchRL's ``PettingZooWrapper``:
every seat is one agent of the group ``player``. The game is turn-based, so at each step one
agent acts and every other one takes the no-op, the only move its mask allows
(:mod:`sniff_env.envs.parallel`). Every action in a batch is therefore one the env played, and a
waiting agent's entry carries no policy gradient: its masked distribution has one outcome, whose
log-probability is 0 whatever the parameters, and no entropy. The agents see their observation
vector and the ``acting`` flag; BenchMARL's masked categorical reads ``action_mask``.

BenchMARL 1.5 declares ``torchrl<0.12`` but runs on the TorchRL this project pins (0.14) once
the one class TorchRL renamed, ``SyncDataCollector`` (now ``Collector``), is found under its old
name: importing this module provides that alias, and installing BenchMARL with ``--no-deps``
keeps TorchRL, tensordict and torch where the project pins them (see the integrations README).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from torchrl.data import Composite
from torchrl.envs import EnvBase, PettingZooWrapper, RewardScaling, Transform

with warnings.catch_warnings():  # TorchRL 0.14's notices about its own weight updaters, which nobody here can act on
    warnings.simplefilter("ignore", DeprecationWarning)
    import torchrl.collectors

    if not hasattr(torchrl.collectors, "SyncDataCollector"):  # renamed in TorchRL 0.14; BenchMARL 1.5 imports the old name
        torchrl.collectors.SyncDataCollector = torchrl.collectors.Collector  # type: ignore[attr-defined]
    from benchmarl.environments.common import TaskClass

from sniff_env.envs.parallel import parallel_env

GROUP = "player"
"""TorchRL's group of the parallel env's agents (``player_0``, ``player_1``, ...)."""
_KEEP = {"observation", "acting"}


class SniffTask(TaskClass):
    """Sniff as a BenchMARL task: ``SniffTask(**kwargs)`` takes the keywords of
    :func:`sniff_env.sniff_v0.parallel_env` (``ruleset``, ``num_players``, ``reward``,
    ``max_hands``, rules overrides) and checks them at once by building one env;
    ``reward_scale`` multiplies every reward (a TorchRL ``RewardScaling`` on the env)."""

    def __init__(self, name: str = "sniff", reward_scale: float = 1.0, **config: Any) -> None:
        if isinstance(reward_scale, bool) or not isinstance(reward_scale, int | float) or not reward_scale > 0:
            raise ValueError(f"reward_scale must be a positive number; got {reward_scale!r}")
        super().__init__(name, dict(config))
        self.config.setdefault("max_hands", 40)
        parallel_env(**self.config).close()  # a bad keyword fails here, with the env's own error
        self.reward_scale = float(reward_scale)

    def get_env_fun(self, num_envs: int, continuous_actions: bool, seed: int | None,
                    device: Any) -> Callable[[], EnvBase]:
        config = copy.deepcopy(self.config)
        return lambda: PettingZooWrapper(env=parallel_env(**config), use_mask=True, categorical_actions=True,
                                         seed=seed, device=device)

    def get_env_transforms(self, env: EnvBase) -> list[Transform]:
        if self.reward_scale == 1.0:
            return []
        return [RewardScaling(loc=0.0, scale=self.reward_scale, in_keys=[(GROUP, "reward")])]

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def max_steps(self, env: EnvBase) -> int:
        """A bound on an evaluation game's env steps: ``max_hands`` hands of at most 200 moves."""
        return int(self.config["max_hands"]) * 200

    def has_render(self, env: EnvBase) -> bool:
        return False

    def group_map(self, env: EnvBase) -> dict[str, list[str]]:
        return dict(env.group_map)

    def observation_spec(self, env: EnvBase) -> Composite:
        """Each agent's observation vector and its ``acting`` flag (what the models read)."""
        spec = env.observation_spec.clone()
        for group in self.group_map(env):
            inner = spec[group, "observation"]
            for key in list(inner.keys()):
                if key not in _KEEP:
                    del inner[key]
            for key in list(spec[group].keys()):
                if key != "observation":
                    del spec[group][key]
        return spec

    def action_mask_spec(self, env: EnvBase) -> Composite:
        spec = env.observation_spec.clone()
        for group in self.group_map(env):
            for key in list(spec[group].keys()):
                if key != "action_mask":
                    del spec[group][key]
        return spec

    def info_spec(self, env: EnvBase) -> None:
        return None

    def state_spec(self, env: EnvBase) -> None:
        return None

    def action_spec(self, env: EnvBase) -> Composite:
        return env.full_action_spec

    @staticmethod
    def env_name() -> str:
        return "sniff"
