"""The JSON the page draws: one seat's view of the table, and the frames of a replayed log.

:func:`seat_view` is built from :func:`~sniff_env.infostate.info_state` and
:meth:`~sniff_env.game.Game.public_events` only, so it never holds a tile the seat may not see:
not the other hands, not the boneyard, not what others drew. Once a hand is over every hand is
public, and the view reveals them with the end-of-hand scoring and what the hand gave each
side; every view carries the score sheet (:mod:`~sniff_env.play.sheet`), hand by hand.
:func:`replay_frames` shows a logged game from outside the table, every hand face up, one frame
per decision, and :func:`seat_replay_frames` a seat's record of a game in progress from that
seat, its own tiles face up and every other hand hidden; :func:`replay_frames` works hand by hand (each event is described once, the score sheet is kept as
it goes, and no frame rescans the game's history), so its time is linear in the size of what it
yields.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.text import Text

from sniff_env.actions import EAST, END_NAMES, LEAD, NORTH, SOUTH, WEST
from sniff_env.game import Event, Game, Phase
from sniff_env.gamelog import GameLog
from sniff_env.infostate import InfoState, info_state
from sniff_env.play.screen import describe, side_names, target_note, winner_text, with_names
from sniff_env.play.seat_replay import SeatLog, SeatPosition, record_note, seat_positions
from sniff_env.play.session import HUMAN, SeatPlayer, Session
from sniff_env.play.sheet import HandScore, hand_end_note, pegs, score_sheet
from sniff_env.render import count_sum, end_terms
from sniff_env.tiles import TileSet, mask_tiles

PHASES = {Phase.PLAY: "play", Phase.HAND_OVER: "hand_over", Phase.GAME_OVER: "game_over"}


def _pair(ts: TileSet, tile: int) -> list[int]:
    return list(ts.tiles[tile])


def _inline_flags(game: Game) -> list[bool]:
    """Per placement of this hand, whether it was a double laid in line (placements are public)."""
    codec = game.codec
    return [a >= codec.inline_base for a, _ in game.hand_actions if a != codec.draw_action]


def layout_json(ts: TileSet, info: InfoState, inline: list[bool]) -> dict[str, Any]:
    """The lead tile and each arm (west, east, north, south) from the centre outwards.

    Every tile carries its pips, the pip it touches (``inner``) and the one it shows outwards
    (``outer``), whether it is a double, laid in line, or the sniff, and its play order.
    """
    arms: dict[str, list[dict[str, Any]]] = {name: [] for name in END_NAMES}
    centre: dict[str, Any] | None = None
    pips = [0, 0, 0, 0]
    for order, (tile, seat, slot) in enumerate(info.plays):
        lo, hi = ts.tiles[tile]
        item: dict[str, Any] = {
            "pips": [lo, hi], "seat": seat, "order": order, "double": lo == hi,
            "inline": inline[order] if order < len(inline) else False, "sniff": tile == info.sniff_tile,
        }
        if slot == LEAD:
            item.update(inner=None, outer=None)
            centre = item
            pips = [lo, hi, lo, lo]
            continue
        inner = pips[slot]
        outer = hi if inner == lo else lo
        item.update(inner=inner, outer=outer)
        arms[END_NAMES[slot]].append(item)
        if lo == hi and tile == info.sniff_tile:
            pips[NORTH] = pips[SOUTH] = lo
        else:
            pips[slot] = outer
    shares = {t.end: t for t in end_terms(info)}
    ends = [
        {"end": END_NAMES[e], "pip": info.end_pip[e], "open": info.end_open[e], "value": info.end_val[e],
         "counts": e in shares, "note": shares[e].note if e in shares else ""}
        for e in (WEST, EAST, NORTH, SOUTH)
        if info.plays and (e < NORTH or info.sniff_tile >= 0)
    ]
    terms = [{"end": t.name, "value": t.value, "note": t.note} for t in shares.values()]
    return {"centre": centre, "arms": arms, "ends": ends, "count": info.count, "shares": terms,
            "count_sum": count_sum(info, info.count) if info.plays else ""}


def _plain(markup: str) -> str:
    return Text.from_markup(markup).plain


def hand_start(events: list[Event]) -> int:
    """Where the current hand's events start: its deal, or the lots drawn just before it (found
    from the end, so the cost is the hand's length, not the game's)."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].kind == "deal":
            return i - 1 if i > 0 and events[i - 1].kind == "lots" else i
    return 0


