"""The thin CLI: shared options with one default each, the library's parameters named as flags,
named players resolved once per run, the database opened once per command."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from harness.cli import cli, flags_named, main
from harness.cli_options import ADDRESS_HELP, DB_HELP, WORKERS_HELP
from harness.cluster import InProcessPool, MatchPool, Pool
from harness.db import open_database
from harness.dbsource import DatabaseSource
from harness.errors import InvalidInput, SpecError
from players.named import SpecResolver
from harness.tournament import plan


def commands(group: click.Group = cli, prefix: str = "") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found.update(commands(command, f"{prefix}{name} "))
        else:
            found[prefix + name] = command
    return found


def option(command: click.Command, flag: str) -> click.Option | None:
    return next((p for p in command.params if isinstance(p, click.Option) and flag in p.opts), None)


@pytest.mark.parametrize("flag, help_text", [("--workers", WORKERS_HELP), ("--address", ADDRESS_HELP),
                                              ("--db", DB_HELP)])
def test_every_command_with_a_shared_option_declares_it_with_the_one_default_and_help(flag, help_text):
    having = {name: option(command, flag) for name, command in commands().items() if option(command, flag)}
    assert len(having) >= (3 if flag != "--db" else 10)
    for name, declared in having.items():
        assert declared.default is None, name  # None: the library's default (every CPU, a local cluster)
        assert declared.help == help_text, name


def test_workers_help_says_every_cpu_in_every_command(capsys):
    for name in ("tournament", "tune", "live"):
        assert main([name, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "every CPU of this machine, or of the cluster joined with --address" in text, name


def test_a_library_parameter_is_named_as_the_flag_of_the_command_that_sets_it():
    error = InvalidInput("seed_start must be at least 0; workers too", parameters=("seed_start", "workers"))
    assert flags_named(error, cli.commands["tournament"]) == "--seeds must be at least 0; --workers too"
    assert flags_named(error, cli.commands["live"]) == "--seed-start must be at least 0; --workers too"
    named = InvalidInput("players is empty (round_robin_x stays)", parameters=("players", "game"))
    assert flags_named(named, cli.commands["tournament"]) == "--player is empty (round_robin_x stays)"
    assert str(InvalidInput("plain")) == "plain" and InvalidInput("plain").parameters == ()


def test_library_bad_input_reaches_the_user_with_the_flag_and_exit_2(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'never.db'}"
    code = main(["tournament", "ravenward", "--player", "random", "--player", "greedy", "--round-robin",
                 "--games", "3", "--db", db])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "round-robin plays each seed in both seats: --games must be even, got 3" in err
    assert main(["tournament", "ravenward", "--player", "random", "--games", "2", "--db", db]) == 2
    assert "give --opponent SPEC for a gauntlet, --ladder for" in capsys.readouterr().err
    assert not (tmp_path / "never.db").exists()  # bad input creates nothing


class CountingStore:
    """A store of one named player that counts its look-ups."""

    def __init__(self) -> None:
        self.lookups = 0

    def resolve_spec(self, spec: str, allow_engines: bool = False) -> str:
        self.lookups += 1
        return {"tuned:best": "alphabeta:depth=2"}.get(spec, spec)

    def named_player_record(self, name: str) -> None:
        return None  # no verdict to say anything about


def test_a_named_player_is_resolved_once_per_run_however_often_it_is_named():
    store = CountingStore()
    resolver = SpecResolver(store)
    config = plan("ravenward", ["tuned:best", "tuned:best", "greedy"], "tuned:best", games=2, resolver=resolver)
    assert store.lookups == 1
    assert config.opponent == config.players[0] == resolver.canonical("tuned:best", "ravenward")
    assert config.aliases == {config.opponent: "tuned:best"} and store.lookups == 1


def test_the_store_is_opened_only_for_a_named_player():
    opened: list[CountingStore] = []

    def open_store() -> CountingStore:
        opened.append(CountingStore())
        return opened[-1]

    resolver = SpecResolver(open_store)
    assert resolver.canonical("greedy") == "greedy" and opened == []
    resolver.canonical("tuned:best")
    resolver.canonical("tuned:best", "ravenward")
    assert len(opened) == 1 and opened[0].lookups == 2  # one per game the weights are checked against
    with pytest.raises(SpecError, match="needs the results database"):
        SpecResolver().canonical("tuned:best")


def test_a_database_source_opens_once_and_a_missing_one_is_not_created(tmp_path):
    path = tmp_path / "results.db"
    with DatabaseSource(f"sqlite:///{path}") as source:
        with pytest.raises(InvalidInput):
            source.existing()
        assert not path.exists() and source.opened is None
        written = source.writable()
        assert source.existing() is written and source.writable() is written
    assert source.opened is None
    with open_database(f"sqlite:///{path}", create=False) as database:
        assert database.runs() == []


def test_tournament_prints_its_leaderboard_from_the_one_open_database(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'once.db'}"
    code = main(["tournament", "ravenward", "--player", "random", "--player", "greedy", "--round-robin",
                 "--games", "2", "--workers", "1", "--quiet", "--db", db])
    out = capsys.readouterr().out
    assert code == 0
    assert "ravenward (ranked by mean)" in out and "Bradley-Terry Elo" in out and "2/2 games recorded" in out


def test_both_pools_are_match_pools():
    assert isinstance(InProcessPool(), MatchPool)
    assert isinstance(Pool(workers=2), MatchPool)  # not started: no Ray yet
    assert not isinstance(object(), MatchPool)


def test_the_console_script_target_is_still_importable():
    # the script is harness.cli:entry, which ends the process with main()'s code; main stays the callable API
    import importlib
    import re
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    module, name = re.search(r'^harness = "([\w.]+):(\w+)"$', text, re.M).groups()
    assert (module, name) == ("harness.cli", "entry")
    assert callable(getattr(importlib.import_module(module), name))
    from harness.cli import main
    assert main(["--help"]) == 0
