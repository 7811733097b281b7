"""Piped output is never hard-wrapped: long specs stay on one line."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from harness.console import output_console


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
