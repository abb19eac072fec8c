"""What a trainer says while it runs and when it stops.

On a terminal, a rich progress bar whose time left is the sooner of the step budget's estimate
and the ``--stop-seconds`` deadline (:class:`TimeLeftColumn`). Where the output is no terminal (a
log file, a pipe), a plain line every :data:`LINE_EVERY_S` seconds with the same figures
(:class:`ProgressLines`). At the end, :func:`closing_summary`: what was trained, where the
checkpoint, the exported policy and the curves are, and the last evaluation.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.progress import ProgressColumn, Task
from rich.text import Text

LINE_EVERY_S = 30.0
"""Seconds between the plain progress lines where the output is no terminal."""


def time_left(task_remaining: float | None, started: float, stop_seconds: float, now: float | None = None) -> float | None:
    """Seconds left: the step budget's estimate ``task_remaining`` or what is left of
    ``stop_seconds`` from ``started`` (0: no deadline), whichever ends first; None if neither is known."""
    now = time.time() if now is None else now
    left = [] if task_remaining is None else [task_remaining]
    if stop_seconds > 0:
        left.append(max(0.0, started + stop_seconds - now))
    return min(left) if left else None


def clock(seconds: float | None) -> str:
    """``h:mm:ss``, or ``-:--:--`` when unknown."""
    if seconds is None:
        return "-:--:--"
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class TimeLeftColumn(ProgressColumn):
    """Rich's time-remaining column, ending at ``--stop-seconds`` where that comes first."""

    def __init__(self, started: float, stop_seconds: float) -> None:
        super().__init__()
        self.started, self.stop_seconds = started, stop_seconds

    def render(self, task: Task) -> Text:
        return Text(clock(time_left(task.time_remaining, self.started, self.stop_seconds)), style="progress.remaining")


class ProgressLines:
    """Plain progress lines for an output that is no terminal, at most one per ``every_s`` seconds."""

    def __init__(self, name: str, total: int | None, started: float, stop_seconds: float,
                 every_s: float = LINE_EVERY_S, enabled: bool = True) -> None:
        """``total``: the step budget (None: none, the ``stop_seconds`` deadline ends the run)."""
        self.name, self.total, self.started, self.stop_seconds = name, total, started, stop_seconds
        self.every_s, self.enabled = every_s, enabled
        self._last = started
        self._first_step: int | None = None

    def line(self, step: int, status: str, now: float | None = None) -> str:
        """The progress line at ``step`` (the estimate from the rate since the first update)."""
        now = time.time() if now is None else now
        if self._first_step is None:
            self._first_step = step
        rate = (step - self._first_step) / max(now - self.started, 1e-9)
        remaining = (self.total - step) / rate if rate > 0 and self.total is not None else None
        left = time_left(remaining, self.started, self.stop_seconds, now)
        budget = "" if self.total is None else f"/{self.total:,} ({100.0 * step / max(self.total, 1):.0f}%)"
        return f"{self.name}: step {step:,}{budget}, {clock(now - self.started)} elapsed, {clock(left)} left; {status}"

    def update(self, step: int, status: str, force: bool = False) -> None:
        """Print :meth:`line` if enabled and ``every_s`` has passed (or ``force``)."""
        now = time.time()
        line = self.line(step, status, now)
        if self.enabled and (force or now - self._last >= self.every_s):
            self._last = now
            print(line, flush=True)


def closing_summary(name: str, steps: int, seconds: float, checkpoint: Path, export: str | Path | None,
                    curves: Path | None, last_eval: dict[str, Any]) -> list[str]:
    """The lines a trainer ends with: what it trained, in what time, and where everything is."""
    lines = [f"{name}: trained {steps:,} learner decisions in {clock(seconds)}",
             f"  checkpoint: {checkpoint} (resume with --resume {checkpoint})"]
    lines.append(f"  policy: {export}" if export else "  policy: not exported (--export PATH writes one)")
    if last_eval:
        rates = ", ".join(f"{opp} {rate:.3f}" for opp, rate in last_eval["rates"].items())
        lines.append(f"  last evaluation, at step {last_eval['step']:,}: win rate vs {rates}")
    else:
        lines.append("  no evaluation yet (--eval-every N evaluates every N iterations)")
    lines.append(f"  curves: tensorboard --logdir {curves}" if curves else "  curves: none (--tensorboard is off)")
    return lines
