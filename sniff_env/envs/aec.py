"""
# Sniff

This environment follows the conventions of the PettingZoo classic environments.

| Import             | `from sniff_env import sniff_v0` (`sniff_v0.env`, `raw_env`) |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete                                                   |
| Parallel API       | Yes: `sniff_v0.parallel_env` (turn-based, see below)       |
| Manual Control     | No                                                         |
| Agents             | `agents= ['player_0', 'player_1', ...]` (seat order)       |
| Agents             | 2, 3 or 4                                                  |
| Action Shape       | (1,)                                                       |
| Action Values      | Discrete(176) for double-six (326 / 521 for -nine / -twelve)|
| Observation Shape  | (observer.size,), e.g. (547,) for double-six, 2 players    |
| Observation Values | [0, 1], scores unbounded                                   |

Sniff is a Fives domino game: players take turns placing tiles on the ends of a layout whose
first double (the *sniff*) may be played on from four sides; whenever the open ends add up to
a multiple of five the mover scores that count. Hands are played until a side reaches the
target. One environment serves every rule set of the family: ``ruleset`` names a preset
(``sniff``, ``sniff-cribbage``, ``sniff-us``, ``sniff-english``, ``sniff-digital``,
``muggins-digital``, ``muggins``, ``muggins-sleepers``, ``muggins-sniff``) and any rules field
can be overridden by keyword (``scoring="primes"``, ``max_pip=12``, ``partnership=True``).

Play goes to the left: after ``player_i`` comes ``player_{i+1}``. An agent is asked to act only
when it has a legal action; forced draws and forced passes are applied by the engine and
reported in ``infos``. Every game ends: one still short of the target after ``max_hands`` hands
(100 by default) ends there, the highest score winning.

### Arguments

``env(ruleset="sniff", num_players=2, render_mode=None, illegal="penalty", **options)``:
``render_mode`` is ``None``, ``"ansi"`` (the table as text), ``"human"`` (printed) or
``"rgb_array"`` (the table as a picture, :mod:`sniff_env.envs.drawing`); ``illegal`` says what an
illegal action does: ``"penalty"`` ends the game with -1 for its mover (the classic
convention), ``"random"`` plays a uniformly random legal move in its place (for samplers that
ignore the mask, such as PettingZoo's ``max_cycles_test``). ``options`` are rules fields (see
``sniff rules``) and these environment options:

* ``reward``: ``"game"`` (default) or ``"points"``, see Rewards.
* ``episode``: ``"game"`` (default; hand after hand to the target) or ``"hand"`` (one hand).
* ``max_cycles``: truncate after this many rounds (``num_players`` decisions each); ``None``.
* ``max_hands``: end the game after this many hands even short of the target, the highest score
  winning (a tie is a draw); 100 by default (:data:`~sniff_env.game.DEFAULT_MAX_HANDS`), so that
  every game ends; ``None`` lifts the bound.
* ``infos``: ``"empty"`` (default; every ``infos[agent]`` is an empty dict, as in the classic
  environments, so any library can batch it) or ``"full"`` (see Infos).

``reset(seed=None, options={"deal": {"hands": [[(5, 5), (3, 5), ...], ...], "boneyard":
[...], "leader": 0}})`` plays a scripted first hand. The same seed gives the same game.

An unknown keyword or render mode raises :class:`~sniff_env.errors.UnknownOptionError`, a
``TypeError`` as Python raises for an unexpected keyword (libraries that build environments by
id retry without their optional keywords on one); a bad value of a known option raises a
``ValueError`` saying what is allowed.

``sniff_v0.parallel_env(...)`` (also ``pettingzoo.make("parallel", "sniff_env/sniff_v0", ...)``)
takes the same arguments and is the turn-based parallel form of ``env``
(:mod:`sniff_env.envs.parallel`): each step applies the action of the agent to act and ignores the
others'. It has one more action than this form, the no-op (``noop_action``, index
``num_actions``), the only legal action of every agent not to act, so that no mask is all zeros,
and an ``"acting"`` entry in each observation (1 for the agent to act); its ``max_cycles`` counts
steps. This AEC form keeps ``Discrete(num_actions)`` and masks of zeros for agents not to act.

### Observation Space

The observation is a dictionary with an ``'observation'`` element, a flat float32 vector seen
from the agent's seat (seats relative: 0 is the agent, 1 the next to play), and an
``'action_mask'``, an int8 vector over all actions that is all zeros for every agent whose
turn it is not. The vector never shows a hidden tile. Its layout for double-six and two
players (``Observer(rules).describe()``)::

{layout}

#### Infos

By default ``infos[agent]`` is empty. The observation dict of the agent to act also carries its
information state as an attribute, ``obs.info_state`` (not a key: the spaces and every library's
batching see the two arrays alone), so a player acts on the env's ``(obs, info)`` as they come:
``players.load("heuristic").act(obs, info)``. The public events and the seat's information state are
one call away: ``env.unwrapped.events(agent)`` (the events since the agent's previous decision)
and ``env.unwrapped.info_state(agent)``. With ``infos="full"``, ``infos[agent]`` is a plain dict
built when it is handed out: ``"events"`` holds the public events (``Event`` records: plays with
their count and points, draws, with other seats' drawn tiles hidden, passes, hand and game ends)
from the agent's previous decision to that moment, and, for the agent to act, ``"info_state"`` is
its ``InfoState`` at that decision (everything that seat may know and nothing else).

### Speed

The environment holds one state, the reference engine's :class:`Game`: the observation, the
mask, the events, ``info_state``, ``state()``, rendering and ``env.unwrapped.game`` are all read
from it. Work is done when asked for: when ``observe`` (or ``last``) asks, once per decision,
the seat's view of the game is read into a seat record (:mod:`sniff_env.envs.seat_record`) and
the observation encoder, compiled (:mod:`sniff_env.envs.record_encoder`; the observer's Python
where numba is missing), writes the observation and mask from it; the information state of the
seat to act is rebuilt from the record when first read and shared by its observation and its
info. The batched engine (``sniff_env.vector``) is the fast path for training; the tests hold
the two to the same deals, observations, masks and rewards.

### Action Space

``tile * 5 + slot`` places a tile: slot 0..3 are the west, east, north and south ends, 4 the
lead. Where doubles may be laid in line (``double_placement="choice"``) ``5 * T + pip * 5 + slot``
lays double ``pip`` in line; the last action draws a tile (voluntary drawing). The raw env
offers ``action_id(tile, end, inline=False)``, ``draw_action`` and ``decode_action(a)``.
Through ``env()`` an illegal action (a whole number out of range among them) ends the game
with -1 for its mover (the classic convention); ``raw_env`` raises ``IllegalMoveError`` and
leaves the state unchanged. An action that is no whole number (a bool, a float, text) raises
``IllegalMoveError`` through either, and nothing changes; these checks hold under ``python -O``.

### Copies

``copy.deepcopy(env)`` and a pickle round trip give an independent environment at the same
state (the same game, the same generator): stepping one leaves the other as it was, and given
the same actions both go on identically. Search and tree-based agents can branch on copies.

### Rewards

* ``reward="game"``: at the end of the episode the winning side gets +1 and every other side
  -1 / (number of sides - 1), so the rewards sum to zero; partners share their side's reward;
  a drawn game (or a truncated one) gives 0. With ``episode="hand"`` the winner is the side
  that gained most in the hand.
* ``reward="points"``: after every step each side gets its score change minus the mean score
  change of the other sides (dense and zero-sum), in points.

### State

``state()`` is the full information (every hand, the boneyard in draw order, whose turn it
is, and the public observation) for centralised critics; ``state_space`` describes it.

### Version History

* v0: Initial release. Since then, within v0: the parallel form, ``render_mode="rgb_array"``,
  ``illegal="random"``, and the default bound of 100 hands, which changes no game that reached
  its target sooner (the games it ends did not end before).

"""

