"""The pyspiel game ``python_sniff``: declared as data (``GAME_TYPE``, ``GAME_INFO``), with
states over :class:`~sniff_env.integrations.openspiel.play.ChancePlay` and an observer over the
project's :class:`~sniff_env.observation.Observer`.
"""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Any

import numpy as np
import pyspiel

from sniff_env.errors import RulesError
from sniff_env.game import DEFAULT_MAX_HANDS  # the environments' bound: OpenSpiel needs a bounded game too
from sniff_env.infostate import info_state
from sniff_env.integrations.openspiel.play import ChancePlay, Stage
from sniff_env.integrations.openspiel.resample import Resampler
from sniff_env.integrations.openspiel.text import information_state_string, observation_string, state_string
from sniff_env.observation import Observer
from sniff_env.presets import make_rules
from sniff_env.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, field_names

SHORT_NAME = "python_sniff"
EPISODES = ("game", "hand")
KEEP = -1
"""The value of an int (or 0/1 bool) rules parameter that keeps the ruleset's value."""

_RULES_DEFAULTS = Rules()
_RULE_PARAMS: dict[str, int | str] = {
    name: "" if isinstance(getattr(_RULES_DEFAULTS, name), StrEnum) else KEEP
    for name in field_names()
    if name not in ("num_players", "name")
}
"""Every rules field as a parameter: enum fields are strings ("" keeps the ruleset's value);
int fields are ints and bool fields 0/1 (-1 keeps the ruleset's value). OpenSpiel fills in every
parameter not given with its declared default, so the defaults must say "keep": a bool default
could not."""
_BOOL_PARAMS = frozenset(n for n in _RULE_PARAMS if isinstance(getattr(_RULES_DEFAULTS, n), bool))

_DEFAULT_PARAMS: dict[str, int | str] = {
    "ruleset": "sniff",
    "num_players": 2,
    "episode": "game",
    "max_hands": DEFAULT_MAX_HANDS,
    **_RULE_PARAMS,
}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Sniff (and the Fives family: muggins, sniff-us, ...)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)


def rules_from_params(params: dict[str, Any]) -> Rules:
    """The rules a parameter dict asks for: the ruleset, then each field not set to "keep"."""
    overrides: dict[str, Any] = {}
    for name, keep in _RULE_PARAMS.items():
        value = params.get(name, keep)
        if value == keep:
            continue
        if name in _BOOL_PARAMS:
            if value not in (0, 1):
                raise RulesError(f"{name}={value!r} is not allowed; give 1 (on), 0 (off) or {KEEP} (the ruleset's)")
            value = bool(value)
        overrides[name] = value
    return make_rules(str(params.get("ruleset", "sniff")), int(params.get("num_players", 2)), **overrides)


def game_info(rules: Rules, episode: str = "game", max_hands: int = DEFAULT_MAX_HANDS) -> pyspiel.GameInfo:
    """Sizes and bounds: every decision is an engine action id; chance outcomes are tiles (or
    seats, fewer); a hand has at most one placement per tile and one voluntary draw per tile."""
    ts_size = Observer(rules).ts.size
    sides = rules.num_sides
    hands = 1 if episode == "hand" else max_hands
    return pyspiel.GameInfo(
        num_distinct_actions=Observer(rules).codec.num_actions,
        max_chance_outcomes=ts_size,
        num_players=rules.num_players,
        min_utility=-1.0 / (sides - 1),
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=hands * 2 * ts_size,
    )


GAME_INFO = game_info(make_rules("sniff", 2))
"""The default game's sizes (``ruleset="sniff"``, two players, whole games)."""


