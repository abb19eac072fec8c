"""One seat's record of a game (``sniff-seat-log``), checked and laid out again, position by position.

A seat's record is what the web table's "Save log" gives in the middle of a game (see
:func:`~sniff_env.gamelog.seat_log`): the seat's own tiles as dealt, the public events of each
hand (other seats' draws hidden) and the finished hands' scoring. It holds no seed and no other
hand, so the engine cannot re-run it; instead :func:`parse_seat_log` lays its placements on a
:class:`~sniff_env.layout.Layout` (the rules the engine itself plays by), checks that every
placement fits, makes the count and the points recorded, that the seat's own tiles, the hand
sizes, the boneyard and the scores add up, and raises :class:`~sniff_env.gamelog.GameLogError`
saying where a record does not. :func:`seat_positions` then yields what the seat saw after each
move: the layout, its own tiles, how many tiles every other hand and the boneyard held, the
scores and the score sheet; never a tile the seat did not see.

A record is refused, saying which hand and event, where an event could not have happened: a
move out of turn, a draw past the rules' limit or from an empty boneyard, a pass while the seat
could still draw, a pass of the recording seat while it held a tile that fits, a pass on the
lead, more passes in a row than end a blocked hand, or more events than a hand of the rules can
hold. So a hand's events are bounded by its tiles and seats, and checking a record and laying
out its positions take time linear in its size: each position is built from the one before,
sharing the hand's events and the finished hands' score sheet instead of copying them.

:func:`read_log` reads either kind of log from a file, for the replays that show both.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from sniff_env.actions import END_NAMES, LEAD, action_codec
from sniff_env.errors import IllegalMoveError
from sniff_env.game import Event, Phase
from sniff_env.gamelog import SEAT_FORMAT, VERSION, GameLog, GameLogError, parse_game_log, read_log_data
from sniff_env.infostate import InfoState
from sniff_env.layout import Layout, points_for
from sniff_env.play.session import HUMAN, safe_name
from sniff_env.play.sheet import HandScore
from sniff_env.rules import DoublePlacement, Draw, Rules
from sniff_env.scoring import HandResult
from sniff_env.tiles import TileSet, tile_set

KINDS = ("lots", "deal", "play", "draw", "pass", "muggins", "hand_end", "game_end")
"""The events a seat's record may hold."""
HUMAN_NAME = "You"
"""The name the person's seat goes by at the table."""
LAYOUT_BUDGET = 20_000
"""The placements tried while finding how the doubles were laid (across or in line), beyond
:data:`LAYOUT_TRIES` per placement of the whole record."""
LAYOUT_TRIES = 4
"""Placements tried per recorded placement before :data:`LAYOUT_BUDGET` is drawn on (a legal
record needs about one; a double whose count reads the same either way, two)."""


@dataclass(frozen=True)
class SeatHand:
    """One hand of a seat's record: the seat's tiles as dealt, the events it saw, the result."""

    tiles: tuple[int, ...]
    events: tuple[Event, ...]
    result: HandResult | None
    inline: tuple[bool, ...]
    """Per placement, whether it was a double laid in line (found from the recorded counts)."""


@dataclass(frozen=True)
class SeatLog:
    """A checked seat's record of a game."""

    rules: Rules
    seat: int
    players: list[str]
    names: list[str]
    """Each seat's name, safe to print (the recording seat's is ``You`` where the log says so)."""
    hands: list[SeatHand]
    scores: list[int]
    finished: bool


@dataclass(frozen=True)
class SeatPosition:
    """What the seat saw after one move (``number`` 0: the deal), in hand ``hand_index``."""

    hand_index: int
    number: int
    moves: int
    """The moves of this hand in the record (positions after the deal)."""
    info: InfoState
    """The seat's view: its own tiles, the layout, hand sizes, boneyard and scores (the finished
    hands' results are not repeated in it: see :attr:`result` and :attr:`sheet`)."""
    inline: tuple[bool, ...]
    hand_events: tuple[Event, ...]
    """All of this hand's events (shared by the hand's positions); this position has seen
    ``hand_events[:stop]``."""
    stop: int
    new: int
    """Where this move's events start in :attr:`hand_events` (0 for the deal)."""
    result: HandResult | None
    row: HandScore
    """The current hand's line of the score sheet."""
    done: Sequence[HandScore]
    """The finished hands' lines (shared by every position; the first ``hand_index`` are this
    position's)."""

    @property
    def events(self) -> tuple[Event, ...]:
        """This hand's events so far."""
        return self.hand_events[:self.stop]

    @property
    def fresh(self) -> tuple[Event, ...]:
        """The events of this move (for the deal: the hand's start)."""
        return self.hand_events[self.new:self.stop]

    @property
    def sheet(self) -> tuple[HandScore, ...]:
        """The score sheet, the current hand last."""
        return (*self.done[:self.hand_index], self.row)


