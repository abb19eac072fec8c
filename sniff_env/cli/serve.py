"""``sniff serve``: play in the browser, at a table served on this machine (127.0.0.1 by default;
``--host`` another address, and the server says what that exposes).

The options of new games are those of ``sniff play``. Open the printed address; each game has
an id in the address, so a reload (or a bookmark, while the server runs) brings it back. The
server keeps ``--max-games`` games (the least recently used one is dropped beyond that) and
drops a game idle for ``--idle-minutes``; a dropped game's log stays in ``--games-dir``. A game
is dealt when the player starts one (opening the page deals nothing), and its log is written at
its first move: a game nobody played leaves no log. At start, and every hundred new games, the server removes its own logs
older than ``--keep-days`` days or beyond the newest ``--keep-logs`` (named ``web-...``; other
files there, and the logs of the games it holds, are left alone), and temporary files left
there by an interrupted write. A game continued with ``--resume`` is open as soon as the
server listens; its agents to move play then, while the page waits for them. Friends play at one
table through the new-game form (see :mod:`sniff_env.web.tables`): each joins by their seat's link.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path

from sniff_env.cli.play import add_game_arguments, main_for
from sniff_env.errors import SniffError
from sniff_env.options import (
    check_output_file,
    check_output_folder,
    positive_float,
    positive_int,
    real_number,
    rules_from_args,
    whole_number,
)
from sniff_env.play.levels import prepare_searches
from sniff_env.play.session import Session, chosen_level, chosen_opponents, default_save_path
from sniff_env.web.housekeeping import KEEP_DAYS, KEEP_LOGS, clean_games_folder
from sniff_env.web.sessions import IDLE_S, MAX_GAMES, MAX_HINT_BUDGET_S, TableOptions

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine alone; another, 0.0.0.0 for "
                             "all, lets other machines in, as friends at a table need: the server says what that exposes)")
    parser.add_argument("--port", type=whole_number(0, 65535, "a port, 0 to 65535"), default=8765,
                        help="port, 0..65535 (default: 8765; 0 picks a free one)")
    parser.add_argument("--games-dir", type=Path, metavar="DIR",
                        help="where game logs are written (default: $SNIFF_HOME/games, ~/.sniff by default)")
    parser.add_argument("--hint-budget", default=1.0, metavar="SECONDS",
                        type=real_number(f"a number of seconds above 0, at most {MAX_HINT_BUDGET_S:g}",
                                         lambda v: 0 < v <= MAX_HINT_BUDGET_S),
                        help=f"thinking time of the hint, above 0 and at most {MAX_HINT_BUDGET_S:g} (default: 1.0)")
    parser.add_argument("--max-games", type=positive_int, default=MAX_GAMES, metavar="N",
                        help=f"games kept at once; beyond that the least recently used is dropped "
                             f"(default: {MAX_GAMES})")
    parser.add_argument("--idle-minutes", type=positive_float, default=IDLE_S / 60, metavar="MINUTES",
                        help=f"a game idle this long is dropped (default: {IDLE_S / 60:g})")
    parser.add_argument("--keep-logs", type=whole_number(0, what="a whole number, 0 or more"), default=KEEP_LOGS,
                        metavar="N", help=f"at start, keep the newest N logs this server wrote in --games-dir "
                                          f"and remove older ones (default: {KEEP_LOGS})")
    parser.add_argument("--keep-days", type=positive_float, default=KEEP_DAYS, metavar="DAYS",
                        help=f"at start, remove the logs this server wrote more than DAYS days ago "
                             f"(default: {KEEP_DAYS:g})")


def served_hosts(host: str) -> tuple[str, ...]:
    """The host names a server bound to ``host`` answers to: the loopback names for a loopback
    address, that name alone for another one, any for a wildcard address (empty)."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return (host.lower(), *LOOPBACK_NAMES) if host.lower() == "localhost" else (host.lower(),)
    if address.is_unspecified:
        return ()
    if address.is_loopback:
        return tuple(dict.fromkeys((str(address), *LOOPBACK_NAMES)))
    return (str(address),)


def exposure(host: str) -> str | None:
    """What a server listening on ``host`` exposes, in words for its console; None on a loopback
    address (this machine only)."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        if host.lower() == "localhost":
            return None
        where = f"the address {host} names"
    else:
        if address.is_loopback:
            return None
        where = "every address of this machine" if address.is_unspecified else f"{address}"
    return (f"Listening on {where}, not on this machine alone: anyone who can reach it can open the page, deal "
            "tables of their own and replay logs, with no password. A seat at a table shared with friends is held "
            "by its link alone (…/?game=…): send each friend their own link, and to nobody else. The traffic is "
            "plain HTTP, not encrypted: serve on a network you trust.")


def check_games_dir(folder: Path | None) -> None:
    """Refuse at startup a games folder that cannot be made or written."""
    check_output_folder(default_save_path(0, folder).parent)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, or a :class:`SniffError` saying why not."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise SniffError(f"cannot listen on {host!r}: it is not an address of this machine ({exc})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SniffError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def run(args: argparse.Namespace) -> int:
    from sniff_env.web.app import create_app
    from sniff_env.web.server import serve

    rules = rules_from_args(args)
    opponents, note = chosen_opponents(args.opponent, rules, args.level)
    options = TableOptions(
        rules=rules, opponents=tuple(opponents), partner=args.partner, seat=args.seat,
        seed=args.seed, rated=args.rated, games_dir=args.games_dir, save_path=args.save,
        overwrite=args.force, hint_budget_s=args.hint_budget, max_games=args.max_games,
        idle_s=args.idle_minutes * 60, hosts=served_hosts(args.host), keep_logs=args.keep_logs,
        keep_days=args.keep_days, level=chosen_level(args.opponent, args.level),
    )
    check_games_dir(options.games_dir)
    if options.save_path is not None:
        check_output_file(options.save_path, options.overwrite)
    app = create_app(options)
    # the seats are filled once here, so that a bad --opponent or --seat stops the server at once
    seated = Session.start(options.rules, list(options.opponents), human=options.seat, partner=options.partner,
                           agents=app.state.store.agents)
    # a searching opponent's kernels compile in the background (once): the page opens at once, and
    # the agent waits for them at its first move (a level picked later in the browser compiles
    # at its first move, the page showing what compiles)
    app.state.store.warming = prepare_searches(seated.seats)
    query, resumed = "", None
    if args.resume is not None:  # its agents move once the server listens
        resumed = app.state.store.resume(args.resume, advance=False)
        query = f"?game={resumed.id}"
    folder = default_save_path(0, options.games_dir).parent
    spare = [p for p in (args.resume, options.save_path) if p is not None]
    cleaned = clean_games_folder(folder, args.keep_logs, args.keep_days, spare)
    for line in dict.fromkeys([*([note] if note else []), *seated.notes]):
        print(line, flush=True)
    sock = listen(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"sniff table at http://{shown}:{port}/{query}  (Ctrl-C stops the server)", flush=True)
    exposed = exposure(args.host)
    if exposed:
        print(exposed, flush=True)
    if cleaned.logs or cleaned.temporary:
        print(f"{cleaned} in {folder}", flush=True)
    def start() -> None:
        if resumed is not None:
            app.state.workers.submit(app.state.store.advance, resumed, game=resumed.id)

    try:
        serve(app, sock, on_stop=app.state.workers.close, on_start=start)
    finally:
        if app.state.store.warming is not None:
            app.state.store.warming.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    return main_for("sniff serve", add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())
