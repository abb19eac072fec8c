"""The terminal table through a pseudo-terminal at 80 and 120 columns, as a person sees it: the
layout laid out for the width (a long arm turns back), the count as the sum of the ends' shares,
the final board of a hand, names instead of seat numbers, and entries that are refused with a
reason (a claim on a move that scores nothing, a negative move number)."""

from __future__ import annotations

import os
import random
import re
import sys
from pathlib import Path

import pytest

from sniff_env.actions import EAST
from sniff_env.game import Game, Phase, new_game
from sniff_env.gamelog import save_game_log
from sniff_env.presets import make_rules
from sniff_env.render import layout_picture

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
COUNT_SUM = re.compile(r"count (\d+) = (.+)")
TILE = re.compile(r"\d+[-=]\d+")
RESULTS = ROOT / "checkpoints" / "results"


def spawn(tmp_path: Path, width: int, *args: str, module: str) -> pexpect.spawn:
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS=str(width), LINES="40",
               SNIFF_HOME=str(tmp_path / "home"))
    return pexpect.spawn(sys.executable, ["-m", module, *args], cwd=str(ROOT), env=env,
                         encoding="utf-8", timeout=30, dimensions=(40, width))


def screen_lines(text: str) -> list[str]:
    return [ANSI.sub("", line).rstrip() for line in text.replace("\r", "").split("\n")]


def long_arm_game() -> Game:
    """A one-hand game whose east arm grows long (the line far wider than 80 columns)."""
    best: tuple[int, Game] | None = None
    for seed in range(40):
        game = new_game(make_rules("sniff", 2, max_pip=9), seed=seed, max_hands=1)
        rng = random.Random(seed)
        while game.phase is Phase.PLAY:
            legal = game.legal_actions()
            east = [a for a in legal if a != game.codec.draw_action and game.codec.decode(a)[1] == EAST]
            game.step(rng.choice(east) if east and rng.random() < 0.9 else rng.choice(legal))
        width = len(max(layout_picture(game), key=len))
        if best is None or width > best[0]:
            best = (width, game)
    assert best is not None and best[0] > 120, "the chosen game must not fit even 120 columns unturned"
    return best[1]


def check_count_sums(lines: list[str]) -> int:
    """Every ``count N = west a + east b …`` line adds up; returns how many there were."""
    sums = [COUNT_SUM.search(line) for line in lines]
    found = [m for m in sums if m]
    for m in found:
        shares = [int(re.match(r"\s*\w+ (\d+)", part).group(1)) for part in m.group(2).split(" + ")]  # type: ignore[union-attr]
        assert sum(shares) == int(m.group(1)), m.group(0)
    return len(found)


def final_board(tmp_path: Path, game: Game, width: int) -> tuple[list[str], int, list[str]]:
    """``sniff replay --all`` of ``game``'s log at ``width`` columns: the screen's lines, the index
    of the "hand 1 is over" line and the board's lines under it (up to its ends and count)."""
    log = save_game_log(game, tmp_path / "game.json", ["human", "random"], {"human_seat": 0, "names": ["You", "random"]})
    child = spawn(tmp_path, width, str(log), "--all", module="sniff_env.cli.replay")
    child.expect(pexpect.EOF)
    lines = screen_lines(child.before)
    over = next(i for i, line in enumerate(lines) if "hand 1 is over" in line)
    board = []
    for line in lines[over + 1:]:
        if "open ends" in line or line.strip().startswith("count"):
            break
        board.append(line)
    return lines, over, board


@pytest.mark.parametrize("width", [80, 120])
def test_a_long_arm_turns_to_fit_the_terminal(tmp_path: Path, width: int) -> None:
    game = long_arm_game()
    lines, over, board = final_board(tmp_path, game, width)
    ends = lines[over + len(board) + 1: over + len(board) + 3]
    assert max(len(line) for line in board + ends) <= width, "the board is wider than the terminal"
    assert sum(len(TILE.findall(line)) for line in board) == len(game.plays), "every tile is on the board"
    assert any("|" in line for line in board), "the long arm turns"
    assert check_count_sums(lines) >= 1
    text = "\n".join(lines)
    assert "You lead" in text or "You play" in text
    assert not re.search(r"\bYou (plays|leads|draws|passes|holds)\b|\bside \d wins|\bseat \d (dominoed|has|gets)", text)
    if width == 80 and os.environ.get("SNIFF_UPDATE_SCREENSHOT"):
        start = next(i for i, line in enumerate(lines) if "hand 1 is over" in line)
        (RESULTS / "terminal-80.txt").write_text("\n".join(lines[start:]).rstrip() + "\n")


