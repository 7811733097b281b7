"""Every command of the ``harness`` group has help with an example and is shown in the README."""

from __future__ import annotations

import pathlib

import click
import pytest

from harness.cli import cli

README = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()


def commands(group: click.Group, prefix: str = "harness") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        if isinstance(command, click.Group):
            found += commands(command, path)
        else:
            found.append((path, command))
    return found


COMMANDS = commands(cli)


def test_the_group_has_the_designed_commands():
    names = {path for path, _ in COMMANDS}
    for expected in ("games", "play", "tournament", "tune", "report", "leaderboard", "ratings", "show",
                     "export", "db upgrade", "live", "arena", "emulate"):
        assert f"harness {expected}" in names


@pytest.mark.parametrize("path, command", COMMANDS, ids=[path for path, _ in COMMANDS])
def test_every_command_has_help_with_an_example(path, command):
    text = command.help or ""
    assert len(text.strip()) > 20, f"{path} has no help"
    assert "Example" in text, f"{path} help has no example"


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS])
def test_every_command_is_shown_in_the_readme(path):
    assert f"{path} " in README, f"the README shows no example of {path}"
