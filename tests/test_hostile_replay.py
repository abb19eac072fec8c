"""Hostile inputs at the terminal's borders: game logs given to ``sniff replay`` and ``--resume``,
and the options of ``sniff play`` and ``sniff serve``. Each gets a clear message (or a safe
display), never a traceback or a hang; generated logs either load or raise GameLogError."""

from __future__ import annotations

import copy
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from hostile import LOG, RULES, deadline, edited, started  # noqa: F401  (deadline: a time limit per test)
from hypothesis import given, settings
from hypothesis import strategies as st

from sniff_env.cli import main
from sniff_env.gamelog import GameLogError, game_log, parse_game_log, seat_log
from sniff_env.play.session import LogWriteError, Session, default_save_path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run ``sniff ARGV`` in this process; its exit status (argparse's too) and all it printed."""
    try:
        status = main(argv)
    except SystemExit as exc:
        status = int(exc.code or 0)
    out = capsys.readouterr()
    return status, out.out + out.err


# (what, file content, exit status, words the output must hold)
REPLAY_FILES: list[tuple[str, str | bytes, int, str]] = [
    ("deeply nested JSON", "[" * 100_000 + "]" * 100_000, 2, "nested too deeply"),
    ("a JSON array", "[1, 2]", 2, "not a JSON object"),
    ("not JSON", "{\"format\": ", 2, "not valid JSON"),
    ("binary junk", b"\x00\xff\xfe\x80", 2, "not valid JSON"),
    ("a result that is a list", edited(hands__0__result=[1, 2]), 2, "'result' must be a mapping"),
    ("a record of a game in progress", json.dumps(seat_log(started().game, 0, ["human", "random"])), 0,
     "what you saw: your own tiles face up"),
    ("markup in a name", edited(meta__names=["You", "[bold red]boss[/]"]), 0, "seat 1: [bold red]boss[/]\n"),
    ("escapes in a name", edited(meta__names=["You", "\x1b[2J\x1b]0;owned\x07x"]), 0,
     "seat 1: \\x1b[2J\\x1b]0;owned\\x07x\n"),
    ("markup in the rules' name", edited(rules__name="[blink]x[/blink]"), 0, "[blink]x[/blink], 2 players"),
]


@pytest.mark.parametrize(("what", "content", "status", "says"), REPLAY_FILES, ids=[r[0] for r in REPLAY_FILES])
def test_sniff_replay_on_hostile_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str,
                                      content: str | bytes, status: int, says: str) -> None:
    path = tmp_path / "log.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out = run(["replay", str(path), "--all"], capsys)
    assert code == status and says in out, out[-500:]
    assert "Traceback" not in out and "\x1b" not in out and "\x07" not in out


def test_sniff_replay_on_what_is_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in (tmp_path / "missing.json", tmp_path):
        code, out = run(["replay", str(path)], capsys)
        assert code == 2 and "cannot read the game log" in out


def _taken_port() -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock, sock.getsockname()[1]


# (what, arguments of `sniff serve` after --opponent random, words of the one-line error)
SERVE: list[tuple[str, list[str], str]] = [
    ("a port past 65535", ["--port", "70000"], "a port, 0 to 65535"),
    ("a negative port", ["--port", "-1"], "a port, 0 to 65535"),
    ("a port that is no number", ["--port", "http"], "a port, 0 to 65535"),
    ("a host that is no address", ["--host", "999.1.1.1"], "cannot listen on '999.1.1.1'"),
    ("a host name that does not resolve", ["--host", "no-such-host.invalid"], "cannot listen on"),
    ("a hint budget of NaN", ["--hint-budget", "nan"], "--hint-budget"),
    ("an infinite hint budget", ["--hint-budget", "inf"], "--hint-budget"),
    ("a negative hint budget", ["--hint-budget", "-1"], "--hint-budget"),
    ("a hint budget of 0", ["--hint-budget", "0"], "--hint-budget"),
    ("no games kept", ["--max-games", "0"], "--max-games"),
    ("an idle time of NaN", ["--idle-minutes", "nan"], "--idle-minutes"),
    ("a hint budget of 1e300 seconds", ["--hint-budget", "1e300"], "at most 30"),
    ("a negative number of logs kept", ["--keep-logs", "-1"], "--keep-logs"),
    ("logs kept for 0 days", ["--keep-days", "0"], "--keep-days"),
]


@pytest.mark.parametrize(("what", "args", "says"), SERVE, ids=[r[0] for r in SERVE])
def test_sniff_serve_refuses_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch, what: str, args: list[str],
                                         says: str) -> None:
    monkeypatch.setenv("SNIFF_HOME", str(tmp_path))
    code, out = run(["serve", "--opponent", "random", *args], capsys)
    assert code == 2 and says in out and "Traceback" not in out, out


