"""The guided player: the compiled rollout search steered by a trained network's policy.

A move's score is its mean hand margin over sampled deals (:mod:`sniff_env.players.compiled.rollouts`,
heuristic playouts) plus ``prior`` times the network's logit for it, centred over the legal moves
and divided by :data:`LOGIT_SCALE` (the shipped agents' logits were trained to regress on
``LOGIT_SCALE`` times the search's move values in points, so the quotient reads as points).
With ``top`` set, the search is spent in two rounds: ``samples`` deals for every legal move, then
``extra`` more deals for the ``top`` best-scored moves only, which are then scored on the mean over
all the deals each was played on. The best score wins; ties go to the higher logit, then the
lower action.

With ``work`` above 0 the first round costs at most about that many playout moves (a second round,
``top`` and ``extra``, comes on top of it): its deals are cut, where a position needs it, to
``work // (legal moves × tiles still to play)`` (at least one), the tiles still to play being those
in the hands and those that may still be drawn, which no playout outlasts. The cost of a choice
then stays within a bound that does not depend on the machine, and a position with many moves and
a long hand ahead (an opening lead) takes about as long as an ordinary one.

With ``value=win`` a playout is worth the chance of winning the game from the scores it ends on
(see :class:`~sniff_env.players.compiled.rollouts.RolloutSearch`), and the prior, in points, is turned into
chances at the rate one point of margin is worth at the present scores
(:func:`points_to_chance`). With ``infer`` above 0 the deals are sampled in proportion to how
likely they make the others' plays so far (:mod:`sniff_env.players.beliefs`). ``playout_NAME=X`` sets a
weight of the heuristic that plays the playouts, and ``solve=N`` solves each deal's hand exactly
where at most ``N`` tiles are still to play, as for the rollout player.

With ``playouts=policy`` the network itself plays the playouts, in every seat, on the same
sampled deals (:mod:`sniff_env.players.net_playouts`): the whole hand, or with ``net_plies=N``
its first ``N`` decisions after the move and the heuristic the rest; ``playout_agent`` names
another (a cheaper) network to play them, the prior staying ``agent``'s. A network call per decision
of every playout makes it far slower than the compiled search; ``depth``, ``solve``, ``top`` and
the playout weights, which belong to the compiled search's playouts, are refused with it.

Like the rollout player it reads the seat's information state only (the search deals the unseen
tiles itself). ``agent`` is a shipped agent's name or a policy file's path; one made for other
rules than the game's is refused with a :class:`~sniff_env.players.policy.PolicyError`.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sniff_env.errors import unknown_options
from sniff_env.infostate import InfoState
from sniff_env.observation import Observer
from sniff_env.players._base import finite_weight, info_of, positive_count
from sniff_env.players.agents import agent_named, policy_path
from sniff_env.players.beliefs import checked_sharpness, evidence
from sniff_env.players.policy import PolicyNetwork, load_network
from sniff_env.players.rollouts import PLAYOUT_OPTIONS, playout_weights
from sniff_env.players.specs import MAX_SAMPLES, MAX_TOP, PolicyName
from sniff_env.rules import ENGINE_INT_MAX, Rules

if TYPE_CHECKING:
    from sniff_env.players.compiled.rollouts import RolloutSearch
    from sniff_env.players.net_playouts import NetPlayouts
    from sniff_env.vector.engine import VectorEngine

Searches = tuple["VectorEngine", "RolloutSearch", "RolloutSearch"]
"""A one-game engine, the search of every move, and the search of the top moves."""

PLAYOUTS = ("heuristic", "policy")
"""Who plays the search's playouts: the heuristic (compiled), or the network (:mod:`.net_playouts`)."""

LOGIT_SCALE = 0.3
"""Logit per point of move value the shipped agents were trained to (see the module)."""


@dataclass(frozen=True)
class GuidedOptions:
    """The options of a ``guided:`` spec besides the seed and the name, with their defaults (the
    playout weights, ``playout_*``, come on top: see the rollout player)."""

    agent: PolicyName = "sniff-2p"
    """The network whose logits are the prior."""
    samples: int = 1024
    """Deals a move in the first round."""
    prior: float = 0.3
    """Points per logit the prior adds, as ``prior / 0.3``."""
    top: int = 0
    """With ``extra``: a second round for the ``top`` best moves."""
    extra: int = 0
    """Deals a move in the second round."""
    value: str = "margin"
    """What a playout is worth: the hand's ``margin`` or the chance to ``win`` the game."""
    infer: float = 0.0
    """How sharply the others' plays weigh the deals (0: not at all)."""
    depth: int = 1
    """1: the heuristic plays on after the move; 2: each reply is played out too."""
    work: int = 0
    """A bound on the first round's playout moves (0: none)."""
    solve: int = 0
    """Tiles to play at or below which each deal's hand is solved exactly (0: never)."""
    playouts: str = "heuristic"
    """Who plays the playouts: ``heuristic`` or ``policy``."""
    net_plies: int = 0
    """With ``playouts=policy``: the network's plies before the heuristic takes over (0: all)."""
    playout_agent: PolicyName = ""
    """With ``playouts=policy``: another network for the playouts."""


