"""The batched path of ``training/libraries/rllib_selfplay.py`` (``--engine vector``): RLlib's env runners
step many games at once on the batched engine.

Each env runner holds one :class:`sniff_env.integrations.rllib.SniffRLlibVectorEnv` of
``num_envs_per_env_runner`` games, built through Gymnasium's ``vector_entry_point``
(``gym_env_vectorize_mode="vector_entry_point"``; RLlib 2.60's multi-agent env runners vectorize
only by copying envs, so this is the single-agent view: the learner's seat of every game, RLlib's
``default_policy``). The other seats are played inside the env by one
:class:`~sniff_env.envs.gym_vector.OpponentPool` entry per game, drawn at the start of each
episode as the league of the one-game path draws its tables:

* ``self``: the env runner's own RLModule (the learner as of the last weight sync), sampling from
  its masked distribution, with probability ``selfplay_prob``. Only the learner's seat is
  trained on: a single-agent view cannot put the learner on every seat, so a self-play game
  yields half the training decisions it yields on the one-game path;
* the built-in players of ``builtin_opponents`` (compiled in the engine), shipped agents or
  exported policy files, and the frozen snapshots, sharing the rest evenly.

Snapshots are RLModules too: every ``snapshot_every`` iterations :class:`League` copies the
learner's actor weights into slot ``(k - 1) % pool_size`` and sends the whole pool with the new
draw probabilities to every env runner (``foreach_env_runner``), where each slot is a copy of
the runner's module holding those weights. Checkpoints keep the pool in :data:`LEAGUE_FILE`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SELF = "self"
LEARNER_MODULE = "default_policy"
"""RLlib's module id of the single-agent learner (``DEFAULT_MODULE_ID``)."""
LEAGUE_FILE = "sniff_league.npz"
"""The snapshot pool beside RLlib's files in a checkpoint folder of the batched path."""
CRITIC = ("vf.", "encoder.critic_encoder.")
"""Parameters a snapshot leaves out: it only acts."""


class ModulePolicy:
    """A batched policy (``actions(obs, mask)``) over an action-masking RLModule: it samples from
    the module's masked logits (Gumbel-max, with its own seeded stream). Bound to an env runner it
    plays the runner's current module (``self``); otherwise it holds a snapshot (:meth:`load`)."""

    def __init__(self) -> None:
        self.runner: Any = None
        self.module: Any = None
        self.rng = np.random.default_rng(0)

    def bind(self, seed: Sequence[int], runner: Any = None) -> None:
        """Seed the sampling stream; with ``runner``, play that env runner's module."""
        self.rng = np.random.default_rng(list(seed))
        self.runner = runner

    def load(self, state: Mapping[str, np.ndarray], like: Any) -> None:
        """Hold a copy of the module ``like`` with the weights ``state`` (a ``ValueError`` naming the
        parameter when a shape differs: a snapshot of other rules or another width)."""
        if self.module is None:
            self.module = copy.deepcopy(like)
        mine = self.module.state_dict()
        for name, value in mine.items():
            theirs = state.get(name)
            if theirs is None or tuple(np.shape(theirs)) != tuple(value.shape):
                got = "missing" if theirs is None else f"{tuple(np.shape(theirs))}"
                raise ValueError(
                    f"league snapshot: parameter {name} is {got}, this run's module needs {tuple(value.shape)} "
                    "(a snapshot of other rules or another network width)"
                )
        self.module.set_state(dict(state))

    def actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        module = self.runner.module if self.runner is not None else self.module
        if module is None:
            raise RuntimeError("a league slot was drawn before it held a snapshot")
        batch = {"obs": {"observations": torch.from_numpy(np.ascontiguousarray(obs, np.float32)),
                         "action_mask": torch.from_numpy(mask.astype(np.float32))}}
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"].numpy()
        return np.asarray(np.argmax(logits + self.rng.gumbel(size=logits.shape), axis=1), np.int64)

    def __getstate__(self) -> dict[str, Any]:
        return {}  # the runner, module and stream are set where it plays

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]