# -- reading --------------------------------------------------------------------------------------
def _int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _tile(ts: TileSet, value: Any, where: str) -> int:
    """A tile written ``"5-0"`` or ``[5, 0]``, as its index."""
    pair: Any = value
    if isinstance(value, str):
        lo, sep, hi = value.partition("-")
        pair = [int(lo), int(hi)] if sep and lo.isdigit() and hi.isdigit() else None
    if not (isinstance(pair, list) and len(pair) == 2 and all(_int(p) for p in pair)):
        raise GameLogError(f"{where}: {value!r} is not a tile (write it 5-0 or [5, 0])")
    try:
        return ts.index(pair)
    except ValueError:
        raise GameLogError(f"{where}: {value!r} is not a tile of the double-{ts.max_pip} set") from None


def _event(ts: TileSet, rules: Rules, data: Any, where: str) -> Event:
    """An event of the record, as the engine's :class:`~sniff_env.game.Event`."""
    if not isinstance(data, dict):
        raise GameLogError(f"{where} is not a mapping")
    kind, seat = data.get("kind"), data.get("seat")
    if kind not in KINDS:
        raise GameLogError(f"{where}: {kind!r} is not an event of a game ({', '.join(KINDS)})")
    low = -1 if kind in ("hand_end", "game_end") else 0
    if not (_int(seat) and low <= seat < rules.num_players):
        raise GameLogError(f"{where}: the {kind} event's seat must be 0..{rules.num_players - 1}; got {seat!r}")
    if kind in ("play", "muggins"):
        end = data.get("end")
        if end != "lead" and end not in END_NAMES:
            raise GameLogError(f"{where}: the end must be lead or one of {', '.join(END_NAMES)}; got {end!r}")
        count, points = data.get("count"), data.get("points")
        if not (_int(count) and count >= 0 and _int(points) and points >= 0):
            raise GameLogError(f"{where}: count and points must be whole numbers, 0 or more; got {count!r}, {points!r}")
        slot = LEAD if end == "lead" else END_NAMES.index(end)
        return Event(kind, seat, _tile(ts, data.get("tile"), where), slot, count, points)
    if kind == "draw":
        drawn = data.get("tile")
        return Event(kind, seat, -1 if drawn is None else _tile(ts, drawn, where))
    if kind == "deal":
        number = data.get("hand")
        return Event(kind, seat, total=number - 1 if _int(number) else -1)
    return Event(kind, seat)


def _result(rules: Rules, data: Any, where: str) -> HandResult:
    if not isinstance(data, dict):
        raise GameLogError(f"{where}: 'result' must be a mapping")
    n, sides = rules.num_players, rules.num_sides
    pips, points, lines = data.get("pips"), data.get("side_points"), data.get("lines", [])
    winner, ended_by = data.get("winner"), data.get("ended_by")
    if not (isinstance(pips, list) and len(pips) == n and all(_int(p) and p >= 0 for p in pips)):
        raise GameLogError(f"{where}: the result's 'pips' must be {n} whole numbers; got {pips!r}")
    if not (isinstance(points, list) and len(points) == sides and all(_int(p) for p in points)):
        raise GameLogError(f"{where}: the result's 'side_points' must be {sides} whole numbers; got {points!r}")
    if not (isinstance(lines, list) and all(isinstance(line, str) for line in lines)):
        raise GameLogError(f"{where}: the result's 'lines' must be a list of text")
    if not (winner is None or (_int(winner) and 0 <= winner < n)) or ended_by not in ("domino", "blocked", "target"):
        raise GameLogError(f"{where}: the result names no valid winner and ending ({winner!r}, {ended_by!r})")
    return HandResult(ended_by, winner, tuple(pips), (), tuple(points), tuple(lines))


class _Tries:
    """The placements a record's layout search may still try (see :data:`LAYOUT_BUDGET`)."""

    def __init__(self, left: int) -> None:
        self.left = left


