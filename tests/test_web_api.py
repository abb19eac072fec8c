"""The web table's JSON API: every bad request is a clear 4xx that changes nothing, and the view
of the human's seat never holds a tile that seat may not see."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
pytest.importorskip("httpx", reason="the FastAPI test client needs httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from sniff_env.deal import Deal
from sniff_env.game import new_game
from sniff_env.gamelog import parse_game_log
from sniff_env.play.session import Session
from sniff_env.presets import make_rules
from sniff_env.tiles import mask_tiles
from sniff_env.web.app import create_app
from sniff_env.web.sessions import TableOptions


def make_client(tmp_path: Path, seed: int = 5, **overrides: Any) -> TestClient:
    rated = bool(overrides.pop("rated", False))
    rules = make_rules("sniff", 2, **{"target": 60, **overrides})
    options = TableOptions(rules, ("random",), seed=seed, rated=rated, games_dir=tmp_path, hint_budget_s=0.05)
    return TestClient(create_app(options))


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return make_client(tmp_path)


def new(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/games")
    assert r.status_code == 200
    return dict(r.json())


def session_of(client: TestClient, game_id: str) -> Session:
    return client.app.state.store.get(game_id).session  # type: ignore[attr-defined,no-any-return]


def refused(client: TestClient, game_id: str, method: str, path: str, status: int, **kw: Any) -> dict[str, Any]:
    """Send a request that must be refused with ``status``, and check that the game is unchanged."""
    before = client.get(f"/api/games/{game_id}").json()
    r = client.request(method, path, **kw)
    assert r.status_code == status, r.text
    body = r.json()
    assert isinstance(body.get("error"), str) and body["error"]
    assert client.get(f"/api/games/{game_id}").json() == before
    return dict(body)


def test_a_move_changes_the_game_and_the_version(client: TestClient, tmp_path: Path) -> None:
    view = new(client)
    option = max(view["options"], key=lambda o: o["points"])
    r = client.post(f"/api/games/{view['id']}/move", json={"version": 0, "action": option["action"]})
    assert r.status_code == 200
    after = r.json()
    assert after["version"] == 1 and any(e["kind"] == "play" and e["seat"] == 0 for e in after["events"])
    assert list(tmp_path.glob("*.json")), "the game log is written after a move"


def test_an_illegal_move_is_refused(client: TestClient) -> None:
    view = new(client)
    legal = {o["action"] for o in view["options"]}
    illegal = next(a for a in range(176) if a not in legal)
    body = refused(client, view["id"], "POST", f"/api/games/{view['id']}/move", 400,
                   json={"version": 0, "action": illegal})
    assert "not legal" in body["error"] and sorted(body["legal"]) == sorted(legal)
    refused(client, view["id"], "POST", f"/api/games/{view['id']}/move", 400, json={"version": 0, "action": -3})


def test_an_unknown_game_is_404(client: TestClient) -> None:
    view = new(client)
    for method, path, kw in [
        ("GET", "/api/games/nope", {}),
        ("POST", "/api/games/nope/move", {"json": {"version": 0, "action": 1}}),
        ("POST", "/api/games/nope/undo", {"json": {"version": 0}}),
        ("POST", "/api/games/nope/next", {"json": {"version": 0}}),
        ("GET", "/api/games/nope/hint", {}),
        ("GET", "/api/games/nope/log", {}),
    ]:
        body = refused(client, view["id"], method, path, 404, **kw)
        assert "no game 'nope'" in body["error"]


@pytest.mark.parametrize("body", [
    "not json", "[]", '{"action": 1}', '{"version": 0}', '{"version": "0", "action": 1}',
    '{"version": 0, "action": "1"}', '{"version": 0, "action": 1.5}', '{"version": 0, "action": 1, "extra": 1}',
    '{"version": 0, "action": 1, "claim": "yes"}',
])
def test_a_malformed_body_is_422(client: TestClient, body: str) -> None:
    view = new(client)
    refused(client, view["id"], "POST", f"/api/games/{view['id']}/move", 422, content=body,
            headers={"Content-Type": "application/json"})


def test_a_stale_version_is_409(client: TestClient) -> None:
    view = new(client)
    action = view["options"][0]["action"]
    for version in (1, -1, 99):
        body = refused(client, view["id"], "POST", f"/api/games/{view['id']}/move", 409,
                       json={"version": version, "action": action})
        assert body["version"] == 0
    client.post(f"/api/games/{view['id']}/move", json={"version": 0, "action": action})
    refused(client, view["id"], "POST", f"/api/games/{view['id']}/undo", 409, json={"version": 0})
    refused(client, view["id"], "POST", f"/api/games/{view['id']}/move", 409, json={"version": 0, "action": action})


def test_next_hand_and_moves_out_of_turn_are_refused(client: TestClient) -> None:
    view = new(client)
    refused(client, view["id"], "POST", f"/api/games/{view['id']}/next", 409, json={"version": 0})
    session = session_of(client, view["id"])
    while session.game.phase.name == "PLAY":
        session.play(session.game.legal_actions()[0])
    version = client.get(f"/api/games/{view['id']}").json()["version"]
    refused(client, view["id"], "POST", f"/api/games/{view['id']}/move", 409, json={"version": version, "action": 0})
    refused(client, view["id"], "GET", f"/api/games/{view['id']}/hint", 409)
    over = client.get(f"/api/games/{view['id']}").json()
    assert over["result"]["lines"] and len(over["result"]["hands"]) == 2
    r = client.post(f"/api/games/{view['id']}/next", json={"version": version})
    assert r.status_code == 200 and r.json()["hand_number"] == 2


def test_undo_and_its_refusal_in_a_rated_game(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    view = new(client)
    r = client.post(f"/api/games/{view['id']}/move", json={"version": 0, "action": view["options"][0]["action"]})
    assert r.json()["can_undo"]
    r = client.post(f"/api/games/{view['id']}/undo", json={"version": 1})
    assert r.status_code == 200 and r.json()["hand"] == view["hand"] and r.json()["version"] == 2
    rated = make_client(tmp_path, rated=True)
    view = new(rated)
    r = rated.post(f"/api/games/{view['id']}/move", json={"version": 0, "action": view["options"][0]["action"]})
    assert not r.json()["can_undo"] and r.json()["rated"]
    body = refused(rated, view["id"], "POST", f"/api/games/{view['id']}/undo", 409, json={"version": 1})
    assert "rated" in body["error"]


def test_hint_values_every_legal_move(client: TestClient) -> None:
    view = new(client)
    r = client.get(f"/api/games/{view['id']}/hint")
    assert r.status_code == 200
    assert {h["action"] for h in r.json()["hints"]} == {o["action"] for o in view["options"]}


def test_unclaimed_points_are_taken_by_muggins(tmp_path: Path) -> None:
    client = make_client(tmp_path, muggins_claims=True)
    game_id = new(client)["id"]
    session = session_of(client, game_id)
    hands = [[(5, 5), (5, 0), (3, 2), (6, 6), (1, 4), (0, 0), (2, 4)],
             [(5, 3), (5, 1), (6, 1), (6, 2), (6, 3), (6, 4), (6, 5)]]
    session.game = new_game(session.rules, seed=1, deal={"hands": hands, "leader": 0})
    view = client.get(f"/api/games/{game_id}").json()
    assert view["rules"]["muggins_claims"]
    scoring = next(o for o in view["options"] if o["text"] == "5-5 lead")
    r = client.post(f"/api/games/{view['id']}/move", json={"version": 0, "action": scoring["action"], "claim": False})
    after = r.json()
    assert any(e["kind"] == "muggins" for e in after["events"])
    assert after["sides"][0]["score"] == 0


def _finish(session: Session) -> None:
    """Play the game out directly on the session (first legal move for the human)."""
    while session.game.phase.name != "GAME_OVER":
        if session.game.phase.name == "HAND_OVER":
            session.next_hand()
        else:
            session.play(session.game.legal_actions()[0])


def test_log_and_replay(client: TestClient) -> None:
    view = new(client)
    client.post(f"/api/games/{view['id']}/move", json={"version": 0, "action": view["options"][0]["action"]})
    so_far = client.get(f"/api/games/{view['id']}/log").json()
    assert so_far["format"] == "sniff-seat-log" and "seed" not in so_far and not so_far["finished"]
    assert sorted(map(tuple, so_far["hands"][0]["your_tiles"])) == sorted(map(tuple, view["hand"]))
    seen = client.post("/api/replay", json=so_far)  # the seat's record replays from that seat, others hidden
    assert seen.status_code == 200 and seen.json()["record"] == {"seat": 0, "name": "You"}
    assert all(f["hands"][1] is None and f["hands"][0] is not None for f in seen.json()["frames"])
    session = session_of(client, view["id"])
    on_disk = json.loads(session.save_path.read_text())  # type: ignore[union-attr]
    assert on_disk["seed"] == session.seed and parse_game_log(on_disk).game.hand_index == 0
    r = client.post("/api/replay", json=on_disk)
    assert r.status_code == 200
    frames = r.json()["frames"]
    assert len(frames) == 1 + len(on_disk["hands"][0]["decisions"])
    assert all(len(f["hands"]) == 2 for f in frames)
    assert client.post("/api/replay", content="{").status_code == 422
    bad = client.post("/api/replay", json={**on_disk, "scores": [99, 0]})
    assert bad.status_code == 422 and "scores" in bad.json()["error"]
    _finish(session)
    full = client.get(f"/api/games/{view['id']}/log").json()
    assert full["format"] == "sniff-game-log" and full["seed"] == session.seed and full["finished"]
    assert parse_game_log(full).finished


# -- the seat sees only what it may know --------------------------------------------------------------
def _permute_hidden(session: Session, rng: random.Random) -> None:
    """Deal the tiles the human cannot see (other hands, the rest of the boneyard) anew, sizes kept."""
    game = session.game
    others = [s for s in range(game.n) if s != session.human]
    pool = [t for s in others for t in mask_tiles(game.hands[s])] + list(game.boneyard[game.bone_pos:])
    rng.shuffle(pool)
    for s in others:
        size = game.hands[s].bit_count()
        game.hands[s] = sum(1 << t for t in pool[:size])
        pool = pool[size:]
    game.boneyard = game.boneyard[: game.bone_pos] + tuple(pool)
    game._legal = None


def _hidden_tiles(session: Session) -> list[tuple[int, int]]:
    game = session.game
    hidden = [t for s in range(game.n) if s != session.human for t in mask_tiles(game.hands[s])]
    hidden += list(game.boneyard[game.bone_pos:])
    return [game.ts.tiles[t] for t in hidden]


def _pairs_and_strings(data: Any, pairs: set[tuple[int, int]], strings: list[str]) -> None:
    if isinstance(data, list):
        if len(data) == 2 and all(isinstance(x, int) for x in data):
            pairs.add((min(data), max(data)))
        for x in data:
            _pairs_and_strings(x, pairs, strings)
    elif isinstance(data, dict):
        for k, v in data.items():
            strings.append(str(k))
            _pairs_and_strings(v, pairs, strings)
    elif isinstance(data, str):
        strings.append(data)


def test_the_view_holds_no_hidden_tile(client: TestClient) -> None:
    view = new(client)
    session = session_of(client, view["id"])
    rng = random.Random(3)
    checked = 0
    while session.game.phase.name == "PLAY":
        if session.human_to_move:
            base = client.get(f"/api/games/{view['id']}").json()
            pairs: set[tuple[int, int]] = set()
            strings: list[str] = []
            _pairs_and_strings(base, pairs, strings)
            text = " ".join(strings)
            for lo, hi in _hidden_tiles(session):
                assert (lo, hi) not in pairs
                assert f"{lo}-{hi}" not in text and f"{hi}-{lo}" not in text
            saved = session.game
            for _ in range(4):
                session.game = saved.copy()
                _permute_hidden(session, rng)
                assert client.get(f"/api/games/{view['id']}").json() == base
            session.game = saved
            checked += 1
            options = session.options()
            session.play(options[rng.randrange(len(options))].action)
        else:
            session.advance()
    assert checked >= 3
    over = client.get(f"/api/games/{view['id']}").json()
    assert json.dumps(over)  # once the hand is over, every hand is revealed
    assert [h["seat"] for h in over["result"]["hands"]] == [0, 1]


def _view_leaks(data: Any, session: Session) -> list[tuple[int, int]]:
    """The hidden tiles that a view-shaped answer names (as a pip pair or as text)."""
    pairs: set[tuple[int, int]] = set()
    strings: list[str] = []
    _pairs_and_strings(data, pairs, strings)
    text = " ".join(strings)
    return [(lo, hi) for lo, hi in _hidden_tiles(session)
            if (lo, hi) in pairs or f"{lo}-{hi}" in text or f"{hi}-{lo}" in text]


def _without_values(hint: dict[str, Any]) -> list[tuple[int, str]]:
    """A hint's moves (its values come from a timed search, so they vary run to run)."""
    return sorted((h["action"], h["text"]) for h in hint["hints"])


