"""``sniff play`` (``python -m sniff_env.cli.play``) driven through a pseudo-terminal, as a person would play it."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from sniff_env.gamelog import load_game_log
from sniff_env.play.seat_replay import SeatLog, read_log

pexpect = pytest.importorskip("pexpect")  # a dev dependency; the pty tests skip without it

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "\n> "
NEXT_HAND = "press Enter for the next hand"
OVER = "watch it again"
MOVE = re.compile(r"^\s+1\) (.+?)(?:\s{2,}|$)", re.MULTILINE)
TILES = re.compile(r"your tiles: (.*)")


def spawn(tmp_path: Path, *args: str, module: str = "sniff_env.cli.play", sigint_ignored: bool = False) -> pexpect.spawn:
    """The program on a pseudo-terminal; ``sigint_ignored``: started with interrupts ignored, as a
    non-interactive shell starts a background job (and as some libraries leave a test worker)."""
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS="200", SNIFF_HOME=str(tmp_path / "home"))
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
    return pexpect.spawn(sys.executable, ["-m", module, *args], cwd=str(ROOT), env=env,
                         encoding="utf-8", timeout=20, dimensions=(50, 200), preexec_fn=ignore)


def wait_until_reading(child: pexpect.spawn, timeout: float = 10.0) -> None:
    """Wait until the program sleeps in its read of the terminal. A signal that lands between the
    prompt and the blocking read is only seen at the next key (CPython checks signals when the read
    is interrupted), so a test that sends Ctrl-C waits for the read, as a person's reaction does."""
    stat = Path(f"/proc/{child.pid}/stat")
    if not stat.exists():  # no procfs: give the program time to reach its read
        time.sleep(0.5)
        return
    deadline = time.monotonic() + timeout
    sleeping = 0
    while time.monotonic() < deadline and sleeping < 3:
        state = stat.read_text().rsplit(")", 1)[1].split()[0]
        sleeping = sleeping + 1 if state == "S" else 0
        time.sleep(0.02)


def start(tmp_path: Path, *extra: str) -> pexpect.spawn:
    return spawn(tmp_path, "--opponent", "random", "--seed", "5", "--rule", "target=20", *extra)


def first_move(before: str) -> str:
    """The text of move 1 in the numbered list on the screen."""
    return MOVE.findall(before)[-1].strip()


def play_to_end(child: pexpect.spawn, limit: int = 300) -> str:
    """Always play the first listed move, typed as its text, until the game is over."""
    for _ in range(limit):
        i = child.expect([PROMPT, NEXT_HAND, OVER])
        if i == 0:
            child.sendline(first_move(child.before))
        elif i == 1:
            child.sendline("")
        else:
            child.expect(pexpect.EOF)
            return str(child.before)
    raise AssertionError("the game did not end")


def final_scores(text: str) -> str:
    return re.findall(r"final scores: ([\d /-]+)", text)[-1].strip()