def event_json(session: Session, ts: TileSet, e: Event, recent: bool) -> dict[str, Any]:
    """One event for the log panel: its fields (tiles as pip pairs, hidden ones ``null``) and text."""
    out: dict[str, Any] = {"kind": e.kind, "seat": e.player, "text": _plain(describe(session, e)), "recent": recent}
    if e.kind in ("play", "muggins", "draw"):
        out["tile"] = _pair(ts, e.tile) if e.tile >= 0 else None
    if e.kind in ("play", "muggins"):
        out.update(end="lead" if e.end == LEAD else END_NAMES[e.end], count=e.total, points=e.points)
    return out


def _sides(session: Session, scores: tuple[int, ...]) -> list[dict[str, Any]]:
    rules = session.rules
    return [
        {"side": side, "score": score,
         "names": [p.name for s, p in enumerate(session.seats) if rules.side_of(s) == side],
         "yours": 0 <= session.human and rules.side_of(session.human) == side}
        for side, score in enumerate(scores)
    ]


def _result_json(session: Session, game: Game, row: HandScore) -> dict[str, Any] | None:
    """The last hand's end, with every hand revealed (public once the hand is over), and what it
    gave each side (``row``: the hand's line of the score sheet)."""
    if game.phase is Phase.PLAY or len(game.results) != game.hand_index + 1:
        return None
    ts, result = game.ts, game.results[-1]
    names = [p.name for p in session.seats]
    note = hand_end_note(session.rules)
    out: dict[str, Any] = {
        "ended_by": result.ended_by, "winner": result.winner, "side_points": list(result.side_points),
        "lines": [with_names(line, names) for line in result.lines],
        "note": note if note and any("round5" in line for line in result.lines) else "",
        "hands": [{"seat": s, "name": p.name, "tiles": [_pair(ts, t) for t in mask_tiles(game.hands[s])],
                   "pips": result.pips[s]} for s, p in enumerate(session.seats)],
        "scores": [{"side": side, "names": side_names(session, side), "before": total - gained, "play": play,
                    "end": end, "after": total}
                   for side, (play, end, total, gained) in enumerate(zip(row.play, row.end or (), row.total,
                                                                          row.gained))],
    }
    if game.phase is Phase.GAME_OVER:
        winners = [p.name for s, p in enumerate(session.seats)
                   if game.winner is not None and session.rules.side_of(s) == game.winner]
        out["game_winner"] = winners or None
        out["winner_text"] = winner_text(session)
    return out


def _rules_json(session: Session) -> dict[str, Any]:
    rules = session.rules
    return {"name": rules.name, "players": rules.num_players, "target": rules.target,
            "scoring": str(getattr(rules.scoring, "value", rules.scoring)),
            "points": str(getattr(rules.points, "value", rules.points)),
            "sniff": str(getattr(rules.sniff, "value", rules.sniff)),
            "muggins_claims": rules.muggins_claims, "partnership": rules.partnership}


def _sheet_json(sheet: list[HandScore]) -> list[dict[str, Any]]:
    """The score sheet: per hand, per side, the points in play, at the end (null while the hand
    is in play) and the total after it."""
    return [{"hand": r.hand, "over": r.over,
             "sides": [{"play": r.play[i], "end": None if r.end is None else r.end[i], "total": r.total[i]}
                       for i in range(len(r.play))]} for r in sheet]


def _pegs_json(board: list[tuple[int, int]]) -> list[dict[str, int]]:
    """Each side's pegs on a cribbage board: ``front`` at the score, ``back`` at the one before."""
    return [{"front": front, "back": back} for front, back in board]


