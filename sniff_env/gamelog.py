"""The JSON game log: a readable record of one game that the engine can re-run to the same result.

A log holds the format name and version, the rules, the seed, ``max_hands``, the player of
every seat, and per hand the deal (hands, boneyard in draw order, leader, lots as pip pairs),
every decision (seat, action id, readable move, muggins claim), the events and the end-of-hand
scoring lines; then the scores and the winner. A game still in progress is logged up to its
last decision, so the same file serves to resume it.

:func:`seat_log` is the other kind: what one seat may know of a game in progress (its own
tiles, the public events, the finished hands' scoring), with no seed, no other hand and no
boneyard. It is what a player is given while the game runs; it cannot be re-run.

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

from sniff_env.actions import END_NAMES, LEAD
from sniff_env.atomic import PRIVATE, write_json_atomic
from sniff_env.deal import Deal, scripted_deal
from sniff_env.errors import SniffError
from sniff_env.game import Event, Game, HandRecord, Phase
from sniff_env.rules import Rules
from sniff_env.scoring import HandResult
from sniff_env.tiles import TileSet
from sniff_env.untrusted import InputFileError, read_bounded

FORMAT = "sniff-game-log"
SEAT_FORMAT = "sniff-seat-log"
VERSION = 1
MAX_LOG_BYTES = 32 * 2**20
"""The largest game log read (a hand takes a few kilobytes: thousands of hands fit)."""


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


def _result_json(r: HandResult) -> dict[str, Any]:
    return {"ended_by": r.ended_by, "winner": r.winner, "pips": list(r.pips),
            "side_points": list(r.side_points), "lines": list(r.lines)}


def _check_players(game: Game, players: Sequence[str]) -> None:
    if len(players) != game.rules.num_players:
        raise ValueError(f"give one player name per seat ({game.rules.num_players}); got {list(players)!r}")


def hand_starts(events: Sequence[Event]) -> list[int]:
    """The index where each hand's events start: its deal, or the lots drawn just before it."""
    starts = []
    for i, e in enumerate(events):
        if e.kind == "deal":
            starts.append(i - 1 if i > 0 and events[i - 1].kind == "lots" else i)
    return starts