def _lay(rules: Rules, placements: Sequence[Event], where: str, budget: _Tries) -> tuple[bool, ...]:
    """How each placement was laid (in line or not), so that each fits and makes its recorded
    count; a double whose count reads the same either way is decided by the placements after it.
    Each placement tried is taken from ``budget``, shared by the record's hands."""
    codec = action_codec(rules.max_pip)
    choice = rules.double_placement is DoublePlacement.CHOICE
    deepest, problem = -1, ""

    def go(i: int, layout: Layout) -> list[bool] | None:
        nonlocal deepest, problem
        if i == len(placements):
            return []
        e = placements[i]
        name = f"{codec.tiles.name(e.tile)} on {'the lead' if e.end == LEAD else END_NAMES[e.end]}"
        for inline in (False, True) if choice and codec.tiles.is_double[e.tile] else (False,):
            budget.left -= 1
            if budget.left < 0:
                raise GameLogError(f"{where}: the placements cannot be laid out in reasonable time")
            try:
                after = layout.place(codec.encode(e.tile, e.end, inline))
            except IllegalMoveError as exc:
                why = f"placement {i + 1} ({name}) cannot be laid: {exc}"
            else:
                if after.count == e.total:
                    rest = go(i + 1, after)
                    if rest is not None:
                        return [inline, *rest]
                    continue
                why = f"placement {i + 1} ({name}) makes the count {after.count}, not the recorded {e.total}"
            if i > deepest:
                deepest, problem = i, why
        return None

    found = go(0, Layout(rules))
    if found is None:
        raise GameLogError(f"{where}: {problem}")
    return tuple(found)


DRAW_LIMITS = {Draw.UNTIL_PLAYABLE: 1 << 30, Draw.MAX_TWO: 2, Draw.NONE: 0}
"""The tiles a seat may draw in one turn, by the rules' ``draw``."""


def max_events(rules: Rules) -> int:
    """The most events a hand of ``rules`` can hold: the lots, the deal and the ends; at most one
    placement, one muggins and one draw per tile; a pass either after a draw in the same turn or
    one of fewer than ``num_players`` in a row since the last placement."""
    tiles, n = tile_set(rules.max_pip).size, rules.num_players
    return 4 + 3 * tiles + tiles + n * (tiles + 1)


@dataclass
class _Turn:
    """Whose turn it is in a hand being checked, and what that turn has done."""

    seat: int
    drawn: int = 0
    passes: int = 0
    """Passes in a row since the last placement."""
    blocked: bool = False
    """Whether the passes in a row have ended the hand."""


