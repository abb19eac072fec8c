"""A game between one person and the agents, independent of any screen or keyboard.

:class:`Session` owns the :class:`~sniff_env.game.Game`, the agent of every other seat, the
undo snapshots and the log file. The terminal asks it for the human's options (with the points
each would score), hands it the chosen move, and draws what it reports.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import GameOverError, SniffError
from ..game import Event, Game, Phase, new_game
from ..gamelog import GameLog, save_game_log
from ..infostate import info_state
from ..players import BUILTIN, Player, load
from ..rules import Rules

HUMAN = "human"
CHECKPOINT_2P = "checkpoints/sniff-2p.pt"
HINT_BUDGET_S = 1.0


class MoveOption(NamedTuple):
    """One legal move of the human, with what it would score now."""

    action: int
    text: str
    points: int
    domino: bool


@dataclass
class SeatPlayer:
    """Who sits in a seat: ``spec`` is ``"human"`` or a player spec for :func:`players.load`."""

    name: str
    spec: str
    agent: Player | None = None


def default_save_path(seed: int) -> Path:
    """Where a game is logged unless told: ``$SNIFF_HOME/games`` (default ``~/.sniff/games``)."""
    home = Path(os.environ.get("SNIFF_HOME") or Path.home() / ".sniff")
    return home / "games" / f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}.json"


def default_opponent(rules: Rules) -> str:
    """The shipped 2-player policy when it exists (it plays level with ``heuristic``), else ``heuristic``."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        path = base / CHECKPOINT_2P
        if path.is_file():
            return str(path)
    return "heuristic"


def load_agent(spec: str, rules: Rules, seed: int, fallback: bool = False) -> tuple[Player, str | None]:
    """The agent a spec names. With ``fallback``, an agent that cannot be loaded or cannot play
    these rules (a policy trained for others) is replaced by ``heuristic``, with a note."""
    try:
        if spec.partition(":")[0] in BUILTIN:
            return load(spec, seed=seed), None
        return load(spec, rules=rules, seed=seed), None
    except (ValueError, ImportError, OSError) as exc:
        if not fallback:
            raise SniffError(f"opponent {spec!r} cannot play: {exc}") from None
        return load("heuristic", seed=seed), f"{spec} cannot be used ({exc}); heuristic plays instead"


