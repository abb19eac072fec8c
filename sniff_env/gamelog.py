"""The JSON game log: a readable record of one game that the engine can re-run to the same result.

A log holds the format name and version, the rules, the seed, ``max_hands``, the player of
every seat, and per hand the deal (hands, boneyard in draw order, leader, lots as pip pairs),
every decision (seat, action id, readable move, muggins claim), the events and the end-of-hand
scoring lines; then the scores and the winner. A game still in progress is logged up to its
last decision, so the same file serves to resume it.

:func:`save_game_log` writes atomically (a temporary file, then ``os.replace``);
:func:`load_game_log` checks the file and re-runs every decision through the engine, raising
:class:`GameLogError` when the file is corrupt, of another format or version, or does not
reproduce what it records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .actions import END_NAMES, LEAD
from .atomic import write_json_atomic
from .deal import Deal, scripted_deal
from .errors import SniffError
from .game import Event, Game, HandRecord, Phase
from .rules import Rules
from .tiles import TileSet

FORMAT = "sniff-game-log"
VERSION = 1


class GameLogError(SniffError):
    """A game log cannot be used: unreadable, another format, bad rules or deal, or a replay
    that does not reproduce what the log records."""


@dataclass
class GameLog:
    """A loaded and checked log. ``game`` is the game re-run to where the log ends."""

    rules: Rules
    seed: int
    max_hands: int | None
    players: list[str]
    records: list[HandRecord]
    """Every hand's deal and decisions; the last one may be a hand still in play."""
    game: Game
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.game.phase is Phase.GAME_OVER


# -- writing --------------------------------------------------------------------------------------
def hand_records(game: Game) -> list[HandRecord]:
    """The finished hands' records plus, while a hand is in play, the hand so far."""
    records = list(game.records)
    if game.phase is Phase.PLAY:
        records.append(HandRecord(game.deal, tuple(game.hand_actions)))
    return records


def _pair(ts: TileSet, tile: int) -> list[int]:
    return list(ts.tiles[tile])


def _deal_json(ts: TileSet, deal: Deal) -> dict[str, Any]:
    return {
        "hands": [[_pair(ts, t) for t in h] for h in deal.hands],
        "boneyard": [_pair(ts, t) for t in deal.boneyard],
        "leader": deal.leader,
        "lots": [_pair(ts, t) for t in deal.lots],
    }


def event_json(ts: TileSet, e: Event) -> dict[str, Any]:
    """An event as readable JSON (tiles as ``"5-0"``, ends by name)."""
    out: dict[str, Any] = {"kind": e.kind, "seat": e.player}
    if e.kind in ("play", "muggins", "draw"):
        out["tile"] = ts.name(e.tile) if e.tile >= 0 else None
    if e.kind in ("play", "muggins"):
        out["end"] = "lead" if e.end == LEAD else END_NAMES[e.end]
        out["count"] = e.total
        out["points"] = e.points
    if e.kind == "deal":
        out["hand"] = e.total + 1
    return out


