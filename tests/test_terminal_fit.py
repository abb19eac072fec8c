"""The terminal table through a pseudo-terminal at 80×24 and 120×40, as a player sees it: at every
prompt the hand, the scores and the tiles in every hand are on the screen; no line is wider than
the terminal and none is broken inside a word; a run of draws reads as one line; the open ends
are labelled and the last tile played is marked; a rated game offers neither undo nor hints;
autoclaim claims every scoring move; the score sheet adds up; a replay steps back and shows the
running scores; ``demo --hands 1`` plays a hand; ``speed`` and ``agents`` fit the terminal.

With ``SNIFF_UPDATE_SCREENSHOT=1`` the 80×24 captures replace
``checkpoints/results/terminal-80x24-after-*.txt`` (beside the ``before`` ones, from the code
before these changes).
"""

from __future__ import annotations

import itertools
import os
import random
import re
import sys
from pathlib import Path

import pytest

from sniff_env.game import Phase, new_game
from sniff_env.gamelog import save_game_log
from sniff_env.presets import make_rules

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "checkpoints" / "results"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPTS = ["\n> ", "press Enter for the next hand", pexpect.EOF]
CLAIMABLE = re.compile(r"^\s+1\) .*\+\d", re.MULTILINE)


def spawn(tmp_path: Path, size: tuple[int, int], *args: str) -> pexpect.spawn:
    width, height = size
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS=str(width), LINES=str(height),
               SNIFF_HOME=str(tmp_path / "h"))
    return pexpect.spawn(sys.executable, ["-m", "sniff_env.cli", *args], cwd=str(ROOT), env=env,
                         encoding="utf-8", timeout=30, dimensions=(height, width))


def plain(text: str) -> list[str]:
    return [ANSI.sub("", line).rstrip() for line in text.replace("\r", "").split("\n")]


def screen(text: str, width: int, height: int) -> list[str]:
    """What a terminal of ``width``×``height`` shows after ``text``: its last rows, long lines wrapped."""
    rows: list[str] = []
    for line in plain(text):
        rows += [line[i:i + width] for i in range(0, len(line), width)] or [""]
    return rows[-height:]


def save_capture(name: str, screens: list[list[str]]) -> None:
    if os.environ.get("SNIFF_UPDATE_SCREENSHOT"):
        (RESULTS / f"terminal-80x24-after-{name}.txt").write_text(
            "\n".join("\n".join(s) + "\n" + "-" * 80 for s in screens) + "\n")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_a_four_player_game_keeps_the_scores_on_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    width, height = size
    child = spawn(tmp_path, size, "play", "--preset", "muggins", "--players", "4", "--seed", "21",
                  "--opponent", "random", "--rule", "muggins_claims=true", "--rule", "target=60")
    seen, screens, prompts = "", [], 0
    while True:
        i = child.expect(PROMPTS)
        seen += child.before + (child.after if i < 2 else "")
        if i == 2:
            break
        shown = screen(seen, width, height)
        if i == 0:
            prompts += 1
            assert any(re.match(r"hand \d+ · scores: You -?\d+", row) for row in shown), "\n".join(shown)
            assert any(row.startswith("tiles in hand: random#1 ") for row in shown), "\n".join(shown)
            assert re.search(r"random#3 \d+ · boneyard \d+", "\n".join(shown)), "\n".join(shown)
            if prompts in (1, 2, 6):
                screens.append(shown)
            child.sendline("1!" if CLAIMABLE.search(child.before) else "1")
        else:
            assert any(row.startswith("scores: You") for row in shown), "the hand's end shows the scores"
            if len(screens) < 4:
                screens.append(shown)
            child.sendline("")
        if prompts > 120:
            child.sendline("quit")
    assert prompts >= 40
    lines = plain(seen)
    wide = [line for line in lines if len(line) > width and "/" not in line]
    assert not wide, f"lines wider than {width} columns: {wide}"
    assert re.search(r"this hand \(in play, at the end\): You [+-]\d+ [+-]\d+ = [+-]\d+", "\n".join(lines))
    assert "round5 rounds to the nearest multiple of 5" in "\n".join(lines)
    command = next(line for line in reversed(lines) if "sniff replay" in line)
    assert command.startswith("  sniff replay ") and Path(command.split(" ", 4)[-1]).is_file(), \
        "the replay command has a line of its own, whole"
    if size == (80, 24):
        save_capture("muggins4", screens)