@dataclass
class Session:
    """One game: the engine, the seats, the human's seat, undo and the log."""

    game: Game
    seats: list[SeatPlayer]
    human: int
    rated: bool = False
    save_path: Path | None = None
    seed: int = 0
    notes: list[str] = field(default_factory=list)
    mark: int = 0
    """Index of the first event of "what just happened" (events since the human last moved)."""
    _undo: list[tuple[Game, int]] = field(default_factory=list)

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def start(
        cls,
        rules: Rules,
        opponents: list[str],
        human: int = 0,
        partner: str | None = None,
        seed: int | None = None,
        rated: bool = False,
        save_path: Path | None = None,
    ) -> Session:
        """A new game; ``opponents`` fill the other seats in order (the last one repeats)."""
        n = rules.num_players
        if not 0 <= human < n:
            raise SniffError(f"--seat must be a seat 0..{n - 1}; got {human}")
        game = new_game(rules, seed=seed)
        specs: list[str] = []
        fallback = not opponents
        queue = list(opponents) or [default_opponent(rules)]
        for s in range(n):
            if s == human:
                specs.append(HUMAN)
            elif rules.partnership and rules.side_of(s) == rules.side_of(human):
                specs.append(partner or queue[0])
            else:
                specs.append(queue.pop(0) if len(queue) > 1 else queue[0])
        session = cls(game, [], human, rated, save_path, game.seed)
        session._seat_players(specs, fallback)
        return session

    @classmethod
    def resume(cls, log: GameLog, save_path: Path) -> Session:
        """Continue a logged game (its agents rebuilt from their specs)."""
        human = log.meta.get("human_seat", log.players.index(HUMAN) if HUMAN in log.players else -1)
        if not isinstance(human, int) or not 0 <= human < log.rules.num_players:
            raise SniffError("this log has no human seat to resume (it is a game between agents)")
        session = cls(log.game, [], human, bool(log.meta.get("rated", False)), save_path, log.seed)
        session._seat_players(log.players, fallback=True)
        session.mark = len(log.game.events)
        return session

    def _seat_players(self, specs: list[str], fallback: bool) -> None:
        rules = self.game.rules
        for s, spec in enumerate(specs):
            if s == self.human:
                self.seats.append(SeatPlayer("You", HUMAN))
                continue
            agent, note = load_agent(spec, rules, self.seed + 1000 * s, fallback)
            if note:
                self.notes.append(note)
                spec = "heuristic"
            self.seats.append(SeatPlayer(agent.name, spec, agent))
        names = [p.name for p in self.seats]
        for p in self.seats:
            if names.count(p.name) > 1 and p.spec != HUMAN:
                p.name = f"{p.name}#{self.seats.index(p)}"
        if rules.partnership:
            for s, p in enumerate(self.seats):
                if s != self.human and rules.side_of(s) == rules.side_of(self.human):
                    p.name = f"{p.name} (partner)"

    # -- queries -------------------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self.game.rules

    @property
    def human_to_move(self) -> bool:
        return self.game.phase is Phase.PLAY and self.game.turn == self.human

    @property
    def can_undo(self) -> bool:
        return not self.rated and bool(self._undo) and self.game.phase is Phase.PLAY

    def options(self) -> list[MoveOption]:
        """The human's legal moves, each tried on a copy of the game for its points."""
        game = self.game
        out = []
        for a in game.legal_actions():
            trial = game.copy()
            before = len(trial.events)
            trial.step(a, claim=True)
            played = [e for e in trial.events[before:] if e.kind == "play"]
            points = played[0].points if played else 0
            domino = bool(played) and trial.hands[self.human] == 0
            out.append(MoveOption(a, game.codec.describe(a), points, domino))
        return out

    def recent_events(self, limit: int = 12) -> list[Event]:
        """What happened since the human last moved, as the human saw it."""
        return self.game.public_events(self.human)[self.mark :][-limit:]

    def hint(self, budget_s: float = HINT_BUDGET_S) -> list[tuple[MoveOption, float]]:
        """The search player's value of each legal move (the expected points margin to the end of
        the hand), best first."""
        from ..players.search import SearchPlayer

        search = SearchPlayer(seed=self.seed + len(self.game.events), budget_s=budget_s)
        values = search.evaluate(info_state(self.game, self.human))
        return sorted(((o, values[o.action]) for o in self.options()), key=lambda p: -p[1])

    # -- moves ---------------------------------------------------------------------------------
    def play(self, action: int, claim: bool = True) -> None:
        """The human's move, then the agents' until the human is to move again or the hand ends."""
        if not self.human_to_move:
            raise GameOverError("it is not your turn")
        snapshot = (self.game.copy(), self.mark)
        self.mark = len(self.game.events)
        self.game.step(action, claim)
        self._undo.append(snapshot)
        self.advance()

    def advance(self) -> None:
        """Let the agents move until the human is to move or the hand is over."""
        game = self.game
        while game.phase is Phase.PLAY and game.turn != self.human:
            seat = game.turn
            agent = self.seats[seat].agent
            assert agent is not None
            action = agent.act(None, {"info_state": info_state(game, seat)})
            game.step(action)

    def undo(self) -> None:
        """Take back the human's last move and the agents' moves after it."""
        if self.rated:
            raise GameOverError("undo is off in a rated game")
        if not self.can_undo:
            raise GameOverError("nothing to undo in this hand")
        self.game, self.mark = self._undo.pop()

    def next_hand(self) -> None:
        """Deal the next hand (after the human has seen the last one's result)."""
        self._undo.clear()
        self.mark = len(self.game.events)
        self.game.start_hand()
        self.advance()

    # -- log -----------------------------------------------------------------------------------
    @property
    def meta(self) -> dict[str, Any]:
        return {"human_seat": self.human, "rated": self.rated, "names": [p.name for p in self.seats]}

    def save(self, path: Path | None = None) -> Path:
        """Write the game log (to ``path``, or to the session's log file)."""
        target = path or self.save_path
        if target is None:
            target = self.save_path = default_save_path(self.seed)
        return save_game_log(self.game, target, [p.spec for p in self.seats], self.meta)
