"""Where human-readable output goes: rich consoles that never hard-wrap piped output.

On a terminal a console is as wide as the terminal; piped to a file or
another program it keeps every line whole, so a tuned player's spec stays on
one line and its weights can be copied from a log. Progress goes to stderr,
results to stdout.
"""

from __future__ import annotations

from rich.console import Console

PIPED_WIDTH = 10_000  # wide enough for any line the harness prints


def output_console(stderr: bool = False) -> Console:
    """A console for a command's output (stdout, or stderr for progress): never wrapped when piped."""
    console = Console(stderr=stderr)
    if not console.is_terminal:
        console = Console(stderr=stderr, width=PIPED_WIDTH, soft_wrap=True)
    return console