def _deal_anew(deal: Deal, human: int, rng: random.Random) -> Deal:
    """``deal`` with the tiles the human was not dealt shuffled among the others and the boneyard."""
    pool = [t for s, h in enumerate(deal.hands) if s != human for t in h] + list(deal.boneyard)
    rng.shuffle(pool)
    hands = []
    for s, h in enumerate(deal.hands):
        if s != human:
            h, pool = tuple(pool[: len(h)]), pool[len(h):]
        hands.append(h)
    return dataclasses.replace(deal, hands=tuple(hands), boneyard=tuple(pool))


def test_no_endpoint_gives_a_hidden_tile_or_the_seed(tmp_path: Path) -> None:
    seed = 7_345_918_263_551
    client = make_client(tmp_path, seed=seed)
    answers = [client.post("/api/games")]
    game_id = answers[0].json()["id"]
    session = session_of(client, game_id)
    assert session.seed == seed
    url = f"/api/games/{game_id}"
    rng = random.Random(11)
    for _ in range(3):  # some history: two moves and an undo, each checked as it is answered
        version = client.get(url).json()["version"]
        options = session.options()
        answers.append(client.post(f"{url}/move", json={"version": version,
                                                       "action": options[rng.randrange(len(options))].action}))
        assert not _view_leaks(answers[-1].json(), session)
        assert session.game.phase.name == "PLAY", "the test needs a hand still in play"
    answers.append(client.post(f"{url}/undo", json={"version": client.get(url).json()["version"]}))
    assert answers[-1].status_code == 200 and not _view_leaks(answers[-1].json(), session)
    answers.append(client.post(f"{url}/next", json={"version": client.get(url).json()["version"]}))
    assert answers[-1].status_code == 409
    assert session.human_to_move and session.game.hand_index == 0

    gets = ["/", "/static/app.js", url, f"{url}/log", f"{url}/hint"]
    first = {path: client.get(path) for path in gets}
    assert all(r.status_code == 200 for r in first.values())
    answers += first.values()
    answers.append(client.post("/api/replay", content=first[f"{url}/log"].content))
    assert answers[-1].status_code == 200, "the seat's record replays, from that seat"
    frames = answers[-1].json()["frames"]
    assert all(h is None for f in frames for s, h in enumerate(f["hands"]) if s != session.human)
    hidden = {tuple(session.game.ts.tiles[t]) for s in range(session.game.n) if s != session.human
              for t in mask_tiles(session.game.hands[s])} | {tuple(session.game.ts.tiles[t])
                                                             for t in session.game.boneyard[session.game.bone_pos:]}
    shown = {tuple(t) for f in frames for h in f["hands"] if h for t in h}
    assert not hidden & shown, "no hidden tile is in the replay of the seat's record"
    assert not _view_leaks(first[url].json(), session)
    # the answers are the same whatever the hidden tiles and the seed are: they cannot show them
    saved = session.game
    for _ in range(4):
        session.game = saved.copy()
        _permute_hidden(session, rng)
        session.game.deal = _deal_anew(session.game.deal, session.human, rng)
        session.game.seed = session.seed = rng.randrange(2**62)
        for path in gets:
            again = client.get(path)
            if path.endswith("/hint"):
                assert _without_values(again.json()) == _without_values(first[path].json())
            else:
                assert again.content == first[path].content, path
    session.game, session.seed = saved, seed
    for r in answers:
        assert str(seed) not in r.text and str(seed) not in str(r.headers), r.request.url
    assert str(seed) in session.save_path.read_text()  # type: ignore[union-attr]  # the full log is on disk