def game_log(game: Game, players: Sequence[str], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The log of ``game`` as a JSON-ready dict (the game is re-run, not changed)."""
    rules = game.rules
    if len(players) != rules.num_players:
        raise ValueError(f"give one player name per seat ({rules.num_players}); got {list(players)!r}")
    ts = game.ts
    sim = Game(rules, game.seed, max_hands=game.max_hands)
    hands: list[dict[str, Any]] = []
    for index, rec in enumerate(hand_records(game)):
        first_event = len(sim.events)
        sim.start_hand(rec.deal)
        decisions = []
        for action, claim in rec.actions:
            decisions.append(
                {"seat": sim.turn, "action": action, "move": game.codec.describe(action), "claim": claim}
            )
            sim.step(action, claim)
        hand: dict[str, Any] = {
            "deal": _deal_json(ts, rec.deal),
            "decisions": decisions,
            "events": [event_json(ts, e) for e in sim.events[first_event:]],
        }
        if index < len(sim.results):
            r = sim.results[index]
            hand["result"] = {
                "ended_by": r.ended_by,
                "winner": r.winner,
                "pips": list(r.pips),
                "side_points": list(r.side_points),
                "lines": list(r.lines),
            }
        hands.append(hand)
    if sim.scores != game.scores:
        raise GameLogError(f"the game's decisions re-run to scores {sim.scores}, not {game.scores}")
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules.to_dict(),
        "seed": game.seed,
        "max_hands": game.max_hands,
        "players": list(players),
        "meta": dict(meta or {}),
        "hands": hands,
        "scores": list(game.scores),
        "finished": game.phase is Phase.GAME_OVER,
        "winner": game.winner,
    }


def save_game_log(
    game: Game, path: str | Path, players: Sequence[str], meta: dict[str, Any] | None = None
) -> Path:
    """Save ``game`` (finished or not) as a JSON log at ``path``; ``players`` names each seat."""
    return write_json_atomic(path, game_log(game, players, meta))


# -- reading --------------------------------------------------------------------------------------
def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise GameLogError(f"{where} lacks {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise GameLogError(f"{where}: {key!r} has the wrong type ({type(value).__name__}: {value!r})")
    return value


def _deal_from_json(rules: Rules, ts: TileSet, data: Any, where: str) -> Deal:
    if not isinstance(data, dict):
        raise GameLogError(f"{where}: the deal must be a mapping; got {data!r}")
    leader = _need(data, "leader", int, where)
    try:
        hands, bone, lead = scripted_deal(
            rules, _need(data, "hands", list, where), _need(data, "boneyard", list, where), leader
        )
        lots = tuple(ts.index(t) for t in data.get("lots", []))
    except (ValueError, TypeError) as exc:
        raise GameLogError(f"{where}: bad deal: {exc}") from None
    assert bone is not None and lead is not None
    return Deal(hands, bone, lead, lots)


def parse_game_log(data: Any, source: str = "the log") -> GameLog:
    """Check a log's JSON data and re-run it; see :func:`load_game_log`."""
    if not isinstance(data, dict):
        raise GameLogError(f"{source} is not a JSON object")
    fmt, version = data.get("format"), data.get("version")
    if fmt != FORMAT:
        raise GameLogError(f"{source} is not a sniff game log (format {fmt!r}; expected {FORMAT!r})")
    if version != VERSION:
        raise GameLogError(f"{source} has log version {version!r}; this program reads version {VERSION}")
    try:
        rules = Rules.from_dict(dict(_need(data, "rules", dict, source)))
    except (TypeError, ValueError) as exc:
        raise GameLogError(f"{source}: its rules cannot be read ({exc})") from None
    seed = _need(data, "seed", int, source)
    max_hands = data.get("max_hands")
    if max_hands is not None and (not isinstance(max_hands, int) or isinstance(max_hands, bool) or max_hands < 1):
        raise GameLogError(f"{source}: max_hands must be a positive whole number or null; got {max_hands!r}")
    players = _need(data, "players", list, source)
    if len(players) != rules.num_players or not all(isinstance(p, str) for p in players):
        raise GameLogError(f"{source}: 'players' must name each of the {rules.num_players} seats; got {players!r}")
    meta = data.get("meta") or {}
    if not isinstance(meta, dict):
        raise GameLogError(f"{source}: 'meta' must be a mapping")
    game = Game(rules, seed, max_hands=max_hands)
    records: list[HandRecord] = []
    for h, hand in enumerate(_need(data, "hands", list, source)):
        where = f"{source}, hand {h + 1}"
        if not isinstance(hand, dict):
            raise GameLogError(f"{where} is not a mapping")
        deal = _deal_from_json(rules, game.ts, hand.get("deal"), where)
        try:
            game.start_hand(deal)
        except SniffError as exc:
            raise GameLogError(f"{where}: cannot be dealt: {exc}") from None
        actions: list[tuple[int, bool]] = []
        for d, dec in enumerate(_need(hand, "decisions", list, where)):
            spot = f"{where}, decision {d + 1}"
            if not isinstance(dec, dict):
                raise GameLogError(f"{spot} is not a mapping")
            action = _need(dec, "action", int, spot)
            claim = dec.get("claim", True)
            if not isinstance(claim, bool):
                raise GameLogError(f"{spot}: 'claim' must be true or false")
            if game.phase is not Phase.PLAY:
                raise GameLogError(f"{spot}: the hand is already over; the log has moves past its end")
            if dec.get("seat", game.turn) != game.turn:
                raise GameLogError(f"{spot}: recorded for seat {dec.get('seat')}, but seat {game.turn} is to move")
            try:
                written = game.codec.describe(action)
            except ValueError as exc:
                raise GameLogError(f"{spot}: {exc}") from None
            if "move" in dec and dec["move"] != written:
                raise GameLogError(f"{spot}: action {action} is {written!r}, but the log says {dec['move']!r}")
            try:
                game.step(action, claim)
            except SniffError as exc:
                raise GameLogError(f"{spot}: the recorded move does not replay: {exc}") from None
            actions.append((action, claim))
        records.append(HandRecord(deal, tuple(actions)))
        recorded = hand.get("result")
        if recorded is not None:
            if h >= len(game.results):
                raise GameLogError(f"{where}: the log records a result, but the hand is not over after its moves")
            if list(game.results[h].side_points) != recorded.get("side_points"):
                raise GameLogError(
                    f"{where}: the hand re-runs to end-of-hand points {list(game.results[h].side_points)}, "
                    f"not the recorded {recorded.get('side_points')}"
                )
    scores = _need(data, "scores", list, source)
    if game.scores != scores:
        raise GameLogError(f"{source}: the moves re-run to scores {game.scores}, not the recorded {scores}")
    if data.get("finished") is not None and data["finished"] != (game.phase is Phase.GAME_OVER):
        state = "over" if game.phase is Phase.GAME_OVER else "not over"
        raise GameLogError(f"{source}: the log says finished={data['finished']}, but the re-run game is {state}")
    if game.phase is Phase.GAME_OVER and data.get("winner") != game.winner:
        raise GameLogError(f"{source}: the re-run winner is {game.winner}, not the recorded {data.get('winner')}")
    return GameLog(rules, seed, max_hands, list(players), records, game, dict(meta))


def load_game_log(path: str | Path) -> GameLog:
    """Read, check and re-run the log at ``path``; :class:`GameLogError` says what is wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GameLogError(f"cannot read the game log {str(path)!r}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise GameLogError(f"{str(path)!r} is not valid JSON ({exc})") from None
    return parse_game_log(data, repr(str(path)))
