"""The command loop: draw the table, read a move or a command, and keep the log on disk.

The log is written after every move of the human, so nothing is lost to a closed terminal;
a move whose log cannot be written is taken back, with a message. End of input (Ctrl-D) and
Ctrl-C save and leave with a note saying how to resume.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..errors import SniffError
from ..game import Phase
from . import screen
from .moves import MoveInputError, parse_move
from .session import Session

QUIT_WORDS = {"quit", "exit", "q"}


class Terminal:
    """Plays one session on a console, reading lines with ``read`` (``input`` by default)."""

    def __init__(self, session: Session, console: Console | None = None,
                 read: Callable[[str], str] | None = None) -> None:
        self.session = session
        self.console = console or Console(highlight=False)
        self.read = read or self.console.input

    def say(self, lines: list[str] | str) -> None:
        for line in [lines] if isinstance(lines, str) else lines:
            self.console.print(line, soft_wrap=True)

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
            self.say(f"{why}: the game log is in {escape(str(path))}")
        else:
            self.say(f"{why}: the game is saved in {escape(str(path))}\n"
                     f"resume with: sniff play --resume {escape(str(path))}")

    def _loop(self) -> int:
        session = self.session
        for note in session.notes:
            self.say(f"[yellow]note:[/] {escape(note)}")
        session.advance()
        while True:
            game = session.game
            if game.phase is not Phase.PLAY:
                self.say(screen.hand_over_lines(session, self.console.width))
                if game.phase is Phase.GAME_OVER:
                    path = session.save()
                    self.say(f"game log: {escape(str(path))}\nwatch it again: sniff replay {escape(str(path))}")
                    return 0
                answer = self.read("press Enter for the next hand (or quit) ").strip().lower()
                if answer in QUIT_WORDS:
                    self._leave("bye")
                    return 0
                self._try(lambda: session.commit(session.next_hand, "the next deal"))
                continue
            if not self._turn():
                return 0

    def _turn(self) -> bool:
        """Show the table and read until the human moves (True) or quits (False)."""
        session = self.session
        options = session.options()
        self.say(screen.table_lines(session, self.console.width))
        self.say(screen.options_lines(session, options))
        while True:
            text = self.read("> ").strip()
            word, _, rest = text.partition(" ")
            word = word.lower()
            if not text:
                continue
            if word in QUIT_WORDS:
                self._leave("bye")
                return False
            if word in ("help", "?", "h"):
                self.say(screen.COMMANDS_HELP)
            elif word == "hint":
                self.say("thinking…")
                self.say(screen.hint_lines(session.hint(), options))
            elif word == "undo":
                if not self._try(lambda: session.commit(session.undo, "the undo")):
                    continue
                self.say("[yellow]your last move is taken back[/]")
                return True
            elif word == "save":
                try:
                    path = session.save(Path(rest.strip()) if rest.strip() else None)
                except SniffError as exc:
                    self.say(f"[red]cannot save: {escape(str(exc))}[/]")
                    continue
                self.say(f"saved in {escape(str(path))}; resume with: sniff play --resume {escape(str(path))}")
            else:
                try:
                    move = parse_move(session.game, text, [o.action for o in options])
                except MoveInputError as exc:
                    self.say(f"[red]{escape(str(exc))}[/]")
                    continue
                chosen = next(o for o in options if o.action == move.action)
                if move.claim and not chosen.points:
                    self.say(f"[red]{escape(chosen.text)} scores nothing (the count would not score): there "
                             f"are no points to claim; type the move without ! to play it[/]")
                    continue
                if self._try(partial(session.commit, partial(session.play, move.action, move.claim))):
                    return True

    def _try(self, act: Callable[[], None]) -> bool:
        """Run ``act``; a refusal (a rule, or a log that cannot be written) is shown, not raised."""
        try:
            act()
        except SniffError as exc:
            self.say(f"[red]{escape(str(exc))}[/]")
            return False
        return True