from __future__ import annotations

import copy
import operator
import secrets
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from sniff_env.actions import END_NAMES, LEAD, Move
from sniff_env.envs.drawing import table_frame
from sniff_env.envs.masks import MaskedObservationSpace
from sniff_env.envs.rewards import points_rewards, win_rewards
from sniff_env.envs.seat_record import info_state_of, record
from sniff_env.errors import GameOverError, IllegalMoveError, UnknownOptionError, unknown_options
from sniff_env.game import DEFAULT_MAX_HANDS, Event, Game, Phase, new_game
from sniff_env.infostate import InfoState, info_state
from sniff_env.observation import Observer
from sniff_env.presets import make_rules
from sniff_env.render import render_table
from sniff_env.rules import Rules, field_names
from sniff_env.scoring import HandResult

try:
    from sniff_env.envs.record_encoder import RecordEncoder
except ImportError:  # numba cannot be imported here: the observer writes the same arrays in Python
    from sniff_env.envs.seat_record import PythonRecordEncoder as RecordEncoder  # type: ignore[assignment]

AgentID = str
ObsDict = dict[str, np.ndarray]


class SeatObservation(dict):  # type: ignore[type-arg]
    """The observation dict an agent is handed: ``"observation"`` and ``"action_mask"``, what the
    spaces describe and every library batches, and, as an attribute, :attr:`info_state`: the
    seat's :class:`InfoState` when it is to act (None otherwise). A player reads it there, so
    ``players.load(spec).act(obs, info)`` works on the default env's ``(obs, info)``. The state
    is built from the seat's record of that decision when first read."""

    __slots__ = ("_record", "_results", "_rules", "_state")

    def __init__(self, observation: np.ndarray, action_mask: np.ndarray, info_state: InfoState | None = None,
                 record: list[int] | None = None, rules: Rules | None = None,
                 results: tuple[HandResult, ...] = ()) -> None:
        dict.__init__(self, observation=observation, action_mask=action_mask)
        self._state, self._record, self._rules, self._results = info_state, record, rules, results

    @property
    def info_state(self) -> InfoState | None:
        """The seat's information state at this decision (None unless it was to act)."""
        if self._state is None and self._record is not None and self._rules is not None:
            self._state = info_state_of(self._record, self._rules, self._results)
        return self._state

    def with_entries(self, **entries: np.ndarray) -> SeatObservation:
        """A copy with ``entries`` set (added or replaced) and the same information state."""
        out = SeatObservation(self["observation"], self["action_mask"], self._state, self._record, self._rules,
                              self._results)
        out.update(entries)
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> SeatObservation:
        """Copies of the arrays; the information state stays to be built from a copy of the seat
        record (a library that deep-copies every observation does not pay for building it)."""
        state = copy.deepcopy(self._state, memo) if self._state is not None else None
        record = None if self._record is None else list(self._record)
        out = SeatObservation(self["observation"].copy(), self["action_mask"].copy(), state, record, self._rules,
                              self._results)
        for key, value in self.items():
            if key not in ("observation", "action_mask"):
                out[key] = copy.deepcopy(value, memo)
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        extra = {k: v for k, v in self.items() if k not in ("observation", "action_mask")}
        return (SeatObservation, (self["observation"], self["action_mask"], self.info_state), None, None,
                iter(extra.items()))


