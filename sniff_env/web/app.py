"""The web table's HTTP interface (FastAPI): the page, its static files and a small JSON API.

======================================  =========================================================
``GET  /``                              the page (``?game=ID`` reopens a game; ``#replay``: replays)
``GET  /api/setup``                     what the new-game form offers (presets, opponents, targets)
                                        and the game the server deals unasked (``server``)
``POST /api/games``                     a new game with the server's options, or as chosen:
                                        ``{"preset", "players", "partnership",
                                        "muggins_claims", "target", "opponent", "rated"}``;
                                        its view
``POST /api/tables``                    a table shared with friends (:mod:`.tables`): the
                                        game's fields less ``opponent``, ``"seats"`` (per seat
                                        ``"me"``, ``"friend"`` or a level) and ``"takeover_s"``;
                                        the host's view, whose ``id`` is the host seat's key and
                                        whose ``table.links`` are the friends'
``GET  /api/games/{id}/guide``          the game's rules in words, for the help panel
``GET  /api/guide``                     how to play a preset, in words, before a game of it:
                                        ``?preset=&players=&partnership=&muggins_claims=``
``GET  /api/stats``                     the player's record across finished games (kept in the
                                        player's data folder, see :mod:`sniff_env.play.stats`)
``GET  /api/games/{id}``                the human seat's view (what that seat may know)
``POST /api/games/{id}/move``           ``{"version", "action", "claim"}``: play, then the agents
``POST /api/games/{id}/undo``           ``{"version"}``: take back the last move (not when rated)
``POST /api/games/{id}/next``           ``{"version"}``: deal the next hand
``GET  /api/games/{id}/hint``           the search player's value of each legal move (not in a
                                        rated game: 403)
``GET  /api/games/{id}/log``            once the game is over, its JSON log (the format of
                                        ``sniff play``); until then what the human's seat may
                                        know of it (``sniff-seat-log``: no seed, no other hand)
``POST /api/replay``                    a game log in the body; every position, hands face up (a
                                        seat's record: that seat's view, other hands hidden)
``GET  /api/recent``                    the newest finished games in the games folder (see
                                        :mod:`.recent`): name, date, preset, players, result
``GET  /api/recent/{name}``             the replay of one of them, as ``POST /api/replay`` gives it
======================================  =========================================================

``{id}`` is a game's key: the id of a game of one person, or at a shared table the key of one
person's seat, which opens that seat and no other (a move for another seat is refused, 403).
No answer holds a tile the human's seat may not see, nor the game's seed, until the game is
over (the full log is written on the server from the game's first change on; a game nobody
played leaves none, and ``GET /`` deals nothing). Every refusal is a 4xx or 5xx answer
``{"error": "...", ...}`` and changes nothing: 404 for an unknown game, 410 for one the server
has dropped (see :mod:`.sessions`), 409 for a stale version or a move out of turn, 400 for an
illegal move, 422 for a malformed body or log, 413 for a body over ``MAX_BODY`` bytes or a log
over the replay limits (see :mod:`.replays`), 403 for a change sent from another site (see
:mod:`.borders`). A change whose log cannot be written is taken back and answered 507.

The agents' moves, hints, logs and replays are worked out in one bounded pool of worker threads
(:mod:`.workers`), shared out in turn between clients (by their address) and their games: when
it is full, or holds as many of this client's requests as one client may have, or
``MAX_REPLAYS`` replays are under way, or a hint for the same game is, the answer is 429 with
``Retry-After``. A change made for an old version of the game is refused (409), and one sent
while another change of the game is under way is answered 503 with ``Retry-After``, before
either takes a worker; a game still busy with an earlier request after ``LOCK_WAIT_S`` seconds
is answered 503 with ``Retry-After``. The page and a game's view are answered on the event
loop, without a worker, so they stay quick while the pool is full (but for the view of a shared
table whose stand-in is due to move: that move takes a worker, and waits for a later view when
none is free).
"""

from __future__ import annotations

import copy
import json
import os
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any, get_type_hints

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, create_model
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from sniff_env.errors import GameOverError, SniffError
from sniff_env.game import Phase
from sniff_env.gamelog import game_log, seat_log
from sniff_env.play.howto import how_to_play, summary
from sniff_env.play.session import HUMAN, LogWriteError, SeatPlayer, check_log_player, default_save_path
from sniff_env.play.stats import StatsError, load_stats, record_game, stats_rows
from sniff_env.play.stats import summary as stats_summary
from sniff_env.players import BUILTIN, agents
from sniff_env.vector.notices import NOTICES
from sniff_env.web.borders import Borders
from sniff_env.web.guide import guide, server_game, setup_choices
from sniff_env.web.job_pool import Busy, Workers
from sniff_env.web.recent import finished_log, recent_games
from sniff_env.web.replays import Stopped, replay_answer
from sniff_env.web.sessions import (
    GameChoice,
    Table,
    TableOptions,
    TableStore,
    WebError,
    held,
    held_async,
    log_refusal,
    stopping,
)
from sniff_env.web.tables import TableChoice, open_table

