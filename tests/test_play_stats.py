"""The player's record across games (``stats.json`` in the player's data folder): each finished
game counted once under its preset, player count and opponents, with wins, best score and runs
of wins; a file that cannot be read is refused with a message that says what to do, and is left
exactly as it was."""

from __future__ import annotations

import json
import random
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from sniff_env.game import Phase
from sniff_env.play.session import Session
from sniff_env.play.stats import StatsError, load_stats, record_game, stats_lines, stats_path, summary
from sniff_env.presets import make_rules


def finished(seed: int, players: int = 2, opponents: tuple[str, ...] = ("random",)) -> Session:
    session = Session.start(make_rules("sniff", players, target=20), list(opponents), seed=seed)
    rng = random.Random(seed)
    session.advance()
    while session.game.phase is not Phase.GAME_OVER:
        if session.game.phase is Phase.HAND_OVER:
            session.next_hand()
        else:
            session.play(rng.choice(session.game.legal_actions()))
    return session


def test_games_are_counted_by_kind_with_best_score_and_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNIFF_HOME", str(tmp_path))
    assert stats_path() == tmp_path / "stats.json" and load_stats().records == {}
    outcomes, scores = [], []
    for seed in range(6):
        session = finished(seed)
        row, stats = record_game(session)
        outcomes.append(session.game.winner == 0)
        scores.append(session.game.scores[0])
    assert (row.played, row.won, row.best) == (6, sum(outcomes), max(scores))
    run = 0
    for won in outcomes:
        run = run + 1 if won else 0
    assert row.streak == run == stats.streak and row.best_streak >= run
    assert summary(row, stats).startswith(f"sniff, 2 players, to 20, against random: 6 played, {sum(outcomes)} won")
    other, _ = record_game(finished(7, 3, ("greedy", "random")))
    assert other.key == "sniff · 3 players · to 20 · greedy, random" and other.played == 1
    again = load_stats()
    assert set(again.records) == {row.key, other.key} and again.played == 7
    lines = stats_lines(again, 60)
    assert lines[0].startswith("your games: 7 played") and max(map(len, lines)) <= 60
    left = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert left == [".stats.json.lock"], "no temporary file is left (the lock file stays: removing it would race)"
    with pytest.raises(StatsError, match="not over"):
        record_game(Session.start(make_rules("sniff", 2), ["random"], seed=1))


DAMAGED = [
    ("not JSON", "{", "not valid JSON"),
    ("another file", json.dumps({"format": "sniff-game-log"}), "not a sniff-stats file"),
    ("a later version", json.dumps({"format": "sniff-stats", "version": 7, "records": {}}), "version 7"),
    ("rows that are no mapping", json.dumps({"format": "sniff-stats", "version": 1, "records": [1]}), "not a mapping"),
    ("a row that does not add up", json.dumps({"format": "sniff-stats", "version": 1, "records": {
        "sniff · 2 players · random": {"preset": "sniff", "players": 2, "opponent": "random", "played": 3,
                                       "won": 1, "lost": 1, "drawn": 0}}}), "does not add up"),
    ("a negative count", json.dumps({"format": "sniff-stats", "version": 1, "records": {
        "sniff · 2 players · random": {"preset": "sniff", "players": 2, "opponent": "random", "played": -1,
                                       "won": -1}}}), "0 or more"),
]


@pytest.mark.parametrize(("what", "text", "says"), DAMAGED, ids=[d[0] for d in DAMAGED])
def test_a_damaged_record_is_refused_and_left_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       what: str, text: str, says: str) -> None:
    monkeypatch.setenv("SNIFF_HOME", str(tmp_path))
    (tmp_path / "stats.json").write_text(text)
    with pytest.raises(StatsError, match=says) as refused:
        record_game(finished(1))
    assert "move it away (or delete it) to start a new record" in str(refused.value)
    assert (tmp_path / "stats.json").read_text() == text, "nothing resets or changes it"
    with pytest.raises(StatsError):
        load_stats()


def test_a_folder_in_the_way_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNIFF_HOME", str(tmp_path))
    (tmp_path / "stats.json").mkdir()
    with pytest.raises(StatsError, match="folder"):
        load_stats()


COUNTER = """
import sys
from pathlib import Path
from sniff_env.play.session import Session
from sniff_env.play.stats import record_game
from sniff_env.presets import make_rules
session = Session.start(make_rules("sniff", 2, target=20), ["random"], seed=1)
session.advance()
while session.game.phase.name != "GAME_OVER":
    if session.game.phase.name == "HAND_OVER":
        session.next_hand()
    else:
        session.play(session.game.legal_actions()[0])
for _ in range(int(sys.argv[2])):
    record_game(session, Path(sys.argv[1]))
"""


