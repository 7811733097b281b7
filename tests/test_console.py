"""Piped output is never hard-wrapped (long specs stay on one line), a log shows progress as it goes, and
a note reaches whoever shows notes once."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import warnings

from rich.console import Console
from rich.progress import MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from harness.console import LoggedProgress, note, notes_shown_by, output_console


def test_piped_output_keeps_long_lines_and_tables_whole(capsys):
    spec = "alphabeta:depth=3," + ",".join(f"w.stability{i}=10.125" for i in range(20))
    console = output_console()
    console.print(Text(f"tuned (trial 4): {spec}, saved as tuned:demo"))
    table = Table(title="validation")
    table.add_column("player")
    table.add_row(spec)
    console.print(table)
    out = capsys.readouterr().out
    assert f"tuned (trial 4): {spec}, saved as tuned:demo" in out.splitlines()
    assert any(spec in line for line in out.splitlines()[1:])


def test_progress_console_writes_to_stderr(capsys):
    output_console(stderr=True).print("progress")
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "progress"


def logged(**options) -> tuple[LoggedProgress, io.StringIO]:
    out = io.StringIO()  # not a terminal: a log
    bar = LoggedProgress(TextColumn("{task.description}"), MofNCompleteColumn(),
                         console=Console(file=out, width=200), **options)
    return bar, out


def lines_of(out: io.StringIO) -> list[str]:
    return [" ".join(line.split()) for line in out.getvalue().splitlines() if line.strip()]


def test_a_log_gets_a_line_at_each_tenth_and_the_last_state_once():
    bar, out = logged()
    with bar:
        task = bar.add_task("games", total=20)
        for _ in range(20):
            bar.advance(task)
    assert lines_of(out) == [f"games {done}/20" for done in range(2, 21, 2)]


def test_a_transient_display_still_logs_its_end_and_time_alone_paces_a_task_whose_text_moves_first():
    bar, out = logged(transient=True, every_s=0.0)
    with bar:
        counted = bar.add_task("steps", total=None)
        for _ in range(2):
            bar.update(counted, advance=1)
        trials = bar.add_task("trials", total=20)
        bar.update(trials, description="trials (7 games)")  # a study: games played, no trial ended yet
        ends = bar.add_task("games", total=4)
        bar.update(ends, completed=4)
    assert lines_of(out) == ["steps 1/?", "steps 2/?", "trials (7 games) 0/20", "games 4/4"]


def test_a_disabled_display_and_a_terminal_print_no_log_lines():
    bar, out = logged(disable=True)
    with bar:
        bar.advance(bar.add_task("games", total=10), 10)
    assert out.getvalue() == ""
    terminal = io.StringIO()
    bar = LoggedProgress(TextColumn("{task.description} {task.completed} done"),
                         console=Console(file=terminal, force_terminal=True, width=80), auto_refresh=False)
    with bar:
        task = bar.add_task("games", total=10)
        for _ in range(10):
            bar.advance(task)
    drawn = re.findall(r"games (\d+) done", terminal.getvalue())
    assert drawn == ["0", "10"]  # only the display's own first and last draws


def test_a_tournament_run_in_the_background_logs_its_progress(tmp_path):
    done = subprocess.run([sys.executable, "-m", "harness.cli", "tournament", "totality", "--player", "random",
                           "--player", "greedy", "--round-robin", "--games", "20", "--workers", "1",
                           "--db", f"sqlite:///{tmp_path / 'h.db'}"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    counts = [line.split()[-6] for line in done.stderr.splitlines() if "round-robin totality" in line]
    assert counts == [f"{n}/20" for n in range(2, 21, 2)], done.stderr


def test_a_task_whose_steps_are_minutes_apart_still_shows_an_eta():
    """Rich measures the pace over its last 30 s by default: no step there, no ETA. The harness's
    bars measure it over the last hour, so a study's full-budget games (a minute each) get one."""
    now = [0.0]
    bar = LoggedProgress(TimeRemainingColumn(), console=Console(file=io.StringIO()), get_time=lambda: now[0])
    task = bar.add_task("games", total=10)
    for _ in range(3):
        now[0] += 60.0
        bar.advance(task)
    assert TimeRemainingColumn().render(bar.tasks[0]).plain == "0:07:00"


def test_each_note_is_shown_once_per_block_and_other_warnings_pass_by():
    for _ in range(2):  # a second block (a second command in one process) shows its notes again
        shown: list[str] = []
        with warnings.catch_warnings(record=True) as others:
            warnings.simplefilter("always")
            with notes_shown_by(shown.append):
                note("tuned:a is not confirmed better")
                note("tuned:a is not confirmed better")
                note("tuned:b is not confirmed better")
                warnings.warn("something else", DeprecationWarning)
        assert shown == ["tuned:a is not confirmed better", "tuned:b is not confirmed better"]
        assert [str(w.message) for w in others] == ["something else"]