def _table(session: Session, info: InfoState, events: list[dict[str, Any]], inline: list[bool],
           result: dict[str, Any] | None, target: str | None, sheet: list[HandScore],
           board: list[tuple[int, int]]) -> dict[str, Any]:
    """The table as a seat sees it, the fields every view and replay frame shares: ``inline``
    flags each placement laid in line, ``result`` the hand-over panel, ``target`` the target's
    note, ``sheet`` the score sheet and ``board`` the cribbage pegs."""
    return {
        "rules": _rules_json(session),
        "phase": PHASES[info.phase],
        "hand_number": info.hand_index + 1,
        "turn": info.turn,
        "leader": info.leader,
        "sides": _sides(session, info.scores),
        "seats": [{"seat": s, "name": p.name, "engine": p.engine, "human": p.spec == HUMAN, "side": session.rules.side_of(s),
                   "tiles": info.hand_sizes[s], "you": s == session.human} for s, p in enumerate(session.seats)],
        "boneyard": {"size": info.boneyard_size, "drawable": max(info.drawable, 0)},
        "layout": layout_json(session.game.ts, info, inline),
        "events": events,
        "result": result,
        "target_note": target,
        "sheet": _sheet_json(sheet),
        "pegs": _pegs_json(board),
    }


def _base(session: Session, info: InfoState, events: list[dict[str, Any]], sheet: list[HandScore],
          board: list[tuple[int, int]] | None = None) -> dict[str, Any]:
    """The fields the seat's view and a full log's replay frame share; ``events``: the current
    hand's, as :func:`event_json` gives them; ``sheet``: the score sheet, the current hand last;
    ``board``: the cribbage pegs (default: worked out from the game's events)."""
    game = session.game
    return _table(session, info, events, _inline_flags(game), _result_json(session, game, sheet[-1]) if sheet else None,
                  target_note(session), sheet,
                  board if board is not None else pegs(session.rules, game.events, game.results))


def seat_view(session: Session) -> dict[str, Any]:
    """What the human's seat may know now, as JSON-ready data (plus its moves and their points)."""
    game, seat = session.game, session.human
    ts, codec = game.ts, game.codec
    info = info_state(game, seat)
    start = hand_start(game.events)
    mark = max(session.mark - start, 0)
    events = [event_json(session, ts, e, i >= mark) for i, e in enumerate(game.public_events(seat, start))]
    view = _base(session, info, events, score_sheet(game))
    options = []
    if session.human_to_move:
        for o in session.options():
            tile, slot, inline = codec.decode(o.action)
            options.append({
                "action": o.action, "text": o.text, "points": o.points, "domino": o.domino,
                "tile": _pair(ts, tile) if tile >= 0 else None, "draw": tile < 0, "inline": inline,
                "end": None if tile < 0 else "lead" if slot == LEAD else END_NAMES[slot],
            })
    view.update(
        seat=seat,
        hand=[_pair(ts, t) for t in mask_tiles(info.hand)],
        your_turn=session.human_to_move,
        options=options,
        can_undo=session.can_undo,
        rated=session.rated,
        notes=list(session.notes),
    )
    return view


def replay_frames(log: GameLog) -> Iterator[dict[str, Any]]:
    """Every position of a logged game, every hand face up: each deal, then each decision (made
    one at a time, so a caller may stop early)."""
    game = Game(log.rules, log.seed, max_hands=log.max_hands)
    view = Session.viewer(log, game)
    ts, rules = game.ts, log.rules
    described: list[dict[str, Any]] = []  # the current hand's events, each described once
    sheet: list[HandScore] = []  # the finished hands' lines of the score sheet
    total = [0] * rules.num_sides  # the scores before the current hand
    play = [0] * rules.num_sides  # the current hand's points in play so far
    board: list[tuple[int, int]] = [(0, 0)] * rules.num_sides  # the cribbage pegs

    def frame(title: str) -> dict[str, Any]:
        nonlocal board
        events = game.events
        fresh = events[start + len(described):]
        board = pegs(rules, fresh, game.results[-1:], board)
        for e in fresh:
            described.append(event_json(view, ts, e, False))
            if e.kind in ("play", "muggins") and e.points:
                play[rules.side_of(e.player)] += e.points
        mark = view.mark - start
        shown = [{**d, "recent": i >= mark} if i >= mark else d for i, d in enumerate(described)]
        over = len(game.results) == game.hand_index + 1
        end = tuple(game.results[-1].side_points) if over else None
        now = tuple(t + p + (end[i] if end else 0) for i, (t, p) in enumerate(zip(total, play)))
        out = _base(view, info_state(game, 0), shown, [*sheet, HandScore(game.hand_index + 1, tuple(play), end, now)],
                    board)
        out["title"] = title
        out["hands"] = [[_pair(ts, t) for t in mask_tiles(h)] for h in game.hands]
        return out

    start = 0
    for rec in log.records:
        if game.results:
            end = game.results[-1].side_points
            sheet.append(HandScore(game.hand_index + 1, tuple(play), tuple(end),
                                   tuple(t + p + e for t, p, e in zip(total, play, end))))
            total[:] = sheet[-1].total
            play[:] = [0] * rules.num_sides
        described.clear()
        game.start_hand(rec.deal)
        start = hand_start(game.events)
        view.mark = len(game.events)
        yield frame(f"hand {game.hand_index + 1}: the deal")
        for action, claim in rec.actions:
            who = view.seats[game.turn].name
            view.mark = len(game.events)
            game.step(action, claim)
            yield frame(f"hand {game.hand_index + 1}: {who} — {game.codec.describe(action)}")


