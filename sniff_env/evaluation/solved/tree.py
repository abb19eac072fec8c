"""The whole game tree of one hand of 2-player Sniff, as flat arrays a solver walks.

:func:`build_tree` deals every pair of hands (each equally likely), then walks every decision
with the reference engine (:class:`~sniff_env.game.Game`): the rules are the engine's, not a
copy. A forced draw is a chance node over the tiles it may bring (each undrawn tile equally
likely), so a decision that makes the next seat draw is followed by one chance node over the
drawn tiles (one outcome per sequence of tiles drawn).

Nodes are numbered in depth-first order (a parent before its children), so a solver passes
reach probabilities down in index order and values up in reverse order. A decision node belongs
to an *information set*: everything its seat has seen, in order — its own deal, every public
event (plays, passes, the other seat's draws as a count) and the tiles it drew itself. That is
perfect recall (finer than a player's :class:`~sniff_env.infostate.InfoState`, which forgets the
order of its draws), as CFR and best responses need. Each information set keeps one replay path,
so a player can be asked what it would do there (:func:`game_at`).
"""

from __future__ import annotations

import itertools
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sniff_env.deal import Deal, highest_double_holder
from sniff_env.errors import SniffError
from sniff_env.game import Game, Phase
from sniff_env.rules import FirstLead, Rules
from sniff_env.tiles import tile_set

TERMINAL, CHANCE, DECISION = 0, 1, 2
"""Node kinds."""


class TreeError(SniffError):
    """The rules are not a game this solver can hold: not one hand of two players, or too large."""


@dataclass
class GameTree:
    """One hand's game tree (see the module docstring). Arrays are indexed by node, edge or
    information set; an information set's actions are its seat's legal moves, ascending, and the
    edges of each of its nodes follow that order."""

    rules: Rules
    kind: np.ndarray
    """Per node: :data:`TERMINAL`, :data:`CHANCE` or :data:`DECISION` (int8)."""
    infoset: np.ndarray
    """Per node: its information set, or -1 (int32)."""
    first: np.ndarray
    """Per node: its first edge (int64); its edges are ``first[n] : first[n] + degree[n]``."""
    degree: np.ndarray
    """Per node: its number of children (int32)."""
    child: np.ndarray
    """Per edge: the child node (int32)."""
    prob: np.ndarray
    """Per edge: the chance probability (1.0 below a decision), float64."""
    margin: np.ndarray
    """Per node: at a terminal, seat 0's points less seat 1's at the end of the hand (float64)."""
    owner: np.ndarray
    """Per information set: its seat (int8)."""
    offset: np.ndarray
    """Per information set: where its actions start in :attr:`actions` (int64); one more entry at the end."""
    actions: np.ndarray
    """Every information set's engine actions, concatenated (int32)."""
    paths: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """A replay path (:func:`game_at`) for every information set with more than one action."""
    deals: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    seconds: float = 0.0
    """How long the build took."""

    @property
    def nodes(self) -> int:
        return int(self.kind.size)

    @property
    def histories(self) -> int:
        """Every node but the root's chance node over the deals."""
        return self.nodes - 1

    @property
    def infosets(self) -> int:
        return int(self.owner.size)

    @property
    def decision_nodes(self) -> int:
        return int(np.count_nonzero(self.kind == DECISION))

    def choices(self) -> int:
        """Information sets where the seat has more than one move."""
        return int(np.count_nonzero(np.diff(self.offset) > 1))

    def summary(self) -> dict[str, int | float]:
        return {
            "deals": len(self.deals), "histories": self.histories, "decision_nodes": self.decision_nodes,
            "terminals": int(np.count_nonzero(self.kind == TERMINAL)), "information_states": self.infosets,
            "information_states_with_a_choice": self.choices(), "build_s": round(self.seconds, 1),
        }


def check_solvable(rules: Rules) -> None:
    """:class:`TreeError` unless ``rules`` are a 2-player game whose lead the deal decides."""
    if rules.num_players != 2:
        raise TreeError(f"the exact solver takes 2 players; got {rules.num_players}")
    if rules.first_hand_lead is not FirstLead.HIGHEST_DOUBLE:
        raise TreeError(f"the exact solver needs first_hand_lead='highest_double' (the deal decides the lead); "
                        f"got {rules.first_hand_lead.value!r}")
    if rules.voluntary_draw or rules.muggins_claims:
        raise TreeError("the exact solver takes neither voluntary_draw nor muggins_claims")