class SniffGame(pyspiel.Game):
    """Sniff as an OpenSpiel game. Parameters: ``ruleset``, ``num_players``, ``episode``
    (``"game"``, to the target, or ``"hand"``), ``max_hands`` and every rules field."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        episode, max_hands = params["episode"], params["max_hands"]
        if episode not in EPISODES:
            raise ValueError(f"episode={episode!r} is not allowed; choose one of {EPISODES}")
        if not isinstance(max_hands, int) or max_hands < 1:
            raise ValueError(f"max_hands must be a positive whole number; got {max_hands!r}")
        self.rules = rules_from_params(params)
        self.episode: str = episode
        self.max_hands: int = max_hands
        self.observer = Observer(self.rules)
        resolved = {**params, **_resolved(self.rules)}  # the game's string names its actual rules
        super().__init__(GAME_TYPE, game_info(self.rules, episode, max_hands), resolved)

    def new_initial_state(self) -> SniffState:
        return SniffState(self)

    def new_play(self) -> ChancePlay:
        return ChancePlay(self.rules, one_hand=self.episode == "hand", max_hands=self.max_hands)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> SniffObserver:
        return SniffObserver(self, iig_obs_type, params)


def _resolved(rules: Rules) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    for name, value in rules.to_dict().items():
        if name in _RULE_PARAMS:
            out[name] = int(value) if isinstance(value, bool) else value
    return out


class SniffState(pyspiel.State):
    """A node of the game: a chance node (lots, leader, deal, draw), a seat's decision, or the end."""

    def __init__(self, game: SniffGame) -> None:
        super().__init__(game)
        self._play = game.new_play()

    @property
    def play(self) -> ChancePlay:
        """The game as the project's engine holds it (read only)."""
        return self._play

    def current_player(self) -> int:
        play = self._play
        if play.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        if play.is_chance:
            return int(pyspiel.PlayerId.CHANCE)
        return play.game.turn

    def _legal_actions(self, player: int) -> list[int]:
        return self._play.legal_actions() if player == self.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = self._play.chance_outcomes()
        p = 1.0 / len(outcomes) if outcomes else 0.0
        return [(o, p) for o in outcomes]

    def _apply_action(self, action: int) -> None:
        self._play.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        play = self._play
        if player >= 0:
            return play.game.codec.describe(action)
        if play.stage is Stage.LEADER:
            return f"seat {action} leads"
        return play.ts.name(action)

    def is_terminal(self) -> bool:
        return self._play.is_over

    def returns(self) -> list[float]:
        return self._play.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SniffState:
        """A state that ``player_id`` cannot tell from this one, its hidden tiles drawn anew."""
        rng = random.Random(int(probability_sampler() * 2**53))
        resampler = Resampler(self._play, player_id)
        start = self.get_game().new_initial_state()
        for action in resampler.head:
            start.apply_action(action)

        def replay(actions: list[int]) -> tuple[SniffState, ChancePlay]:
            state: SniffState = start.clone()
            for action in actions:
                state.apply_action(action)
            return state, state.play

        return resampler.sample(rng, replay)

    def __str__(self) -> str:
        return state_string(self._play)


class SniffObserver:
    """OpenSpiel's observer: the tensor is the project's observation vector (named pieces in
    ``dict``), which shows no hidden tile; the string is the information state (perfect recall)
    or the table now."""

    def __init__(
        self, game: SniffGame, iig_obs_type: pyspiel.IIGObservationType | None, params: dict[str, Any] | None
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        private = pyspiel.PrivateInfoType.SINGLE_PLAYER
        if iig_obs_type is not None and not (iig_obs_type.public_info and iig_obs_type.private_info == private):
            raise ValueError("only one seat's own view (public and its private information) is offered")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self._observer = game.observer
        self.tensor = np.zeros(self._observer.size, np.float32)
        self.dict = {name: self.tensor[pc.start : pc.stop] for name, pc in self._observer.pieces.items()}

    def set_from(self, state: SniffState, player: int) -> None:
        play = state.play
        if play.hand_started:
            self.tensor[:] = self._observer.encode(info_state(play.game, player))
        else:
            self.tensor.fill(0.0)

    def string_from(self, state: SniffState, player: int) -> str:
        if self.perfect_recall:
            return information_state_string(state.play, player)
        return observation_string(state.play, player)
