"""The web table's HTTP interface (FastAPI): the page, its static files and a small JSON API.

======================================  =========================================================
``GET  /``                              the page (``?game=ID`` reopens a game; ``#replay``: replays)
``POST /api/games``                     a new game with the server's options; its view
``GET  /api/games/{id}``                the human seat's view (what that seat may know)
``POST /api/games/{id}/move``           ``{"version", "action", "claim"}``: play, then the agents
``POST /api/games/{id}/undo``           ``{"version"}``: take back the last move (not when rated)
``POST /api/games/{id}/next``           ``{"version"}``: deal the next hand
``GET  /api/games/{id}/hint``           the search player's value of each legal move
``GET  /api/games/{id}/log``            the game's JSON log (the format of ``sniff play``)
``POST /api/replay``                    a game log in the body; every position, hands face up
======================================  =========================================================

Every refusal is a 4xx answer ``{"error": "...", ...}`` and changes nothing: 404 for an unknown
game, 409 for a stale version or a move out of turn, 400 for an illegal move, 422 for a
malformed body.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict

from ..errors import GameOverError, SniffError
from ..game import Phase
from ..gamelog import GameLogError, game_log, parse_game_log
from .sessions import Table, TableOptions, TableStore, WebError
from .views import replay_frames

STATIC = Path(__file__).parent / "static"


class Versioned(BaseModel):
    """A request that changes a game: made for ``version`` of it."""

    model_config = ConfigDict(extra="forbid", strict=True)
    version: int


class MoveRequest(Versioned):
    action: int
    claim: bool = False


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def create_app(options: TableOptions) -> FastAPI:
    """The application serving games set up by ``options``."""
    app = FastAPI(title="Sniff web table", docs_url=None, redoc_url=None)
    store = TableStore(options)
    app.state.store = store
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(WebError)
    async def web_error(_: Request, exc: WebError) -> JSONResponse:
        return _error(exc.status, str(exc), **exc.extra)

    @app.exception_handler(SniffError)
    async def game_error(_: Request, exc: SniffError) -> JSONResponse:
        return _error(400, str(exc))

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

    def change(table: Table, version: int, act: Any) -> dict[str, Any]:
        with table.lock:
            table.check(version)
            try:
                act()
            except WebError:
                raise
            except GameOverError as exc:
                raise WebError(409, str(exc)) from None
            except SniffError as exc:
                raise WebError(400, str(exc)) from None
            table.changed()
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

        return change(table, body.version, act)

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str, body: Versioned) -> dict[str, Any]:
        table = store.get(game_id)
        return change(table, body.version, table.session.undo)

    @app.post("/api/games/{game_id}/next")
    def next_hand(game_id: str, body: Versioned) -> dict[str, Any]:
        table = store.get(game_id)
        session = table.session

        def act() -> None:
            if session.game.phase is not Phase.HAND_OVER:
                raise GameOverError("the hand is still in play" if session.game.phase is Phase.PLAY
                                    else "the game is over")
            session.next_hand()

        return change(table, body.version, act)

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
            data = game_log(s.game, [p.spec for p in s.seats], s.meta)
        name = f"sniff-{game_id}.json"
        return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.post("/api/replay")
    async def replay(request: Request) -> JSONResponse:
        try:
            data = await request.json()
        except ValueError:
            return _error(422, "the body must be a game log in JSON")
        try:
            log = parse_game_log(data, "the uploaded log")
        except GameLogError as exc:
            return _error(422, str(exc))
        return JSONResponse({"players": log.players, "frames": replay_frames(log)})

    return app