def all_deals(rules: Rules) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every pair of hands, in a fixed order (each is equally likely)."""
    tiles = range(tile_set(rules.max_pip).size)
    k = rules.hand_size
    assert k is not None
    return [(a, b) for a in itertools.combinations(tiles, k)
            for b in itertools.combinations([t for t in tiles if t not in a], k)]


def _start(rules: Rules, hands: tuple[tuple[int, ...], tuple[int, ...]]) -> Game:
    ts = tile_set(rules.max_pip)
    taken = set(hands[0]) | set(hands[1])
    game = Game(rules, 0, record=True, max_hands=1)
    game.start_hand(Deal(hands, tuple(t for t in range(ts.size) if t not in taken), highest_double_holder(ts, hands)))
    return game


def _outcomes(game: Game, action: int) -> list[tuple[float, tuple[int, ...], Game]]:
    """Every outcome of ``action``: (chance, the tiles drawn after it in order, the game after)."""
    out: list[tuple[float, tuple[int, ...], Game]] = []
    left = game.boneyard[game.bone_pos:]

    def branch(prefix: tuple[int, ...], p: float) -> None:
        g = game.copy()
        if prefix:
            g.arrange_boneyard(prefix + tuple(t for t in left if t not in prefix))
        g.step(action)
        drawn = g.bone_pos - game.bone_pos
        if drawn <= len(prefix):
            out.append((p, prefix, g))
            return
        rest = [t for t in left if t not in prefix]
        for t in rest:
            branch((*prefix, t), p / len(rest))

    branch((), 1.0)
    return out


def game_at(rules: Rules, tree: GameTree, path: tuple[int, ...]) -> Game:
    """The game at the end of a replay path: a deal's number, then per decision its action, the
    number of tiles drawn after it and those tiles."""
    game = _start(rules, tree.deals[path[0]])
    i = 1
    while i < len(path):
        action, k = path[i], path[i + 1]
        drawn = path[i + 2: i + 2 + k]
        if k:
            left = game.boneyard[game.bone_pos:]
            game.arrange_boneyard(drawn + tuple(t for t in left if t not in drawn))
        game.step(action)
        i += 2 + k
    return game


class _Builder:
    """The walk behind :func:`build_tree`."""

    def __init__(self, rules: Rules, progress: Callable[[int, int, int, float], None] | None,
                 visit: Callable[[int, int, Game], None] | None) -> None:
        self.rules = rules
        self.progress = progress
        self.visit = visit
        self.kind = array("b")
        self.infoset = array("i")
        self.first = array("q")
        self.degree = array("i")
        self.margin = array("d")
        self.child = array("i")
        self.prob = array("d")
        self.owner = array("b")
        self.offset = array("q", [0])
        self.actions = array("i")
        self.paths: dict[int, tuple[int, ...]] = {}
        self.codes: dict[tuple[object, ...], int] = {}
        self.trie: tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]] = ({}, {})
        self.sets: dict[tuple[int, int], int] = {}
        self.path: list[int] = []
        self.last_report = time.perf_counter()

    def node(self, kind: int, infoset: int = -1, margin: float = 0.0) -> int:
        n = len(self.kind)
        self.kind.append(kind)
        self.infoset.append(infoset)
        self.first.append(len(self.child))
        self.degree.append(0)
        self.margin.append(margin)
        return n

    def edges(self, n: int, count: int) -> int:
        start = len(self.child)
        self.first[n] = start
        self.degree[n] = count
        self.child.extend([0] * count)
        self.prob.extend([1.0] * count)
        return start

    def seen(self, seat: int, parent: int, event: tuple[object, ...]) -> int:
        """The id of ``seat``'s observations so far: those of ``parent`` and then ``event``."""
        code = self.codes.setdefault(event, len(self.codes))
        trie = self.trie[seat]
        return trie.setdefault((parent, code), len(trie))

    def after(self, game: Game, start: int, seen: tuple[int, int]) -> tuple[int, int]:
        """Each seat's observation ids after the events of ``game`` from ``start`` on."""
        events = game.events[start:]
        ids = list(seen)
        for seat in (0, 1):
            view = tuple((e.kind, e.player, e.tile if (e.kind != "draw" or e.player == seat) else -1, e.end)
                         for e in events)
            ids[seat] = self.seen(seat, ids[seat], view)
        return ids[0], ids[1]

    def walk(self, game: Game, seen: tuple[int, int]) -> int:
        if game.phase is not Phase.PLAY:
            return self.node(TERMINAL, margin=float(game.scores[0] - game.scores[1]))
        seat = game.turn
        legal = game.legal_actions()
        key = (seat, seen[seat])
        iset = self.sets.get(key)
        if iset is None:
            iset = self.sets[key] = len(self.owner)
            self.owner.append(seat)
            self.actions.extend(legal)
            self.offset.append(len(self.actions))
            if len(legal) > 1:
                self.paths[iset] = tuple(self.path)
        n = self.node(DECISION, iset)
        if self.visit is not None:
            self.visit(n, iset, game)
        base = self.edges(n, len(legal))
        start = len(game.events)
        for j, action in enumerate(legal):
            outs = _outcomes(game, action)
            if len(outs) == 1 and not outs[0][1]:
                self.path += (action, 0)
                self.child[base + j] = self.walk(outs[0][2], self.after(outs[0][2], start, seen))
                del self.path[-2:]
                continue
            c = self.child[base + j] = self.node(CHANCE)
            cbase = self.edges(c, len(outs))
            for i, (p, drawn, g) in enumerate(outs):
                self.path += (action, len(drawn), *drawn)
                self.prob[cbase + i] = p
                self.child[cbase + i] = self.walk(g, self.after(g, start, seen))
                del self.path[-2 - len(drawn):]
        self.report()
        return n

    def report(self, done: int = -1, total: int = 0) -> None:
        now = time.perf_counter()
        if self.progress is not None and (done >= 0 or now - self.last_report >= 10.0):
            self.last_report = now
            self.progress(len(self.kind), len(self.owner), done, now)


