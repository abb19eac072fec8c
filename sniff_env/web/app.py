"""The web table's HTTP interface (FastAPI): the page, its static files and a small JSON API.

======================================  =========================================================
``GET  /``                              the page (``?game=ID`` reopens a game; ``#replay``: replays)
``POST /api/games``                     a new game with the server's options; its view
``GET  /api/games/{id}``                the human seat's view (what that seat may know)
``POST /api/games/{id}/move``           ``{"version", "action", "claim"}``: play, then the agents
``POST /api/games/{id}/undo``           ``{"version"}``: take back the last move (not when rated)
``POST /api/games/{id}/next``           ``{"version"}``: deal the next hand
``GET  /api/games/{id}/hint``           the search player's value of each legal move
``GET  /api/games/{id}/log``            once the game is over, its JSON log (the format of
                                        ``sniff play``); until then what the human's seat may
                                        know of it (``sniff-seat-log``: no seed, no other hand)
``POST /api/replay``                    a game log in the body; every position, hands face up
======================================  =========================================================

No answer holds a tile the human's seat may not see, nor the game's seed, until the game is
over (the full log is written on the server all along). Every refusal is a 4xx answer
``{"error": "...", ...}`` and changes nothing: 404 for an unknown game, 410 for one the server
has dropped (see :mod:`.sessions`), 409 for a stale version or a move out of turn, 400 for an
illegal move, 422 for a malformed body or log, 413 for a body over ``MAX_BODY`` bytes, 429 when
``MAX_REPLAYS`` replays are being worked out already, 403 for a change sent from another site
(see :mod:`.borders`). A change whose log cannot be written is taken back and answered 507.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import GameOverError, SniffError
from ..game import Phase
from ..gamelog import GameLogError, game_log, parse_game_log, read_json, seat_log
from ..play.session import LogWriteError
from .borders import Borders
from .sessions import Table, TableOptions, TableStore, WebError, log_refusal
from .views import replay_frames

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


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def replay_answer(body: bytes) -> JSONResponse:
    """The frames of the uploaded log, or a 422 saying why it cannot be replayed (blocking work:
    run it in a worker thread)."""
    try:
        log = parse_game_log(read_json(body, "the uploaded log"), "the uploaded log")
    except GameLogError as exc:
        return _error(422, str(exc))
    return JSONResponse({"players": log.players, "frames": replay_frames(log)})


def create_app(options: TableOptions, clock: Callable[[], float] | None = None) -> FastAPI:
    """The application serving games set up by ``options`` (``clock``: seconds, for the idle
    time of games; monotonic by default)."""
    app = FastAPI(title="Sniff web table", docs_url=None, redoc_url=None)
    store = TableStore(options) if clock is None else TableStore(options, clock)
    app.state.store = store
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(Borders, hosts=options.hosts, max_body=MAX_BODY)
    replays = threading.BoundedSemaphore(MAX_REPLAYS)

    @app.exception_handler(WebError)
    async def web_error(_: Request, exc: WebError) -> JSONResponse:
        return _error(exc.status, str(exc), **exc.extra)

    @app.exception_handler(SniffError)
    async def game_error(_: Request, exc: SniffError) -> JSONResponse:
        return _error(400, str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_body(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return _error(422, f"malformed request: {problems}")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.post("/api/games")
    def new_game() -> dict[str, Any]:
        return store.new().view()

    @app.get("/api/games/{game_id}")
    def view(game_id: str) -> dict[str, Any]:
        return store.get(game_id).view()

    def change(table: Table, version: int, act: Any, what: str) -> dict[str, Any]:
        """Make a change and write the log, both or neither; count the change."""
        with table.lock:
            table.check(version)
            try:
                table.session.commit(act, what)
            except WebError:
                raise
            except LogWriteError as exc:
                raise log_refusal(what, exc) from None
            except GameOverError as exc:
                raise WebError(409, str(exc)) from None
            except SniffError as exc:
                raise WebError(400, str(exc)) from None
            table.version += 1
            return table.view()

    @app.post("/api/games/{game_id}/move")
    def move(game_id: str, body: MoveRequest) -> dict[str, Any]:
        table = store.get(game_id)
        session = table.session

        def act() -> None:
            if not session.human_to_move:
                raise GameOverError("it is not your turn" if session.game.phase is Phase.PLAY
                                    else "the hand is over; deal the next hand")
            legal = session.game.legal_actions()
            if body.action not in legal:
                texts = ", ".join(f"{a} ({session.game.codec.describe(a)})" for a in legal)
                raise WebError(400, f"move {body.action} is not legal now; legal moves: {texts}",
                               legal=list(legal))
            session.play(body.action, body.claim)

        return change(table, body.version, act, "the move")

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str, body: Versioned) -> dict[str, Any]:
        table = store.get(game_id)
        return change(table, body.version, table.session.undo, "the undo")

    @app.post("/api/games/{game_id}/next")
    def next_hand(game_id: str, body: Versioned) -> dict[str, Any]:
        table = store.get(game_id)
        session = table.session

        def act() -> None:
            if session.game.phase is not Phase.HAND_OVER:
                raise GameOverError("the hand is still in play" if session.game.phase is Phase.PLAY
                                    else "the game is over")
            session.next_hand()

        return change(table, body.version, act, "the next deal")

    @app.get("/api/games/{game_id}/hint")
    def hint(game_id: str) -> dict[str, Any]:
        table = store.get(game_id)
        with table.lock:
            if not table.session.human_to_move:
                raise WebError(409, "a hint is for your turn, and it is not your turn")
            hints = table.session.hint(options.hint_budget_s)
            version = table.version
        return {"version": version,
                "hints": [{"action": o.action, "text": o.text, "value": round(v, 2)} for o, v in hints]}

    @app.get("/api/games/{game_id}/log")
    def log(game_id: str) -> JSONResponse:
        table = store.get(game_id)
        with table.lock:
            s = table.session
            specs = [p.spec for p in s.seats]
            if s.game.phase is Phase.GAME_OVER:
                data, name = game_log(s.game, specs, s.meta), f"sniff-{game_id}.json"
            else:
                data, name = seat_log(s.game, s.human, specs, s.meta), f"sniff-{game_id}-so-far.json"
        return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.post("/api/replay")
    async def replay(request: Request) -> JSONResponse:
        body = await request.body()  # at most MAX_BODY bytes: the border refuses longer ones
        if not replays.acquire(blocking=False):
            return _error(429, f"the server is replaying {MAX_REPLAYS} logs already; try again in a moment")
        try:
            return await run_in_threadpool(replay_answer, body)
        finally:
            replays.release()

    return app