# -- a change and its log go together --------------------------------------------------------------
def test_a_move_whose_log_cannot_be_written_is_not_played(client: TestClient, tmp_path: Path) -> None:
    view = new(client)
    session = session_of(client, view["id"])
    (tmp_path / "blocker").write_text("a file where the log's folder should be")
    session.save_path = tmp_path / "blocker" / "game.json"
    action = view["options"][0]["action"]
    played = len(session.game.hand_actions)
    body = refused(client, view["id"], "POST", f"/api/games/{view['id']}/move", 507,
                   json={"version": 0, "action": action})
    assert body["error"].startswith("the move did not happen") and body["changed"] is False
    assert "blocker" not in body["error"]  # the file's name holds the seed: it is not told
    assert len(session.game.hand_actions) == played and not session.can_undo
    session.save_path = tmp_path / "game.json"
    r = client.post(f"/api/games/{view['id']}/move", json={"version": 0, "action": action})
    assert r.status_code == 200 and r.json()["version"] == 1


# -- games are capped, expire, and share their policy -------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_games_are_capped_and_expire(tmp_path: Path) -> None:
    clock = Clock()
    rules = make_rules("sniff", 2, target=60)
    app = create_app(TableOptions(rules, ("random",), games_dir=tmp_path, max_games=3, idle_s=600), clock=clock)
    client = TestClient(app)
    ids = [new(client)["id"] for _ in range(3)]
    clock.now += 1
    assert client.get(f"/api/games/{ids[0]}").status_code == 200  # ids[0] is now the most recent
    fourth = new(client)["id"]
    gone = client.get(f"/api/games/{ids[1]}")
    assert gone.status_code == 410 and "expired" in gone.json()["error"] and "keeps 3 games" in gone.json()["error"]
    assert client.post(f"/api/games/{ids[1]}/move", json={"version": 0, "action": 0}).status_code == 410
    assert len(app.state.store.tables) == 3
    clock.now += 599
    assert client.get(f"/api/games/{fourth}").status_code == 200
    clock.now += 2
    for game_id in (ids[0], ids[2]):
        r = client.get(f"/api/games/{game_id}")
        assert r.status_code == 410 and "idle for more than 10 minutes" in r.json()["error"]
    assert client.get(f"/api/games/{fourth}").status_code == 200
    assert client.get("/api/games/never-was").status_code == 404
    # a game's log is written at its first move: nobody played these, so none left a log
    assert not list(tmp_path.glob("*.json"))
    assert "Nobody played it, so it left no log; start" in gone.json()["error"]