def build_tree(rules: Rules, progress: Callable[[int, int, int, float], None] | None = None,
               deals: list[tuple[tuple[int, ...], tuple[int, ...]]] | None = None,
               visit: Callable[[int, int, Game], None] | None = None) -> GameTree:
    """The game tree of one hand under ``rules`` (see the module docstring). ``progress(nodes,
    information sets, deals done, now)`` is called about every 10 seconds and after each tenth
    of the deals. ``deals`` restricts the deal to some pairs of hands (each equally likely; for
    tests), ``visit(node, information set, game)`` sees every decision node as it is made."""
    check_solvable(rules)
    start = time.perf_counter()
    deals = all_deals(rules) if deals is None else list(deals)
    b = _Builder(rules, progress, visit)
    root = b.node(CHANCE)
    base = b.edges(root, len(deals))
    tenth = max(1, len(deals) // 10)
    for d, hands in enumerate(deals):
        game = _start(rules, hands)
        first = tuple(b.seen(seat, -1, ("deal", *hands[seat], game.turn)) for seat in (0, 1))
        b.path[:] = [d]
        b.prob[base + d] = 1.0 / len(deals)
        b.child[base + d] = b.walk(game, (first[0], first[1]))
        if (d + 1) % tenth == 0:
            b.report(d + 1, len(deals))
    return GameTree(
        rules, np.frombuffer(b.kind, np.int8).copy(), np.frombuffer(b.infoset, np.int32).copy(),
        np.frombuffer(b.first, np.int64).copy(), np.frombuffer(b.degree, np.int32).copy(),
        np.frombuffer(b.child, np.int32).copy(), np.frombuffer(b.prob, np.float64).copy(),
        np.frombuffer(b.margin, np.float64).copy(), np.frombuffer(b.owner, np.int8).copy(),
        np.frombuffer(b.offset, np.int64).copy(), np.frombuffer(b.actions, np.int32).copy(),
        b.paths, deals, time.perf_counter() - start,
    )

