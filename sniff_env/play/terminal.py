"""The command loop: draw the table, read a move or a command, and keep the log on disk.

The log is written after every move of the human, so nothing is lost to a closed terminal;
a move whose log cannot be written is taken back, with a message. End of input (Ctrl-D) and
Ctrl-C save and leave with a note saying how to resume.

Each turn's screen is made to fit the terminal (see :func:`.screen.turn_lines`): the scores and
the tiles in every hand stay on it above the prompt; so does the end of a hand (its title, last
plays, layout and scores, :class:`.screen.HandOver`). What is longer than a few lines (help,
rules, the score sheet, the hand's log, the record) is shown a screen at a time and the table is
drawn again after it; ``board`` draws it again at any time. Keys typed while the computer plays
are thrown away before the next prompt. Text is wrapped between words; a command to type again
(resume, replay) has a line of its own, so that it can be copied whole.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from sniff_env.errors import SniffError
from sniff_env.game import Phase
from sniff_env.gamelog import hand_starts
from sniff_env.play import screen
from sniff_env.play.howto import howto_lines
from sniff_env.play.moves import MoveInputError, parse_move
from sniff_env.play.session import Session
from sniff_env.play.stats import StatsError, load_stats, record_game, stats_lines
from sniff_env.play.stats import summary as stats_summary

QUIT_WORDS = {"quit", "exit", "q"}
NEXT_HAND_PROMPT = "press Enter for the next hand (or scores, board, quit) "
MORE_PROMPT = "press Enter for more (q: back) "
BACK_PROMPT = "press Enter for the table (or type a move) "
HAND_BACK_PROMPT = "press Enter for the end of the hand "
SCORES_PROMPT = "press Enter for the scores "


def discard_typeahead() -> None:
    """Throw away what was typed at the terminal and not read yet (``tcflush``); nothing where the
    input is no terminal (a pipe, a file) or the platform has no ``termios``."""
    try:
        import termios
    except ImportError:  # pragma: no cover - not POSIX
        return
    try:
        fd = sys.stdin.fileno()
        if os.isatty(fd):
            termios.tcflush(fd, termios.TCIFLUSH)
    except (OSError, ValueError, termios.error):
        pass


def terminal_console() -> Console:
    """A console for the player's terminal, sized as the terminal is (``COLUMNS`` and ``LINES``
    win where set): where ``TERM`` says the terminal is dumb, rich assumes 80 by 25, even on a
    terminal whose size it could read."""
    console = Console(highlight=False)
    if console.is_terminal and console.is_dumb_terminal:
        try:
            columns, lines = os.get_terminal_size(sys.stdout.fileno())
        except (OSError, ValueError):
            return console
        env = os.environ
        columns = int(env["COLUMNS"]) if env.get("COLUMNS", "").isdigit() else columns
        lines = int(env["LINES"]) if env.get("LINES", "").isdigit() else lines
        if columns > 0 and lines > 0:
            console.size = (columns, lines)
    return console


def command_line(*words: str | Path) -> str:
    """A command to type, its arguments quoted for the shell where they need it."""
    return " ".join(shlex.quote(str(w)) for w in words)


class Terminal:
    """Plays one session on a console, reading lines with ``read`` (``input`` by default)."""

    def __init__(self, session: Session, console: Console | None = None,
                 read: Callable[[str], str] | None = None) -> None:
        self.session = session
        self.console = console or terminal_console()
        self.read = read or self.console.input
        self.autoclaim = False
        """Whether the human's scoring moves claim their points without ``!`` (muggins)."""
        if session.on_wait is None:
            session.on_wait = lambda progress: self.say(f"[yellow]the search is getting ready:[/] {escape(progress)}")

    @property
    def height(self) -> int | None:
        """The terminal's rows (None where the output is no terminal: nothing is cut)."""
        return self.console.height if self.console.is_terminal else None

    def say(self, lines: list[str] | str, fold: bool = True) -> None:
        """Print rich markup, wrapped between words at the terminal's width (``fold=False``:
        left to the terminal, for a line that names a file, which must not be cut)."""
        for line in [lines] if isinstance(lines, str) else lines:
            if fold:
                self.console.print(line, overflow="fold")
            else:  # an overflow method would crop the line at the width
                self.console.print(line, soft_wrap=True)

    def say_command(self, lead: str, *words: str | Path) -> None:
        """``lead`` and, on a line of its own, a command to type (never folded by this program)."""
        self.say(lead)
        self.console.print("  " + escape(command_line(*words)), soft_wrap=True)

    def run(self) -> int:
        """Play until the game ends or the player leaves; returns the exit status. Ctrl-C saves
        the game and leaves, even where the program was started with interrupts ignored (as a
        non-interactive shell starts background jobs, which Python then leaves ignored)."""
        previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            return self._run()
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)

    def _run(self) -> int:
        try:
            return self._loop()
        except EOFError:
            self.say("")
            self._leave("end of input")
            return 0
        except KeyboardInterrupt:
            self.say("")
            self._leave("interrupted")
            return 130

    def _leave(self, why: str) -> None:
        try:
            path = self.session.save()
        except SniffError as exc:
            self.say(f"{why}: [red]the game is not saved: {escape(str(exc))}[/]")
            return
        if self.session.game.phase is Phase.GAME_OVER:
            self.say(f"{why}: the game log is in {escape(str(path))}", fold=False)
            self.say_command("watch it again:", "sniff", "replay", path)
        else:
            self.say(f"{why}: the game is saved in {escape(str(path))}", fold=False)
            self.say_command("resume with:", "sniff", "play", "--resume", path)

    def ask(self, prompt: str, discard: bool = False) -> str:
        """Read a line after ``prompt``; with ``discard``, keys typed before it (while the computer
        played) are thrown away first, so that they never make a move the player did not see."""
        if discard:
            discard_typeahead()
        return self.read(prompt)

    def page(self, lines: list[str], last: str = BACK_PROMPT) -> str:
        """Show ``lines`` a screen at a time (Enter: the next, ``q``: stop), then wait at ``last``
        before the caller draws the table again; returns what the player typed there (or at a
        "more" prompt, other than ``q``): a move or a command to take up, or "". Where the output
        is no terminal, the lines are printed and nothing waits."""
        height = self.height
        if height is None:
            self.say(lines)
            return ""
        width, room = self.console.width, max(height - 1, 1)
        chunk: list[str] = []
        used = 0
        for line in lines:
            size = screen.rows(line, width)
            if chunk and used + size > room:
                self.say(chunk)
                answer = self.read(MORE_PROMPT).strip()
                if answer:
                    return "" if answer.lower() == "q" else answer
                chunk, used = [], 0
            chunk.append(line)
            used += size
        self.say(chunk)
        return self.read(last).strip()

    def _loop(self) -> int:
        session = self.session
        for note in session.notes:
            self.say(f"[yellow]note:[/] {escape(note)}")
        session.advance()
        while True:
            game = session.game
            if game.phase is Phase.GAME_OVER:
                self._game_over()
                return 0
            if game.phase is not Phase.PLAY:
                if not self._hand_over():
                    return 0
                self._try(lambda: session.commit(session.next_hand, "the next deal"))
                continue
            if not self._turn():
                return 0

    def _hand_over(self) -> bool:
        """Show the end of the hand until the player asks for the next one (True) or quits."""
        discard = True
        while True:
            *first, last = self.hand_over_pages(1)
            for page in first:
                self.say(page)
                self.ask(SCORES_PROMPT, discard)
                discard = False
            self.say(last)
            answer = self.ask(NEXT_HAND_PROMPT, discard).strip().lower()
            discard = False
            if answer in QUIT_WORDS:
                self._leave("bye")
                return False
            if answer in ("scores", "sheet"):
                self.page(screen.sheet_lines(self.session), HAND_BACK_PROMPT)
            elif answer != "board":
                return True

    def hand_over_pages(self, below: int) -> list[list[str]]:
        """The end of the hand as screens (:class:`.screen.HandOver`), the last with ``below``
        rows under it; one screen, not cut, where the output is no terminal."""
        view = screen.HandOver(self.session, self.console.width)
        height = self.height
        if height is None:
            return [view.top() + view.bottom()]
        return view.pages(height - 1, height - below)

    def _game_over(self) -> None:
        """The last hand's end, who won, the player's record and how to watch the game again, all
        on one screen (the shell's prompt under it)."""
        session = self.session
        path = session.save()
        record = self.count_game()
        replay = ["watch it again:", "  " + escape(command_line("sniff", "replay", path))]
        below = sum(screen.rows(line, self.console.width) for line in [record, *replay]) + 1
        *first, last = self.hand_over_pages(below)
        for page in first:
            self.say(page)
            self.ask(SCORES_PROMPT, discard=True)
        self.say(last)
        self.say(record)
        self.say_command("watch it again:", "sniff", "replay", path)

    def _turn(self) -> bool:
        """Show the table and read until the human moves (True) or quits (False). The first
        prompt throws away keys typed while the computer played; what shows more than a few lines
        (help, rules, scores, log, stats) is paged, and the table comes back after it."""
        session = self.session
        options = session.options()
        hints: dict[int, float] | None = None
        typed: str | None = None
        draw, discard = True, True
        while True:
            if draw:
                self.say(screen.turn_lines(session, options, self.console.width, self.height, self.autoclaim, hints))
                draw = False
            if typed is None:
                text = self.ask("> ", discard).strip()
                discard = False
            else:
                text, typed = typed, None
            word, _, rest = text.partition(" ")
            word = word.lower()
            if not text:
                continue
            if word in QUIT_WORDS:
                self._leave("bye")
                return False
            if word in ("help", "?", "h"):
                typed, draw = self.page(screen.COMMANDS_HELP.split("\n")), True
            elif word == "board":
                draw = True
            elif word == "hint":
                if session.rated:
                    self.say("[red]hints are off in a rated game[/]")
                    continue
                self.say("thinking…")
                hints, draw = {o.action: value for o, value in session.hint()}, True
            elif word == "undo":
                if not self._try(lambda: session.commit(session.undo, "the undo")):
                    continue
                self.say("[yellow]your last move is taken back[/]")
                return True
            elif word in ("scores", "sheet"):
                typed, draw = self.page(screen.sheet_lines(session)), True
            elif word in ("rules", "how"):
                typed, draw = self.page([escape(line) for line in howto_lines(session.rules, self.console.width)]), True
            elif word == "stats":
                typed, draw = self.page(self.stats_lines()), True
            elif word == "log":
                start = (hand_starts(session.game.events) or [0])[-1]
                typed, draw = self.page(["this hand so far:", *[f"  {line}" for line in screen.session_event_lines(
                    session, session.game.public_events(session.human, start))]]), True
            elif word == "autoclaim" or text.lower() in ("claim always", "always claim"):
                self._toggle_autoclaim(rest.strip().lower())
            elif word == "save":
                self._save_record(rest.strip())
            else:
                try:
                    move = parse_move(session.game, text, [o.action for o in options])
                except MoveInputError as exc:
                    self.say(f"[red]{escape(str(exc))}[/]")
                    continue
                chosen = next(o for o in options if o.action == move.action)
                if move.claim and not chosen.points:
                    self.say(f"[red]{escape(chosen.text)} scores nothing: no points to claim (type it "
                             f"without ! to play it)[/]")
                    continue
                claim = move.claim or (self.autoclaim and chosen.points > 0)
                if self._try(partial(session.commit, partial(session.play, move.action, claim))):
                    return True

    def _save_record(self, where: str) -> None:
        """``save [PATH]``: what the player has seen so far, to watch again (never another hand's
        tiles); the game itself is saved after every move."""
        session = self.session
        try:
            path = session.save_record(Path(where) if where else None)
        except SniffError as exc:
            self.say(f"[red]cannot save: {escape(str(exc))}[/]")
            return
        self.say(f"saved what you have seen so far (your own tiles only) in {escape(str(path))}", fold=False)
        self.say_command("watch it with:", "sniff", "replay", path)
        if session.save_path is not None:
            self.say_command("the game itself is saved after every move; resume it with:",
                             "sniff", "play", "--resume", session.save_path)

    def count_game(self) -> str:
        """Count the finished game in the player's record; one line (markup) on how the record
        stands, or why the game could not be counted (the game itself is saved either way)."""
        try:
            row, record = record_game(self.session)
        except StatsError as exc:
            return f"[red]the game is not counted in your record: {escape(str(exc))}[/]"
        return f"your record: {escape(stats_summary(row, record))}"

    def stats_lines(self) -> list[str]:
        """The player's record across finished games (or why it cannot be read), as markup."""
        try:
            record = load_stats()
        except StatsError as exc:
            return [f"[red]{escape(str(exc))}[/]"]
        return [escape(line) for line in stats_lines(record, self.console.width)]

    def _toggle_autoclaim(self, how: str) -> None:
        if not self.session.rules.muggins_claims:
            self.say("these rules have no muggins: every move scores its points without a claim")
            return
        self.autoclaim = {"on": True, "off": False}.get(how, not self.autoclaim)
        self.say("autoclaim is on: every scoring move of yours claims its points" if self.autoclaim
                 else "autoclaim is off: add ! to a scoring move to claim its points")

    def _try(self, act: Callable[[], None]) -> bool:
        """Run ``act``; a refusal (a rule, or a log that cannot be written) is shown, not raised."""
        try:
            act()
        except SniffError as exc:
            self.say(f"[red]{escape(str(exc))}[/]")
            return False
        return True
