"""The terminal table's extras through a pseudo-terminal at 80×24 and 120×40, as a player meets
them: the hint marks its tile in the hand, ``rules`` and ``sniff play --how-to-play`` say how to
play in plain words (no engine field names), ``sniff-cribbage`` shows its pegs beside the scores
at every prompt, and a finished game is counted in the player's record (``stats``, ``sniff play
--stats``), kept in the player's data folder; a damaged record is refused with a clear message
and left as it is, while the game still ends and is saved.
"""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from sniff_env.presets import PRESET_NAMES

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "checkpoints" / "results"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
PROMPTS = ["\n> ", "press Enter for the next hand", pexpect.EOF]
FIELD_WORDS = re.compile(r"\b\w+_\w+\b")
DAMAGED = '{"format": "sniff-stats", "version": 1, "records": []}'


def spawn(home: Path, size: tuple[int, int], *args: str) -> Any:
    width, height = size
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS=str(width), LINES=str(height), SNIFF_HOME=str(home))
    return pexpect.spawn(sys.executable, ["-m", "sniff_env.cli", *args], cwd=str(ROOT), env=env,
                         encoding="utf-8", timeout=30, dimensions=(height, width))


def plain(text: str) -> list[str]:
    return [ANSI.sub("", line).rstrip() for line in text.replace("\r", "").split("\n")]


def screen_of(text: str, width: int, height: int) -> list[str]:
    """What a terminal of ``width``×``height`` shows after ``text``: its last rows, long lines wrapped."""
    rows: list[str] = []
    for line in plain(text):
        rows += [line[i:i + width] for i in range(0, len(line), width)] or [""]
    return rows[-height:]


def capture(name: str, screens: list[list[str]]) -> None:
    """With ``SNIFF_UPDATE_SCREENSHOT=1``, the 80×24 screens as ``checkpoints/results/pty-80x24-NAME.txt``."""
    if os.environ.get("SNIFF_UPDATE_SCREENSHOT"):
        (RESULTS / f"pty-80x24-{name}.txt").write_text("\n".join("\n".join(s) + "\n" + "-" * 80 for s in screens) + "\n")


def finished(child: Any) -> str:
    """``text`` of ``child`` run to its end, its exit status 0."""
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before[-800:]
    return str(child.before)


@SIZES
def test_the_hint_marks_its_tile_and_rules_says_how_to_play(tmp_path: Path, size: tuple[int, int]) -> None:
    width = size[0]
    child = spawn(tmp_path, size, "play", "--seed", "7", "--opponent", "random")
    child.logfile_read = io.StringIO()
    child.expect("\n> ")
    hand = re.findall(r"your tiles: ([\d\- ]+)", "\n".join(plain(child.before)))[-1]
    child.sendline("hint")
    child.expect("\n> ")
    if width == 80:
        capture("hint", [screen_of(child.logfile_read.getvalue(), *size)])
    lines = plain(child.before)
    best = next(line for line in lines if re.match(r"\s+\d+\) ", line))
    tile = re.match(r"\s+\d+\) (\d-\d|draw)", best).group(1)  # type: ignore[union-attr]
    marked = next(line for line in lines if line.startswith("your tiles:"))
    assert re.findall(r">(\d-\d)<", marked) == ([tile] if tile != "draw" else [])
    assert sorted(marked.split("(")[0].replace(">", "").replace("<", "").split()[2:]) == sorted(hand.split())
    assert all(len(line) <= width for line in lines)
    child.sendline("rules")
    said = ""
    while child.expect(["press Enter for more", "press Enter for the table"]) == 0:
        said += child.before
        child.sendline("")
    lines = plain(said + child.before)
    text = " ".join(" ".join(lines).split())
    assert "how to play sniff (2 players)" in text and "The end of a hand" in text and "divided by 5" in text
    assert not FIELD_WORDS.search(text) and all(len(line) <= width for line in lines)
    child.sendline("")
    child.expect("\n> ")
    child.sendline("help")
    child.expect("press Enter for the table")
    assert "how to play these rules, in words" in child.before and "your record across games" in child.before
    child.sendline("")
    child.expect("\n> ")
    child.sendline("quit")
    finished(child)