def _check_hand(rules: Rules, seat: int, tiles: tuple[int, ...], events: Sequence[Event], where: str,
                number: int) -> None:
    """Tiles, hand sizes, the boneyard and the points of one hand add up, and every event comes in
    turn and could have happened (the layout is checked apart)."""
    ts = tile_set(rules.max_pip)
    n = rules.num_players
    sizes = [rules.hand_size or 0] * n
    boneyard = ts.size - n * (rules.hand_size or 0)
    limit = DRAW_LIMITS[rules.draw]
    own = 0
    for t in tiles:
        own |= 1 << t
    if len(tiles) != rules.hand_size or own.bit_count() != len(tiles):
        raise GameLogError(f"{where}: the seat's tiles must be {rules.hand_size} different tiles; got {len(tiles)}")
    seen = own
    kinds = [e.kind for e in events]
    first = 1 if kinds[:1] == ["lots"] else 0
    if kinds[first:first + 1] != ["deal"] or events[first].total != number:
        raise GameLogError(f"{where}: the hand's events must start with its deal (of hand {number + 1})")
    turn = _Turn(events[first].player)
    placed = 0
    for i, e in enumerate(events[first + 1:], first + 2):
        spot = f"{where}, event {i}"
        if e.kind in ("lots", "deal"):
            raise GameLogError(f"{spot}: a {e.kind} event in the middle of a hand")
        if turn.blocked and e.kind not in ("hand_end", "game_end"):
            raise GameLogError(f"{spot}: a {e.kind} after {turn.passes} passes in a row, which end the hand (blocked)")
        if e.kind in ("play", "draw", "pass") and e.player != turn.seat:
            raise GameLogError(f"{spot}: seat {e.player} moves ({e.kind}) when it is seat {turn.seat}'s turn")
        if e.kind == "play":
            if e.player == seat:
                if not own >> e.tile & 1:
                    raise GameLogError(f"{spot}: the seat plays {ts.name(e.tile)}, which it does not hold")
                own &= ~(1 << e.tile)
            elif seen >> e.tile & 1:
                raise GameLogError(f"{spot}: {ts.name(e.tile)} is played twice, or was the seat's own")
            seen |= 1 << e.tile
            sizes[e.player] -= 1
            if sizes[e.player] < 0:
                raise GameLogError(f"{spot}: a seat plays a tile it cannot hold (its hand is empty)")
            due = points_for(rules, e.total)
            follow = events[i] if i < len(events) else None
            taken = follow is not None and follow.kind == "muggins"
            if e.points not in (0, due) or (not e.points and due and not (rules.muggins_claims and taken)):
                raise GameLogError(f"{spot}: a count of {e.total} scores {due}, not the recorded {e.points}")
            placed += 1
            turn = _Turn((e.player + 1) % n)
        elif e.kind == "muggins":
            before = events[i - 2]
            if (before.kind != "play" or before.points or e.player != (before.player + 1) % n
                    or e.points != points_for(rules, before.total) or not rules.muggins_claims):
                raise GameLogError(f"{spot}: muggins follows only an unclaimed scoring play, taken by the next seat")
        elif e.kind == "draw":
            if turn.drawn >= limit:
                raise GameLogError(f"{spot}: a seat draws more than the rules' {rules.draw} allows in one turn "
                                   f"({limit} tile{'s' * (limit != 1)})")
            if e.player == seat:
                if e.tile < 0 or seen >> e.tile & 1:
                    raise GameLogError(f"{spot}: the seat's own draw must name a tile it has not seen yet")
                own |= 1 << e.tile
                seen |= 1 << e.tile
            elif e.tile >= 0:
                raise GameLogError(f"{spot}: a seat's record never shows a tile another seat drew")
            sizes[e.player] += 1
            boneyard -= 1
            turn.drawn += 1
            if boneyard < rules.boneyard_reserve:
                raise GameLogError(f"{spot}: a tile is drawn from an empty boneyard")
        elif e.kind == "pass":
            drawable = boneyard - rules.boneyard_reserve
            if not placed:
                raise GameLogError(f"{spot}: a pass on the lead (the seat to lead always has a tile to lay)")
            if turn.drawn < limit and drawable > 0:
                raise GameLogError(f"{spot}: seat {e.player} passes while it may still draw ({drawable} tile"
                                   f"{'s' * (drawable != 1)} to draw); a seat passes only when it can neither lay "
                                   "a tile nor draw")
            turn = _Turn((e.player + 1) % n, passes=turn.passes + 1)
            turn.blocked = turn.passes >= n and not (limit and drawable > 0)
        if own.bit_count() != sizes[seat]:
            raise GameLogError(f"{spot}: the seat's tiles do not add up")


def _check_own_passes(rules: Rules, seat: int, tiles: tuple[int, ...], events: Sequence[Event],
                      inline: tuple[bool, ...], where: str) -> None:
    """The recording seat never passes while it holds a tile that fits an open end (its tiles are
    in the record; the layout is as :func:`_lay` found it)."""
    ts = tile_set(rules.max_pip)
    codec = action_codec(rules.max_pip)
    layout = Layout(rules)
    own = sum(1 << t for t in tiles)
    placed = 0
    for i, e in enumerate(events, 1):
        if e.kind == "play":
            layout = layout.place(codec.encode(e.tile, e.end, inline[placed]))
            placed += 1
            if e.player == seat:
                own &= ~(1 << e.tile)
        elif e.kind == "draw" and e.player == seat:
            own |= 1 << e.tile
        elif e.kind == "pass" and e.player == seat:
            ends = {layout.end_pip[end] for end in range(len(layout.end_pip)) if layout.end_open[end]}
            fits = [t for t in range(ts.size) if own >> t & 1 and set(ts.tiles[t]) & ends]
            if fits:
                raise GameLogError(f"{where}, event {i}: the seat passes while it holds {ts.name(fits[0])}, "
                                   f"which fits an open end ({', '.join(map(str, sorted(ends)))})")