def _seat_result_json(session: Session, pos: SeatPosition, names: list[str]) -> dict[str, Any] | None:
    """The end of a hand in a seat's record: the scoring and the pips left in every hand, the
    seat's own tiles left, no other hand's (the record does not hold them)."""
    result, row = pos.result, pos.row
    if result is None or row.end is None:
        return None
    ts, info = session.game.ts, pos.info
    note = hand_end_note(session.rules)
    out: dict[str, Any] = {
        "ended_by": result.ended_by, "winner": result.winner, "side_points": list(result.side_points),
        "lines": [with_names(line, names) for line in result.lines],
        "note": note if note and any("round5" in line for line in result.lines) else "",
        "hands": [{"seat": s, "name": name, "pips": result.pips[s],
                   "tiles": [_pair(ts, t) for t in mask_tiles(info.hand)] if s == info.seat else None}
                  for s, name in enumerate(names)],
        "scores": [{"side": side, "names": side_names(session, side), "before": total - gained, "play": play,
                    "end": end, "after": total}
                   for side, (play, end, total, gained) in enumerate(zip(row.play, row.end, row.total, row.gained))],
    }
    if info.phase is Phase.GAME_OVER:
        ending = next(e for e in pos.events if e.kind == "game_end")
        winner = ending.player if ending.player >= 0 else None
        winners = [n for s, n in enumerate(names) if winner is not None and session.rules.side_of(s) == winner]
        out["game_winner"] = winners or None
        out["winner_text"] = (f"{' & '.join(winners)} {'win' if winners == ['You'] or len(winners) > 1 else 'wins'}"
                              if winners else "a draw")
    return out


def seat_replay_frames(log: SeatLog) -> Iterator[dict[str, Any]]:
    """Every position of a seat's record as that seat saw it: its own tiles face up, every other
    hand as tile backs, the boneyard by its size (one frame per move, made one at a time)."""
    game = Game(log.rules, 0)
    seats = [SeatPlayer(name, spec) for name, spec in zip(log.names, log.players)]
    view = Session(game, seats, human=log.seat)
    ts, names = game.ts, list(log.names)
    note = record_note(log)
    described: dict[int, list[dict[str, Any]]] = {}
    board: list[tuple[int, int]] = [(0, 0)] * log.rules.num_sides  # the cribbage pegs
    for pos in seat_positions(log):
        hand = described.setdefault(pos.hand_index, [])
        fresh = pos.hand_events[len(hand):pos.stop]
        board = pegs(log.rules, fresh, [pos.result] if pos.result else [], board)
        for e in fresh:
            hand.append(event_json(view, ts, e, False))
        events = [{**d, "recent": True} if i >= pos.new and pos.number else d
                  for i, d in enumerate(hand[:pos.stop])]
        info = pos.info
        if pos.number == 0:
            title = f"hand {pos.hand_index + 1}: the deal"
        else:
            said = " ".join(d["text"] for d in hand[pos.new:pos.stop] if d["kind"] not in ("hand_end", "game_end"))
            title = f"hand {pos.hand_index + 1}: {said}"
        yield {
            **_table(view, info, events, list(pos.inline), _seat_result_json(view, pos, names), None,
                     list(pos.sheet), board),
            "title": title,
            "hands": [[_pair(ts, t) for t in mask_tiles(info.hand)] if s == log.seat else None
                      for s in range(log.rules.num_players)],
            "record": {"seat": log.seat, "name": names[log.seat], "note": note},
        }
