"""The play session without a terminal: options with points, muggins, undo, hints, seats."""

from __future__ import annotations

import io
import time
from pathlib import Path

from conftest import action_for
from rich.console import Console

from sniff_env.game import new_game
from sniff_env.play.screen import layout_picture, table_lines
from sniff_env.play.session import HUMAN, Session, load_agent, safe_name
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
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "the move did not happen: cannot write the game log" in out and "the game is as it was" in out
    assert "bye: the game is not saved" in out
    assert session.game.hands == before.hands and session.game.hand_actions == before.hand_actions
    assert not session.can_undo


def test_names_from_logs_are_made_safe_to_print() -> None:
    assert safe_name("\x1b[2Jboss\x07") == "\\x1b[2Jboss\\x07"
    assert safe_name("[bold]x[/]") == "[bold]x[/]"  # markup is escaped where it is printed
    assert len(safe_name("n" * 500)) == 60