def test_two_programs_counting_at_once_lose_no_game(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    programs = [subprocess.Popen([sys.executable, "-c", COUNTER, str(path), "100"]) for _ in range(2)]
    assert [p.wait(120) for p in programs] == [0, 0]
    assert load_stats(path).played == 200
    assert stat.S_IMODE(path.stat().st_mode) == 0o600, "the record is the player's own"


def test_game_logs_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    session = finished(3)
    path = session.save(tmp_path / "game.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def finished_with(rules_args: dict[str, object], seed: int, players: int = 2, rated: bool = False,
                  preset: str = "sniff") -> Session:
    """A finished game of ``preset`` changed by ``rules_args``, against random players."""
    session = Session.start(make_rules(preset, players, **{"target": 20, **rules_args}), ["random"], seed=seed,
                            rated=rated)
    rng = random.Random(seed)
    session.advance()
    while session.game.phase is not Phase.GAME_OVER:
        if session.game.phase is Phase.HAND_OVER:
            session.next_hand()
        else:
            session.play(rng.choice(session.game.legal_actions()))
    return session


def test_games_are_told_apart_by_every_rule_that_changes_them(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    kinds = [({}, 4, False), ({"partnership": True}, 4, False), ({"target": 30}, 4, False),
             ({"muggins_claims": True}, 4, False), ({}, 4, True), ({"max_pip": 9}, 4, False)]
    rows = [record_game(finished_with(args, seed, players, rated), path)[0] for seed, (args, players, rated)
            in enumerate(kinds)]
    assert [r.key for r in rows] == [
        "sniff · 4 players · to 20 · random", "sniff · 4 players · to 20 · partners · random",
        "sniff · 4 players · to 30 · random", "sniff · 4 players · to 20 · muggins claims · random",
        "sniff · 4 players · to 20 · random · rated", "sniff · 4 players · to 20 · double-9 · random"]
    stats = load_stats(path)
    assert len(stats.records) == len(kinds) and all(r.played == 1 for r in stats.records.values())
    assert summary(rows[1], stats).startswith("sniff, 4 players, to 20, partners, against random: 1 played")
    assert summary(rows[4], stats).startswith("sniff, 4 players, to 20, rated, against random: 1 played")
    again, _ = record_game(finished_with({"partnership": True}, 9, 4), path)
    assert again.key == rows[1].key and again.played == 2, "the same game counts into the same row"
    lines = stats_lines(load_stats(path), 80)
    assert max(map(len, lines)) <= 80
    text = " ".join(" ".join(lines).split())
    assert "sniff, 4p, to 20, partners, vs random" in text and "sniff, 4p, to 20, rated, vs random" in text


FIRST_VERSION = {"format": "sniff-stats", "version": 1, "streak": 1, "best_streak": 2, "records": {
    "sniff · 2 players · random": {"preset": "sniff", "players": 2, "opponent": "random", "played": 3, "won": 2,
                                   "lost": 1, "drawn": 0, "best": 104, "streak": 1, "best_streak": 2,
                                   "last": "2024-05-01 20:15"}}}


def test_a_first_version_file_is_read_kept_and_shown_as_such(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    path.write_text(json.dumps(FIRST_VERSION))
    old = load_stats(path).records["sniff · 2 players · random"]
    assert (old.played, old.won, old.rules, old.rated) == (3, 2, None, None)
    assert "rules not told apart" in " ".join(stats_lines(load_stats(path), 80))
    row, _ = record_game(finished_with({}, 2), path)
    assert row.key == "sniff · 2 players · to 20 · random" and row.played == 1, "a new game never counts into an old row"
    data = json.loads(path.read_text())
    assert data["version"] == 2 and data["records"]["sniff · 2 players · random"] == {
        **FIRST_VERSION["records"]["sniff · 2 players · random"], "rules": None, "rated": None}
    kept = load_stats(path)
    assert kept.played == 4 and kept.records["sniff · 2 players · random"].played == 3
    lines = stats_lines(kept, 80)
    assert lines[-1].endswith("sniff, 2p, rules not told apart, vs random"), "the old row is shown last, as such"
    assert summary(kept.records["sniff · 2 players · random"], kept).startswith(
        "sniff, 2 players, rules not told apart (counted before they were), against random: 3 played")