def parse_seat_log(data: Any, source: str = "the log") -> SeatLog:
    """Check a seat's record (JSON data) and lay it out; :class:`GameLogError` says what is wrong."""
    if not isinstance(data, dict) or data.get("format") != SEAT_FORMAT:
        raise GameLogError(f"{source} is not a seat's record of a game (format {SEAT_FORMAT!r})")
    if data.get("version") != VERSION:
        raise GameLogError(f"{source} has log version {data.get('version')!r}; this program reads version {VERSION}")
    rules_data = data.get("rules")
    if not isinstance(rules_data, dict):
        raise GameLogError(f"{source} lacks its rules")
    try:
        rules = Rules.from_dict(dict(rules_data))
    except (TypeError, ValueError) as exc:
        raise GameLogError(f"{source}: its rules cannot be read ({exc})") from None
    n = rules.num_players
    seat, players, meta = data.get("seat"), data.get("players"), data.get("meta") or {}
    if not (_int(seat) and 0 <= seat < n):
        raise GameLogError(f"{source}: 'seat' must be a seat 0..{n - 1}; got {seat!r}")
    if not (isinstance(players, list) and len(players) == n and all(isinstance(p, str) for p in players)):
        raise GameLogError(f"{source}: 'players' must name each of the {n} seats; got {players!r}")
    if not isinstance(meta, dict):
        raise GameLogError(f"{source}: 'meta' must be a mapping")
    names = meta.get("names")
    if not (isinstance(names, list) and len(names) == n and all(isinstance(x, str) for x in names)):
        names = [HUMAN_NAME if p == HUMAN else p for p in players]
    ts = tile_set(rules.max_pip)
    raw = data.get("hands")
    if not isinstance(raw, list) or not raw:
        raise GameLogError(f"{source}: 'hands' must list the hands played")
    hands: list[SeatHand] = []
    scores = [0] * rules.num_sides
    most = max_events(rules)
    budget = _Tries(LAYOUT_BUDGET)
    for h, hand in enumerate(raw):
        where = f"{source}, hand {h + 1}"
        if not isinstance(hand, dict):
            raise GameLogError(f"{where} is not a mapping")
        tiles_data, events_data = hand.get("your_tiles"), hand.get("events")
        if not isinstance(tiles_data, list) or not isinstance(events_data, list):
            raise GameLogError(f"{where} must hold 'your_tiles' and 'events' lists")
        if len(events_data) > most:
            raise GameLogError(f"{where}, event {most + 1}: a hand of these rules holds at most {most:,} events "
                               f"(every placement, draw, muggins and possible pass); this one has {len(events_data):,}")
        tiles = tuple(_tile(ts, t, f"{where}, your tiles") for t in tiles_data)
        events = [_event(ts, rules, e, f"{where}, event {i + 1}") for i, e in enumerate(events_data)]
        _check_hand(rules, seat, tiles, events, where, h)
        kinds = [e.kind for e in events]
        over = "hand_end" in kinds
        if over and kinds[kinds.index("hand_end") + 1:] not in ([], ["game_end"]):
            raise GameLogError(f"{where}: events follow the end of the hand")
        if "game_end" in kinds and (h != len(raw) - 1 or not over):
            raise GameLogError(f"{where}: the game ends only after the last hand's end")
        result = _result(rules, hand["result"], where) if hand.get("result") is not None else None
        if over != (result is not None):
            raise GameLogError(f"{where}: a hand over must record its result, and only a hand over")
        if result is None and h != len(raw) - 1:
            raise GameLogError(f"{where}: only the last hand may be still in play")
        placements = [e for e in events if e.kind == "play"]
        budget.left += LAYOUT_TRIES * len(placements)
        inline = _lay(rules, placements, where, budget)
        _check_own_passes(rules, seat, tiles, events, inline, where)
        for e in events:
            if e.kind in ("play", "muggins") and e.points:
                scores[rules.side_of(e.player)] += e.points
        if result is not None:
            scores = [s + p for s, p in zip(scores, result.side_points)]
        hands.append(SeatHand(tiles, tuple(events), result, inline))
    if data.get("scores") != scores:
        raise GameLogError(f"{source}: the moves add up to scores {scores}, not the recorded {data.get('scores')!r}")
    finished = hands[-1].events[-1].kind == "game_end"
    if data.get("finished", finished) != finished:
        raise GameLogError(f"{source}: the log says finished={data.get('finished')!r}, but its events say otherwise")
    return SeatLog(rules, seat, list(players), [safe_name(x) for x in names], hands, scores, finished)


def read_log(path: str | Path) -> GameLog | SeatLog:
    """The log at ``path``: a full game log (re-run by the engine) or a seat's record (laid out
    again); :class:`GameLogError` says what is wrong with it."""
    return parse_log(*read_log_data(path))


def parse_log(data: Any, source: str = "the log") -> GameLog | SeatLog:
    """Either kind of log, from its JSON data (see :func:`read_log`)."""
    if isinstance(data, dict) and data.get("format") == SEAT_FORMAT:
        return parse_seat_log(data, source)
    return parse_game_log(data, source)