@pytest.mark.parametrize("bad", [{"max_games": 0}, {"idle_s": 0}, {"idle_s": float("inf")},
                                 {"hint_budget_s": float("nan")}, {"hint_budget_s": -1.0}])
def test_table_options_refuse_nonsense(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must be"):
        TableOptions(make_rules("sniff", 2), **bad)


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads the memory of the process from /proc")
def test_the_default_opponent_is_loaded_once_and_games_cost_little_memory(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import sniff_env.play.session as session_module

    rules = make_rules("sniff", 2)
    if session_module.default_opponent(rules) == "heuristic":
        pytest.skip("the shipped agent sniff-2p is not installed")
    from sniff_env.players import load as real_load

    loads: list[str] = []

    def counting_load(spec: str, **kwargs: Any) -> Any:
        loads.append(spec)
        return real_load(spec, **kwargs)

    monkeypatch.setattr(session_module, "load", counting_load)
    client = TestClient(create_app(TableOptions(rules, games_dir=tmp_path, client_games=100)))
    for _ in range(5):
        new(client)
    before = _rss_mb()
    games = 40
    ids = [new(client)["id"] for _ in range(games)]
    grown = _rss_mb() - before
    assert loads == [session_module.default_opponent(rules)], "one load of the policy for the whole server"
    agents = [session_of(client, i).seats[1].agent for i in ids]
    assert all(a is not agents[0] for a in agents[1:]), "each game has its own player (its own generator)"
    assert grown < games * 1.0, f"{games} games grew the server by {grown:.0f} MB"


def test_a_game_chosen_in_the_form_and_its_rules_in_words(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    setup = client.get("/api/setup").json()
    assert {"sniff", "muggins", "sniff-digital"} <= {p["name"] for p in setup["presets"]}
    assert [lv["name"] for lv in setup["levels"]] == ["beginner", "easy", "medium", "strong", "expert"]
    assert setup["default_level"] == "expert"
    assert next(p for p in setup["presets"] if p["name"] == "muggins")["targets"] == {"2": 250, "3": 200, "4": 200}
    choice = {"preset": "muggins", "players": 3, "opponent": "medium", "target": 100, "muggins_claims": True}
    view = client.post("/api/games", json=choice).json()
    assert (view["rules"]["name"], view["rules"]["players"], view["rules"]["target"]) == ("muggins", 3, 100)
    assert view["rules"]["muggins_claims"] and [s["name"] for s in view["seats"]] == ["You", "Medium#1", "Medium#2"]
    assert [s["engine"] for s in view["seats"]] == ["", "heuristic", "heuristic"], "the engine is told second"
    assert view["setup"] == {**choice, "partnership": False, "rated": False}
    assert new(client)["setup"]["opponent"] == "server", "without a choice, the server's options"
    guide = client.get(f"/api/games/{view['id']}/guide").json()
    text = " ".join(" ".join(s["lines"]) for s in guide["sections"])
    assert guide["rules"] == "muggins" and "first side to 100 points" in text and "no sniff" in text
    assert "you must claim your points" in text and "rounds to the nearest multiple of 5" in text
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")


def test_the_browsers_default_level_is_the_expert_and_plays(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    view = client.post("/api/games", json={"preset": "sniff", "target": 30}).json()
    assert view["setup"]["opponent"] == "expert"
    seat = session_of(client, view["id"]).seats[1]
    assert seat.spec.startswith("guided:agent=sniff-2p-tiles,") and seat.agent is not None
    while view["phase"] == "play" and len(view["sheet"]) < 2:  # the expert answers every move
        option = view["options"][0]
        view = client.post(f"/api/games/{view['id']}/move",
                           json={"version": view["version"], "action": option["action"]}).json()
    assert view["phase"] in ("hand_over", "game_over") and sum(side["score"] for side in view["sides"]) > 0


@pytest.mark.parametrize(("choice", "says"), [
    ({"preset": "nope"}, "there is no preset 'nope'"),
    ({"preset": "sniff", "players": 5}, "2, 3 or 4 players"),
    ({"preset": "sniff", "players": 3, "partnership": True}, "partnerships need 4 players"),
    ({"preset": "sniff", "target": 33}, "the target must be one of"),
    ({"preset": "sniff", "opponent": "/tmp/policy.onnx"}, "there is no opponent"),
    ({"preset": "sniff", "seed": 3}, "malformed request"),
    ({"preset": "sniff", "players": "4"}, "malformed request"),
])
def test_a_game_that_cannot_be_chosen_is_refused(tmp_path: Path, choice: dict[str, Any], says: str) -> None:
    client = make_client(tmp_path)
    before = len(client.app.state.store.tables)  # type: ignore[attr-defined]
    r = client.post("/api/games", json=choice)
    assert r.status_code == 422 and says in r.json()["error"], r.text
    assert len(client.app.state.store.tables) == before  # type: ignore[attr-defined]


def test_the_score_sheet_and_the_hand_result_add_up(client: TestClient) -> None:
    view = new(client)
    rng = random.Random(2)
    while view["phase"] == "play":
        option = view["options"][rng.randrange(len(view["options"]))]
        view = client.post(f"/api/games/{view['id']}/move",
                           json={"version": view["version"], "action": option["action"]}).json()
    scores = [side["score"] for side in view["sides"]]
    assert [s["after"] for s in view["result"]["scores"]] == scores
    assert all(s["before"] + s["play"] + s["end"] == s["after"] for s in view["result"]["scores"])
    assert [s["total"] for s in view["sheet"][-1]["sides"]] == scores and view["sheet"][-1]["over"]
    assert "/ 5 turns pips into points" in view["result"]["note"], "the sniff bonus's / 5 is explained"
    if view["phase"] == "hand_over":
        view = client.post(f"/api/games/{view['id']}/next", json={"version": view["version"]}).json()
        assert len(view["sheet"]) == 2 and not view["sheet"][-1]["over"]


def test_a_rated_game_gives_no_hint(tmp_path: Path) -> None:
    rated = make_client(tmp_path, rated=True)
    view = new(rated)
    body = refused(rated, view["id"], "GET", f"/api/games/{view['id']}/hint", 403)
    assert "hints are off in a rated game" in body["error"]


def test_a_double_led_alone_counts_once_and_a_sniffs_sides_say_why(tmp_path: Path) -> None:
    """The count's shares add up to the count, a double led alone (no sniff) is one share, and the
    sniff's own sides are named as such; the rules in words say why."""
    client = TestClient(create_app(TableOptions(make_rules("muggins", 2), ("random",), seed=2, games_dir=tmp_path)))
    layout = new(client)["layout"]
    assert layout["count"] == 6 and layout["shares"] == [
        {"end": "lead", "value": 6, "note": "a double alone counts both halves, once"}]
    assert layout["count_sum"] == "count 6 = lead 6 (a double alone counts both halves, once)"
    assert not any(e["counts"] for e in layout["ends"]), "west and east are that one tile"
    client = TestClient(create_app(TableOptions(make_rules("sniff", 2), ("random",), seed=2, games_dir=tmp_path)))
    view = new(client)
    layout = view["layout"]
    assert sum(s["value"] for s in layout["shares"]) == layout["count"] == 6
    assert [(s["end"], s["value"], s["note"]) for s in layout["shares"]] == [
        ("west", 0, "sniff's side"), ("east", 0, "sniff's side"), ("north", 3, ""), ("south", 3, "")]
    words = " ".join(" ".join(s["lines"]) for s in client.get(f"/api/games/{view['id']}/guide").json()["sections"])
    assert "Its west and east sides count 0 (the count calls them the sniff's side)" in words
    muggins = client.get("/api/guide", params={"preset": "muggins"}).json()
    assert "A double that leads counts both halves once while it is alone" in " ".join(
        " ".join(s["lines"]) for s in muggins["sections"])


def test_each_preset_reads_as_itself_in_the_form() -> None:
    client = TestClient(create_app(TableOptions(make_rules("sniff", 2), ("random",))))
    presets = {p["name"]: p["summary"] for p in client.get("/api/setup").json()["presets"]}
    assert len(set(presets.values())) == len(presets), "no two presets read the same"
    assert "no sniff" not in presets["muggins-sniff"] and "in line, your choice" in presets["muggins-sniff"]
    assert "doubles lie across" in presets["muggins"] and "the highest double leads" in presets["muggins-digital"]


def test_a_page_that_only_looks_deals_nothing_and_an_unplayed_game_leaves_no_log(tmp_path: Path) -> None:
    """Opening the page (and what it asks before a game: the form's choices, the stats, the help)
    deals nothing and writes nothing; a game is dealt when asked for, its log written at its first
    move; a game nobody played leaves no log when it is dropped, and says so."""
    clock = Clock()
    app = create_app(TableOptions(make_rules("sniff", 2, target=60), ("random",), seed=5, games_dir=tmp_path,
                                  max_games=2, idle_s=600), clock=clock)
    client = TestClient(app)
    for path in ("/", "/static/app.js", "/api/setup", "/api/stats", "/api/guide?preset=muggins"):
        assert client.get(path).status_code == 200, path
    assert client.head("/").status_code == 200
    store = app.state.store
    assert not store.tables and not list(tmp_path.iterdir()), "looking deals no game and writes no file"
    server = client.get("/api/setup").json()["server"]
    assert (server["rules"], server["players"], server["target"], server["opponent"]) == ("sniff", 2, 60, "random")
    assert server["sections"][0]["title"] == "The game"
    view = new(client)
    assert view["hand"] and view["version"] == 0 and len(store.tables) == 1
    assert not list(tmp_path.iterdir()), "a game just dealt has no log yet"
    moved = client.post(f"/api/games/{view['id']}/move", json={"version": 0, "action": view["options"][0]["action"]})
    assert moved.status_code == 200
    logs = list(tmp_path.glob("*.json"))
    assert len(logs) == 1 and parse_game_log(json.loads(logs[0].read_text())).game.hand_actions, "its first move logs it"
    unplayed = new(client)["id"]
    clock.now += 601
    gone = client.get(f"/api/games/{unplayed}")
    assert gone.status_code == 410 and "Nobody played it, so it left no log" in gone.json()["error"]
    played = client.get(f"/api/games/{view['id']}")
    assert played.status_code == 410 and "Its log is kept" in played.json()["error"]
    assert list(tmp_path.glob("*.json")) == logs, "the played game's log stays, the unplayed one never had one"