def game_log(game: Game, players: Sequence[str], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The log of ``game`` as a JSON-ready dict (the game is re-run, not changed)."""
    rules = game.rules
    _check_players(game, players)
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
            hand["result"] = _result_json(sim.results[index])
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


def seat_log(game: Game, seat: int, players: Sequence[str], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """What ``seat`` may know of ``game`` as a JSON-ready dict: per hand, the seat's own tiles as
    dealt, the events as the seat saw them (others' draws hidden) and, once the hand is over, its
    scoring. No seed (it fixes every deal to come), no other hand, no boneyard."""
    _check_players(game, players)
    if not 0 <= seat < game.n:
        raise ValueError(f"seat must be 0..{game.n - 1}; got {seat}")
    ts, events = game.ts, game.public_events(seat)
    deals = [rec.deal for rec in hand_records(game)]
    starts = hand_starts(events) + [len(events)]
    hands: list[dict[str, Any]] = []
    for h, deal in enumerate(deals):
        hand: dict[str, Any] = {
            "your_tiles": [_pair(ts, t) for t in deal.hands[seat]],
            "events": [event_json(ts, e) for e in events[starts[h] : starts[h + 1]]],
        }
        if h < len(game.results):
            hand["result"] = _result_json(game.results[h])
        hands.append(hand)
    return {
        "format": SEAT_FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "seat": seat,
        "players": list(players),
        "meta": dict(meta or {}),
        "hands": hands,
        "scores": list(game.scores),
        "finished": game.phase is Phase.GAME_OVER,
    }


def save_game_log(
    game: Game, path: str | Path, players: Sequence[str], meta: dict[str, Any] | None = None,
    exclusive: bool = False,
) -> Path:
    """Save ``game`` (finished or not) as a JSON log at ``path``, readable by its owner only (it
    holds every hand and the seed); ``players`` names each seat. With ``exclusive``, an existing
    file is never replaced (:class:`FileExistsError`)."""
    return write_json_atomic(path, game_log(game, players, meta), exclusive=exclusive, mode=PRIVATE)


# -- reading --------------------------------------------------------------------------------------
def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise GameLogError(f"{where} lacks {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise GameLogError(f"{where}: {key!r} has the wrong type ({type(value).__name__}: {value!r})")
    return value


def _is_pair(t: Any) -> bool:
    return isinstance(t, list) and len(t) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in t)


def _tiles(data: dict[str, Any], key: str, where: str, nested: bool = False) -> list[Any]:
    """``data[key]``: a list of tiles as pip pairs (a list of such lists with ``nested``)."""
    value = data.get(key, [])
    groups = value if nested and isinstance(value, list) else [value]
    if not all(isinstance(g, list) and all(_is_pair(t) for t in g) for g in groups):
        shape = "a list per seat of tiles" if nested else "a list of tiles"
        raise GameLogError(f"{where}: the deal's {key!r} must be {shape}, each tile a pair of pips like [5, 0]")
    return list(value)


def _deal_from_json(rules: Rules, ts: TileSet, data: Any, where: str) -> Deal:
    if not isinstance(data, dict):
        raise GameLogError(f"{where}: the deal must be a mapping; got {data!r}")
    leader = _need(data, "leader", int, where)
    _need(data, "hands", list, where)
    _need(data, "boneyard", list, where)
    hands, boneyard = _tiles(data, "hands", where, nested=True), _tiles(data, "boneyard", where)
    try:
        hands_i, bone, lead = scripted_deal(rules, hands, boneyard, leader)
        lots = tuple(ts.index(t) for t in _tiles(data, "lots", where))
    except (ValueError, TypeError) as exc:
        raise GameLogError(f"{where}: bad deal: {exc}") from None
    assert bone is not None and lead is not None
    return Deal(hands_i, bone, lead, lots)


def parse_game_log(data: Any, source: str = "the log") -> GameLog:
    """Check a log's JSON data and re-run it; see :func:`load_game_log`."""
    if not isinstance(data, dict):
        raise GameLogError(f"{source} is not a JSON object")
    fmt, version = data.get("format"), data.get("version")
    if fmt == SEAT_FORMAT:
        raise GameLogError(f"{source} is one seat's record of a game in progress (no deals, no seed), which "
                           "cannot be re-run; the full log is given once the game is over")
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
            if not isinstance(recorded, dict):
                raise GameLogError(f"{where}: 'result' must be a mapping; got {type(recorded).__name__}")
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


def read_log_data(path: str | Path) -> tuple[Any, str]:
    """The JSON value of the log file at ``path`` and how messages name it; :class:`GameLogError`
    for a file that cannot be read, is no regular file, holds more than :data:`MAX_LOG_BYTES`
    (refused unread) or is no JSON."""
    path = Path(path)
    try:
        text = read_bounded(path, MAX_LOG_BYTES, "the game log")
    except InputFileError as exc:
        raise GameLogError(str(exc)) from None
    except OSError as exc:
        raise GameLogError(f"cannot read the game log {str(path)!r}: {exc.strerror or exc}") from None
    source = repr(str(path))
    return read_json(text, source), source


def load_game_log(path: str | Path) -> GameLog:
    """Read, check and re-run the log at ``path``; :class:`GameLogError` says what is wrong (see
    :func:`read_log_data`)."""
    return parse_game_log(*read_log_data(path))


def read_json(text: str | bytes, source: str = "the log") -> Any:
    """JSON text as data, or :class:`GameLogError` (also for nesting too deep to read, or a
    number too long to convert)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise GameLogError(f"{source} is nested too deeply to be a game log") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an over-long integer
        raise GameLogError(f"{source} is not valid JSON ({exc})") from None