def test_how_to_play_every_preset(tmp_path: Path) -> None:
    for i, name in enumerate(PRESET_NAMES):
        size = (120, 40) if i % 3 == 2 else (80, 24)
        lines = plain(finished(spawn(tmp_path, size, "play", "--preset", name, "--how-to-play")))
        text = "\n".join(lines)
        assert text.startswith(f"how to play {name} (2 players)")
        for section in ("The game", "The deal and the lead", "Playing", "Scoring as you play", "The end of a hand"):
            assert f"\n{section}\n" in text, f"{name}: no {section!r}"
        assert not FIELD_WORDS.search(text), f"{name}: {FIELD_WORDS.search(text)}"
        assert max(len(line) for line in lines) <= size[0]
        assert ("cribbage board" in " ".join(text.split())) == (name == "sniff-cribbage")
        if name == "sniff-cribbage" and size == (80, 24):
            capture("how-to-play", [lines])
    assert not list(tmp_path.iterdir()), "saying how to play starts no game and writes nothing"


def play_out(child: Any, width: int, height: int, target: int,
             screens: list[list[str]] | None = None, home: Path | None = None) -> tuple[str, int]:
    """Play the first listed move to the end of the game, checking the pegs at every prompt
    against the scores; the whole text and the number of prompts (a few screens in ``screens``,
    the data folder ``home`` written as the default ``~/.sniff``)."""
    seen, prompts = "", 0
    while True:
        i = child.expect(PROMPTS)
        seen += child.before + (child.after if i < 2 else "")
        shown = seen.replace(str(home), "~/.sniff") if home else seen
        if i == 2:
            if screens is not None:
                screens.append(screen_of(shown, width, height))
            return seen, prompts
        screen = plain(child.before)
        if screens is not None and (prompts in (2, 6) or i == 1) and len(screens) < 4:
            screens.append(screen_of(shown, width, height))
        if i == 0:
            prompts += 1
            scores = re.findall(r"hand \d+ · scores: You (-?\d+) · random (-?\d+)", "\n".join(screen))[-1]
            pegs = [re.search(rf"^(?:pegs|    )  {who}\s+[━●·]+ (\d+)/{target}$", "\n".join(screen), re.MULTILINE)
                    for who in ("You", "random")]
            assert all(pegs), "\n".join(screen)
            assert [int(p.group(1)) for p in pegs if p] == [int(x) for x in scores]
            assert all(len(line) <= width for line in screen)
            assert len(screen) <= height + 2 or prompts == 1, "the screen fits the terminal"
        child.sendline("1" if i == 0 else "")


@SIZES
def test_cribbage_pegs_and_the_record_across_games(tmp_path: Path, size: tuple[int, int]) -> None:
    width, height = size
    home = tmp_path / "home"
    child = spawn(home, size, "play", "--preset", "sniff-cribbage", "--seed", "5", "--opponent", "random",
                  "--rule", "target=15")
    screens: list[list[str]] = []
    text, prompts = play_out(child, width, height, 15, screens, home)
    assert prompts >= 5
    child.close()
    assert child.exitstatus == 0
    lines = plain(text)
    won = "the game is over: You win" in text
    record = "\n".join(lines[next(i for i, line in enumerate(lines) if line.startswith("your record: ")):])
    assert re.search(rf"your record: sniff-cribbage, 2 players, to 15, against random: 1 played, {int(won)} won", record)
    assert (home / "stats.json").is_file() and (home / "games").is_dir()
    listed = plain(finished(spawn(home, size, "play", "--stats")))
    if width == 80:
        capture("cribbage", screens)
        capture("stats", [listed])
    row = next(line for line in listed if "sniff-cribbage, 2p, to 15, vs random" in line)
    assert row.split()[:3] == ["1", str(int(won)), str(1 - int(won))]
    assert listed[0].startswith("your games: 1 played") and max(len(line) for line in listed) <= width
    # a damaged record: the game still ends and is saved, the record is not touched, and says why
    (home / "stats.json").write_text(DAMAGED)
    child = spawn(home, size, "play", "--preset", "sniff-cribbage", "--seed", "6", "--opponent", "random",
                  "--rule", "target=15")
    text, _ = play_out(child, width, height, 15)
    child.close()
    assert child.exitstatus == 0
    said = " ".join(" ".join(plain(text)).split())
    assert "the game is not counted in your record: the statistics file" in said and "cannot be read" in said
    assert "move it away (or delete it) to start a new record" in said and "watch it again:" in said
    assert (home / "stats.json").read_text() == DAMAGED
    child = spawn(home, size, "play", "--stats")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and "'records' is not a mapping" in " ".join(child.before.split())
