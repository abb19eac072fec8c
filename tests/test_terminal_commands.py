"""The terminal table's commands through a pseudo-terminal at 80×24, as a player coming back to it
meets them: ``board`` draws the table again and the table comes back after ``hint``, ``help``,
``rules``, ``scores``, ``log`` and ``stats`` (what is longer than the screen is paged, ``rules``
among it, and a move typed at the pager is played); keys typed while the computer plays are
thrown away; ``save`` gives what the player has seen (replayed, no other hand's tile shows);
``sniff replay`` jumps to the next hand and to the end; the count of a double led alone and the
sniff's sides are explained, on the table and in the rules; a level's player goes by the
level's name, the engine's second.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from sniff_env.game import Phase, new_game
from sniff_env.gamelog import load_game_log, save_game_log
from sniff_env.presets import make_rules

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
WIDTH, HEIGHT = 80, 24
TITLE = re.compile(r"── \S+ · \d players · hand \d+ ──")
PAGER = ["press Enter for more", "press Enter for the table", "\n> "]


def spawn(home: Path, *args: str) -> Any:
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS=str(WIDTH), LINES=str(HEIGHT), SNIFF_HOME=str(home))
    child = pexpect.spawn(sys.executable, ["-m", "sniff_env.cli", *args], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=30, dimensions=(HEIGHT, WIDTH))
    child.seen = ""
    return child


def upto(child: Any, pattern: Any) -> int:
    """Wait for ``pattern`` (a list: any of them), keeping all the output in ``child.seen``."""
    i = int(child.expect(pattern))
    child.seen += child.before + (child.after if isinstance(child.after, str) else "")
    return i


def plain(text: str) -> list[str]:
    return [ANSI.sub("", line).rstrip() for line in text.replace("\r", "").split("\n")]


def screen(text: str) -> list[str]:
    """What the 80×24 terminal shows after ``text``: its last rows, long lines wrapped."""
    rows: list[str] = []
    for line in plain(text):
        rows += [line[i:i + WIDTH] for i in range(0, len(line), WIDTH)] or [""]
    return rows[-HEIGHT:]


def table_is_back(child: Any) -> list[str]:
    """The table on the screen at the prompt, whole: from its title to the prompt."""
    shown = screen(child.seen)
    titles = [i for i, row in enumerate(shown) if TITLE.match(row)]
    assert shown[-1] == ">" and titles, "\n".join(shown)
    return shown[titles[-1]:]


def page_through(child: Any) -> list[list[str]]:
    """Press Enter at each page until the table is back; each page's screen."""
    pages = []
    while upto(child, PAGER) != 2:
        pages.append(screen(child.seen))
        child.sendline("")
    return pages