OPTION_TYPES: dict[str, Any] = typing.get_type_hints(GuidedOptions, include_extras=True)
"""Each option of :class:`GuidedOptions` and its type, as the spec reads them."""


def checked_playouts(playouts: object, net_plies: object, playout_agent: str, shaped: list[str]) -> tuple[str, int]:
    """``playouts`` and ``net_plies`` after checking them (``playout_agent`` goes with the network's
    playouts only); ``shaped``: the options given that shape the compiled search's playouts
    (``depth=2``...), refused with the network's."""
    if playouts not in PLAYOUTS:
        raise ValueError(f"playouts must be 'heuristic' (the compiled search's) or 'policy' (the network's); "
                         f"got {playouts!r}")
    if isinstance(net_plies, bool) or not isinstance(net_plies, int) or not 0 <= net_plies <= ENGINE_INT_MAX:
        raise ValueError(f"net_plies must be a whole number of 0 (the network plays out the whole hand) or more "
                         f"(its first decisions, then the heuristic); got {net_plies!r}")
    if net_plies and playouts != "policy":
        raise ValueError(f"net_plies applies to playouts=policy only; got net_plies={net_plies} with playouts={playouts}")
    if playout_agent and playouts != "policy":
        raise ValueError(f"playout_agent applies to playouts=policy only; got playout_agent={playout_agent}")
    if playouts == "policy" and shaped:
        raise ValueError(f"{', '.join(shaped)} shape the compiled search's playouts, not the network's: leave them out "
                         f"with playouts=policy (it takes samples, prior, value, infer, work and net_plies)")
    return str(playouts), net_plies


def agent_path(agent: str) -> Path:
    """The policy file of ``agent``: a shipped agent's, else ``agent`` read as a path;
    :class:`~sniff_env.players.specs.PlayerSpecError` listing the agents when it is neither."""
    path = policy_path(agent)
    return path if path is not None else agent_named(agent).path  # the latter raises, naming the agents


