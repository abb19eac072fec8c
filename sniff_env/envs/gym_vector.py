"""``SniffGymVectorEnv``: the batched engine as a ``gymnasium.vector.VectorEnv`` for one learning seat.

``gymnasium.make_vec("sniff_env/Sniff-v0", num_envs=N, ...)`` builds it (:func:`registered_vector_env`:
in ``gymnasium.make``'s layout, the mask in ``infos["action_mask"]``, and ``NEXT_STEP``
autoreset); it is the batched twin of :class:`sniff_env.envs.single_agent.SniffSingleAgentEnv`.

===================  ===========================================================================
games                ``num_envs`` games of one rule set; each episode is a new game (with
                     ``episode="hand"``, the first hand of a new game), as the single-agent env
learner              ``learner``: a seat, or ``"random"`` (drawn for every episode of every game)
other seats          played inside :meth:`step` until the learner is to act again: compiled
                     ``"heuristic"`` (default; any weights, ``counter`` 0), ``"greedy"`` (its
                     ``tiebreak`` too), ``"random"`` (uniform legal), a shipped agent's name
                     or an exported ONNX policy file (its masked argmax,
                     batched), or a batched policy object (``actions(obs, mask)``, e.g. a
                     loaded policy player's ``network``); one for all, or one per other seat;
                     or an :class:`OpponentPool`: one entry (any of those) drawn per episode of
                     each game plays all its other seats (:attr:`SniffGymVectorEnv.opponent`
                     says which)
observation          ``mask="obs"`` (the class's default): ``Dict(observation=Box[N, obs_size]
                     float32, action_mask=Box[N, A] int8)``; ``mask="info"`` (``make_vec``'s
                     default): ``Box[N, obs_size]``, the masks in ``infos["action_mask"]`` (with
                     ``"_action_mask"``); :meth:`action_masks` gives the masks as booleans
rewards              the learner's, summed from its decision to its next (``reward="game"``:
                     +1 / -1/(sides-1) at the end; ``"points"``: the score differences)
autoreset            ``SAME_STEP``: an episode that ends returns the next episode's first
                     observation; ``infos["final_obs"]`` (with ``"_final_obs"``) holds the
                     learner's last view (its mask marks the placeholder action 0 alone, see
                     :mod:`sniff_env.envs.masks`), ``infos["final_info"]`` its ``winner`` (side, -1
                     draw) and ``final_scores``; ``autoreset_mode=AutoresetMode.NEXT_STEP``
                     (what Gymnasium's vector wrappers and RLlib's env runners expect) returns
                     the learner's last view itself, with ``infos["winner"]``,
                     ``["final_scores"]``, ``["learner"]`` (its seat) and, with a pool,
                     ``["opponent"]``, each beside its ``"_"`` flags; the next step ignores
                     those games' actions and returns their next episode's first observation
game length          ``max_hands`` (default 100, ``None`` lifts it) ends a game still short of
                     the target after that many hands, the highest score winning, so every
                     episode ends
rendering            ``render_mode="rgb_array"``: :meth:`render` returns one RGB frame per game
                     (:func:`sniff_env.envs.drawing.engine_frame`: the batched engine keeps no layout,
                     so a frame shows each end, the count, every hand and the tiles played)
===================  ===========================================================================

An illegal learner action raises :class:`~sniff_env.errors.IllegalMoveError` before any game
changes; an unknown keyword or render mode raises :class:`~sniff_env.errors.UnknownOptionError`
(a ``TypeError``, as for any unexpected keyword). ``reset(seed=s)`` numbers the games' deals ``s``, ``s + 1``, ... in order of need, so a
seed fixes every game; deals the learner never gets to act in are played out and skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from sniff_env.envs.aec import observation_bounds
from sniff_env.envs.batch_env import SniffVectorEnv, StepArrays
from sniff_env.envs.drawing import engine_frame
from sniff_env.envs.masks import MASK_LAYOUTS, episode_over_mask
from sniff_env.errors import IllegalMoveError, UnknownOptionError, unknown_options
from sniff_env.game import DEFAULT_MAX_HANDS
from sniff_env.players import load
from sniff_env.players.compiled.baselines import heuristic_space, weight_vector
from sniff_env.players.compiled.opponents import (
    APPLY,
    CONTINUE,
    EXTERNAL,
    LEARNER,
    SKIP,
    Scratch,
    Seating,
    advance,
    seat_views,
)
from sniff_env.players.registry import kernel_opponent, opponent_builtins
from sniff_env.players.specs import BUILTIN, parse_spec
from sniff_env.players.strategy import Weights
from sniff_env.presets import make_rules
from sniff_env.rules import field_names
from sniff_env.vector.arrays import Views
from sniff_env.vector.engine import PLAY

VECTOR_OPTIONS = ("reward", "episode", "max_hands", "threads")
RENDER_MODES = ("rgb_array",)


class BatchPolicy(Protocol):
    """A policy that plays many games at once (e.g. a loaded policy player's ``network``)."""

    def actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """An action per row of ``obs`` (``[N, obs_size]``), legal by ``mask`` (``[N, A]``)."""
        ...


Opponent = str | BatchPolicy
"""A player spec or a batched policy."""


class OpponentPool:
    """Opponents drawn per episode: at the start of each episode of each game, one entry (a
    player spec or a batched policy) is drawn with :attr:`probs` to play all the other seats.

    The env keeps the pool object, so :meth:`set_probs` changes the draws from the next episode
    on (a policy object's weights may change in place too: the league's snapshots do)."""

    def __init__(self, entries: Sequence[Opponent], probs: Sequence[float] | np.ndarray | None = None) -> None:
        if isinstance(entries, str) or not isinstance(entries, Sequence) or not entries:
            raise ValueError(f"an OpponentPool needs a non-empty list of player specs or batched policies; got {entries!r}")
        for entry in entries:
            if not isinstance(entry, str) and not _is_batch_policy(entry):
                raise ValueError(f"a pool entry is a player spec or a batched policy (actions(obs, mask)); got {entry!r}")
        self.entries: tuple[Opponent, ...] = tuple(entries)
        self._probs = np.full(len(entries), 1.0 / len(entries))
        if probs is not None:
            self.set_probs(probs)

    @property
    def probs(self) -> np.ndarray:
        """The chance of each entry (a copy; they sum to 1)."""
        return self._probs.copy()

    def set_probs(self, probs: Sequence[float] | np.ndarray) -> None:
        """Draw entry ``i`` with weight ``probs[i]`` (non-negative, finite, one per entry, not all 0;
        normalised) from each game's next episode on."""
        p = np.asarray(probs, np.float64)
        if p.shape != (len(self.entries),) or not np.isfinite(p).all() or (p < 0).any() or p.sum() <= 0:
            raise ValueError(f"probs must be {len(self.entries)} non-negative finite weights, not all 0 "
                             f"(one per pool entry); got {probs!r}")
        self._probs = p / p.sum()

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` entry numbers drawn with :attr:`probs`."""
        return rng.choice(len(self.entries), size=size, p=self._probs)

    def __repr__(self) -> str:
        return f"OpponentPool({list(self.entries)!r}, probs={self._probs.round(4).tolist()})"

def registered_vector_env(num_envs: int = 1024, **kwargs: Any) -> SniffGymVectorEnv:
    """What ``gymnasium.make_vec("sniff_env/Sniff-v0", ...)`` builds: a :class:`SniffGymVectorEnv` in
    the layout of ``gymnasium.make``'s env and of Gymnasium's own vector envs over it: the flat
    observation, the mask in ``infos["action_mask"]`` and ``NEXT_STEP`` autoreset, unless ``mask``
    or ``autoreset_mode`` say otherwise."""
    kwargs.setdefault("mask", "info")
    kwargs.setdefault("autoreset_mode", AutoresetMode.NEXT_STEP)
    return SniffGymVectorEnv(num_envs, **kwargs)


class SniffGymVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[type-arg]
    """``num_envs`` games on the batched engine, one learning seat each (see the module docs)."""

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": list(RENDER_MODES), "render_fps": 2,
    }

    def __init__(
        self,
        num_envs: int = 1024,
        ruleset: str = "sniff",
        num_players: int = 2,
        learner: int | str = 0,
        opponents: Opponent | Sequence[Opponent] | OpponentPool | None = "heuristic",
        reward: str = "game",
        episode: str = "game",
        max_hands: int | None = DEFAULT_MAX_HANDS,
        threads: int | None = None,
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        mask: str = "obs",
        **overrides: Any,
    ) -> None:
        """``overrides``: rules fields (see ``sniff rules``); ``opponents=None`` is ``"random"``;
        ``autoreset_mode``: ``SAME_STEP`` (default) or ``NEXT_STEP``; ``mask``: ``"obs"`` (default,
        the observation dict) or ``"info"`` (``infos["action_mask"]``); see the module docs."""
        unknown = set(overrides) - set(field_names())
        if unknown:
            fields = ", ".join(f for f in field_names() if f not in ("name", "num_players"))
            raise unknown_options(f"{type(self).__name__}.__init__", unknown,
                                  f"options: {', '.join(VECTOR_OPTIONS)}, learner, opponents, render_mode, "
                                  f"autoreset_mode, mask; rules fields: {fields}")
        if mask not in MASK_LAYOUTS:
            raise ValueError(f"mask={mask!r} is not allowed; choose one of {MASK_LAYOUTS}")
        self.mask_layout = mask
        """Where the learner's mask goes: ``"obs"`` (the observation dict) or ``"info"``."""
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise UnknownOptionError(f"render_mode={render_mode!r} is not offered; choose None or 'rgb_array'")
        self.render_mode = render_mode
        modes = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
        if autoreset_mode not in modes + tuple(m.value for m in modes):
            raise ValueError(f"autoreset_mode must be {' or '.join(repr(m.value) for m in modes)}; got {autoreset_mode!r}")
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        if self.autoreset_mode is not AutoresetMode.SAME_STEP:
            self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        rules = make_rules(ruleset, num_players, **overrides)
        n = rules.num_players
        if learner != "random" and not (isinstance(learner, int) and not isinstance(learner, bool) and 0 <= learner < n):
            raise ValueError(f"learner must be a seat 0..{n - 1} or 'random'; got {learner!r}")
        self._venv = SniffVectorEnv(rules, num_envs, reward=reward, episode=episode,  # type: ignore[arg-type]
                                    max_hands=max_hands, threads=threads)
        self.rules, self.num_envs, self.learner_choice = rules, num_envs, learner
        self.reward_mode, self.episode = reward, episode
        self._engine = eng = self._venv.engine
        self.opponent_pool = opponents if isinstance(opponents, OpponentPool) else None
        """The pool each game's opponent is drawn from per episode (``None``: fixed opponents)."""
        if isinstance(opponents, OpponentPool):
            kinds, self._weights, self._by_value, self._policies = _pool_table(opponents, rules)
        else:
            kinds, self._weights, self._by_value, self._policies = _opponent_table(opponents, rules)
        self._kinds = np.asarray(kinds, np.int64)
        A, size = eng.num_actions, eng.obs_size
        low, high = observation_bounds(eng.tables.observer)
        vector = spaces.Box(low, high, (size,), np.float32)
        self.single_observation_space = vector if mask == "info" else spaces.Dict({
            "observation": vector, "action_mask": spaces.Box(0, 1, (A,), np.int8),
        })
        self.single_action_space = spaces.Discrete(A)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, A))
        B = num_envs
        self.learner = np.zeros(B, np.int64)
        """The learner's seat in each game."""
        self._who = np.zeros((B, n), np.int64)
        self._todo = np.zeros(B, np.int64)
        self._counting = np.zeros(B, np.bool_)
        self._ret = np.zeros(B, np.float32)
        self._actions = np.zeros(B, np.int64)
        self._rng = np.zeros((B, 1), np.uint64)
        self.opponent = np.zeros(B, np.int64)
        """With an :class:`OpponentPool`, the entry playing the other seats of each game."""
        self._restart = np.zeros(B, np.bool_)
        self._out = self._venv.step_arrays()
        self._mine = [Scratch(heuristic_space(eng), np.zeros(A, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64))
                      for _ in range(eng.num_threads)]
        self._one = (eng.scratch_games(1), Views(np.zeros((1, size), np.float32), np.zeros((1, A), np.int8),
                                                 eng.tables.kernel_spec, eng.tables.rules_vec))
        self._seating = Seating(self._todo, self._who, self.learner, self._kinds, self._weights, self._by_value,
                                weight_vector(Weights()), self._counting, self._ret, self._rng)
        self._started = False

    # -- the gymnasium interface -----------------------------------------------------------------
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """New games everywhere. ``seed``: one int (games dealt ``seed``, ``seed + 1``, ...); no
        options are taken."""
        if options:
            raise ValueError(f"reset takes no options; got {sorted(options)}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise TypeError(f"seed must be one int (games are dealt seed, seed + 1, ...); got {seed!r}")
        super().reset(seed=seed)
        first = int(self.np_random.integers(2**62)) if seed is None else seed
        self._rng[:, 0] = self.np_random.integers(0, 2**63, self.num_envs, dtype=np.int64).astype(np.uint64)
        self._venv.reset(seed=first)
        self._restart[:] = False
        self._new_episodes(np.arange(self.num_envs))
        self._todo[:] = CONTINUE
        self._settle(None)
        self._started = True
        infos: dict[str, Any] = {}
        return self._laid_out(self._observation(), infos), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every game, then the other seats until the learner is to act."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.dtype.kind not in "iu":
            raise IllegalMoveError(f"actions must be whole numbers (an integer array); got dtype {actions.dtype}")
        restart = np.flatnonzero(self._restart)
        if restart.size and actions.shape == (self.num_envs,):  # NEXT_STEP: their actions are ignored
            actions = actions.copy()
            actions[restart] = self._engine.legal[restart, 0]
        self._actions[:] = self._engine.check_actions(actions)
        self._todo[:] = APPLY
        self._todo[restart] = SKIP
        self._restart[:] = False
        self._counting[:] = True
        self._ret[:] = 0.0
        ended: dict[str, Any] = {}
        self._settle(ended)
        rewards = self._ret.copy()
        terminated = np.zeros(self.num_envs, np.bool_)
        infos: dict[str, Any] = {}
        observation = self._observation()
        if ended:
            games = ended["games"]
            terminated[games] = True
            rewards[games] = ended["rewards"]
            if self.autoreset_mode is AutoresetMode.NEXT_STEP:
                observation["observation"][games] = ended["views"]
                observation["action_mask"][games] = episode_over_mask(self.single_action_space.n)
                infos = _ended_infos(self.num_envs, ended, self.opponent_pool is not None)
                self._restart[games] = True
            else:
                infos = _final_infos(self.num_envs, games, ended["views"], ended["winner"], ended["final_scores"],
                                     self.single_action_space.n, self.mask_layout)
        return self._laid_out(observation, infos), rewards, terminated, np.zeros(self.num_envs, np.bool_), infos

    def action_masks(self) -> np.ndarray:
        """``[num_envs, num_actions]`` booleans: the learner's legal actions in each game."""
        return self._engine.mask.astype(bool)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """With ``render_mode="rgb_array"``, one ``[height, width, 3]`` uint8 frame per game."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        return tuple(engine_frame(self._engine, b) for b in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        if hasattr(self, "_venv"):  # not when the constructor refused its arguments
            self._venv.close()

    # -- the games --------------------------------------------------------------------------------
    def _observation(self) -> dict[str, np.ndarray]:
        eng = self._engine
        return {"observation": eng.obs.copy(), "action_mask": eng.mask.copy()}

    def _laid_out(self, observation: dict[str, np.ndarray], infos: dict[str, Any]) -> Any:
        """The observation as :attr:`mask_layout` hands it out (``"info"``: the mask into ``infos``)."""
        if self.mask_layout == "obs":
            return observation
        infos["action_mask"] = observation["action_mask"]
        infos["_action_mask"] = np.ones(self.num_envs, np.bool_)
        return observation["observation"]

    def _new_episodes(self, games: np.ndarray) -> None:
        """Draw the learner of ``games`` (where it is random) and fill their seating."""
        if self.learner_choice == "random":
            self.learner[games] = self.np_random.integers(self.rules.num_players, size=games.size)
        else:
            self.learner[games] = self.learner_choice
        if self.opponent_pool is not None:
            self.opponent[games] = pick = self.opponent_pool.draw(self.np_random, games.size)
            self._who[games] = pick[:, None]
            self._who[games, self.learner[games]] = LEARNER
            self._counting[games] = False
            return
        n = self.rules.num_players
        seat, others = np.arange(n), np.arange(n - 1)
        for b in games.tolist():
            row, me = self._who[b], int(self.learner[b])
            row[seat != me] = others
            row[me] = LEARNER
        self._counting[games] = False

    def _run(self) -> int:
        """:func:`advance` over the batch, one range of games per thread of the engine."""
        return self._engine.run(advance, *self._venv.env_step_args(self._actions, self._out), self._seating,
                                per_thread=self._mine)

    def _settle(self, ended: dict[str, Any] | None) -> None:
        """Play every game on to its learner's decision, dealing as hands and episodes end; the
        episodes that end while ``counting`` go into ``ended`` (their games, the learner's last
        views and rewards, winners and final scores)."""
        eng, o = self._engine, self._out
        while True:
            if self._run():
                hand_over = np.flatnonzero(eng.requests)
                over = hand_over[o.done[hand_over]]
                if ended is not None:
                    _record(ended, over[self._counting[over]], self, o)
                self._venv.deal_ended(over)  # every episode is a new game, as in the AEC env
                self._new_episodes(over)
                self._todo[hand_over] = CONTINUE
                continue
            if not self._policies:
                return
            in_play = np.flatnonzero(eng.phase == PLAY)
            j = self._who[in_play, eng.turn[in_play]]
            external = in_play[(j != LEARNER) & (self._kinds[j] == EXTERNAL)]
            if not external.size:
                return
            self._play_policies(external)

    def _play_policies(self, games: np.ndarray) -> None:
        """The exported policies' masked argmax for the seat to act in ``games``; then apply them."""
        eng = self._engine
        opponent = self._who[games, eng.turn[games]]
        for j in np.unique(opponent).tolist():
            rows = games[opponent == j]
            self._actions[rows] = self._policies[j].actions(eng.obs[rows], eng.mask[rows])
        self._todo[games] = APPLY

    def learner_views(self, games: np.ndarray) -> np.ndarray:
        """``[len(games), obs_size]``: the learner's observation in ``games`` as a seat not asked to act."""
        eng = self._engine
        games = np.ascontiguousarray(games, np.int64)
        out = np.empty((games.size, eng.obs_size), np.float32)
        block = eng.tables.observer.pieces["rules"]
        seat_views(eng.games, eng.tables.arrays, games, self.learner[games], *self._one, block.start, out)
        return out


def _record(ended: dict[str, Any], games: np.ndarray, env: SniffGymVectorEnv, o: StepArrays) -> None:
    """Add the episodes of ``games``, which just ended, to ``ended``."""
    parts = {"games": games, "views": env.learner_views(games), "rewards": env._ret[games],
             "winner": o.winner[games], "final_scores": o.final_scores[games], "learner": env.learner[games].copy(),
             "opponent": env.opponent[games].copy()}
    for key, value in parts.items():
        ended[key] = np.concatenate([ended[key], value]) if key in ended else value.copy()


def _final_infos(num_envs: int, games: np.ndarray, views: np.ndarray, winner: np.ndarray, scores: np.ndarray,
                 num_actions: int, mask_layout: str = "obs") -> dict[str, Any]:
    """The infos of the episodes that ended, laid out as Gymnasium's vector envs lay them out
    (the final mask in each final observation, or with ``mask_layout="info"`` in ``final_info``)."""
    flag = np.zeros(num_envs, np.bool_)
    flag[games] = True
    final_obs = np.full(num_envs, None, object)
    over = episode_over_mask(num_actions)
    for i, b in enumerate(games.tolist()):
        final_obs[b] = views[i] if mask_layout == "info" else {"observation": views[i], "action_mask": over}
    win = np.zeros(num_envs, np.int64)
    win[games] = winner
    final = np.zeros((num_envs, scores.shape[1]), np.int64)
    final[games] = scores
    final_info = {"winner": win, "_winner": flag, "final_scores": final, "_final_scores": flag.copy()}
    if mask_layout == "info":
        masks = np.zeros((num_envs, num_actions), np.int8)
        masks[games] = over
        final_info |= {"action_mask": masks, "_action_mask": flag.copy()}
    return {"final_obs": final_obs, "_final_obs": flag.copy(), "final_info": final_info, "_final_info": flag.copy()}


def _ended_infos(num_envs: int, ended: dict[str, Any], pool: bool) -> dict[str, Any]:
    """``NEXT_STEP``'s infos of the episodes that ended: per game, with Gymnasium's ``"_"`` flags."""
    games = ended["games"]
    flag = np.zeros(num_envs, np.bool_)
    flag[games] = True
    infos: dict[str, Any] = {}
    for key in ("winner", "final_scores", "learner", "opponent") if pool else ("winner", "final_scores", "learner"):
        value = ended[key]
        column = np.zeros((num_envs, *value.shape[1:]), np.int64)
        column[games] = value
        infos[key], infos[f"_{key}"] = column, flag.copy()
    return infos


def _pool_table(pool: OpponentPool, rules: Any) -> tuple[list[int], np.ndarray, np.ndarray, dict[int, Any]]:
    """:func:`_opponent_table` with a row per pool entry."""
    codes: list[int] = []
    weights = np.zeros((len(pool.entries), len(weight_vector(Weights()))), np.float64)
    by_value = np.zeros(len(pool.entries), np.bool_)
    policies: dict[int, Any] = {}
    for i, entry in enumerate(pool.entries):
        kinds, w, v, p = _opponent_table([entry] + ["random"] * (rules.num_players - 2), rules)
        codes.append(kinds[0])
        weights[i], by_value[i] = w[0], v[0]
        if 0 in p:
            policies[i] = p[0]
    return codes, weights, by_value, policies


def _opponent_table(
    opponents: Opponent | Sequence[Opponent] | None, rules: Any
) -> tuple[list[int], np.ndarray, np.ndarray, dict[int, Any]]:
    """Per other seat (in seat order): its code, heuristic weights, greedy tie-break flag, and the
    batched policies by seat; an unknown or unsupported spec raises :class:`ValueError`."""
    n = rules.num_players
    one = opponents is None or isinstance(opponents, str) or _is_batch_policy(opponents)
    specs = [opponents] * (n - 1) if one else list(opponents) if isinstance(opponents, Sequence) else []
    if len(specs) != n - 1 or not all(s is None and one or isinstance(s, str) or _is_batch_policy(s) for s in specs):
        raise ValueError(
            f"opponents: one player spec or batched policy, or a list of {n - 1} (one per other seat); got {opponents!r}"
        )
    codes: list[int] = []
    weights = np.zeros((n - 1, len(weight_vector(Weights()))), np.float64)
    by_value = np.zeros(n - 1, np.bool_)
    policies: dict[int, Any] = {}
    for i, spec in enumerate(specs):
        if not isinstance(spec, str) and spec is not None:
            codes.append(EXTERNAL)
            policies[i] = spec
            continue
        base, opts = parse_spec(spec or "random")
        if base in opponent_builtins():
            try:
                opponent = kernel_opponent(base, opts)
            except ValueError as exc:
                raise ValueError(f"{spec!r}: {exc}") from None
            codes.append(opponent.kind)
            weights[i], by_value[i] = opponent.weights, opponent.by_value
        elif base in BUILTIN:
            strongest_first = ", ".join(reversed(opponent_builtins()))
            raise ValueError(
                f"the vector env plays {strongest_first} and exported policy files inside its step; "
                f"got {spec!r} (use the single-agent env, gymnasium.make, for it)"
            )
        else:  # a shipped agent's name or an exported ONNX policy file (TorchScript is refused)
            codes.append(EXTERNAL)
            policies[i] = _load_batch_policy(spec, rules)
    return codes, weights, by_value, policies


def _is_batch_policy(obj: object) -> bool:
    return callable(getattr(obj, "actions", None))


def _load_batch_policy(spec: str, rules: Any) -> Any:
    """The batched network of the shipped agent or exported policy file ``spec`` (pass a batched
    policy object as the opponent to skip loading one)."""
    return load(spec, rules=rules).network  # type: ignore[attr-defined]