def test_board_and_the_table_back_after_every_command(tmp_path: Path) -> None:
    child = spawn(tmp_path, "play", "--seed", "7", "--opponent", "random")
    upto(child, "\n> ")
    first = table_is_back(child)
    child.sendline("board")
    upto(child, "\n> ")
    assert table_is_back(child) == first, "board draws the same table again"
    # rules: a screen at a time, its first line at the top of the first page
    child.sendline("rules")
    pages = page_through(child)
    assert len(pages) >= 2, "the rules are longer than one screen"
    assert pages[0][0].startswith("how to play sniff (2 players)") and pages[0][-1].startswith("press Enter for more")
    assert pages[-1][-1].startswith("press Enter for the table")
    table_is_back(child)
    for word in ("help", "scores", "log", "stats"):
        child.sendline(word)
        assert len(page_through(child)) == 1, f"{word} fits one screen"
        table_is_back(child)
    child.sendline("hint")
    upto(child, "\n> ")
    shown = table_is_back(child)
    assert any(row.startswith("your moves, best first by the hint") for row in shown)
    assert any(row.startswith("your tiles: ") and re.search(r">\d-\d<|the hint: draw", row) for row in shown)
    # a move typed at the pager's prompt is played
    child.sendline("scores")
    upto(child, "press Enter for the table")
    child.sendline("1")
    upto(child, "\n> ")
    assert re.search(r"You (play|draw)", child.before), "the move typed at the pager was played"
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_keys_typed_while_the_computer_plays_are_thrown_away(tmp_path: Path) -> None:
    child = spawn(tmp_path, "play", "--seed", "5", "--opponent", "random")
    upto(child, "\n> ")
    child.send("1\rscores\r")  # "scores" is typed before the computer has answered the move
    upto(child, "\n> ")
    with pytest.raises(pexpect.TIMEOUT):
        child.expect(["score sheet", "press Enter"], timeout=2)
    child.sendline("board")
    upto(child, "\n> ")
    assert "score sheet" not in child.seen, "the key typed ahead made no move and showed nothing"
    table_is_back(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_save_gives_what_you_saw_and_its_replay_shows_no_other_hand(tmp_path: Path) -> None:
    log, record = tmp_path / "game.json", tmp_path / "so-far.json"
    child = spawn(tmp_path / "home", "play", "--seed", "5", "--opponent", "random", "--save", str(log))
    for _ in range(2):
        upto(child, "\n> ")
        child.sendline("1")
    upto(child, "\n> ")
    child.sendline(f"save {record}")
    upto(child, "watch it with:")
    upto(child, "\n> ")
    child.sendline("save")
    upto(child, r"saved what you have seen so far \(your own tiles only\) in (\S+)")
    named = Path(child.match.group(1))
    upto(child, "\n> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert named.parent == log.parent and "-so-far-" in named.name and "seed" not in named.name
    game = load_game_log(log).game
    hidden = {game.ts.name(t) for s in range(1, game.n) for t in range(game.ts.size) if game.hands[s] >> t & 1}
    hidden |= {game.ts.name(t) for t in game.boneyard}
    assert hidden and all(json.loads(p.read_text())["format"] == "sniff-seat-log" for p in (record, named))
    for path in (record, named):
        replay = spawn(tmp_path, "replay", str(path), "--all")
        replay.expect(pexpect.EOF)
        shown = set(re.findall(r"\b\d-\d\b", "\n".join(plain(replay.before))))
        assert shown and not shown & hidden, f"the replay shows tiles the player never saw: {shown & hidden}"


def test_replay_jumps_to_the_next_hand_and_to_the_end(tmp_path: Path) -> None:
    game = new_game(make_rules("sniff", 3, target=60), seed=4)
    rng = random.Random(4)
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
        game.step(rng.choice(game.legal_actions()))
    assert game.hand_index >= 2
    log = save_game_log(game, tmp_path / "g.json", ["human", "random", "random"], {"human_seat": 0})
    prompt = r"\[Enter: next move, n: next hand, e: the end, b: back, q: quit\]"
    child = spawn(tmp_path, "replay", str(log))
    upto(child, prompt)
    child.sendline("n")
    upto(child, prompt)
    assert re.search(r"── hand 2 ──\r\n", child.before) and "move 1 of" not in child.before
    child.sendline("")
    upto(child, r"hand 2, move 1 of \d+")
    child.sendline("e")
    upto(child, pexpect.EOF)
    assert f"final scores: {' / '.join(map(str, game.scores))}" in " ".join(plain(child.before))
    moves = re.findall(r"hand (\d+), move (\d+) of (\d+)", child.before)
    assert len(moves) == 1, "the end is shown without the moves on the way"
    assert int(moves[0][0]) == game.hand_index + 1 and moves[0][1] == moves[0][2], "the last move of the last hand"


def test_a_double_led_alone_and_the_sniffs_sides_are_explained(tmp_path: Path) -> None:
    child = spawn(tmp_path, "play", "--preset", "muggins", "--seed", "2", "--opponent", "random")
    upto(child, "\n> ")
    assert "random leads 3-3  (count 6)" in child.before
    assert "count 6 = lead 6 (a double alone counts both halves, once)" in screen(child.seen)
    child.sendline("rules")
    said = " ".join(" ".join(row for p in page_through(child) for row in p).split())
    assert "A double that leads counts both halves once while it is alone on the table" in said
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child = spawn(tmp_path, "play", "--preset", "sniff", "--seed", "2", "--opponent", "random")
    upto(child, "\n> ")
    assert "count 6 = west 0 (sniff's side) + east 0 (sniff's side) + north 3 + south 3" in screen(child.seen)
    child.sendline("rules")
    said = " ".join(" ".join(row for p in page_through(child) for row in p).split())
    assert ("Its west and east sides count 0 (the count calls them the sniff's side): they only carry the line"
            in said)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_level_goes_by_its_name_and_says_so_once(tmp_path: Path) -> None:
    child = spawn(tmp_path, "play", "--seed", "5", "--level", "beginner", "--players", "3")
    upto(child, "\n> ")
    child.sendline("1")
    upto(child, "\n> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    text = " ".join(" ".join(plain(child.seen)).split())
    assert text.count("note: Beginner plays a legal tile at random (engine: random)") == 1
    assert "tiles in hand: Beginner#1" in text and "Beginner#2" in text
    assert not re.search(r"\brandom#\d", text), "the engine's name is not the seat's"
    for preset in ("muggins", "muggins-sniff"):
        how = spawn(tmp_path, "play", "--preset", preset, "--how-to-play")
        how.expect(pexpect.EOF)
        first = " ".join(" ".join(plain(how.before)).split())
        assert "no sniff" not in first.split("The game")[0]
        assert ("your choice" in first.split("The game")[0]) == (preset == "muggins-sniff")