class GuidedPlayer:
    """Rollout search plus a network prior (spec ``guided:agent=sniff-2p,samples=1024,prior=0.3``)."""

    def __init__(self, seed: int | None = None, name: str = "guided", **options: Any) -> None:
        """``options``: those of :class:`GuidedOptions` and the playout weights (``playout_*``)."""
        from sniff_env.players.compiled.rollouts import checked_depth, checked_solve, checked_value

        o = GuidedOptions(**{k: v for k, v in options.items() if k in OPTION_TYPES})
        playout = {k: v for k, v in options.items() if k not in OPTION_TYPES}
        if set(playout) - set(PLAYOUT_OPTIONS):  # a TypeError, as the keywords of a signature gave
            raise unknown_options("GuidedPlayer", set(playout) - set(PLAYOUT_OPTIONS),
                                  f"the options are: {', '.join([*OPTION_TYPES, *PLAYOUT_OPTIONS])}")
        self.name, self.agent, self.value = name, o.agent, checked_value(o.value)
        self.samples, self.prior = positive_count("samples", o.samples, MAX_SAMPLES), finite_weight("prior", o.prior)
        top, extra = o.top, o.extra
        if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= MAX_TOP or isinstance(extra, bool) \
                or not isinstance(extra, int) or not 0 <= extra <= MAX_SAMPLES or (top == 0) != (extra == 0):
            raise ValueError(f"top and extra must be whole numbers, both 0 (one round) or both 1 or more "
                             f"(a second round of extra deals for the top moves), top at most {MAX_TOP} and extra at "
                             f"most {MAX_SAMPLES}; got top={top!r}, extra={extra!r}")
        self.top, self.extra, self.infer = top, extra, checked_sharpness(o.infer)
        if isinstance(o.work, bool) or not isinstance(o.work, int) or not 0 <= o.work <= ENGINE_INT_MAX:
            raise ValueError(f"work must be 0 (no bound) or a whole number of playout moves up to {ENGINE_INT_MAX}; "
                             f"got {o.work!r}")
        self.work = o.work
        self.depth, self.playout = checked_depth(o.depth), playout_weights(playout)
        self.solve = checked_solve(o.solve, 2)  # the rules' sides are checked when it meets them
        shaped = [f"depth={o.depth}"] if o.depth != 1 else []
        shaped += [f"{k}={v}" for k, v in (("solve", o.solve), ("top", o.top)) if v]
        shaped += [f"{k}={v}" for k, v in playout.items()]
        self.playouts, self.net_plies = checked_playouts(o.playouts, o.net_plies, o.playout_agent, shaped)
        self.playout_agent = o.playout_agent
        self._path = agent_path(o.agent)
        network, _meta, rules = load_network(self._path)  # refuses a file that is no policy, up front
        self._playout_path = agent_path(o.playout_agent) if o.playout_agent else None
        if self._playout_path is not None:
            load_network(self._playout_path)
        self._networks: dict[Rules, tuple[PolicyNetwork, Observer]] = {rules: (network, Observer(rules))}
        self._seed = seed or 0
        self._engines: dict[Rules, Searches] = {}
        self._net_playouts: dict[Rules, NetPlayouts] = {}

    @classmethod
    def keyword_options(cls) -> dict[str, Any]:
        """The options of :class:`GuidedOptions`, then the playout weights a spec may give
        (``playout_reply=1.2``; see the rollout player)."""
        return {**OPTION_TYPES, **PLAYOUT_OPTIONS}

    def reset(self, seed: int | None = None) -> None:
        self._seed = seed or 0
        self._net_playouts = {}
        self._engines = {}  # a new dict: a shallow copy (a server's game) searches on engines of its own

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = info_of(info, observation)
        network, observer = self._network(state.rules)
        if len(state.legal) == 1:
            return state.legal[0]
        legal = np.asarray(state.legal, np.int64)
        logits = network.logits(observer.encode(state).reshape(1, -1))[0].astype(np.float64)[legal]
        engine, first, second = self._engine(state.rules)
        engine.load_info_state(state)
        seen = evidence(state, self.infer)
        first.samples = deals = self.deals_for(state)  # the search reads its deal count at each call
        if self.playouts == "policy":
            values = self._playouts(state.rules, network).values(engine, first, deals, seen)
        else:
            values = first.q_values(np.zeros(1, np.int64), seen)[0, legal]
        prior = self.prior_points(logits)
        if self.value == "win":
            prior *= points_to_chance(state)
        if self.top and self.top < legal.size:
            best = np.argsort(-(values + prior), kind="stable")[: self.top]
            keep_moves(engine, legal[best])
            more = second.q_values(np.zeros(1, np.int64), seen)[0, legal[best]]
            legal, logits, prior = legal[best], logits[best], prior[best]
            values = (values[best] * deals + more * self.extra) / (deals + self.extra)
        return guided_choice(legal, logits, values + prior)

    def prior_points(self, logits: np.ndarray) -> np.ndarray:
        """The prior each legal move's value gets, in points: ``prior`` times its logit
        (``logits``, the legal moves') centred over the legal moves, over :data:`LOGIT_SCALE`."""
        return self.prior * (logits - logits.mean()) / LOGIT_SCALE

    def deals_for(self, state: InfoState) -> int:
        """The deals the first round plays out at ``state``: ``samples``, cut to fit ``work``."""
        return deals_within(self.samples, self.work, len(state.legal), sum(state.hand_sizes) + state.drawable)

    def _network(self, rules: Rules) -> tuple[PolicyNetwork, Observer]:
        if rules not in self._networks:
            network, _meta, rules_played = load_network(self._path, rules)  # PolicyError for other rules
            self._networks[rules] = (network, Observer(rules_played))
        return self._networks[rules]

    def _playouts(self, rules: Rules, network: PolicyNetwork) -> NetPlayouts:
        """The network's playouts for ``rules``: ``playout_agent``'s network, else ``network``."""
        if rules not in self._net_playouts:
            from sniff_env.players.net_playouts import NetPlayouts

            if self._playout_path is not None:
                network = load_network(self._playout_path, rules)[0]  # PolicyError for other rules
            self._net_playouts[rules] = NetPlayouts(rules, network, self._seed, self.value, self.net_plies)
        return self._net_playouts[rules]

    def _engine(self, rules: Rules) -> Searches:
        if rules not in self._engines:
            from sniff_env.players.compiled.rollouts import RolloutSearch
            from sniff_env.vector.engine import VectorEngine

            engine = VectorEngine(rules, 1, threads=1)
            self._engines[rules] = (engine, RolloutSearch(engine, self.samples, self._seed, self.playout,
                                                          value=self.value, depth=self.depth, solve=self.solve),
                                    RolloutSearch(engine, max(self.extra, 1), self._seed + 1, self.playout,
                                                  value=self.value, depth=self.depth, solve=self.solve))
        return self._engines[rules]


SLOPE_POINTS = 10
"""How far apart the scores :func:`points_to_chance` reads the odds at."""


def points_to_chance(state: InfoState) -> float:
    """What one point of margin is worth in chances of winning at ``state``'s scores
    (:func:`chance_per_point` of its seat's side)."""
    return chance_per_point(state.rules, state.rules.side_of(state.seat), state.scores)