def test_draws_read_as_one_line_and_the_board_is_labelled(tmp_path: Path) -> None:
    child = spawn(tmp_path, (80, 24), "play", "--preset", "sniff-digital", "--seed", "11", "--level", "strong")  # the shipped agent
    child.expect("\n> ")
    child.sendline("help")
    child.expect("press Enter for the table")
    help_lines = plain(child.before)
    save_capture("help", [screen(child.before, 80, 24)])
    child.sendline("")
    child.expect("\n> ")
    assert max(len(line) for line in help_lines) < 80
    assert any("(W) (E) (N) (S) label the open ends" in line for line in help_lines)
    texts, screens = [], []
    for _ in range(12):
        child.sendline("2" if re.search(r"^\s+2\) ", child.before, re.MULTILINE) else "1")
        if child.expect(PROMPTS) != 0:
            break
        texts.append(child.before)
        screens.append(screen(child.before, 80, 24))
    child.sendline("quit")
    child.expect(pexpect.EOF)
    text = "\n".join(texts)
    lines = plain(text)
    for a, b in itertools.pairwise(lines):
        drew = re.match(r"\s+(\S+) draws a tile$", a)
        assert not (drew and b.strip() == f"{drew.group(1)} draws a tile"), "each draw has a line of its own"
    assert re.search(r"Strong draws \d+ tiles", text), "a run of draws is one line"
    boards = [line for line in lines if line.lstrip().startswith("(W)")]
    assert boards and all(line.rstrip().endswith("(E)") or "|" not in line for line in boards)
    assert "(N)" in text and "(S)" in text, "the sniff's open sides are labelled"
    assert re.search(r"\[\d[-=]\d\*?\]", text) and "[ ] last played, by " in text
    assert not re.search(r"^\s*\|\s*$", text.split("(N)")[0].split("(W)")[-1], re.MULTILINE)
    save_capture("draws", screens[:3])


def test_rated_games_autoclaim_and_the_score_sheet(tmp_path: Path) -> None:
    child = spawn(tmp_path, (80, 24), "play", "--rated", "--seed", "7", "--opponent", "random",
                  "--rule", "muggins_claims=true", "--rule", "target=30")
    child.expect("\n> ")
    prompt_help = plain(child.before)[-1]
    assert "(rated)" in prompt_help and "undo" not in prompt_help and "hint" not in prompt_help
    child.sendline("hint")
    child.expect("hints are off in a rated game")
    child.sendline("autoclaim")
    child.expect("autoclaim is on")
    claimed = False
    for _ in range(60):
        i = child.expect(PROMPTS)
        if i == 2:
            break
        if i == 1:
            child.sendline("")
            continue
        listed = re.search(r"^\s+(\d+)\) .*\+(\d+) \(claimed\)", child.before, re.MULTILINE)
        if listed and not claimed:
            mine = int(re.findall(r"scores: You (-?\d+)", child.before)[-1])
            child.sendline(listed.group(1))
            child.expect(r"You play on \w+: \S+  \(count \d+\)  \+(\d+)")
            gained = int(child.match.group(1))
            child.expect(r"scores: You (-?\d+)")
            assert int(child.match.group(1)) >= mine + gained, "an autoclaimed move scores for its player"
            claimed = True
            child.expect("\n> ")
            child.sendline("scores")
            child.expect(r"score sheet.*\n.*hand\s+You\s+random")
            child.expect(r"\n\s+1\s+[+-]\d+ = -?\d+")
        child.sendline("1")
    assert claimed, "a scoring move came up"
    child.sendline("quit")
    child.close()