STATIC = Path(__file__).parent / "static"
MAX_BODY = 1_000_000
"""The longest request body accepted, in bytes (a game log to replay is far shorter)."""
MAX_REPLAYS = 2
"""Replays worked out at once; more are refused (429) rather than queued."""


class Versioned(BaseModel):
    """A request that changes a game: made for ``version`` of it."""

    model_config = ConfigDict(extra="forbid", strict=True)
    version: int


class MoveRequest(Versioned):
    action: int
    claim: bool = False


def request_model(name: str, choice: type, doc: str, **types: Any) -> type[BaseModel]:
    """A strict request model with the fields of the dataclass ``choice`` (``types``: a field's
    type as the JSON body gives it, where it differs)."""
    hints = get_type_hints(choice)
    given: dict[str, Any] = {f.name: (types.get(f.name, hints[f.name]), ... if f.default is MISSING else f.default)
                             for f in fields(choice)}
    return create_model(name, __config__=ConfigDict(extra="forbid", strict=True), __doc__=doc, **given)


_NewGameRequest = request_model(
    "NewGameRequest", GameChoice, "A game as chosen in the new-game form: the fields of :class:`~.sessions.GameChoice`.")
_NewTableRequest = request_model(
    "NewTableRequest", TableChoice, "A shared table as the host chose it: the fields of :class:`~.tables.TableChoice`.",
    seats=list[str])


class ExactStaticFiles(StaticFiles):
    """The static files, each under its own name only: ``app.js/``, ``./app.js`` or ``//app.js``
    name no file (404), where Starlette would normalise them to one."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        asked, root = scope["path"], scope.get("root_path", "")
        route = asked[len(root):] if root and asked.startswith(root) else asked
        if route != "/" + path.replace(os.sep, "/"):
            raise StarletteHTTPException(404, "Not Found")
        return await super().get_response(path, scope)


def _error(status: int, message: str, headers: Mapping[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


def client_of(request: Request) -> str:
    """Who sent ``request``, as the server shares out its work and games: the address it came from."""
    return request.client.host if request.client is not None else ""


async def disconnected(request: Request) -> None:
    """Return once the client has closed the connection (its body must have been read)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def told_players(seats: list[SeatPlayer]) -> list[str]:
    """Each seat's player as a log sent to the browser names it: the person, a built-in player
    (one a log may name, see :func:`~sniff_env.play.session.check_log_player`) or a shipped agent
    by its spec, any other player (a policy file of the server's own) by its seat's name: never
    by the path of a file on the server."""
    shipped = agents.shipped_agents()

    def nameable(seat: int, spec: str) -> bool:
        if spec == HUMAN or spec in shipped:
            return True
        if spec.partition(":")[0] not in BUILTIN:
            return False
        try:
            check_log_player(seat, spec)
        except SniffError:
            return False
        return True

    return [p.spec if nameable(seat, p.spec) else p.name for seat, p in enumerate(seats)]


def count_game(table: Table) -> None:
    """Count the game just finished in the player's record (once); what came of it, a line or
    the reason it could not be counted, goes with the game's view."""
    try:
        row, record = record_game(table.session)
    except StatsError as exc:
        table.stats = {"error": str(exc)}
        return
    table.stats = {"summary": stats_summary(row, record), "played": row.played, "won": row.won,
                   "best": row.best, "streak": row.streak}


