"""The play session without a terminal: options with points, muggins, undo, hints, seats."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from conftest import action_for
from rich.console import Console

from sniff_env.errors import SniffError
from sniff_env.game import new_game
from sniff_env.gamelog import game_log, load_game_log
from sniff_env.play.screen import layout_picture, table_lines
from sniff_env.play.session import HUMAN, Session, check_log_player, load_agent, safe_name
from sniff_env.play.terminal import Terminal
from sniff_env.presets import make_rules

HANDS = [
    [(5, 5), (5, 0), (3, 2), (6, 6), (1, 4), (0, 0), (2, 4)],
    [(5, 3), (5, 1), (6, 1), (6, 2), (6, 3), (6, 4), (6, 5)],
]


def scripted(**overrides: object) -> Session:
    rules = make_rules("sniff", 2, **overrides)
    session = Session.start(rules, ["greedy"], seed=1)
    session.game = new_game(rules, seed=1, deal={"hands": HANDS, "leader": 0})
    return session


def test_options_carry_the_points_of_each_move() -> None:
    session = scripted()
    points = {o.text: o.points for o in session.options()}
    assert points["5-5 lead"] == 10 and points["0-5 lead"] == 5 and points["2-3 lead"] == 5
    assert points["1-4 lead"] == 5 and points["6-6 lead"] == 0


def test_unclaimed_points_go_to_the_opponent() -> None:
    session = scripted(muggins_claims=True)
    lead = action_for(session.game, (5, 5), None)
    session.play(lead, claim=False)
    assert session.game.scores[1] >= 10
    assert any(e.kind == "muggins" for e in session.recent_events())
    session.undo()
    session.play(lead, claim=True)
    assert session.game.scores[0] == 10


def test_undo_restores_the_position_and_rated_forbids_it() -> None:
    session = scripted()
    hands = list(session.game.hands)
    session.play(session.options()[0].action)
    assert session.can_undo
    session.undo()
    assert session.game.hands == hands and session.human_to_move and not session.can_undo
    session.rated = True
    session.play(session.options()[0].action)
    assert not session.can_undo


def test_hint_answers_quickly_for_every_move() -> None:
    session = scripted()
    t0 = time.perf_counter()
    hints = session.hint(budget_s=0.3)
    assert time.perf_counter() - t0 < 2.0
    assert {o.action for o, _ in hints} == set(session.game.legal_actions())
    assert [v for _, v in hints] == sorted((v for _, v in hints), reverse=True)


def test_seats_partner_and_screen() -> None:
    rules = make_rules("sniff", 4, partnership=True)
    session = Session.start(rules, ["random", "greedy"], human=1, partner="heuristic", seed=4)
    assert [p.spec for p in session.seats] == ["random", HUMAN, "greedy", "heuristic"]
    assert session.seats[3].name == "heuristic (partner)"
    session.advance()
    text = "\n".join(table_lines(session))
    assert "You & heuristic (partner)" in text and "your tiles:" in text


def test_layout_picture_stacks_the_arms_on_the_sniff() -> None:
    session = scripted()
    g = session.game
    for tile, end in [((5, 5), None), ((5, 3), "west"), ((5, 0), "north"), ((6, 5), "south")]:
        g.step(action_for(g, tile, end))
    assert layout_picture(g) == ["     0-5", "3-5  5=5*", "     5-6"]


def test_a_policy_that_cannot_play_falls_back_to_heuristic(tmp_path: object) -> None:
    rules = make_rules("muggins", 3)
    agent, note = load_agent("no/such/policy.pt", rules, 0, fallback=True)
    assert agent.name == "heuristic" and note and "heuristic plays instead" in note


def test_a_move_whose_log_cannot_be_written_is_taken_back(tmp_path: Path) -> None:
    session = scripted()
    (tmp_path / "blocker").write_text("")
    session.save_path = tmp_path / "blocker" / "game.json"
    console = Console(file=io.StringIO(), width=200, highlight=False)
    answers = iter(["1", "quit"])
    before = session.game.copy()
    Terminal(session, console, read=lambda _prompt: next(answers)).run()
    out = " ".join(console.file.getvalue().split())  # type: ignore[attr-defined]  # lines wrap between words
    assert "the move did not happen: cannot write the game log" in out and "the game is as it was" in out
    assert "bye: the game is not saved" in out
    assert session.game.hands == before.hands and session.game.hand_actions == before.hand_actions
    assert not session.can_undo


def test_names_from_logs_are_made_safe_to_print() -> None:
    assert safe_name("\x1b[2Jboss\x07") == "\\x1b[2Jboss\\x07"
    assert safe_name("[bold]x[/]") == "[bold]x[/]"  # markup is escaped where it is printed
    assert len(safe_name("n" * 500)) == 60


# -- a resumed log names players, never files ---------------------------------------------------
REFUSED_LOG_PLAYERS: list[tuple[str, list[str]]] = [
    ("guided:agent=agent.onnx,samples=8", ["option agent= must be a shipped agent's name", "not a file",
                                           "--opponent guided:agent=agent.onnx,samples=8"]),
    ("guided:agent=/etc/passwd", ["option agent= must be a shipped agent's name"]),
    ("guided:agent=5", ["option agent= must be a shipped agent's name"]),
    ("agent.onnx", ["no built-in player and no shipped agent", "may not choose which files", "--opponent agent.onnx"]),
    ("/dev/zero", ["may not choose which files"]),
    ("heuristic:nonsense=1", ["has no option 'nonsense'"]),
    ("search:budget_s=soon", ["budget_s=soon", "must be a number"]),
    ("\x1b]0;pwned\x07\x1b[2J.onnx", ["\\x1b]0;pwned\\x07", "may not choose which files"]),
]


@pytest.mark.parametrize(("spec", "words"), REFUSED_LOG_PLAYERS, ids=[repr(s) for s, _ in REFUSED_LOG_PLAYERS])
def test_a_log_may_not_name_files(spec: str, words: list[str]) -> None:
    with pytest.raises(SniffError) as info:
        check_log_player(1, spec)
    message = str(info.value)
    assert "\x1b" not in message and "\x07" not in message
    for word in words:
        assert word in message, message


def test_a_log_may_name_built_in_players_and_shipped_agents() -> None:
    from sniff_env.players.agents import shipped_agents

    for spec in ("heuristic", "search:budget_s=0.5", "rollouts:samples=8,value=win", "guided:agent=sniff-2p,samples=8",
                 "sniff-2p", str(shipped_agents()["sniff-2p"].path)):
        check_log_player(1, spec)
    mine = "guided:agent=agent.onnx,samples=8"
    check_log_player(1, mine, trusted=[mine])  # named on the command line: the caller's choice
    check_log_player(1, "mine.onnx", trusted=["./mine.onnx"])


def _log_file(path: Path, players: list[str]) -> Path:
    session = Session.start(make_rules("sniff", 2, target=30), ["random"], seed=8)
    session.advance()
    path.write_text(json.dumps(game_log(session.game, players, session.meta)))
    return path


@pytest.mark.parametrize(("spec", "says"), [
    ("search:budget_s=1e300", "budget_s must be a finite number of seconds above 0 and at most 600"),
    ("rollouts:samples=9223372036854775807", "samples must be a whole number from 1 to 65536"),
    ("guided:agent=sniff-2p,samples=1000000", "samples must be a whole number from 1 to 65536"),
])
def test_a_log_cannot_ask_for_a_search_without_end(tmp_path: Path, spec: str, says: str) -> None:
    log = load_game_log(_log_file(tmp_path / "g.json", [HUMAN, spec]))
    with pytest.raises(SniffError, match=says):
        Session.resume(log, tmp_path / "g.json")


@pytest.mark.parametrize("command", ["play", "serve"])
def test_resume_never_loads_a_file_a_log_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str], command: str) -> None:
    from sniff_env.cli import main

    def no_load(*args: object, **kwargs: object) -> None:
        raise AssertionError("a file named by the log was loaded")

    monkeypatch.setenv("SNIFF_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("sniff_env.players.guided.load_network", no_load)
    monkeypatch.setattr("sniff_env.players.policy.load_policy", no_load)
    (tmp_path / "agent.onnx").write_bytes(b"not a policy")
    log = _log_file(tmp_path / "g.json", [HUMAN, "guided:agent=agent.onnx,samples=8"])
    monkeypatch.chdir(tmp_path)  # the file sits beside the log, where a relative path finds it
    before = log.read_bytes()
    argv = [command, "--resume", str(log)] + (["--opponent", "random", "--port", "0"] if command == "serve" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "option agent= must be a shipped agent's name" in err and "--opponent" in err
    assert log.read_bytes() == before


def test_names_from_a_resumed_log_are_printable(tmp_path: Path) -> None:
    log = load_game_log(_log_file(tmp_path / "g.json", [HUMAN, "heuristic:name=\x1b]0;pwned\x07\x9b2J"]))
    session = Session.resume(log, tmp_path / "g.json")
    assert session.seats[1].name == "\\x1b]0;pwned\\x07\\x9b2J"
    assert session.seats[1].spec == "heuristic:name=\x1b]0;pwned\x07\x9b2J"  # the log keeps the spec as it was
    console = Console(file=io.StringIO(), width=200, highlight=False)
    for line in table_lines(session, 200):
        console.print(line)
    assert "\x1b" not in console.file.getvalue() and "\x9b" not in console.file.getvalue()  # type: ignore[attr-defined]
    _, note = load_agent("\x1b[2Jnowhere.onnx", make_rules("sniff", 2), 0, fallback=True)
    assert note is not None and "\x1b" not in note
