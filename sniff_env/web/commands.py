"""``sniff serve``: play in the browser, at a table served on this machine (127.0.0.1 by default).

The options of new games are those of ``sniff play``. Open the printed address; each game has
an id in the address, so a reload (or a bookmark, while the server runs) brings it back.
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from ..commands.common import rules_from_args
from ..play.commands import add_arguments as add_play_arguments
from ..play.commands import main_for
from ..play.session import Session
from .sessions import TableOptions


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_play_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default: 8765; 0 picks a free one)")
    parser.add_argument("--games-dir", type=Path, metavar="DIR",
                        help="where game logs are written (default: $SNIFF_HOME/games, ~/.sniff by default)")
    parser.add_argument("--hint-budget", type=float, default=1.0, metavar="SECONDS",
                        help="thinking time of the hint (default: 1.0)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app

    options = TableOptions(
        rules=rules_from_args(args), opponents=tuple(args.opponent), partner=args.partner, seat=args.seat,
        seed=args.seed, rated=args.rated, games_dir=args.games_dir, save_path=args.save,
        hint_budget_s=args.hint_budget,
    )
    # the seats are filled once here, so that a bad --opponent or --seat stops the server at once
    Session.start(options.rules, list(options.opponents), human=options.seat, partner=options.partner)
    app = create_app(options)
    query = ""
    if args.resume is not None:
        query = f"?game={app.state.store.resume(args.resume).id}"
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"sniff table at http://{shown}:{port}/{query}  (Ctrl-C stops the server)", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
    return 0


def main(argv: list[str] | None = None) -> int:
    return main_for("sniff serve", add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())