def test_full_game_then_replay(tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    child = start(tmp_path, "--save", str(log))
    play_to_end(child)
    child.close()
    assert child.exitstatus == 0
    data = json.loads(log.read_text())
    assert data["finished"] and max(data["scores"]) >= 20
    replay = spawn(tmp_path, str(log), "--all", module="sniff_env.cli.replay")
    replay.expect(pexpect.EOF)
    assert final_scores(replay.before) == " / ".join(map(str, data["scores"]))
    assert load_game_log(log).game.scores == data["scores"]


def test_replay_steps_on_enter_and_quits(tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    child = start(tmp_path, "--save", str(log))
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    replay = spawn(tmp_path, str(log), module="sniff_env.cli.replay")
    replay.expect(r"\[Enter: next move, n: next hand, e: the end, b: back, q: quit\]")
    replay.sendline("")
    replay.expect("count")
    replay.expect(r"\[Enter: next move, n: next hand, e: the end, b: back, q: quit\]")
    replay.sendline("q")
    replay.expect(pexpect.EOF)
    replay.close()
    assert replay.exitstatus == 0


def test_bad_inputs_explain_and_eof_saves(tmp_path: Path) -> None:
    child = start(tmp_path)
    child.expect(PROMPT)
    screen = child.before
    held = TILES.findall(screen)[-1].split()
    child.sendline("garbage")
    child.expect("I do not know the word 'garbage'")
    child.expect(PROMPT)
    stranger = next(f"{a}-{b}" for a in range(7) for b in range(a, 7) if f"{a}-{b}" not in held)
    child.sendline(stranger)
    child.expect(f"You do not hold {stranger}")
    child.expect("legal moves: 1\\) ")
    child.expect(PROMPT)
    tile = first_move(screen).split()[0]
    listed = {m.split()[1] for m in re.findall(rf"\d+\) ({re.escape(tile)} \w+)", screen)}
    wrong = next(e for e in ("west", "east", "north", "south") if e not in listed)
    child.sendline(f"{tile} {wrong}")
    child.expect(f"{tile} does not fit {wrong}")
    child.expect("open ends: ")
    child.expect(PROMPT)
    child.sendline("")  # an empty line just asks again
    child.sendline("help")
    child.expect("take back your last move")
    child.expect("press Enter for the table")
    child.sendline("")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("end of input: the game is saved in (\\S+)")
    saved = Path(child.match.group(1))
    child.expect(r"resume with:\s+sniff play --resume ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert not load_game_log(saved).finished


def test_undo_and_rated(tmp_path: Path) -> None:
    child = start(tmp_path)
    child.expect(PROMPT)
    before = TILES.findall(child.before)[-1]
    child.sendline("1")
    child.expect(PROMPT)
    assert TILES.findall(child.before)[-1] != before
    child.sendline("undo")
    child.expect("your last move is taken back")
    child.expect(PROMPT)
    assert TILES.findall(child.before)[-1] == before
    child.sendline("undo")
    child.expect("nothing to undo")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    rated = start(tmp_path, "--rated")
    rated.expect(PROMPT)
    rated.sendline("1")
    rated.expect(PROMPT)
    rated.sendline("undo")
    rated.expect("undo is off in a rated game")
    rated.sendline("quit")
    rated.expect(pexpect.EOF)


def test_save_quit_resume_and_interrupt(tmp_path: Path) -> None:
    log = tmp_path / "g.json"
    child = start(tmp_path, "--save", str(log))
    for _ in range(2):
        child.expect(PROMPT)
        child.sendline("1")
    child.expect(PROMPT)
    held = TILES.findall(child.before)[-1]
    other = tmp_path / "copy.json"
    child.sendline(f"save {other}")
    child.expect(f"saved what you have seen so far \\(your own tiles only\\) in {other}")
    record = read_log(other)
    assert isinstance(record, SeatLog) and record.scores == load_game_log(log).game.scores
    child.sendline("quit")
    child.expect(rf"resume with:\s+sniff play --resume {re.escape(str(log))}")
    child.expect(pexpect.EOF)
    resumed = spawn(tmp_path, "--resume", str(log), sigint_ignored=True)  # Ctrl-C must still save
    resumed.expect(PROMPT)
    assert TILES.findall(resumed.before)[-1] == held
    resumed.sendline("1")
    resumed.expect(PROMPT)
    resumed.sendintr()
    resumed.expect(f"interrupted: the game is saved in {log}")
    resumed.expect(pexpect.EOF)
    resumed.close()
    assert resumed.exitstatus == 130
    play_to_end(spawn(tmp_path, "--resume", str(log)))
    assert load_game_log(log).finished


@pytest.mark.parametrize("args", [["--rule", "partnership=true", "--players", "4", "--partner", "greedy"],
                                  ["--players", "3", "--seat", "2", "--rule", "muggins_claims=true"]])
def test_more_players(tmp_path: Path, args: list[str]) -> None:
    child = spawn(tmp_path, "--opponent", "random", "--seed", "2", "--rule", "target=15", *args)
    play_to_end(child)
    child.close()
    assert child.exitstatus == 0