@dataclass(frozen=True)
class LeagueSpec:
    """The league of a run: pool entries ``self``, the built-ins, then ``pool_size`` snapshot slots."""

    builtins: tuple[str, ...]
    selfplay_prob: float
    pool_size: int
    snapshot_every: int
    seed: int

    @property
    def labels(self) -> tuple[str, ...]:
        """The win-rate label of each pool entry (every snapshot is ``"snapshot"``)."""
        return (SELF, *self.builtins, *("snapshot",) * self.pool_size)

    def probs(self, filled: Sequence[bool]) -> np.ndarray:
        """The draw of each entry: ``self`` with ``selfplay_prob`` (always, when nothing else is
        there), the rest split evenly between the built-ins and the filled snapshot slots."""
        options = [True] * len(self.builtins) + [bool(f) for f in filled]
        p = np.zeros(1 + len(options))
        if not any(options):
            p[0] = 1.0
            return p
        p[0] = self.selfplay_prob
        p[1:] = np.asarray(options, np.float64) * (1.0 - self.selfplay_prob) / sum(options)
        if p.sum() <= 0:  # selfplay_prob 1 leaves the rest nothing
            p[0] = 1.0
        return p

    def pool(self) -> Any:
        """A fresh pool (its snapshot slots empty, never drawn until filled)."""
        from sniff_env.envs.gym_vector import OpponentPool

        entries: list[Any] = [ModulePolicy(), *self.builtins, *(ModulePolicy() for _ in range(self.pool_size))]
        return OpponentPool(entries, self.probs([False] * self.pool_size))


