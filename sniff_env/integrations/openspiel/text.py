"""The strings of the OpenSpiel game: a seat's information state (its whole view of the game so
far), its observation (the table now, as the seat sees it) and the full state.

The information state is built from the engine's public events (other seats' drawn tiles
hidden) and the seat's own deals, so it holds what that seat may know and nothing else.
"""

from __future__ import annotations

from sniff_env.actions import END_NAMES, LEAD
from sniff_env.game import Event, Game
from sniff_env.infostate import info_state
from sniff_env.integrations.openspiel.play import ChancePlay, Stage
from sniff_env.tiles import TileSet, mask_tiles


def _tiles(ts: TileSet, tiles: list[int] | tuple[int, ...]) -> str:
    return " ".join(ts.name(t) for t in tiles) or "-"


def _event(ts: TileSet, e: Event, voluntary: bool) -> str:
    if e.kind == "play":
        where = "lead" if e.end == LEAD else END_NAMES[e.end]
        return f"s{e.player} {ts.name(e.tile)} {where} ={e.total}" + (f" +{e.points}" if e.points else "")
    if e.kind == "draw":
        tile = "?" if e.tile < 0 else ts.name(e.tile)
        return f"s{e.player} draws {tile}" + (" by choice" if voluntary else "")
    if e.kind == "pass":
        return f"s{e.player} passes"
    if e.kind == "muggins":
        return f"s{e.player} muggins +{e.points}"
    if e.kind == "game_end":
        return "game over" + (f", side {e.player} wins" if e.player >= 0 else ", drawn")
    return ""


def _hand_header(game: Game, hand: int, seat: int) -> str:
    deal = game.records[hand].deal if hand < len(game.records) else game.deal
    ts = game.ts
    lots = f" lots {_tiles(ts, deal.lots)};" if deal.lots else ""
    return f"hand {hand}:{lots} s{deal.leader} leads; own {_tiles(ts, deal.hands[seat])}"


def information_state_string(play: ChancePlay, seat: int) -> str:
    """Everything ``seat`` has seen, in order: lots, its own tiles, every public event, its own
    draws, the hand results; nothing hidden from it."""
    game, ts = play.game, play.ts
    lines = [f"seat {seat}"]
    voluntary = set(play.voluntary)
    events = game.public_events(seat) if play.hand_started else []
    hand = -1
    for i, e in enumerate(events):
        if e.kind == "deal":
            hand = e.total
            lines.append(_hand_header(game, hand, seat))
        elif e.kind == "hand_end":
            r = game.results[hand]
            lines.append(f"hand over: {r.ended_by}; pips {list(r.pips)}; points {list(r.side_points)}")
        elif e.kind != "lots":
            lines.append(_event(ts, e, i in voluntary))
    if play.stage is Stage.DRAW:
        start = len(game.events)
        for j, e in enumerate(play.preview):
            hidden = e.kind == "draw" and e.player != seat
            lines.append(_event(ts, e._replace(tile=-1) if hidden else e, start + j in voluntary))
    elif play.stage in (Stage.LOTS, Stage.LEADER, Stage.DEAL):
        k = play.rules.hand_size or 1
        own = sorted(t for i, t in enumerate(play.dealt) if i // k == seat)
        lots = f" lots {_tiles(ts, play.lots)};" if play.lots else ""
        leader = f" s{play.leader} leads;" if play.leader >= 0 and play.stage is Stage.DEAL else ""
        lines.append(f"hand {game.hand_index + 1}:{lots}{leader} dealt {len(play.dealt)}, own {_tiles(ts, own)}")
    return "\n".join(lines)


def observation_string(play: ChancePlay, seat: int) -> str:
    """The table now as ``seat`` sees it: its tiles, the ends, the count, hand sizes, the
    boneyard, the known missing pips and the scores."""
    if not play.hand_started:
        return f"seat {seat}; dealing"
    info = info_state(play.game, seat)
    ts = play.ts
    ends = " ".join(
        f"{END_NAMES[e]}:{info.end_pip[e]}{'' if info.end_open[e] else 'x'}"
        for e in range(4)
        if info.plays and (e < 2 or info.sniff_tile >= 0)
    )
    lacking = " ".join(
        f"s{s}:{''.join(str(p) for p in range(ts.max_pip + 1) if info.lacking[s] >> p & 1)}"
        for s in range(len(info.lacking))
        if info.lacking[s]
    )
    return (
        f"seat {seat}; hand {info.hand_index}; own {_tiles(ts, mask_tiles(info.hand))}; "
        f"ends {ends or '-'}; count {info.count}; sizes {list(info.hand_sizes)}; "
        f"boneyard {info.boneyard_size}; lacking {lacking or '-'}; scores {list(info.scores)}; "
        f"turn s{info.turn}"
    )


def state_string(play: ChancePlay) -> str:
    """The full state: every hand, the count, the scores and what comes next."""
    game, ts = play.game, play.ts
    head = f"stage {play.stage.name.lower()}; scores {list(game.scores)}"
    if not play.hand_started or play.stage in (Stage.LOTS, Stage.LEADER, Stage.DEAL):
        return f"{head}; hand {game.hand_index + 1} being dealt: lots {_tiles(ts, play.lots)}; dealt {_tiles(ts, play.dealt)}"
    hands = "; ".join(f"s{s} {_tiles(ts, mask_tiles(h))}" for s, h in enumerate(game.hands))
    plays = " ".join(ts.name(t) for t, _, _ in game.plays)
    waiting = f"; s{play.drawer} draws after {_tiles(ts, play.drawn)}" if play.stage is Stage.DRAW else ""
    return f"{head}; hand {game.hand_index}; {hands}; played {plays or '-'}; count {game.count}; turn s{game.turn}{waiting}"