# -- positions ------------------------------------------------------------------------------------
def moves_of(events: Sequence[Event]) -> list[tuple[int, int]]:
    """The moves of a hand's events as ``(start, stop)`` spans after the deal: a placement with
    the muggins it gave, a run of draws by one seat, a pass; the hand's and the game's end go
    with the move before them."""
    spans: list[tuple[int, int]] = []
    i = next((k + 1 for k, e in enumerate(events) if e.kind == "deal"), len(events))
    while i < len(events):
        e = events[i]
        j = i + 1
        if e.kind == "play":
            j += 1 if j < len(events) and events[j].kind == "muggins" else 0
        elif e.kind == "draw":
            while j < len(events) and events[j].kind == "draw" and events[j].player == e.player:
                j += 1
        while j < len(events) and events[j].kind in ("hand_end", "game_end"):
            j += 1
        if e.kind in ("hand_end", "game_end") and spans:
            spans[-1] = (spans[-1][0], j)
        else:
            spans.append((i, j))
        i = j
    return spans


def seat_positions(log: SeatLog) -> Iterator[SeatPosition]:
    """What the seat saw at each position of the record: each hand's deal, then after each move.
    Each position is built from the one before (no position rereads the hand or the sheet)."""
    rules = log.rules
    ts = tile_set(rules.max_pip)
    codec = action_codec(rules.max_pip)
    n, seat = rules.num_players, log.seat
    sheet: list[HandScore] = []
    total = [0] * rules.num_sides
    for h, hand in enumerate(log.hands):
        events = hand.events
        spans = moves_of(events)
        deal = next(e for e in events if e.kind == "deal")
        layout = Layout(rules)
        plays: list[tuple[int, int, int]] = []
        sizes = [rules.hand_size or 0] * n
        boneyard = ts.size - n * (rules.hand_size or 0)
        own = sum(1 << t for t in hand.tiles)
        play = [0] * rules.num_sides
        turn = deal.player
        ended = over = False
        result: HandResult | None = None
        for number, (start, stop) in enumerate([(0, spans[0][0] if spans else len(events)), *spans]):
            for e in events[start:stop] if number else ():
                if e.kind == "play":
                    layout = layout.place(codec.encode(e.tile, e.end, hand.inline[len(plays)]))
                    plays.append((e.tile, e.player, e.end))
                    sizes[e.player] -= 1
                    own &= ~(1 << e.tile)
                    turn = (e.player + 1) % n
                elif e.kind == "draw":
                    sizes[e.player] += 1
                    boneyard -= 1
                    own |= (1 << e.tile) if e.player == seat else 0
                    turn = e.player
                elif e.kind == "pass":
                    turn = (e.player + 1) % n
                elif e.kind == "hand_end":
                    ended = True
                elif e.kind == "game_end":
                    over = True
                if e.kind in ("play", "muggins") and e.points:
                    play[rules.side_of(e.player)] += e.points
            end = hand.result.side_points if ended and hand.result is not None else None
            now = tuple(t + p + (end[i] if end else 0) for i, (t, p) in enumerate(zip(total, play)))
            if end is not None and hand.result is not None and result is None:
                r = hand.result
                result = HandResult(r.ended_by, r.winner, r.pips, tuple(sizes), r.side_points, r.lines)
            info = InfoState(
                rules, seat, own, turn, (), Phase.GAME_OVER if over else Phase.HAND_OVER if ended else Phase.PLAY,
                tuple(plays), layout.end_pip, layout.end_val, layout.end_open, layout.sniff_tile,
                layout.sniff_pending, layout.count, tuple(sizes), (0,) * n, boneyard,
                boneyard - rules.boneyard_reserve, 0, 0, -1, now, h, deal.player, ())
            yield SeatPosition(h, number, len(spans), info, hand.inline[:len(plays)], events, stop,
                               start if number else 0, result, HandScore(h + 1, tuple(play), end, now), sheet)
        end_points = hand.result.side_points if hand.result is not None else (0,) * rules.num_sides
        sheet.append(HandScore(h + 1, tuple(play), hand.result.side_points if hand.result else None,
                               tuple(t + p + e for t, p, e in zip(total, play, end_points))))
        total = list(sheet[-1].total)


def record_note(log: SeatLog) -> str:
    """A line saying whose record this is and what it leaves out."""
    who = log.names[log.seat]
    if who == HUMAN_NAME:
        return "what you saw: your own tiles face up; the other hands and the boneyard stay hidden"
    return f"what {who} saw: {who}'s own tiles face up; the other hands and the boneyard stay hidden"