def tall_arms_game() -> Game:
    """A one-hand double-nine game whose north and south arms both hold more than ARM_ROWS tiles."""
    from conftest import first_random_hand

    from sniff_env.render import ARM_ROWS, layout_arms

    def tall(game: Game) -> bool:
        _, arms = layout_arms(game)
        return min(len(arms[2]), len(arms[3])) > ARM_ROWS + 2

    return first_random_hand(make_rules("sniff", 2, max_pip=9), range(200), tall)


def test_long_north_and_south_arms_turn_to_stay_on_the_screen(tmp_path: Path) -> None:
    """Through ``sniff replay`` at 80 columns: the north arm turns rightwards and the south arm
    leftwards after ARM_ROWS tiles, every tile still on the board, each turn joined half to half."""
    from sniff_env.render import ARM_ROWS, layout_arms

    game = tall_arms_game()
    _, _, board = final_board(tmp_path, game, 80)
    board = [line for line in board if line.strip()]
    sniff_row = next(i for i, line in enumerate(board) if "*" in line)
    _, arms = layout_arms(game)
    assert max(len(line) for line in board) <= 80
    assert sum(len(TILE.findall(line)) for line in board) == len(game.plays), "every tile is on the board"
    assert sniff_row <= ARM_ROWS + 4 < len(arms[2]) + 1, "the north arm turned instead of running up the screen"
    assert len(board) - 1 - sniff_row <= ARM_ROWS + 4 < len(arms[3]) + 1, "the south arm turned too"
    column = re.search(r"\d+=\d+\*", board[sniff_row]).start()  # type: ignore[union-attr]
    above, below = board[sniff_row - ARM_ROWS - 1], board[sniff_row + ARM_ROWS + 1]
    top, bottom = board[sniff_row - ARM_ROWS], board[sniff_row + ARM_ROWS]
    assert above[column] == top[column], "the north arm's turn joins the tile under it half to half"
    assert below[column + 2] == bottom[column + 2], "the south arm's turn joins the tile over it half to half"
    assert TILE.search(above[column + 4:]) and TILE.search(below[:column]), "north runs right, south runs left"


def test_play_shows_the_final_board_and_refuses_empty_claims(tmp_path: Path) -> None:
    child = spawn(tmp_path, 80, "--opponent", "random", "--seed", "7", "--rule", "muggins_claims=true",
                  "--rule", "target=30", module="sniff_env.cli.play")
    child.expect("\n> ")
    listed = re.findall(r"^\s+(\d+)\) (\S.*?)\s*$", ANSI.sub("", child.before.replace("\r", "")), re.MULTILINE)
    quiet = next((n for n, text in listed if "+" not in text), None)
    if quiet is not None:
        child.sendline(f"{quiet}!")
        child.expect("no points to claim")
        child.expect("\n> ")
    child.sendline("-1")
    child.expect("There is no move number -1")
    for _ in range(200):
        i = child.expect(["\n> ", "press Enter for the next hand", "watch it again"])
        if i:
            break
        child.sendline("1!" if re.search(r"^\s+1\) .*\+\d", child.before, re.MULTILINE) else "1")
    hand_over = screen_lines(child.before)
    start = max(i for i, line in enumerate(hand_over) if "is over ──" in line)
    section = "\n".join(hand_over[start:])
    assert check_count_sums(hand_over[start:]) == 1, "the final board and its count are shown"
    assert TILE.search(section)
    assert not re.search(r"\bseat \d", section), section
    assert "You" in section
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_rules_all_reads_at_80_columns(tmp_path: Path) -> None:
    child = spawn(tmp_path, 80, "rules", "--all", module="sniff_env")
    child.expect(pexpect.EOF)
    lines = screen_lines(child.before)
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    for name in ("sniff-cribbage", "muggins-sleepers", "sniff-english"):
        assert re.search(rf"\b{name}\b", text), f"{name} is not printed whole"
    for value in ("bonus_div5", "max_two", "count_div5", "after_both_ends"):
        assert re.search(rf"\b{value}: ", text), f"{value} is not explained"


def test_demo_plays_built_in_players_and_names_a_winner(tmp_path: Path) -> None:
    child = spawn(tmp_path, 80, "demo", "--seed", "2", "--rule", "target=80", module="sniff_env")
    child.expect(pexpect.EOF)
    lines = screen_lines(child.before)
    text = "\n".join(lines)
    assert "heuristic" in text and "greedy" in text
    assert re.search(r"the game is over after \d+ hands: (heuristic|greedy) wins|a draw", text)
    hands = [i for i, line in enumerate(lines) if re.match(r"── hand \d+ ──", line)]
    assert hands and check_count_sums(lines) == len(hands), "each hand ends with its board and count"
    assert "the game is over" in [line for line in lines if line][-1] and not re.search(r"\bseat \d", text)
