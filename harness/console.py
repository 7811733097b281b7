"""Where human-readable output goes: rich consoles that never hard-wrap piped output, and progress that a log keeps.

On a terminal a console is as wide as the terminal; piped to a file or
another program it keeps every line whole, so a tuned player's spec stays on
one line and its weights can be copied from a log. Progress goes to stderr,
results to stdout.

A live progress bar draws nothing on a console that is not a terminal (a
``nohup`` log, a batch job, CI) until it stops, so hours of work would show
no sign of life; ``LoggedProgress`` prints a task's line there instead, each
time it passes a tenth of its total and at least once a minute while it is
updated (a study's trials bar moves its games count long before a trial
ends; a live game's line its actions).

A note is something the user should know that is not an error (a tuned
player its study did not confirm better). The library says it with
``note(text)``, a Python warning of category ``Note``, so any layer can say it
without knowing who listens and a plain Python caller sees it as a warning;
the CLI runs each command inside ``notes_shown_by(...)``, which prints each
note once, as one line, and leaves every other warning alone.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import Progress, TaskID

PIPED_WIDTH = 10_000  # wide enough for any line the harness prints
LOG_EVERY_S = 60.0  # a logged task's line at least this often while it advances
# the ETA's pace is measured over this window: rich's default (30 s) sees no pace at all in a
# task whose steps are minutes apart (a study's games at full budget) and shows no ETA
SPEED_WINDOW_S = 3600.0


def rate_text(rate: float) -> str:
    """Games per second as bars and summaries show it: three significant digits (0.0283 for games minutes
    long, where a fixed two decimals would read 0.00)."""
    return f"{rate:.3g} games/s"


def output_console(stderr: bool = False) -> Console:
    """A console for a command's output (stdout, or stderr for progress): never wrapped when piped."""
    console = Console(stderr=stderr)
    if not console.is_terminal:
        console = Console(stderr=stderr, width=PIPED_WIDTH, soft_wrap=True)
    return console


class LoggedProgress(Progress):
    """A rich ``Progress``; on a console that is not a terminal, each task also prints its line as it goes."""

    def __init__(self, *columns: Any, every_s: float = LOG_EVERY_S, **options: Any) -> None:
        super().__init__(*columns, **({"speed_estimate_period": SPEED_WINDOW_S} | options))
        self._logs = not self.disable and not self.console.is_terminal
        self._every_s = every_s
        self._logged: dict[TaskID, tuple[int, float]] = {}  # the tenth and the time of each task's last line

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._log(task_id)

    def update(self, task_id: TaskID, **changes: Any) -> None:
        super().update(task_id, **changes)
        self._log(task_id)

    def _log(self, task_id: TaskID) -> None:
        if not self._logs:
            return
        task = self._tasks[task_id]
        tenth = int(10 * task.completed / task.total) if task.total else 0
        now = time.monotonic()
        last_tenth, last_time = self._logged.setdefault(task_id, (0, now))
        if task.finished and not self.live.transient:
            return  # the display prints its last state when it stops
        # on the minute whenever updated: a task's text can move before its count (a study's games, a live game)
        if tenth > last_tenth or now - last_time >= self._every_s:
            self._logged[task_id] = (tenth, now)
            self.console.print(self.make_tasks_table([task]))


class Note(UserWarning):
    """Something the user should know that is not an error; the CLI prints it as one ``harness: note:`` line."""


def note(text: str) -> None:
    """Tell the user ``text`` (one line) through whoever shows notes: the CLI, or Python's warnings."""
    warnings.warn(Note(text), stacklevel=2)


@contextmanager
def notes_shown_by(show: Callable[[str], None]) -> Iterator[None]:
    """Within: each ``Note`` goes to ``show`` once (the same text once), other warnings as Python shows them.

    Python's own once-only filters remember a text for the whole process,
    so a second command in the same process (a test, a script) would stay
    silent; here every block starts afresh.
    """
    shown: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("always", Note)
        others = warnings.showwarning

        def route(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
            if not issubclass(category, Note):
                others(message, category, filename, lineno, file, line)
            elif str(message) not in shown:
                shown.add(str(message))
                show(str(message))

        warnings.showwarning = route
        yield