def create_app(options: TableOptions, clock: Callable[[], float] | None = None,
               workers: Workers | None = None) -> FastAPI:
    """The application serving games set up by ``options`` (``clock``: seconds, for the idle
    time of games, monotonic by default; ``workers``: the pool of worker threads)."""
    pool = workers or Workers()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            pool.close()

    app = FastAPI(title="Sniff web table", docs_url=None, redoc_url=None, lifespan=lifespan)
    store = TableStore(options) if clock is None else TableStore(options, clock)
    app.state.store, app.state.workers = store, pool
    app.mount("/static", ExactStaticFiles(directory=STATIC), name="static")
    app.add_middleware(Borders, hosts=options.hosts, max_body=MAX_BODY)
    replays = threading.BoundedSemaphore(MAX_REPLAYS)
    page_html = (STATIC / "index.html").read_bytes()
    icon = (STATIC / "favicon.svg").read_bytes()
    choices = {**setup_choices(), "server": server_game(options.rules, options.opponents, options.level, options.rated)}

    @app.exception_handler(WebError)
    async def web_error(_: Request, exc: WebError) -> JSONResponse:
        return _error(exc.status, str(exc), exc.headers, **exc.extra)

    @app.exception_handler(Stopped)
    async def stopped(_: Request, exc: Stopped) -> JSONResponse:
        refusal = stopping()
        return _error(refusal.status, str(refusal), refusal.headers, **refusal.extra)

    @app.exception_handler(SniffError)
    async def game_error(_: Request, exc: SniffError) -> JSONResponse:
        return _error(400, str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_body(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return _error(422, f"malformed request: {problems}")

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> Response:
        return Response(page_html, media_type="text/html")

    @app.api_route("/favicon.ico", methods=["GET", "HEAD"], include_in_schema=False)
    async def favicon() -> Response:
        return Response(icon, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    @app.get("/api/setup")
    async def setup() -> JSONResponse:
        return JSONResponse(choices)

    @app.get("/api/status")
    async def status() -> JSONResponse:
        """Whether the server is compiling (a first use of the search), and how far along."""
        warming = store.warming
        progress = warming.progress() if warming is not None and not warming.ready() else NOTICES.current()
        return JSONResponse({"compiling": bool(progress), "progress": progress})

    @app.post("/api/games")
    async def new_game(request: Request, body: _NewGameRequest | None = None) -> JSONResponse:  # type: ignore[valid-type]
        choice = None if body is None else GameChoice(**body.model_dump())
        if choice is not None:
            choice.rules()  # a bad choice is refused here, before a worker is taken
        client = client_of(request)
        return await pool.run(lambda: JSONResponse(store.new(choice, client).view()), client=client)

    @app.post("/api/tables")
    async def new_table(request: Request, body: _NewTableRequest) -> JSONResponse:  # type: ignore[valid-type]
        asked = body.model_dump()  # type: ignore[attr-defined]
        choice = TableChoice(**{**asked, "seats": tuple(asked["seats"])})
        choice.rules()  # a bad choice is refused here, before a worker is taken
        client = client_of(request)

        def deal() -> JSONResponse:
            table = open_table(choice, store, client)
            return JSONResponse(table.view_for(table.host_key))

        return await pool.run(deal, client=client)

    @app.get("/api/guide")
    async def preset_guide(preset: str, players: int = 2, partnership: bool = False,
                           muggins_claims: bool = False) -> JSONResponse:
        rules = GameChoice(preset, players, partnership, muggins_claims).rules()
        return JSONResponse({"rules": rules.name, "summary": summary(rules), "sections": how_to_play(rules)})

    @app.get("/api/stats")
    async def stats(request: Request) -> JSONResponse:
        def read() -> JSONResponse:
            try:
                record = load_stats()
            except StatsError as exc:
                raise WebError(500, str(exc)) from None
            return JSONResponse({"played": record.played, "won": record.won, "streak": record.streak,
                                 "best_streak": record.best_streak, "rows": stats_rows(record)})

        return await pool.run(read, client=client_of(request))

    @app.get("/api/games/{game_id}/guide")
    async def rules_guide(game_id: str) -> JSONResponse:
        table = store.get(game_id)
        return JSONResponse({"rules": table.session.rules.name, "sections": guide(table.session.rules)})

    @app.get("/api/games/{game_id}")
    async def view(request: Request, game_id: str) -> JSONResponse:
        table = store.get(game_id)
        if not table.changing and table.due(store.clock()):
            try:  # a stand-in's move is due (a shared table): made now, or at a later request
                return await changed(request, table, game_id, table.version, table.take_over, "the stand-in's move")
            except WebError as exc:
                if exc.status not in (409, 429, 503):  # another change came first, or the server is busy
                    raise
        async with held_async(table, stop=pool.closing):
            return JSONResponse(table.view_for(game_id))

    def change(table: Table, key: str, version: int, act: Any, what: str) -> JSONResponse:
        """Make a change and write the log, both or neither; count the change (in a worker); the
        view of the seat that ``key`` opens."""
        with held(table):
            table.check(version)
            try:
                table.commit(act, what)
            except WebError:
                raise
            except LogWriteError as exc:
                raise log_refusal(what, exc) from None
            except GameOverError as exc:
                raise WebError(409, str(exc)) from None
            except SniffError as exc:
                raise WebError(400, str(exc)) from None
            table.version += 1
            table.fresh = False  # the log is on disk now
            if table.counts and table.session.game.phase is Phase.GAME_OVER and table.stats is None:
                count_game(table)
            return JSONResponse(table.view_for(key))

    async def changed(request: Request, table: Table, key: str, version: int, act: Any, what: str) -> JSONResponse:
        """:func:`change` in a worker, once the version is checked and the game taken (409, 503)."""
        table.claim(version)
        return await pool.run(change, table, key, version, act, what, done=table.release,
                              client=client_of(request), game=table.id)

    @app.post("/api/games/{game_id}/move")
    async def move(request: Request, game_id: str, body: MoveRequest) -> JSONResponse:
        table = store.get(game_id)
        return await changed(request, table, game_id, body.version,
                             lambda: table.play(game_id, body.action, body.claim), "the move")

    @app.post("/api/games/{game_id}/undo")
    async def undo(request: Request, game_id: str, body: Versioned) -> JSONResponse:
        table = store.get(game_id)
        return await changed(request, table, game_id, body.version, lambda: table.undo(game_id), "the undo")

    @app.post("/api/games/{game_id}/next")
    async def next_hand(request: Request, game_id: str, body: Versioned) -> JSONResponse:
        table = store.get(game_id)
        return await changed(request, table, game_id, body.version, lambda: table.next_hand(game_id),
                             "the next deal")

    @app.get("/api/games/{game_id}/hint")
    async def hint(request: Request, game_id: str) -> JSONResponse:
        table = store.get(game_id)
        async with held_async(table, stop=pool.closing):
            seat = table.seat_session(game_id)
            if seat.rated:
                raise WebError(403, "hints are off in a rated game")
            if not seat.human_to_move:
                raise WebError(409, "a hint is for your turn, and it is not your turn")
            if table.hinting:
                raise Busy("a hint for this game is being worked out already; it comes in a moment",
                           retry_after_s=options.hint_budget_s)
            position = copy.copy(seat)  # the search works on a copy: the game is not held
            position.game = seat.game.copy()
            version = table.version
            table.hinting = True
        try:
            hints = await pool.run(position.hint, options.hint_budget_s, client=client_of(request), game=table.id)
        finally:
            table.hinting = False
        return JSONResponse({"version": version, "hints": [{"action": o.action, "text": o.text, "value": round(v, 2)}
                                                           for o, v in hints]})

    @app.get("/api/games/{game_id}/log")
    async def log(request: Request, game_id: str) -> JSONResponse:
        table = store.get(game_id)
        async with held_async(table, stop=pool.closing):
            s = table.seat_session(game_id)
            game, human, seats, meta = s.game.copy(), s.human, list(s.seats), s.meta

        def write() -> JSONResponse:
            players = told_players(seats)
            if game.phase is Phase.GAME_OVER and table.reveals_at_end:
                data, name = game_log(game, players, meta), f"sniff-{game_id}.json"
            else:
                data, name = seat_log(game, human, players, meta), f"sniff-{game_id}-so-far.json"
            return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="{name}"'})

        return await pool.run(write, client=client_of(request), game=table.id)

    @app.post("/api/replay")
    async def replay(request: Request) -> Response:
        body = await request.body()  # at most MAX_BODY bytes: the border refuses longer ones
        if not replays.acquire(blocking=False):
            raise Busy(f"the server is replaying {MAX_REPLAYS} logs already; try again in a moment")
        stop = threading.Event()

        def given_up() -> bool:
            return stop.is_set() or pool.closing.is_set()

        return await pool.run(replay_answer, body, given_up, done=replays.release,
                              gone=lambda: disconnected(request), stop=stop, client=client_of(request))

    add_recent_routes(app, options, pool, replays)
    return app


def add_recent_routes(app: FastAPI, options: TableOptions, pool: Workers, replays: threading.BoundedSemaphore) -> None:
    """``GET /api/recent`` and ``GET /api/recent/{name}``: the finished games in the games folder
    and the replay of one (read in a worker; nothing is dealt or written)."""
    folder = default_save_path(0, options.games_dir).parent

    @app.get("/api/recent")
    async def recent(request: Request) -> JSONResponse:
        return await pool.run(lambda: JSONResponse({"games": recent_games(folder)}), client=client_of(request))

    @app.get("/api/recent/{name}")
    async def recent_replay(request: Request, name: str) -> Response:
        if not replays.acquire(blocking=False):
            raise Busy(f"the server is replaying {MAX_REPLAYS} logs already; try again in a moment")
        stop = threading.Event()

        def replay_one() -> Response:
            data = finished_log(folder, name)
            # the players as a log sent to the browser names them: never a file of the server's
            specs = data.get("players")
            if isinstance(specs, list) and all(isinstance(p, str) for p in specs):
                names = data.get("meta", {}).get("names") if isinstance(data.get("meta"), dict) else None
                if not (isinstance(names, list) and len(names) == len(specs)):
                    names = [f"seat {s + 1}" for s in range(len(specs))]
                data["players"] = told_players([SeatPlayer(str(n), p) for n, p in zip(names, specs)])
            body = json.dumps(data, allow_nan=False).encode()
            return replay_answer(body, lambda: stop.is_set() or pool.closing.is_set())

        return await pool.run(replay_one, done=replays.release, gone=lambda: disconnected(request), stop=stop,
                              client=client_of(request))