REWARD_MODES = ("game", "points")
EPISODE_MODES = ("game", "hand")
INFO_MODES = ("empty", "full")
ENV_OPTIONS = ("reward", "episode", "max_cycles", "max_hands", "infos")
RESET_OPTIONS = ("deal",)
RENDER_MODES = ("ansi", "human", "rgb_array")
ILLEGAL_MODES = ("penalty", "random")
"""What an illegal action does through :func:`env`: end the game with -1 for its mover, or play a
random legal move in its place."""


def env(ruleset: str = "sniff", num_players: int = 2, render_mode: str | None = None, illegal: str = "penalty",
        **options: Any) -> AECEnv:
    """The Sniff AEC environment wrapped as PettingZoo classic environments are (its action
    checks explicit, where PettingZoo's bounds check is an ``assert``); ``illegal`` as
    :data:`ILLEGAL_MODES` (see the module docs)."""
    if illegal not in ILLEGAL_MODES:
        raise ValueError(f"illegal={illegal!r} is not allowed; choose one of {ILLEGAL_MODES}")
    e: AECEnv = raw_env(ruleset, num_players, render_mode, **options)
    e = IllegalEndsGame(e, illegal_reward=-1) if illegal == "penalty" else IllegalPlaysRandom(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def check_options(callee: str, options: Mapping[str, Any], extra: tuple[str, ...] = ()) -> None:
    """Raise :class:`UnknownOptionError` for a keyword of ``options`` that is neither an
    environment option, a rules field nor one of ``extra``."""
    unknown = set(options) - set(ENV_OPTIONS) - set(field_names()) - set(extra)
    if unknown:
        fields = ", ".join(f for f in field_names() if f not in ("num_players", "name"))
        raise unknown_options(callee, unknown, f"environment options: {', '.join((*ENV_OPTIONS, *extra))}; "
                                               f"rules fields: {fields}")


def check_render_mode(render_mode: object) -> None:
    """Raise :class:`UnknownOptionError` unless ``render_mode`` is None or one of :data:`RENDER_MODES`."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise UnknownOptionError(f"render_mode={render_mode!r} is not offered; choose None or one of {RENDER_MODES}")


def checked_action(action: object, num_actions: int) -> int:
    """``action`` as an int if it is a whole number (a Python or numpy integer, not a bool), else
    :class:`IllegalMoveError` saying what an action is. Its range is not checked: a whole number
    out of range is an illegal move, for the caller to treat as one."""
    if not isinstance(action, (bool, np.bool_)):
        try:
            return operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise IllegalMoveError(
        f"an action is a whole number 0..{num_actions - 1}; got {action!r:.80} ({type(action).__name__}): "
        "nothing is rounded or converted", action)


class IllegalEndsGame(wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's :class:`~pettingzoo.utils.wrappers.TerminateIllegalWrapper` with explicit
    checks in place of its ``assert`` (kept under ``python -O``): an action that is no whole
    number raises :class:`IllegalMoveError`; a whole number out of range, like any illegal
    action, ends the game with ``illegal_reward`` for its mover."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            super().step(action)  # a dead step: only None is allowed (PettingZoo raises otherwise)
            return
        n = int(self.action_space(agent).n)
        index = checked_action(action, n)
        if 0 <= index < n:
            super().step(index)
            return
        self._prev_obs = self._prev_info = None
        EnvLogger.warn_on_illegal_move()
        raw = self.env.unwrapped
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(self.agents, True)
        raw.truncations = dict.fromkeys(self.agents, True)
        raw.rewards = dict.fromkeys(self.truncations, 0)
        raw.rewards[agent] = float(self._illegal_value)
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True


class IllegalPlaysRandom(wrappers.BaseWrapper):  # type: ignore[misc]
    """An illegal whole-number action is replaced by a uniformly random legal move of its mover,
    drawn from the environment's generator (so a seed still fixes the game); an action that is no
    whole number still raises :class:`IllegalMoveError`. For samplers that ignore the mask."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):
            raw = self.env.unwrapped
            legal = raw.game.legal_actions()
            if checked_action(action, raw.num_actions) not in legal:
                action = legal[int(raw.np_random.integers(len(legal)))]
        super().step(action)


def observation_bounds(observer: Observer) -> tuple[np.ndarray, np.ndarray]:
    """The low and high bounds of every feature of ``observer``'s vector."""
    size = observer.size
    low, high = np.zeros(size, np.float32), np.ones(size, np.float32)
    sizes = observer.pieces["hand_sizes"]
    high[sizes.start : sizes.stop] = observer.ts.size / (observer.rules.hand_size or 1)  # after draws
    scores = observer.pieces["scores"]
    low[scores.start : scores.stop] = -np.inf  # scores may fall or rise without bound
    high[scores.start : scores.stop] = np.inf
    return low, high


class raw_env(AECEnv[AgentID, ObsDict, int], EzPickle):
    """Sniff and its Fives-family relatives as a PettingZoo AEC environment (see the module docs)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "name": "sniff_v0",
                                          "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self, ruleset: str = "sniff", num_players: int = 2, render_mode: str | None = None, **options: Any
    ) -> None:
        EzPickle.__init__(self, ruleset, num_players, render_mode, **options)
        super().__init__()
        check_options(f"{type(self).__name__}.__init__", options)
        check_render_mode(render_mode)
        reward = options.pop("reward", "game")
        episode = options.pop("episode", "game")
        max_cycles = options.pop("max_cycles", None)
        max_hands = options.pop("max_hands", DEFAULT_MAX_HANDS)
        infos = options.pop("infos", "empty")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward={reward!r} is not allowed; choose one of {REWARD_MODES}")
        if episode not in EPISODE_MODES:
            raise ValueError(f"episode={episode!r} is not allowed; choose one of {EPISODE_MODES}")
        if infos not in INFO_MODES:
            raise ValueError(f"infos={infos!r} is not allowed; choose one of {INFO_MODES}")
        for key, value in (("max_cycles", max_cycles), ("max_hands", max_hands)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{key} must be a positive whole number or None; got {value!r}")
        self.rules: Rules = make_rules(ruleset, num_players, **options)
        self.render_mode = render_mode
        self.reward_mode: str = reward
        self.episode: str = episode
        self.max_cycles: int | None = max_cycles
        self.max_hands: int | None = max_hands
        self.infos_mode: str = infos
        self._full_infos = infos == "full"
        self.observer = Observer(self.rules)
        self._encoder = RecordEncoder(self.rules)
        n, size = self.rules.num_players, self.observer.size
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        self._side = [self.rules.side_of(s) for s in range(n)]
        low, high = self._obs_bounds()
        self.observation_spaces = {
            a: MaskedObservationSpace(
                {
                    "observation": spaces.Box(low, high, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        t = self.observer.ts.size
        state_high = np.concatenate([np.ones(n * t + t + n, np.float32), high])
        self.state_space = spaces.Box(
            np.concatenate([np.zeros(n * t + t + n, np.float32), low]), state_high, dtype=np.float32
        )
        self.np_random, _ = seeding.np_random(None)
        self._resets = 0
        self._decisions = 0
        self._game: Game | None = None
        self._num_actions = self.num_actions
        self._n = n
        self._paid = False
        self._dense = reward == "points"
        self._obs_cache: dict[AgentID, ObsDict] = {}
        """Each agent's observation at this decision (emptied by every step)."""
        self._mover_state: InfoState | None = None
        """The information state of the seat to act at this decision, once built (emptied by every step)."""
        self._mover_rec: list[int] | None = None
        """The seat record of the seat to act at this decision, once read (emptied by every step)."""

    # -- spaces and helpers --------------------------------------------------------------------
    def _obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return observation_bounds(self.observer)

    @property
    def num_actions(self) -> int:
        return self.observer.codec.num_actions

    def observation_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def draw_action(self) -> int:
        """The action that draws a tile (legal only where voluntary drawing is allowed)."""
        return self.observer.codec.draw_action

    def action_id(self, tile: tuple[int, int], end: str | None = None, *, inline: bool = False) -> int:
        """The action placing ``tile`` (pips, either order) on ``end`` (``None``: the lead)."""
        if end is None:
            slot = LEAD
        elif end in END_NAMES:
            slot = END_NAMES.index(end)
        else:
            raise ValueError(f"end={end!r} is not an end; choose one of {END_NAMES} or None for the lead")
        codec = self.observer.codec
        return codec.encode(codec.tiles.index(tile), slot, inline)

    def decode_action(self, action: int) -> Move:
        """The readable move of an action id (``ValueError`` when out of range)."""
        return self.observer.codec.move(int(action))

    @property
    def scores(self) -> dict[AgentID, int]:
        """Each agent's current game score (partners show their side's score)."""
        sc = self.game.scores
        return {a: sc[self._side[i]] for i, a in enumerate(self.possible_agents)}

    @property
    def count(self) -> int:
        """The count of the layout (the sum of its open ends)."""
        return self.game.count

    @property
    def game(self) -> Game:
        """The game in progress: the environment's one state (events, hands, results). Read it;
        stepping it directly would leave the environment's agents and rewards behind."""
        if self._game is None:
            raise RuntimeError("the environment has not been reset yet: call reset() first")
        return self._game

    # -- the AEC interface -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (``options={"deal": {...}}`` scripts its first hand)."""
        deal = None
        if options is not None:
            if not isinstance(options, Mapping):
                raise TypeError(f"reset options must be a mapping like {{'deal': {{...}}}}; got {options!r}")
            unknown = set(options) - set(RESET_OPTIONS)
            if unknown:
                # PettingZoo's own checks pass options of their own; they are ignored, loudly.
                warnings.warn(
                    f"ignoring unknown reset option(s) {sorted(unknown)}; allowed: {', '.join(RESET_OPTIONS)}",
                    stacklevel=2,
                )
            deal = options.get("deal")
        rng = seeding.np_random(seed)[0] if seed is not None else self.np_random
        saved = rng.bit_generator.state
        game_seed = int(rng.integers(2**62)) if seed is not None or self._resets else secrets.randbits(62)
        try:
            game = new_game(self.rules, seed=game_seed, deal=deal, record=True, max_hands=self.max_hands)
        except Exception:
            rng.bit_generator.state = saved  # a refused deal leaves the generator as it was, too
            raise
        self.np_random, self._game = rng, game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._paid = False
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._seen = [0] * self._n
        """Per seat, the number of events of the game before its previous decision."""
        self._episode_start = game.scores[:]
        self._decisions = 0
        self._resets += 1
        self._obs_cache = {}
        self._mover_state = None
        self._mover_rec = None
        self.agent_selection = self.agents[game.turn]
        self.infos = {a: self.full_info(a) if self._full_infos else {} for a in self.agents}
        if self.render_mode == "human":
            self.render()

    def step(self, action: int) -> None:
        """Apply the decision of :attr:`agent_selection`, then forced draws and passes."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)  # type: ignore[arg-type]
            return
        game = self._game
        if game is None:  # an agent is selected only once the game is dealt
            raise GameOverError("no game is dealt yet: call reset() before step()")
        seat, seen = game.turn, len(game.events)
        before = game.scores[:] if self._dense else None
        # IllegalMoveError for an action that is no whole number or not legal; nothing has changed then
        game.step(checked_action(action, self._num_actions))
        self._obs_cache.clear()
        self._mover_state = self._mover_rec = None
        self._seen[seat] = seen
        self._cumulative_rewards[agent] = 0.0
        self._decisions += 1
        if self._paid:  # last step's rewards
            rewards = self.rewards
            for k in rewards:
                rewards[k] = 0.0
            self._paid = False
        over = False
        phase = game.phase
        if phase is not Phase.PLAY:
            if phase is Phase.GAME_OVER or self.episode == "hand":
                over = True
            else:
                game.start_hand()
        if before is not None:
            self._points_rewards(before, game.scores)
        n = self._n
        truncated = not over and self.max_cycles is not None and self._decisions >= self.max_cycles * n
        if over or truncated:
            if over and self.reward_mode == "game":
                self._game_rewards(game.scores)
            flags = self.terminations if over else self.truncations
            for ag in self.agents:
                flags[ag] = True
            self.agent_selection = self.agents[(seat + 1) % n]
            if self._full_infos:
                self.infos = {ag: self.full_info(ag) for ag in self.agents}
        else:
            self.agent_selection = self.agents[game.turn]
            if self._full_infos:
                self.infos[self.agent_selection] = self.full_info(self.agent_selection)
        if self._paid:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _points_rewards(self, before: list[int], after: list[int]) -> None:
        if before == after:
            return
        side_reward = points_rewards(before, after)
        for i, a in enumerate(self.agents):
            self.rewards[a] = float(side_reward[self._side[i]])
        self._paid = True

    def _game_rewards(self, scores: list[int]) -> None:
        gain = [s - s0 for s, s0 in zip(scores, self._episode_start, strict=True)]
        best = max(gain)
        leaders = [s for s, g in enumerate(gain) if g == best]
        if len(leaders) != 1:
            return
        side_reward = win_rewards(leaders[0], len(gain))
        for i, a in enumerate(self.agents):
            self.rewards[a] = side_reward[self._side[i]]
        self._paid = True

    def _acting(self, agent: AgentID) -> bool:
        """Whether ``agent`` is asked to act now."""
        return agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])

    def _mover_record(self) -> list[int]:
        """The seat record of the seat to act (:mod:`sniff_env.envs.seat_record`), read once per decision."""
        rec = self._mover_rec
        if rec is None:
            game = self.game
            rec = self._mover_rec = record(game, game.turn)
        return rec

    def _mover_info_state(self) -> InfoState:
        """The information state of the seat to act, built once per decision."""
        state = self._mover_state
        if state is None:
            cached = self._obs_cache.get(self.agent_selection)
            state = cached.info_state if isinstance(cached, SeatObservation) else None
            if state is None:
                state = info_state_of(self._mover_record(), self.rules, tuple(self.game.results))
            self._mover_state = state
        return state

    def observe(self, agent: AgentID) -> ObsDict:
        """The agent's observation and action mask (all zeros unless it is to act)."""
        out = self._obs_cache.get(agent)
        if out is not None:
            return out
        seat, game = self._seat_of.get(agent), self._game
        if seat is None or game is None:
            seat = self._seat(agent)  # raises: an unknown agent, or no game yet
            assert game is not None
        if self._acting(agent):
            rec = self._mover_record()
            obs, mask = self._encoder.encode(rec, True)
            out = SeatObservation(obs, mask, self._mover_state, rec, self.rules, tuple(game.results))
        else:  # the seat to act of a truncated game still sees its legal moves' values, masked off
            obs, mask = self._encoder.encode(record(game, seat), False)
            out = SeatObservation(obs, mask)
        self._obs_cache[agent] = out
        return out

    def info_state(self, agent: AgentID) -> InfoState:
        """What ``agent`` may know now."""
        seat = self._seat(agent)
        return self._mover_info_state() if self._acting(agent) else info_state(self.game, seat)

    def events(self, agent: AgentID) -> list[Event]:
        """The public events ``agent`` has seen since its previous decision (since the start of
        the game if it has not decided yet): what ``infos[agent]["events"]`` holds with
        ``infos="full"``."""
        seat = self._seat(agent)
        return self.game.public_events(seat, self._seen[seat])

    def full_info(self, agent: AgentID) -> dict[str, Any]:
        """``agent``'s info as ``infos="full"`` hands it out now: its ``events`` and, if the agent
        is to act, its ``info_state``."""
        info: dict[str, Any] = {"events": self.events(agent)}
        if self._acting(agent):
            info["info_state"] = self._mover_info_state()
        return info

    def seat_of(self, agent: AgentID) -> int:
        """The seat of ``agent`` (``"player_2"`` sits at seat 2); an unknown agent raises
        :class:`KeyError` naming the agents."""
        seat = self._seat_of.get(agent)
        if seat is None:
            raise KeyError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        return seat

    def _seat(self, agent: AgentID) -> int:
        """The seat of ``agent``, after checking that the game has started."""
        seat = self.seat_of(agent)
        if self._game is None:
            raise RuntimeError("the environment has not been reset yet: call reset() first")
        return seat

    def state(self) -> np.ndarray:
        """Full information: every hand (absolute seats), the boneyard in draw order, the seat to
        act, then the public observation from seat 0's side."""
        game, n, t = self.game, self.rules.num_players, self.observer.ts.size
        out = np.zeros(self.state_space.shape, np.float32)  # type: ignore[arg-type]
        for seat, hand in enumerate(game.hands):
            m, base = hand, seat * t
            while m:
                low = m & -m
                out[base + low.bit_length() - 1] = 1.0
                m ^= low
        left = game.boneyard[game.bone_pos :]
        for pos, tile in enumerate(left):
            out[n * t + tile] = 1.0 - pos / t  # the next tile to draw is the highest
        out[n * t + t + game.turn] = 1.0
        out[n * t + t + n :] = self.observer.encode_game(game, 0)
        return out

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the table as a string; ``human``: printed; ``rgb_array``: the table as a
        ``(height, width, 3)`` uint8 picture (:func:`sniff_env.envs.drawing.table_frame`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return table_frame(self.game)
        text = render_table(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # -- copies (deepcopy and pickle) ------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The constructor's arguments, the generator and, once reset, the game in progress."""
        state: dict[str, Any] = EzPickle.__getstate__(self)
        state["np_random"], state["resets"] = self.np_random, self._resets
        if self._game is not None:
            state["game"] = {key: getattr(self, key) for key in _GAME_ATTRIBUTES}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        EzPickle.__setstate__(self, state)  # a new environment with the same arguments
        self.np_random, self._resets = state["np_random"], state["resets"]
        for key, value in state.get("game", {}).items():
            setattr(self, key, value)  # deepcopy and pickle hand over a state of its own


_GAME_ATTRIBUTES = ("_game", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations",
                    "infos", "_seen", "_episode_start", "_decisions", "agent_selection", "_paid")
"""The game in progress and the environment's own record of it."""


__doc__ = (__doc__ or "").replace(
    "{layout}", "\n".join("    " + line for line in Observer(make_rules("sniff", 2)).describe().splitlines())
)