def chance_per_point(rules: Rules, side: int, scores: Any) -> float:
    """What one point of margin is worth to ``side`` in chances of winning at ``scores`` (one per
    side): the odds with the side ``SLOPE_POINTS`` ahead less those with it ``SLOPE_POINTS``
    behind, over ``2 * SLOPE_POINTS`` (each score held within the table)."""
    from sniff_env.players.compiled.win_odds import odds_at, win_odds

    odds, low = win_odds(rules)
    target, mine, theirs = rules.target, int(scores[side]), int(scores[1 - side])
    ahead = odds_at(odds, low, target, mine + SLOPE_POINTS, theirs)
    behind = odds_at(odds, low, target, mine, theirs + SLOPE_POINTS)
    return float(ahead - behind) / (2 * SLOPE_POINTS)


def deals_within(samples: int, work: int, legal: int, to_play: int) -> int:
    """The deals a choice of ``legal`` moves with ``to_play`` tiles still to play (in the hands
    and still to be drawn) gets: ``samples``, cut where ``work`` (above 0) bounds the playout
    moves, to ``work // (legal × to_play)``, at least one."""
    if not work:
        return samples
    return max(1, min(samples, work // max(1, legal * to_play)))


def guided_choice(legal: np.ndarray, logits: np.ndarray, scores: np.ndarray) -> int:
    """The move of the best score (``scores`` and ``logits`` of the moves ``legal``), ties to the
    higher logit, then the lower action."""
    order = np.lexsort((legal, -logits, -scores))
    return int(legal[order[0]])


def keep_moves(engine: VectorEngine, actions: np.ndarray) -> None:
    """Make ``actions`` (legal in game 0 of ``engine``) the only moves its search values."""
    engine.keep_moves(0, actions)


TWIN_REFUSED = {"top": 0, "extra": 0, "infer": 0.0, "playouts": "heuristic", "net_plies": 0, "playout_agent": ""}
"""The options the compiled twin leaves at their defaults: a second round, evidence and the
network's playouts are the reference player's only."""


def guided_chooser(engine: VectorEngine, threads: int = 0, /, seed: int = 0, **options: Any) -> Any:
    """The guided search on the games of ``engine`` itself, as the trainers and the best response
    seat it: ``choose(games)`` gives each game's move by :class:`GuidedPlayer`'s first round (the
    network's logits for all the games in one forward pass, then the compiled search of each,
    ``work`` bounding its deals as there), from what the seat to act may know only, with draws of
    its own (seeded by ``seed``; ``threads`` as for
    :func:`~sniff_env.players.rollouts.rollouts_search`, without them one stream in turn, so that
    one game at a time draws as the reference player does). The options are the reference
    player's but those of :data:`TWIN_REFUSED`, which it refuses unless left at their defaults."""
    from sniff_env.players.compiled.rollouts import RolloutSearch

    player = GuidedPlayer(seed, **options)  # checks every option and loads the network, as the reference does
    refused = [f"{k}={v}" for k, v in options.items() if k in TWIN_REFUSED and v != TWIN_REFUSED[k]]
    if refused:
        raise ValueError(f"the compiled guided player takes agent, samples, prior, value, work, depth, solve and the "
                         f"playout weights; got {', '.join(refused)}: play that spec on the reference engine")
    rules = engine.rules
    network = player._network(rules)[0]  # PolicyError for rules it cannot play
    search = RolloutSearch(engine, player.samples, seed, player.playout, value=player.value, depth=player.depth,
                           solve=player.solve, threads=threads)

    def to_play(b: int) -> int:  # the tiles in the hands and still to be drawn, as the reference reads them
        return int(engine.hand_sizes[b].sum() + engine.drawable[b])

    def choose(games: np.ndarray) -> np.ndarray:
        games = np.ascontiguousarray(games, np.int64)
        out = engine.legal[games, 0].astype(np.int64)
        ask = games[engine.num_legal[games] > 1]
        if not ask.size:
            return out
        logits = network.logits(engine.obs[ask]).astype(np.float64)
        deals = np.array([deals_within(player.samples, player.work, int(engine.num_legal[b]),
                                       to_play(b)) for b in ask.tolist()], np.int64)
        q = search.q_values_each(ask, deals)
        place = {b: i for i, b in enumerate(games.tolist())}
        for i, b in enumerate(ask.tolist()):
            legal = engine.legal[b, : engine.num_legal[b]].astype(np.int64)
            prior = player.prior_points(logits[i, legal])
            if player.value == "win":
                prior *= chance_per_point(rules, rules.side_of(int(engine.turn[b])), engine.scores[b])
            out[place[b]] = guided_choice(legal, logits[i, legal], q[i, legal] + prior)
        return out

    return choose