def test_sniff_serve_on_a_port_in_use_and_unwritable_places(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNIFF_HOME", str(tmp_path))
    sock, port = _taken_port()
    with sock:
        code, out = run(["serve", "--opponent", "random", "--port", str(port)], capsys)
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}: Address already in use" in out
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, out = run(["serve", "--opponent", "random", "--games-dir", str(blocker / "games")], capsys)
    assert code == 2 and "is a file, not a folder" in out
    code, out = run(["serve", "--opponent", "random", "--save", str(blocker)], capsys)
    assert code == 2 and "already exists" in out and "--force" in out


# (what, arguments of `sniff play`, words of the error); each fails before the first move
PLAY: list[tuple[str, list[str], str]] = [
    ("--save under a regular file", ["--save", "{file}/game.json"], "is a file, not a folder"),
    ("--save onto an existing file", ["--save", "{file}"], "already exists"),
    ("--save onto a folder", ["--save", "{dir}"], "is a folder"),
    ("--resume of a log naming a foreign file", ["--resume", "{foreign}"], "may not choose which files"),
    ("--resume of a log naming a bad player", ["--resume", "{bad_option}"], "has no option 'nonsense'"),
    ("--resume of a log with 'human' at an agent's seat", ["--resume", "{two_humans}"], "seat 1"),
]


def _log_with_players(path: Path, players: list[str]) -> Path:
    session = started()
    session.play(session.game.legal_actions()[0])
    data = game_log(session.game, players, session.meta)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("what", "args", "says"), PLAY, ids=[r[0] for r in PLAY])
def test_sniff_play_refuses_bad_files_before_playing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch, what: str, args: list[str],
                                                     says: str) -> None:
    monkeypatch.setenv("SNIFF_HOME", str(tmp_path / "home"))
    file = tmp_path / "a-file"
    file.write_text("keep me")
    evil = tmp_path / "evil.pt"
    places = {"file": file, "dir": tmp_path,
              "foreign": _log_with_players(tmp_path / "foreign.json", ["human", str(evil)]),
              "bad_option": _log_with_players(tmp_path / "bad.json", ["human", "heuristic:nonsense=1"]),
              "two_humans": _log_with_players(tmp_path / "humans.json", ["human", "human"])}
    argv = ["play", "--opponent", "random", *(a.format(**places) for a in args)]
    if "--resume" in args:
        argv.remove("--opponent")
        argv.remove("random")
    code, out = run(argv, capsys)
    assert code == 2 and says in out and "Traceback" not in out, out
    assert file.read_text() == "keep me"


def test_a_trusted_file_may_be_named_by_a_resumed_log(tmp_path: Path) -> None:
    evil = tmp_path / "mine.pt"
    from sniff_env.gamelog import load_game_log

    log = load_game_log(_log_with_players(tmp_path / "g.json", ["human", str(evil)]))
    with pytest.raises(ValueError, match="may not choose which files"):
        Session.resume(log, tmp_path / "g.json")
    session = Session.resume(log, tmp_path / "g.json", trusted=[str(evil)])
    assert session.seats[1].spec == "heuristic" and "cannot be used" in session.notes[0]  # it does not exist


def test_log_files_are_new_unless_overwriting_is_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNIFF_HOME", str(tmp_path))
    twins = [Session.start(RULES, ["random"], seed=5) for _ in range(2)]
    paths = [s.save() for s in twins]  # the same seed in the same second: two files
    assert paths[0] != paths[1] and all(p.is_file() for p in paths)
    assert default_save_path(5).parent == tmp_path / "games"
    other = twins[1]
    other.save_path = paths[0]
    with pytest.raises(LogWriteError, match="already exists"):
        other.save()
    assert json.loads(paths[0].read_text())["players"] == [p.spec for p in twins[0].seats]
    other.overwrite = True
    other.save()
    twins[0].save()  # its own file: replacing it is how the log follows the game
    assert paths[0].is_file()


# -- generated logs: the parser either loads them or raises GameLogError ----------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


SHORT = copy.deepcopy(LOG)
SHORT["hands"] = SHORT["hands"][:1]
PATHS = [p for p in _paths(SHORT) if p]


def _loads_or_refuses(data: Any) -> None:
    try:
        parse_game_log(data)
    except GameLogError as exc:
        assert str(exc)


@settings(max_examples=60, deadline=None)
@given(edits=st.lists(st.tuples(st.sampled_from(PATHS), JSON | st.sampled_from([None, [], {}, "", -1, 10**30])),
                      min_size=1, max_size=3))
def test_a_changed_log_loads_or_is_refused(edits: list[tuple[tuple[Any, ...], Any]]) -> None:
    data = copy.deepcopy(SHORT)
    for path, value in edits:
        node: Any = data
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed the place
    _loads_or_refuses(data)


@settings(max_examples=40, deadline=None)
@given(data=JSON | st.fixed_dictionaries({"format": st.just("sniff-game-log"), "version": st.just(1)},
                                         optional={k: JSON for k in LOG if k not in ("format", "version")}))
def test_generated_data_loads_or_is_refused(data: Any) -> None:
    _loads_or_refuses(data)