def actor_state(weights: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The acting part of a learner's module state, as numpy arrays."""
    return {k: np.asarray(v) for k, v in weights.items() if not k.startswith(CRITIC)}


def install(runner: Any, states: Sequence[Mapping[str, np.ndarray] | None], probs: np.ndarray, offset: int) -> int:
    """On an env runner: load the snapshot pool into its env's slots and set the draw probabilities.
    Returns how many slots hold a snapshot (0 for a runner without an env)."""
    if runner.env is None:
        return 0
    pool = runner.env.unwrapped.opponent_pool
    for k, state in enumerate(states):
        if state is not None:
            pool.entries[offset + k].load(state, like=runner.module)
    pool.set_probs(probs)
    return sum(s is not None for s in states)


def league_callback() -> type:
    """The :class:`League` callback class (built here: it needs Ray)."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class League(RLlibCallback):
        """Binds the env's ``self`` entry to the runner's module, logs the learner's win rate
        per opponent kind, freezes snapshots and sends the pool to the env runners."""

        def __init__(self, spec: LeagueSpec) -> None:
            super().__init__()
            self.spec = spec
            self.snapshots: list[dict[str, np.ndarray] | None] = [None] * spec.pool_size

        # -- on the env runners --------------------------------------------------------------
        def on_environment_created(self, *, env_runner: Any, env: Any, **kwargs: Any) -> None:
            worker = int(env_runner.worker_index or 0)
            if worker > 0:  # a remote env runner is one CPU: its torch runs one thread beside the engine
                import torch

                torch.set_num_threads(1)
            for i, entry in enumerate(env.opponent_pool.entries):
                if isinstance(entry, ModulePolicy):
                    entry.bind([self.spec.seed, worker, i], env_runner if i == 0 else None)

        def on_episode_end(self, *, episode: Any, metrics_logger: Any, **kwargs: Any) -> None:
            info = episode.get_infos(-1)
            if "opponent" not in info:
                return
            label = self.spec.labels[int(info["opponent"])]
            if label != SELF:
                metrics_logger.log_value(f"league/winrate_vs_{label}", float(info["win"]), reduce="mean", window=100)

        # -- on the driver -------------------------------------------------------------------
        def on_train_result(self, *, algorithm: Any, result: dict[str, Any], **kwargs: Any) -> None:
            if algorithm.iteration % self.spec.snapshot_every == 0:
                refresh = algorithm.iteration // self.spec.snapshot_every
                weights = algorithm.learner_group.get_weights([LEARNER_MODULE])[LEARNER_MODULE]
                self.snapshots[(refresh - 1) % self.spec.pool_size] = actor_state(weights)
                self.push(algorithm)
            result["league_size"] = self.size

        @property
        def size(self) -> int:
            return sum(s is not None for s in self.snapshots)

        def push(self, algorithm: Any) -> None:
            """Send the pool and its draw probabilities to every env runner."""
            probs = self.spec.probs([s is not None for s in self.snapshots])
            algorithm.env_runner_group.foreach_env_runner(
                functools.partial(install, states=self.snapshots, probs=probs, offset=1 + len(self.spec.builtins)),
                local_env_runner=True,
            )

        def restore(self, algorithm: Any, snapshots: list[dict[str, np.ndarray] | None]) -> None:
            """Take a saved pool (:func:`load_league`) and send it to the env runners."""
            if len(snapshots) != self.spec.pool_size:
                raise ValueError(f"the saved league has {len(snapshots)} slots; this run's pool_size is "
                                 f"{self.spec.pool_size}")
            self.snapshots = list(snapshots)
            self.push(algorithm)

    return League


def find_league(algorithm: Any) -> Any:
    """The :class:`League` callback object of ``algorithm`` (``ValueError`` when it has none)."""
    callbacks = algorithm.callbacks if isinstance(algorithm.callbacks, list) else [algorithm.callbacks]
    for cb in callbacks:
        if hasattr(cb, "snapshots") and hasattr(cb, "restore"):
            return cb
    raise ValueError("the algorithm has no league callback of training/libraries/rllib_vector.py")


def save_league(folder: Path, snapshots: Sequence[Mapping[str, np.ndarray] | None]) -> Path:
    """Write the pool into ``folder`` (a checkpoint folder being written) as :data:`LEAGUE_FILE`."""
    arrays = {f"{k}/{name}": value for k, state in enumerate(snapshots) if state is not None
              for name, value in state.items()}
    path = folder / LEAGUE_FILE
    np.savez(path, **{"slots": np.array(len(snapshots)), **arrays})
    return path


def load_league(folder: Path) -> list[dict[str, np.ndarray] | None]:
    """The pool saved by :func:`save_league` (``ValueError`` when the file is missing or unreadable)."""
    path = folder / LEAGUE_FILE
    try:
        with np.load(path) as data:
            snapshots: list[dict[str, np.ndarray] | None] = [None] * int(data["slots"])
            for key in data.files:
                if key == "slots":
                    continue
                slot, name = key.split("/", 1)
                state = snapshots[int(slot)]
                if state is None:
                    state = snapshots[int(slot)] = {}
                state[name] = data[key]
    except (OSError, KeyError, ValueError) as exc:
        raise ValueError(f"{folder} has no readable league file {LEAGUE_FILE} ({exc})") from None
    return snapshots


def check_opponents(env_config: Mapping[str, Any], builtins: Sequence[str]) -> None:
    """Refuse, before Ray starts, an env config or a league opponent the batched engine cannot
    play: :class:`~sniff_env.integrations.rllib.EnvConfigError` with the engine's words (an unknown
    player, one it plays only one game at a time, a policy file of other rules...)."""
    from sniff_env.envs.gym_vector import OpponentPool
    from sniff_env.integrations.rllib import SniffRLlibVectorEnv

    pool = OpponentPool(list(builtins)) if builtins else "random"
    SniffRLlibVectorEnv({**env_config, "num_envs": 1, "opponents": pool}).close()


def build_config(env_config: dict[str, Any], spec: LeagueSpec, num_env_runners: int, num_envs: int,
                 sample_timeout_s: float) -> Any:
    """RLlib's ``PPOConfig`` of the batched path, before the training, learner and module
    settings the two paths share: the vector env with the league's pool, its env runners and the
    league callback."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from sniff_env.integrations.rllib import SniffRLlibVectorEnv

    return (
        PPOConfig()
        # Discrete actions need no unsquashing: leave out that per-game pass of the env runner
        .environment(SniffRLlibVectorEnv, env_config={**env_config, "opponents": spec.pool()}, normalize_actions=False)
        .env_runners(
            num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs,
            gym_env_vectorize_mode="vector_entry_point", sample_timeout_s=sample_timeout_s,
        )
        .callbacks(functools.partial(league_callback(), spec=spec))
    )