def test_a_replay_steps_back_and_shows_the_running_scores(tmp_path: Path) -> None:
    game = new_game(make_rules("sniff", 2, target=30), seed=4, max_hands=2)
    rng = random.Random(4)
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
        game.step(rng.choice(game.legal_actions()))
    log = save_game_log(game, tmp_path / "g.json", ["human", "random"], {"human_seat": 0})
    child = spawn(tmp_path, (80, 24), "replay", str(log))
    child.expect(r"\[Enter: next move, n: next hand, e: the end, b: back, q: quit\]")
    child.sendline("")
    child.expect(r"hand 1, move 1 of \d+\r\n([^\r\n]*)\r\n")
    first = child.match.group(1)
    child.expect(r"scores: You \d+ · random \d+ \(target 30\)")
    child.sendline("")
    child.expect("hand 1, move 2 of")
    child.sendline("b")
    child.expect(r"hand 1, move 1 of \d+\r\n([^\r\n]*)\r\n")
    assert child.match.group(1) == first, "back shows the move before again"
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_demo_one_hand_speed_and_agents_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from sniff_env.cli import main

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["demo", "--hands", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("── hand ") == 1 and "stopped after 1 hand" in out and re.search(r"count \d+ = ", out)
    assert main(["speed"]) == 0
    out = capsys.readouterr().out
    assert "required" not in out and all(name in out for name in ("rules", "engine", "web-load", "gym-vector"))
    assert main(["agents"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("8 shipped agents") and len(lines) <= 45
    assert max(len(line) for line in lines) <= 80


HAND_END = ["press Enter for the next hand", "press Enter for the scores", "\n> ", pexpect.EOF]
GAMES = {
    "2p-long-hands": ["--preset", "sniff-us", "--rule", "target=80", "--seed", "3"],
    "2p-double-nine": ["--rule", "max_pip=9", "--seed", "4"],
    "3p": ["--players", "3", "--seed", "2"],
    "3p-double-nine": ["--players", "3", "--rule", "max_pip=9", "--rule", "target=60", "--seed", "5"],
    "4p-partners": ["--players", "4", "--rule", "partnership=true", "--seed", "5"],
    "4p-cribbage": ["--players", "4", "--preset", "sniff-cribbage", "--seed", "9"],
}


def check_hand_end(shown: list[str], width: int, page: str) -> None:
    """The end of a hand as the terminal shows it: its title, the last play under it, the layout
    (``page``: ``top``, a first screen of a layout too tall to share one; ``scores``, the screen
    after it; ``whole``), the scores; no line wider than the terminal."""
    text = "\n".join(shown)
    assert all(len(row) <= width for row in shown), text
    titles = [i for i, row in enumerate(shown) if re.match(r"── hand \d+ is over", row)]
    assert titles, f"the title is lost:\n{text}"
    if page == "scores":
        assert re.search(r"── hand \d+ is over: the scores ──", text) and "\nscores: " in text, text
        return
    below = shown[titles[-1] + 1:]
    assert below and re.match(r"  \S", below[0]), f"the last play is not under the title:\n{text}"
    layout = [row for row in below if TILE_RE.search(row) and LAYOUT_ROW.match(row)]
    assert layout, f"no layout:\n{text}"
    if page == "whole":
        assert any(row.startswith("scores: ") for row in below), f"no scores:\n{text}"


TILE_RE = re.compile(r"\d[-=]\d")
LAYOUT_ROW = re.compile(r"^[\s\d=*|\[\]()WENS-]+$")
"""A row of the layout: tiles, the sniff's star, brackets, joins and the ends' labels only."""


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("game", list(GAMES))
def test_every_hand_end_keeps_its_title_last_plays_and_layout(tmp_path: Path, size: tuple[int, int], game: str) -> None:
    """Every hand's end and the game's end, through a whole game: the title, the last plays and the
    top of the layout on the screen (a layout too tall to share the screen with the scores gets a
    screen of its own, the scores the next), and at the game's end the record and the replay
    command under it."""
    width, height = size
    child = spawn(tmp_path, size, "play", "--opponent", "random", *GAMES[game])
    seen, ends, pages = "", 0, "whole"
    for _ in range(2000):
        i = child.expect(HAND_END)
        seen += child.before + (child.after if i < 3 else "")
        if i == 2:
            child.sendline("1!" if CLAIMABLE.search(child.before) else "1")
            continue
        shown = screen(seen, width, height)
        if i == 3:
            check_hand_end(shown, width, "scores" if pages == "top" else "whole")
            watch = shown.index("watch it again:")
            assert shown[watch + 1].startswith("  sniff replay ") and shown[-1] == "", "the shell's prompt goes under it"
            assert any(row.startswith("your record: ") for row in shown)
            break
        check_hand_end(shown, width, "top" if i == 1 else "scores" if pages == "top" else "whole")
        pages = "top" if i == 1 else "whole"
        ends += i == 0
        child.sendline("")
    else:
        raise AssertionError("the game did not end")
    assert ends >= 1 or "hand 1 is over" in seen
