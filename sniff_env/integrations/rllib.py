"""Sniff for Ray RLlib (new API stack), ready for action-masking modules: one game per env as a
``MultiAgentEnv``, or many games per env runner on the batched engine (:class:`SniffRLlibVectorEnv`).

| Import          | ``from sniff_env.integrations.rllib import SniffMultiAgentEnv``             |
|-----------------|-----------------------------------------------------------------------------|
| Extra           | ``pip install "sniff-env[rllib]"`` (ray[rllib] 2.60)                        |
| Agents          | ``player_0`` .. ``player_{n-1}`` (seat order), turn-based                   |
| Observation     | ``Dict(observations=Box(obs_size), action_mask=Box(0, 1, num_actions))``    |
| Action          | ``Discrete(num_actions)``, as :mod:`sniff_env.envs.aec`                          |

``SniffMultiAgentEnv(config)`` takes one dict (RLlib's ``env_config``): ``ruleset`` (a preset
name), ``num_players``, any rules field (``scoring="primes"``...), the environment options of
:func:`sniff_env.raw_env` (``reward``, ``episode``, ``max_cycles``, ``max_hands``) and:

* ``reward_scale``: a multiplier of every reward (default 1.0; dense ``points`` rewards are
  in points, and ``0.05`` brings them near the scale of ``game`` rewards);
* ``illegal``: ``"penalty"`` (default) or ``"raise"``, see below;
* ``opponents``: ``{agent: player spec}`` for seats played inside the environment by
  :func:`sniff_env.players.load` players (``"greedy"``, ``"heuristic"``, a policy file...),
  in every episode; :meth:`SniffMultiAgentEnv.set_opponents` changes them from the next reset
  on (the league's callback does so per episode).

Only the agent to act gets an observation at each step (the keys are those RLlib's
``ActionMaskingTorchRLModule`` reads: ``observations`` and ``action_mask``); its reward is what
its side earned since its previous decision, as the raw environment pays it. Seats played inside
the environment never appear. At the end every learning agent gets its last observation, its
reward and ``infos[agent]["win"]``: 1.0 when its side won the game, 0.0 when it lost, 0.5 for a
draw or a truncated game. An illegal action (``illegal="penalty"``, the default, as
:func:`sniff_env.env` does) ends the episode with -1 for its mover, who loses; with
``illegal="raise"`` it raises :class:`~sniff_env.errors.IllegalMoveError` and changes nothing.
Masking policies never play one; RLlib's environment check steps one unmasked random action.

**Many games per env runner.** :class:`SniffRLlibVectorEnv` is the batched engine
(:class:`~sniff_env.envs.gym_vector.SniffGymVectorEnv`) as the vector env of RLlib's
single-agent env runners, which build it through Gymnasium's ``vector_entry_point``::

    config.environment(SniffRLlibVectorEnv, env_config={"opponents": "heuristic", "reward_scale": 0.05})
    config.env_runners(num_envs_per_env_runner=256, gym_env_vectorize_mode="vector_entry_point")

It is the learner's seat of ``num_envs`` games (RLlib adds ``num_envs`` to the config); the other
seats are played inside its step (``opponents``: a player spec the vector env plays, one per
other seat, or an :class:`~sniff_env.envs.gym_vector.OpponentPool` drawn from per episode).
Observations are ``{"observations", "action_mask"}`` (a float mask), autoreset is Gymnasium's
``NEXT_STEP`` (what the env runners expect), and an episode's last infos hold ``winner``,
``learner`` (its seat), ``win`` (1 / 0 / 0.5, as above) and, with a pool, ``opponent``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as exc:  # pragma: no cover - exercised by a test that hides ray
    raise ImportError(
        f'the RLlib adapter needs Ray RLlib ({exc.name} is missing): pip install "sniff-env[rllib]"'
    ) from None

from sniff_env.envs.aec import ENV_OPTIONS, raw_env
from sniff_env.envs.gym_vector import SniffGymVectorEnv
from sniff_env.errors import IllegalMoveError, SniffError
from sniff_env.players import load, parse_spec
from sniff_env.rules import field_names

ADAPTER_OPTIONS = ("reward_scale", "opponents", "illegal")
ILLEGAL_MODES = ("penalty", "raise")
ILLEGAL_PENALTY = -1.0
"""The mover's reward for an illegal action under ``illegal="penalty"`` (PettingZoo's classic value)."""
RULES_FIELDS = tuple(f for f in field_names() if f not in ("num_players", "name"))
CONFIG_KEYS = ("ruleset", "num_players", *ENV_OPTIONS, *ADAPTER_OPTIONS, *RULES_FIELDS)
"""Every key ``SniffMultiAgentEnv`` accepts in its config."""


VECTOR_OPTIONS = ("num_envs", "learner", "opponents", "reward", "episode", "max_hands", "threads", "reward_scale")
VECTOR_CONFIG_KEYS = ("ruleset", "num_players", *VECTOR_OPTIONS, *RULES_FIELDS)
"""Every key ``SniffRLlibVectorEnv`` accepts in its config."""


class EnvConfigError(SniffError):
    """An RLlib ``env_config`` with a key or value the Sniff environment does not accept."""


def _check_config(config: Mapping[str, Any]) -> None:
    unknown = sorted(set(config) - set(CONFIG_KEYS))
    if unknown:
        raise EnvConfigError(
            f"unknown env_config key(s) {unknown}; allowed: ruleset, num_players; environment options: "
            f"{', '.join(ENV_OPTIONS)}; adapter options: {', '.join(ADAPTER_OPTIONS)}; "
            f"rules fields: {', '.join(RULES_FIELDS)}"
        )
    scale = config.get("reward_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not np.isfinite(scale) or scale <= 0:
        raise EnvConfigError(f"reward_scale must be a positive number; got {scale!r}")
    if config.get("illegal", "penalty") not in ILLEGAL_MODES:
        raise EnvConfigError(f"illegal={config['illegal']!r} is not allowed; choose one of {ILLEGAL_MODES}")


class SniffMultiAgentEnv(MultiAgentEnv):  # type: ignore[misc]
    """The AEC environment of :mod:`sniff_env.envs.aec` as an RLlib multi-agent env (see the module docs)."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})  # RLlib hands an EnvContext (a dict with worker attributes)
        _check_config(config)
        options = {k: v for k, v in config.items() if k not in ("ruleset", "num_players", *ADAPTER_OPTIONS)}
        try:
            self.aec = raw_env(config.get("ruleset", "sniff"), config.get("num_players", 2), **options)
        except SniffError:
            raise
        except ValueError as exc:  # the raw env's own option checks
            raise EnvConfigError(str(exc)) from None
        self.rules = self.aec.rules
        self.reward_scale = float(config.get("reward_scale", 1.0))
        self.illegal: str = config.get("illegal", "penalty")
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = self.possible_agents[:]
        n_actions = self.aec.num_actions
        box = self.aec.observation_space(self.possible_agents[0])["observation"]
        space = spaces.Dict(
            {"observations": box, "action_mask": spaces.Box(0.0, 1.0, (n_actions,), np.float32)}
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._specs: dict[str, str] = {}
        self._pending: dict[str, str] | None = None
        self._players: dict[str, Any] = {}
        self.set_opponents(config.get("opponents") or {})
        self._specs, self._pending = self._pending or {}, None
        self._owed: dict[str, float] = {}
        self._start: list[int] = []

    # -- the league's hook ---------------------------------------------------------------------
    def set_opponents(self, opponents: Mapping[str, str]) -> None:
        """From the next reset on, play these agents inside the environment with built-in players
        (``{agent: spec}``; ``{}``: every seat learns). At least one side must stay learning."""
        if not isinstance(opponents, Mapping):
            raise EnvConfigError(f"opponents must be a mapping {{agent: player spec}}; got {opponents!r}")
        bad = sorted(set(opponents) - set(self.possible_agents))
        if bad:
            raise EnvConfigError(f"opponents names unknown agent(s) {bad}; agents: {', '.join(self.possible_agents)}")
        sides = {self.rules.side_of(i) for i, a in enumerate(self.possible_agents) if a not in opponents}
        if not sides:
            raise EnvConfigError("opponents leaves no learning seat; at least one side must be played by the learner")
        for spec in opponents.values():
            if not isinstance(spec, str):
                raise EnvConfigError(f"an opponent is a player spec such as 'greedy'; got {spec!r}")
            parse_spec(spec)  # a PlayerSpecError (a ValueError) names a malformed spec
        self._pending = dict(opponents)

    @property
    def opponents(self) -> dict[str, str]:
        """The seats played inside the environment in the current episode."""
        return dict(self._specs)

    # -- the MultiAgentEnv interface ---------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if self._pending is not None:
            self._specs, self._pending = self._pending, None
        rng = self.np_random
        self._players = {a: load(spec, seed=int(rng.integers(2**31))) for a, spec in self._specs.items()}
        while True:  # a game that ends before any learning seat acts is dealt again
            self.aec.reset(seed=int(rng.integers(2**62)), options=options)
            self._owed = dict.fromkeys(self._learners(), 0.0)
            self._start = self._side_scores()
            self._play_opponents()
            if not self._over():
                break
            options = None
        agent = self.aec.agent_selection
        self.agents = self._learners()
        return {agent: self._observe(agent)}, {agent: {}}

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        aec = self.aec
        agent = aec.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(f"it is {agent}'s turn alone; got actions for {sorted(action_dict)}")
        try:
            aec.step(int(action_dict[agent]))
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            return self._penalise(agent, int(action_dict[agent]))
        self._collect()
        self._play_opponents()
        if self._over():
            terminated = any(aec.terminations.values())
            win = self._wins()
            obs = {a: self._observe(a) for a in self._owed}
            rewards = self._pay(list(self._owed))
            flags = dict.fromkeys(self._owed, True)
            done = {**flags, "__all__": True}
            not_done = {**dict.fromkeys(self._owed, False), "__all__": False}
            infos = {a: {"win": win[a]} for a in self._owed}
            return obs, rewards, done if terminated else not_done, not_done if terminated else done, infos
        nxt = aec.agent_selection
        return {nxt: self._observe(nxt)}, self._pay([nxt]), {"__all__": False}, {"__all__": False}, {}

    def _penalise(
        self, agent: str, action: int
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """End the episode on an illegal action: the mover gets the penalty (unscaled), and loses."""
        mover = self.rules.side_of(self.possible_agents.index(agent))
        obs = {a: self._observe(a) for a in self._owed}
        rewards = {a: ILLEGAL_PENALTY if a == agent else 0.0 for a in self._owed}
        infos: dict[str, Any] = {
            a: {"win": float(self.rules.side_of(self.possible_agents.index(a)) != mover)} for a in self._owed
        }
        infos[agent]["illegal_action"] = action
        flags = {**dict.fromkeys(self._owed, True), "__all__": True}
        return obs, rewards, flags, {**dict.fromkeys(self._owed, False), "__all__": False}, infos

    # -- helpers ---------------------------------------------------------------------------------
    def _learners(self) -> list[str]:
        return [a for a in self.possible_agents if a not in self._specs]

    def _over(self) -> bool:
        agent = self.aec.agent_selection
        return bool(self.aec.terminations[agent] or self.aec.truncations[agent])

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.aec.observe(agent)
        return {"observations": raw["observation"], "action_mask": raw["action_mask"].astype(np.float32)}

    def _collect(self) -> None:
        """Add the last step's rewards of the learning agents to what they are owed."""
        for a in self._owed:
            self._owed[a] += float(self.aec.rewards[a])

    def _pay(self, agents: list[str]) -> dict[str, float]:
        out = {}
        for a in agents:
            out[a] = self._owed[a] * self.reward_scale
            self._owed[a] = 0.0
        return out

    def _play_opponents(self) -> None:
        aec = self.aec
        while not self._over() and aec.agent_selection in self._players:
            agent = aec.agent_selection
            aec.step(int(self._players[agent].act(aec.observe(agent), aec.full_info(agent))))
            self._collect()

    def _side_scores(self) -> list[int]:
        scores = self.aec.scores  # partners show their side's score
        out = [0] * self.rules.num_sides
        for i, a in enumerate(self.possible_agents):
            out[self.rules.side_of(i)] = scores[a]
        return out

    def _wins(self) -> dict[str, float]:
        """1 / 0 / 0.5 for each learning agent: its side gained most in the episode (won the game,
        or the hand with ``episode="hand"``), another did, or nobody alone did (or it was cut short)."""
        gain = [s - s0 for s, s0 in zip(self._side_scores(), self._start, strict=True)]
        leaders = [side for side, g in enumerate(gain) if g == max(gain)]
        finished = any(self.aec.terminations.values())
        out = {}
        for a in self._owed:
            side = self.rules.side_of(self.possible_agents.index(a))
            out[a] = 0.5 if not finished or len(leaders) != 1 else float(leaders[0] == side)
        return out

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


class SniffRLlibVectorEnv(gymnasium.vector.VectorWrapper):  # type: ignore[misc]
    """``num_envs`` games on the batched engine as one RLlib env runner's vector env (see the
    module docs). ``config``: ``num_envs`` (RLlib sets it), ``ruleset``, ``num_players``, rules
    fields, ``learner`` (a seat or ``"random"``, the default), ``opponents`` (default
    ``"heuristic"``), ``reward``, ``episode``, ``max_hands``, ``threads`` (the engine's; default 1,
    an env runner being one CPU) and ``reward_scale``."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        from gymnasium.vector import AutoresetMode

        config = dict(config or {})
        unknown = sorted(set(config) - set(VECTOR_CONFIG_KEYS))
        if unknown:
            raise EnvConfigError(
                f"unknown env_config key(s) {unknown}; allowed: ruleset, num_players; options: "
                f"{', '.join(VECTOR_OPTIONS)}; rules fields: {', '.join(RULES_FIELDS)}"
            )
        if "num_envs" not in config:
            raise EnvConfigError(
                "SniffRLlibVectorEnv is a vector env that RLlib builds with num_envs: set "
                ".env_runners(num_envs_per_env_runner=N, gym_env_vectorize_mode='vector_entry_point')"
            )
        scale = config.pop("reward_scale", 1.0)
        _check_config({"reward_scale": scale})
        self.reward_scale = float(scale)
        options = {"learner": "random", "threads": 1, **config}
        try:
            inner = SniffGymVectorEnv(autoreset_mode=AutoresetMode.NEXT_STEP, **options)
        except SniffError:
            raise
        except (TypeError, ValueError) as exc:  # a bad opponent, learner or option value
            raise EnvConfigError(str(exc)) from None
        super().__init__(inner)
        self.rules = inner.rules
        n_actions = int(inner.single_action_space.n)
        self.single_observation_space = spaces.Dict({
            "observations": inner.single_observation_space["observation"],
            "action_mask": spaces.Box(0.0, 1.0, (n_actions,), np.float32),
        })
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.metadata = dict(inner.metadata)
        self._side = np.array([self.rules.side_of(s) for s in range(self.rules.num_players)], np.int64)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """New games everywhere. ``seed`` (RLlib's seed plus the env runner's index) is spread
        into the engine's 62-bit deal numbers, so that runners with adjacent seeds deal apart."""
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:
            seed = int(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0] >> np.uint64(2))
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._observe(obs), infos

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        if "winner" in infos:
            flag = infos["_winner"]
            winner = infos["winner"]
            side = self._side[infos["learner"]]
            win = np.where(winner < 0, 0.5, (winner == side).astype(np.float64))
            infos["win"], infos["_win"] = np.where(flag, win, 0.0), flag.copy()
        return self._observe(obs), (rewards * self.reward_scale).astype(np.float32), terminated, truncated, infos

    @staticmethod
    def _observe(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}
