"""The ``harness`` command: each subcommand parses, calls one library function, prints.

Exit codes (docs/errors.md): 0 done; 1 the work could not be done (the
database, the cluster, a live server, the operating system, or an unexpected
error); 2 bad input (``click.UsageError``/``click.BadParameter`` or the
library's ``InvalidInput``), found before any work; 130 interrupted (Ctrl-C, or
SIGTERM, which ``main`` takes as Ctrl-C: ``harness.interrupts``).
Every error is one line on stderr, passwords masked; the full traceback of
an error with exit code 1 only with ``harness --debug`` or ``HARNESS_DEBUG=1``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import click

from harness import __version__
from harness.cli_options import (address_option, allow_engines_option, db_option, json_option,
                                 ladder_report_options, limit_option, stored_integer, workers_option)
from harness.console import notes_shown_by, output_console
from harness.errors import HarnessError, InvalidInput
from harness.interrupts import is_stop, stop_on_signals
from harness.masking import mask_url_passwords

DEBUG_ENV = "HARNESS_DEBUG"
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


class HarnessCommand(click.Command):
    """A click command that writes the library's parameter names in its bad-input messages as its flags."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InvalidInput as error:
            raise click.UsageError(flags_named(error, self), ctx) from None


class HarnessGroup(click.Group):
    """A click group that turns the harness's errors into clean exits."""

    command_class = HarnessCommand
    group_class = type  # subgroups are HarnessGroups too

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with notes_shown_by(print_note):  # every command: a library's notes, each once, on stderr
                return super().invoke(ctx)
        except InvalidInput as error:
            raise click.UsageError(str(error), ctx) from None
        except HarnessError as error:
            if ctx.params.get("debug"):
                print_traceback(error, ())
            raise click.ClickException(str(error)) from None


def print_note(text: str) -> None:
    """A library's note (``harness.console.note``) as one line on stderr: not an error, the command goes on."""
    click.echo(f"harness: note: {one_line(text)}", err=True)


@click.group(cls=HarnessGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harness")
@click.option("--debug", is_flag=True, envvar=DEBUG_ENV,
              help=f"Print the full traceback of an error that stops a command (also {DEBUG_ENV}=1).")
def cli(debug: bool) -> None:
    """Play, tune and rank board-game bots: Ravenward, Totality and Chinese chess.

    Every error is one line on stderr. Exit codes: 0 done, 1 the work could
    not be done (database, cluster, server, system), 2 bad input (nothing was
    done), 130 interrupted (the line printed says how to resume).

    \b
    Examples:
      harness games
      harness play ravenward --player greedy --opponent gbot --seed 7 --show
      harness --debug tune studies/demo-totality.toml
    """


@cli.command()
def games() -> None:
    """List the games with a one-line description, the strong player and the ladder of stand-ins.

    The ladder is what ``harness tournament GAME --player SPEC --ladder`` plays
    against; every rung is a player spec usable as --opponent. Its evaluations
    are frozen tables, never the live defaults (the line names which table
    ``eval=default`` is), so adopting new defaults into strong never moves it.
    References (Chinese chess: Fairy-Stockfish) are measured beside the
    ladder, not on it.

    \b
    Example:
      harness games
    """
    from harness.games import REGISTRY
    from players.ladder import ladder, ladder_default_source, references
    from players.strong import strong_spec
    for name in sorted(REGISTRY):
        info = REGISTRY[name]
        options = " ".join(f"[{k}: {'|'.join(v)}]" for k, v in info.options.items())
        click.echo(f"{name:<10} {info.description} {options}".rstrip())
        click.echo(f"  strong = {strong_spec(name)}; strong:time=2 = {strong_spec(name, live=True)}")
        rungs = ladder(name)
        click.echo(f"  ladder ({len(rungs)} rungs): {', '.join(rungs)}")
        click.echo("  ladder evaluations: frozen tables, not the live defaults; "
                   f"eval=default is {ladder_default_source(name)}")
        if beside := references(name):
            click.echo(f"  references beside the ladder: {', '.join(beside)}")


@cli.command()
@click.argument("game")
@click.option("--suite", "openings", default=None, metavar="NAME", help="The suite [default: the game's first].")
@click.option("--show", "number", default=None, type=int, metavar="N",
              help="Print opening N of the suite: its moves and the board they reach.")
@json_option("one JSON document")
def openings(game: str, openings: str | None, number: int | None, as_json: bool) -> None:
    """List a game's opening suites: openings, plies, the search values that balanced them, the command.

    A match with --openings NAME (or MatchSpec.openings) plays opening
    SEED % size of the suite instead of random plies; docs/tuning.md,
    "Opening suites", says how a suite is made and used.

    \b
    Examples:
      harness openings totality
      harness openings xiangqi --show 17
      harness openings ravenward --json
    """
    import json

    from harness.games.openings import opening_document, suites_document
    if number is not None:
        document = opening_document(game, number, openings)
        if as_json:
            click.echo(json.dumps(document))
            return
        click.echo(f"{document['suite']} opening {number} (value {document['value']:g} for the first mover)")
        for ply, action in enumerate(document["actions"], 1):
            click.echo(f"ply {ply}: {json.dumps(action)}")
        click.echo(document["board"])
        return
    document = suites_document(game, openings)
    if as_json:
        click.echo(json.dumps(document))
        return
    if not document["suites"]:
        click.echo(f"{document['game']} ships no opening suites; scripts/make_openings.py makes one")
        return
    print_table(f"{document['game']} opening suites", ["name", "openings", "plies", "search", "min", "median",
                                                     "max", "command"],
                [[s["name"], s["openings"], s["plies"], s["search"], f"{s['values']['min']:g}",
                  f"{s['values']['median']:g}", f"{s['values']['max']:g}", s["command"]]
                 for s in document["suites"]])


@cli.command()
@click.argument("game")
@click.option("--player", "player", default="greedy", show_default=True, help="Your seat's player spec.")
@click.option("--opponent", default="gbot", show_default=True, help="The other seat's player spec.")
@click.option("--seed", default=0, show_default=True, type=int, callback=stored_integer,
              help="Match seed (the first, with --games).")
@click.option("--games", default=1, show_default=True, type=click.IntRange(1, 1_000_000), help="Matches on seeds SEED, SEED+1, ... (at most a million; a tournament plays more, on Ray).")
@click.option("--opening-plies", default=0, show_default=True, type=click.IntRange(0), callback=stored_integer,
              help="Random opening plies.")
@click.option("--openings", default="", metavar="SUITE",
              help="Play each seed's opening of this suite (harness openings GAME) instead of random plies.")
@click.option("--record", is_flag=True, help="Record the matches as a run (see harness runs, show, leaderboard).")
@click.option("--run-name", default=None, metavar="NAME", help="A name for the recorded run.")
@click.option("--show", is_flag=True, help="Print the board after every move.")
@json_option("each MatchResult as one JSON line")
@db_option
@allow_engines_option
def play(game: str, player: str, opponent: str, seed: int, games: int, opening_plies: int, openings: str,
         record: bool,
         run_name: str | None, show: bool, as_json: bool, db_url: str | None,
         allow_engines: bool) -> None:
    """Play matches locally, one after another, and print each result and score.

    GAME is a game spec: ravenward, totality, totality:easy, xiangqi:black.
    A player named tuned:<study> is looked up in the results database. With
    --record the matches are stored as a run of kind play.

    \b
    Examples:
      harness play totality:easy --player alphabeta:depth=4 --opponent gbot --seed 3 --show
      harness play xiangqi:black --player alphabeta:depth=4 --opponent gbot --seed 17 --openings xiangqi-4ply
      harness play totality --player tuned:demo-totality --opponent gbot
      harness play ravenward --player greedy --opponent gbot --games 10 --record --run-name warmup
      harness play xiangqi --player alphabeta:depth=4 --opponent uci:command=fairy-stockfish,nodes=20000
    """
    import json

    from harness.dbsource import DatabaseSource
    from harness.match import replay_lines
    from harness.series import plan_series, play_series
    from players.named import SpecResolver
    if run_name is not None and not record:
        raise click.UsageError("--run-name names a recorded run: give --record with it")
    with DatabaseSource(db_url) as source:  # a named player reads it, --record writes it: opened once
        series = plan_series(game, player, opponent, seed_start=seed, games=games, opening_plies=opening_plies,
                             openings=openings, resolver=SpecResolver(source.existing, allow_engines=allow_engines))
        database = source.writable() if record else None  # only now, with the input checked
        results = []
        run_id = None
        for run_id, result in play_series(series, database, name=run_name):
            results.append(result)
            if show:
                for line in replay_lines(result):
                    click.echo(line)
            if as_json:
                click.echo(json.dumps(result.to_dict()))
            else:
                click.echo(f"{result.game}: {result.player} vs {result.opponent}, seed {result.seed}: "
                           f"{result.outcome} ({result.reason}), score {result.score:g}, {result.plies} plies, "
                           f"{result.duration_s:.2f}s")
            if result.error:
                click.echo(f"error: {result.error}", err=True)
        if as_json:
            return
        if len(results) > 1:
            outcomes = [r.outcome for r in results]
            mean = sum(r.score for r in results) / len(results)
            click.echo(f"{len(results)} games: {outcomes.count('win')} won, {outcomes.count('draw')} drawn, "
                       f"{outcomes.count('loss')} lost; mean score {mean:.3f}")
        if record and database is not None and run_id is not None:
            ids = [m.id for m in database.matches(run_id=run_id)]
            click.echo(f"recorded as run {run_id}: harness show {ids[0]}; "
                       f"harness leaderboard {series.game} --run {run_id}")


# ---- commands: results database, leaderboards, ratings, show, export (owner: db) ----------------

@cli.group("db")
def db_group() -> None:
    """Manage the results database.

    \b
    Example:
      harness db upgrade --db postgresql+psycopg://harness@localhost/harness
    """


@db_group.command("upgrade")
@db_option
def db_upgrade(db_url: str | None) -> None:
    """Bring the database's schema to the newest migration (commands that record do this first; readers never do).

    \b
    Example:
      harness db upgrade --db sqlite:///results.db
    """
    from harness.db import open_database
    with open_database(db_url) as database:
        click.echo(f"{database.masked_url}: schema at revision {database.revision()}")


@db_group.command("backup")
@click.argument("file", type=click.Path(dir_okay=False))
@db_option
def db_backup(file: str, db_url: str | None) -> None:
    """Copy a SQLite database to FILE while commands keep writing to it (gzipped if FILE ends in .gz).

    The copy is a consistent snapshot (SQLite's backup API), checked before
    it is renamed into place. A study's database holds its Optuna trials too,
    so this is how a long study is kept safe between sittings. PostgreSQL:
    use pg_dump.

    \b
    Examples:
      harness db backup studies.db.gz --db sqlite:///studies.db
      harness db restore studies.db.gz --db sqlite:///restored.db
    """
    from harness.db.backup import backup
    copy = backup(db_url, file)
    click.echo(f"{copy.path}: {copy.bytes_written:,} bytes, a copy of {copy.tables} tables "
               f"({copy.database_bytes:,} bytes of database)")


@db_group.command("restore")
@click.argument("file", type=click.Path(dir_okay=False))
@db_option
def db_restore(file: str, db_url: str | None) -> None:
    """Make a new SQLite database from FILE, a copy made by harness db backup (plain or gzipped).

    Never writes over a database: --db must name a file that does not exist. A copy made by an older
    harness is brought to this one's schema (reading commands never migrate).

    \b
    Example:
      harness db restore studies.db.gz --db sqlite:///studies.db
    """
    from harness.db.backup import restore
    from harness.db import default_url, mask_url
    copy = restore(file, db_url)
    upgraded = f"; its schema upgraded from revision {copy.upgraded_from}" if copy.upgraded_from else ""
    click.echo(f"{mask_url(db_url or default_url())}: restored from {file}, {copy.tables} tables, "
               f"{copy.database_bytes:,} bytes{upgraded}")


@db_group.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--run-name", default=None, metavar="NAME",
              help="Put every file's matches in one run of this name [default: a run per file, named after it].")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar on stderr.")
@db_option
def db_import(files: tuple[str, ...], run_name: str | None, quiet: bool, db_url: str | None) -> None:
    """Load files of match lines (harness export, plain or gzipped) into the database, a run per file.

    A line may also be a MatchResult (harness play --json; the --results
    files of the retired scripts/eval_players.py). Every line's key is made
    again from its content and must match; a match the database holds
    already is not stored twice (the run holds it), and one recorded with
    another result stops the import; a file imported before is a no-op. A
    file is written whole or not at all.

    \b
    Examples:
      harness export --run 3 --db sqlite:///a.db > run3.jsonl
      harness db import run3.jsonl --db sqlite:///b.db
      harness db import old/*.jsonl --run-name ladder-2026
    """
    from harness.db.importing import import_files
    from harness.dbsource import DatabaseSource
    with DatabaseSource(db_url) as source, file_progress(quiet) as progress:  # opened once the files pass
        imported = import_files(source.writable, files, run_name=run_name, progress=progress)
    for item in imported:
        click.echo(item.describe())


@contextlib.contextmanager
def file_progress(quiet: bool) -> Iterator[Callable[[Any, int, int], None] | None]:
    """A progress bar on stderr over the bytes of each file read (None with ``quiet``)."""
    if quiet:
        yield None
        return
    from rich.progress import BarColumn, DownloadColumn, TextColumn, TimeRemainingColumn
    from harness.console import LoggedProgress
    bars: dict[Any, Any] = {}
    with LoggedProgress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                        console=output_console(stderr=True), transient=True) as progress:
        def show(path: Any, done: int, total: int) -> None:
            if path not in bars:
                bars[path] = progress.add_task(f"reading {path}", total=total)
            progress.update(bars[path], completed=done)
        yield show


@cli.command()
@click.argument("game")
@click.option("--opponent", default=None, metavar="SPEC", help="Only matches against this opponent.")
@click.option("--run", "run", default=None, metavar="ID", help="Only matches of this run (id or name).")
@click.option("--by", type=click.Choice(["mean", "lcb"]), default="mean", show_default=True,
              help="Rank by mean score or by the lower bound of its 95% interval.")
@json_option("one JSON document (format in docs/db.md)")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV with a header row.")
@click.option("--top", type=click.IntRange(1), default=None, metavar="N", help="Only the N best rows.")
@db_option
def leaderboard(game: str, opponent: str | None, run: str | None, by: str, as_json: bool, as_csv: bool,
                top: int | None, db_url: str | None) -> None:
    """Rank every player configuration that played GAME by its documented score.

    GAME is a game spec; its exact configuration counts (totality is level
    wise, totality:easy level easy).

    \b
    Examples:
      harness leaderboard ravenward
      harness leaderboard totality:easy --opponent gbot:easy --by lcb --json
      harness leaderboard totality --opponent gbot --top 5
    """
    from harness.db import open_database
    from harness.db.queries import leaderboard_document
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    with open_database(db_url, read_only=True) as database:
        document = leaderboard_document(database, game, opponent=opponent, run=run, by=by)
    print_leaderboard(document, by, as_json=as_json, as_csv=as_csv, top=top)


def print_leaderboard(document: dict[str, Any], by: str, *, as_json: bool = False, as_csv: bool = False,
                      top: int | None = None) -> None:
    """A leaderboard document (``harness.db.queries.leaderboard_document``) as JSON, CSV or a table."""
    import csv
    import io
    import json

    from harness.db.queries import LEADERBOARD_COLUMNS, empty_message
    if top is not None:
        document["rows"] = document["rows"][:top]
    rows = document["rows"]
    if as_json:
        click.echo(json.dumps(document))
    elif not rows:
        click.echo(empty_message(document["game"], document["opponent"], document["run_id"]))
    elif as_csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(LEADERBOARD_COLUMNS)
        writer.writerows([row[c] for c in LEADERBOARD_COLUMNS] for row in rows)
        click.echo(buffer.getvalue(), nl=False)
    else:
        title = f"{document['game']}" + (f" vs {document['opponent']}" if document["opponent"] else "")
        print_table(title + f" (ranked by {by})",
                    ["#", "player", "games", "W", "D", "L", "mean", "95% interval", "best", "worst", "live≠"],
                    [[row["rank"], row["player"] + alias_text(row),
                      row["games"], row["wins"], row["draws"], row["losses"], f"{row['mean']:.3f}",
                      format_interval(row["low"], row["high"]), f"{row['best']:.3f}", f"{row['worst']:.3f}",
                      row["mismatches"]] for row in rows])


def alias_text(row: dict[str, Any]) -> str:
    """A row's ``tuned:`` aliases with their studies' verdicts, to follow its spec (empty without an alias)."""
    if not row["alias"]:
        return ""
    named = zip(row["alias"].split(","), row["verdict"].split(","))  # in the same order (docs/db.md)
    return "  (" + ", ".join(f"{alias}: {verdict}" for alias, verdict in named) + ")"


@cli.command()
@click.argument("game")
@click.option("--run", "run", default=None, metavar="ID", help="Only matches of this run (id or name).")
@click.option("--anchor", default=None, metavar="SPEC", help="Pin this player at Elo 0 (default: mean 0).")
@json_option("one JSON document (format in docs/db.md)")
@db_option
def ratings(game: str, run: str | None, anchor: str | None, as_json: bool, db_url: str | None) -> None:
    """Elo of every player configuration in GAME by Bradley-Terry maximum likelihood, with 95% intervals.

    A bare game name pools every configuration (both seats, both levels);
    a spec with options keeps only that one.

    \b
    Examples:
      harness ratings xiangqi
      harness ratings xiangqi --anchor random --json
    """
    from harness.db import open_database
    from harness.db.queries import ratings_document
    with open_database(db_url, read_only=True) as database:
        document = ratings_document(database, game, run=run, anchor=anchor)
    print_ratings(document, as_json=as_json)


def print_ratings(document: dict[str, Any], *, as_json: bool = False) -> None:
    """A ratings document (``harness.db.queries.ratings_document``) as JSON or a table."""
    import json

    from harness.db.queries import empty_message
    if as_json:
        click.echo(json.dumps(document))
        return
    if not document["ratings"]:
        click.echo(empty_message(document["game"], run=document["run_id"]))
        return
    note = f", {document['prior_draws']:g} virtual draws each" if document["prior_draws"] else ""
    print_table(f"{document['game']}: Bradley-Terry Elo{note}",
                ["#", "player", "Elo", "95% interval", "games", "points"],
                [[r["rank"], r["player"] + alias_text(r), f"{r['elo']:.0f}",
                  format_interval(r["low"], r["high"], "{:.0f}"), r["games"], f"{r['points']:g}"]
                 for r in document["ratings"]])


@cli.command()
@click.argument("match_id", type=int)
@db_option
def show(match_id: int, db_url: str | None) -> None:
    """Replay a recorded match move by move as text boards.

    \b
    Example:
      harness show 42
    """
    from harness.db import open_database
    from harness.db.export import replay_boards
    with open_database(db_url, read_only=True) as database:
        record = database.match(match_id)
        if record is None:
            raise click.BadParameter(f"no match {match_id} in {database.masked_url}", param_hint="MATCH_ID")
    for text in replay_boards(record):
        click.echo(text)


@cli.command()
@click.argument("game", required=False)
@click.option("--run", "run", default=None, metavar="ID", help="Only matches of this run (id or name).")
@db_option
def export(game: str | None, run: str | None, db_url: str | None) -> None:
    """Write recorded matches as JSON lines, one match a line, every action of both sides.

    GAME is a game name (every configuration) or a spec with options; without
    it every game is exported. The keys are documented in docs/db.md.

    \b
    Examples:
      harness export totality > totality.jsonl
      harness export --run 3 --db sqlite:///results.db
    """
    from harness.db import open_database
    from harness.db.export import export_lines
    from harness.db.queries import empty_message
    exported = 0
    with open_database(db_url, read_only=True) as database:
        for line in export_lines(database, game=game, run=run):
            click.echo(line)
            exported += 1
    if not exported:  # stdout stays valid JSON lines (none); the reason goes to stderr
        click.echo(empty_message(game, run=run), err=True)


@cli.command()
@click.option("--kind", type=click.Choice(["tournament", "play", "study", "live", "import"]), default=None,
              help="Only runs of this kind.")
@click.option("--game", default=None, metavar="GAME", help="Only runs of this game (a name: every configuration).")
@json_option("one JSON document (format in docs/db.md)")
@db_option
def runs(kind: str | None, game: str | None, as_json: bool, db_url: str | None) -> None:
    """List the recorded runs: id, name, kind, game, status, matches (of planned), mean score, start.

    \b
    Examples:
      harness runs
      harness runs --kind tournament --game totality --json
    """
    import json

    from harness.db import open_database
    from harness.db.queries import runs_document
    with open_database(db_url, read_only=True) as database:
        document = runs_document(database, kind=kind, game=game)
    if as_json:
        click.echo(json.dumps(document))
        return
    if not document["runs"]:
        what = " ".join(part for part in (game, kind) if part)
        click.echo(f"no {what + ' ' if what else ''}runs recorded yet; harness tournament and "
                   "harness play --record make them")
        return
    print_table("runs", ["id", "name", "kind", "game", "status", "matches", "mean score", "started"],
                [[r["id"], r["name"] or "-", r["kind"], r["game"], r["status"],
                  f"{r['matches']}/{r['planned']}" if r["planned"] is not None else r["matches"],
                  "-" if r["mean_score"] is None else f"{r['mean_score']:.3f}", r["started"][:19]]
                 for r in document["runs"]])


@cli.command()
@json_option("one JSON document (format in docs/tuning.md)")
@db_option
def studies(as_json: bool, db_url: str | None) -> None:
    """List the tuning studies: game, trials by state, best value and trial, games, tuned player.

    \b
    Examples:
      harness studies
      harness studies --json --db sqlite:///results.db
    """
    import json

    from harness.report import studies_document
    document = studies_document(db_url)
    if as_json:
        click.echo(json.dumps(document))
        return
    if not document["studies"]:
        click.echo("no studies recorded yet; harness tune STUDY.toml runs one")
        return
    print_table("studies", ["study", "game", "complete", "pruned", "failed", "running", "best", "games", "player"],
                [[s["name"], s["game"] or "-", s["complete"], s["pruned"], s["failed"], s["running"],
                  "-" if s["best_value"] is None else f"{s['best_value']:.3f} (trial {s['best_trial']})",
                  s["games"], "-" if s["tuned_player"] is None else f"{s['tuned_player']} [{s['tuned_verdict']}]"]
                 for s in document["studies"]])


@cli.command()
@json_option("one JSON document (format in docs/db.md)")
@db_option
def players(as_json: bool, db_url: str | None) -> None:
    """List the named players: each tuned:<name> and fitted:<name> alias with its game, verdict and full spec.

    The verdict is the study's confirmation against its incumbent: better,
    no gain or worse, with its evidence; unconfirmed when none stands behind it.

    \b
    Examples:
      harness players
      harness players --json
    """
    import json

    from harness.db import open_database
    from harness.db.queries import players_document
    with open_database(db_url, read_only=True) as database:
        document = players_document(database)
    if as_json:
        click.echo(json.dumps(document))
        return
    console = output_console()
    for section, (title, empty) in PLAYER_SECTIONS.items():  # one section per kind of named player
        entries = document.get(section) or []
        if not entries:
            click.echo(empty)
            continue
        console.print(title, style="bold", markup=False, highlight=False)
        for player in entries:  # one line each, whole: the spec can be copied from a log
            about = "; ".join(text for text in (player.get("note"), player.get("verdict_detail")) if text)
            console.print(f"{player['name']}  {player['game']}  [{player['verdict']}]  {player['spec']}"
                          + (f"  ({about})" if about else ""), markup=False, highlight=False)


PLAYER_SECTIONS = {
    "tuned": ("tuned players (use as --player tuned:<name>)",
              "no tuned players yet; harness tune saves the best weights of a study as tuned:<study>"),
    "fitted": ("fitted players (use as --player fitted:<name>)",
               "no fitted players yet; harness fit GAME --name NAME saves fitted weights as fitted:<name>"),
}


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Bind address (loopback by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free).")
@db_option
@limit_option
def serve(host: str, port: int, db_url: str | None, limits: tuple[str, ...]) -> None:
    """Serve a read-only web view of the results database: leaderboards, runs, studies, replays.

    Every page has JSON beside it under /api (the leaderboard's is the
    document of harness leaderboard --json).

    \b
    Examples:
      harness serve
      harness serve --port 8080 --db postgresql+psycopg://viewer@dbhost/harness
      harness serve --limit max_connections=256 --limit request_timeout_s=30
    """
    from harness.serving import parse_limits
    from harness.web import WebServer, create_app
    bounds = parse_limits(limits)
    server = WebServer(create_app(db_url), host=host, port=port, limits=bounds)
    click.echo(f"serving {server.url} (read-only; JSON under {server.url}/api); Ctrl-C stops")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


TEXT_COLUMNS = ("name", "kind", "game", "status", "started", "study", "search", "command")


def print_table(title: str, columns: list[str], rows: list[list[Any]], markdown: bool = False) -> None:
    """A rich table on stdout; numbers right-aligned; piped, at its natural width (never folded).

    ``markdown`` prints the rows as a Markdown table instead (no title), one line a row, for the docs.
    """
    from rich.table import Table
    cells = [[str(cell) for cell in row] for row in rows]
    if markdown:
        click.echo("\n".join(["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
                             + ["| " + " | ".join(row) + " |" for row in cells]) + "\n")
        return
    table = Table(title=title)
    for index, column in enumerate(columns):
        if column in ("player", "rung"):  # long specs fold inside their column; numbers are never cut
            table.add_column(column, justify="left", overflow="fold")
        elif column in TEXT_COLUMNS:
            table.add_column(column, justify="left")
        else:
            width = max([len(column)] + [len(row[index]) for row in cells])
            table.add_column(column, justify="right", no_wrap=True, min_width=width)
    for row in cells:
        table.add_row(*row)
    output_console().print(table)


def format_interval(low: float | None, high: float | None, number: str = "{:.3f}") -> str:
    """``[low, high]`` for a table; an unbounded interval (one game) shows as ``-``."""
    if low is None or high is None:
        return "-"
    return f"[{number.format(low)}, {number.format(high)}]"

# ---- end of commands: results database ----------------------------------------------------------

# ---- tuning: tune, report -------------------------------------------------------------


@cli.command()
@click.argument("study")
@click.option("--trials", type=click.IntRange(1), default=None, help="Total trials the study should hold [default: the file's budget].")
@workers_option
@address_option
@db_option
@click.option("--validate", "validate_only", is_flag=True, help="Only race STUDY's finalists and confirm the winner against the incumbent (read back when played).")
@click.option("--stale-after", type=click.IntRange(2), default=120, show_default=True, help="Seconds without a renewed lease after which another driver may take the study over.")
@allow_engines_option
@json_option("one JSON line summarising the run (progress stays on stderr)")
def tune(study: str, trials: int | None, workers: int | None, address: str | None, db_url: str | None,
         validate_only: bool, stale_after: int, as_json: bool, allow_engines: bool) -> int:
    """Tune a player's weights with Optuna, race the best, confirm the winner; save it as tuned:<study>.

    Each trial is valued by its paired gain over the incumbent (trial 0, the
    study's starting weights) on the study's tuning openings; the best few
    race on fresh openings, and the winner is confirmed against the
    incumbent at the budget of use; the verdict (better, no gain, worse) is
    stored with tuned:<study>. The outcome depends only on the study file,
    not on the workers or on interruptions.

    STUDY is a study file (studies/*.toml); with --validate also the name of a
    study in the database. Running the same command again resumes the study;
    Ctrl-C or SIGTERM stops it cleanly and prints that command.

    \b
    Examples:
      harness tune studies/demo-totality.toml --workers 2
      harness tune studies/ravenward.toml --trials 60 --db postgresql+psycopg://tuner@dbhost/harness
      harness tune studies/demo-totality.toml --json
      harness tune --validate demo-totality
    """
    console = output_console()
    view = None
    try:
        from harness import tuning, tuning_view
        from harness.db import database_exists, mask_url
        view = tuning_view.TuneView(output_console(stderr=True))
        if validate_only:
            if not database_exists(tuning.database_url(db_url)):  # checked before anything opens (and creates) it
                raise click.UsageError(f"no results database at {mask_url(tuning.database_url(db_url))}; "
                                       "give --db URL where the study was tuned (harness studies lists them)")
            outcome = tuning.select(study, db_url=db_url, workers=workers, address=address, on_event=view,
                                    allow_engines=allow_engines)
            view.close()
            if as_json:
                click.echo(tuning_view.outcome_json(outcome))
            else:
                console.print(tuning_view.outcome_table(outcome))
            return 0
        summary = tuning.tune(tuning.load_study_file(study), trials=trials, workers=workers, address=address,
                              db_url=db_url, grace_period=stale_after, on_event=view,
                              allow_engines=allow_engines)
    except BaseException as error:
        if not is_stop(error):  # a stop may come wrapped in another error (harness.interrupts)
            raise
        if view is not None:
            view.close()
        from harness.db import mask_url
        given_db = None if db_url is None or db_url == os.environ.get("HARNESS_DB") else mask_url(db_url)
        options = {"--trials": trials, "--workers": workers, "--address": address, "--db": given_db,
                   "--stale-after": None if stale_after == 120 else stale_after, "--validate": validate_only}
        click.echo(f"harness: tuning interrupted; nothing is lost, resume with: "
                   f"{resume_command(study, options)}", err=True)
        return 130
    finally:
        if view is not None:
            view.close()
    if as_json:
        click.echo(tuning_view.summary_json(summary))
        return 0
    for line in tuning_view.summary_lines(summary):
        console.print(line, soft_wrap=True)
    if summary.outcome is not None:
        console.print(tuning_view.outcome_table(summary.outcome))
    return 0


@cli.command()
@click.argument("game")
@click.option("--run", "runs", multiple=True, metavar="RUN", help="Only matches of this run (id or name; repeat).")
@click.option("--study", "studies", multiple=True, metavar="STUDY",
              help="Only matches of this study's runs: trials, race, confirmation (repeat).")
@click.option("--player", "players", multiple=True, metavar="SPEC",
              help="Only matches this player played (a spec, tuned:<name> or fitted:<name>; repeat).")
@click.option("--opponent", "opponents", multiple=True, metavar="SPEC", help="Only matches against this opponent (repeat).")
@click.option("--from", "files", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Read the matches from this harness export file instead of the database (repeat).")
@click.option("--positions", type=int, default=None, metavar="N",
              help="At most N positions, a seeded sample of every distinct one [default: all].")
@click.option("--label", type=click.Choice(["result", "search", "exact"]), default="result", show_default=True,
              help="What a position is worth: the game's result, a deeper search (--label-player), or the "
                   "exact solver's value where it reaches.")
@click.option("--label-player", default=None, metavar="SPEC",
              help="The searching player of --label search, e.g. strong:nodes=2000000, alphabeta:depth=8, or for "
                   "Chinese chess a UCI engine: uci:command=fairy-stockfish,nodes=20000,option.Threads=1.")
@click.option("--base", default="strong", show_default=True, metavar="SPEC",
              help="The player whose weights are fitted, its other settings kept (strong: its alpha-beta form).")
@click.option("--fixed", multiple=True, metavar="WEIGHT", help="Hold this weight at its default (repeat).")
@click.option("--holdout", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.2,
              show_default=True, help="Share of the positions held out of the fit, to measure it on.")
@click.option("--ridge", type=click.FloatRange(min=0), default=None, metavar="R",
              help="L2 penalty toward the defaults, each weight in units of its range, worth R positions: "
                   "negligible on thousands, holds the weights near the defaults on tens; 0 for none [default: 10].")
@click.option("--seed", type=int, callback=stored_integer, default=0, show_default=True,
              help="Seed of the sample of positions and of the held-out split.")
@click.option("--name", default=None, metavar="NAME", help="Save the result as the named player fitted:NAME.")
@workers_option
@address_option
@json_option("one JSON line (format harness.fit/1 in docs/tuning.md)")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar on stderr.")
@db_option
def fit(game: str, runs: tuple[str, ...], studies: tuple[str, ...], players: tuple[str, ...],
        opponents: tuple[str, ...], files: tuple[str, ...], positions: int | None, label: str,
        label_player: str | None, base: str, fixed: tuple[str, ...], holdout: float, ridge: float | None, seed: int,
        name: str | None, workers: int | None, address: str | None, as_json: bool, quiet: bool, db_url: str | None) -> int:
    """Fit GAME's evaluation weights to labelled positions of recorded games; save them as fitted:NAME.

    Positions come from recorded matches (every one of GAME, or those of
    --run, --study, --player, --opponent), or from harness export files, both
    sides to move, deduplicated. Each is labelled (--label), searches on the
    Ray pool, every label stored in the database: a refit pays no search,
    and Ctrl-C keeps what was labelled (the same command resumes). The fit
    minimises the logistic loss of sigmoid(eval / scale) against the labels,
    plus a ridge toward the defaults (--ridge), and prints the held-out loss
    before (default weights) and after.

    \b
    Examples:
      harness fit totality --positions 5000 --name totality-results
      harness fit totality --label exact --study demo-totality --name totality-exact
      harness fit ravenward --label search --label-player alphabeta:depth=6 --positions 2000 --workers 2
      harness fit xiangqi --from textbook.jsonl --label search --label-player strong:nodes=2000000 --json
      harness fit xiangqi --label search --label-player uci:command=fairy-stockfish,nodes=20000,option.Threads=1
      harness play totality --player fitted:totality-results --opponent gbot
    """
    import json

    from harness.dbsource import DatabaseSource
    from harness.fitting.driver import FitRequest, run_fit
    from harness.fitting.fit import RIDGE
    from harness.fitting.positions import MatchFilter
    ridge = RIDGE if ridge is None else ridge
    request = FitRequest(game, MatchFilter(runs, studies, players, opponents), files, label, label_player, positions,
                         seed, holdout, name, base, fixed, ridge, workers, address)
    with DatabaseSource(db_url) as source, fit_progress(quiet) as progress:
        report = run_fit(request, source, progress=progress)
    if report.interrupted:
        click.echo(f"harness: fit interrupted; {report.labelled} labels kept, the same command resumes", err=True)
        return 130
    if as_json:
        click.echo(json.dumps(report.to_dict()))
        return 0
    result = report.result
    assert result is not None
    rows = [[weight, f"{result.defaults[weight]:g}", f"{value:g}", "held" if weight in result.held else ""]
            for weight, value in result.weights.items()]
    print_table(f"{report.game}: weights fitted to {report.label} labels", ["weight", "default", "fitted", ""], rows)
    click.echo(f"positions: {report.positions} from {report.matches} matches, {report.labelled} labelled; "
               f"{result.train_positions} fitted, {result.heldout_positions} held out")
    click.echo(f"held-out loss: {result.loss_before:.4f} at the defaults -> {result.loss_after:.4f} fitted "
               f"(scale {result.scale:.4g}, ridge {result.ridge:g})")
    click.echo(f"time: labels {report.label_seconds:.1f}s, fit {result.seconds:.1f}s")
    click.echo(f"spec: {report.spec}" + (f", saved as {report.saved}" if report.saved else ""))
    return 0


@contextlib.contextmanager
def fit_progress(quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr over the positions labelled (None with ``quiet``)."""
    if quiet:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
    from harness.console import LoggedProgress
    with LoggedProgress(TextColumn("labelling"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        console=output_console(stderr=True), transient=True) as progress:
        task = progress.add_task("labelling", total=None)

        def show(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)
        yield show


def resume_command(study: str, options: dict[str, Any]) -> str:
    """The command that resumes an interrupted study, with the options that were given."""
    import shlex
    words = ["harness", "tune", study]
    for flag, value in options.items():
        if value is not None and value is not False:
            words += [flag] if value is True else [flag, str(value)]
    return shlex.join(words)


@cli.command()
@click.argument("study")
@click.option("--out", type=click.Path(dir_okay=False), default="report.html", show_default=True, help="HTML file to write.")
@db_option
def report(study: str, out: str, db_url: str | None) -> None:
    """Write a self-contained HTML report of a study: history, importances, scores, leaderboard.

    STUDY is the study's name or its study file.

    \b
    Example:
      harness report demo-totality --out report.html
    """
    from harness.report import build_report
    written = build_report(study, out, db_url)
    if written.view.empty_line:
        click.echo(written.view.empty_line)
    click.echo(f"wrote {written.path}")


# ---- end tuning ------------------------------------------------------------------------


# ---- commands: live play, arena, emulator (owner: live) -----------------------------------------

DEFAULT_MOVE_TIME = 2.0  # seconds per move in live play: the Gameboard API has no clock

@cli.command()
@click.argument("game", required=False)
@click.option("--player", default="strong", show_default=True,
              help="Player spec (or tuned:<name>); strong is the game's recommended player (harness games).")
@click.option("--games", default=1, show_default=True, type=click.IntRange(1), help="Number of live games.")
@click.option("--seed-start", default=0, show_default=True, type=int, callback=stored_integer,
              help="Server seed of the first game.")
@click.option("--base-url", default=None, metavar="URL", help="Server [default: https://gameboard.gg].")
@click.option("--rate", default=0.5, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Requests per second at most, across all workers.")
@click.option("--level", type=click.Choice(["wise", "easy"]), help="Totality level (sent as ?level= on init).")
@workers_option
@click.option("--move-time", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Per-move time budget for players that take one [default: 2].")
@address_option
@click.option("--resume", "resume_id", type=int, metavar="GAME_ID", help="Continue an interrupted live game.")
@db_option
@allow_engines_option
def live(game: str | None, player: str, games: int, seed_start: int, base_url: str | None, rate: float,
         level: str | None, workers: int, move_time: float | None, address: str | None,
         resume_id: int | None, db_url: str | None, allow_engines: bool) -> int:
    """Play live games against the Gameboard API and record them (source live).

    Exit code 1 when a game did not finish (interrupted: the summary says whether
    --resume can continue it).

    GAME is ravenward or totality (totality:easy). Be fair to the server: the
    default rate is one request every two seconds. The server has no clock, so
    the default player is the game's strong one thinking 2 s per move.

    \b
    Examples:
      harness live ravenward --games 3                 # strong, 2 s per move
      harness live ravenward --move-time 5 --games 1
      harness live ravenward --player alphabeta:depth=4 --games 3
      harness live totality --level easy --player tuned:totality-v1 --games 10 --workers 2
      harness live --resume 12
      harness live ravenward --base-url http://127.0.0.1:8765 --rate 20   # against harness emulate
    """
    from harness.db import open_database
    from harness.live.gameboard import DEFAULT_BASE_URL
    from harness.live.runner import LiveRunConfig, print_summary, progress_display, resume_live, run_live
    move_time = DEFAULT_MOVE_TIME if move_time is None else move_time
    with open_database(db_url) as database, progress_display() as progress:
        if resume_id is not None:
            summary = resume_live(database, resume_id, base_url=base_url, rate=rate, move_time=move_time,
                                  progress=progress, allow_engines=allow_engines)
        else:
            if game is None:
                raise click.UsageError("give a GAME (ravenward, totality) or --resume GAME_ID")
            config = LiveRunConfig(game=game, player=player, games=games, seed_start=seed_start,
                                   base_url=base_url or DEFAULT_BASE_URL, rate=rate, level=level,
                                   workers=workers, move_time=move_time, address=address)
            summary = run_live(database, config, progress=progress, allow_engines=allow_engines)
    print_summary(summary)
    return 0 if all(game.status == "done" for game in summary.games.values()) else 1


@cli.command()
@click.argument("game", type=click.Choice(["xiangqi"]), required=False)
@click.option("--url", metavar="MATCH_URL",
              help="Your seat's URL (or an emulator's .../arena/xiangqi/matches to create a match).")
@click.option("--player", default="greedy", show_default=True, help="Player spec (or tuned:<name>).")
@click.option("--seat", type=click.Choice(["red", "black"]), default="red", show_default=True,
              help="Seat to ask for when the URL creates a match.")
@click.option("--seed", default=0, show_default=True, type=int, callback=stored_integer,
              help="Seeds the player's tie-breaking.")
@click.option("--rate", default=2.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Requests per second at most (pollAfterMs hints come on top).")
@click.option("--resume", "resume_id", type=int, metavar="GAME_ID",
              help="Rejoin the match of a stored seat (its live game id) after a crash.")
@db_option
@allow_engines_option
def arena(game: str | None, url: str | None, player: str, seat: str, seed: int, rate: float,
          resume_id: int | None, db_url: str | None, allow_engines: bool) -> int:
    """Play one seat of a Chinese chess match over the seat protocol, within its clock.

    Exit code 1 when the seat could not play to the end (rejoin with --resume).

    \b
    Examples:
      harness arena xiangqi --url https://platform.example/matches/42/seats/1 --player alphabeta:depth=30
      harness arena xiangqi --url http://127.0.0.1:8765/arena/xiangqi/matches --seat black
      harness arena --resume 7
    """
    from harness.db import open_database
    from harness.errors import LiveError
    from harness.live.runner import resume_arena, run_arena
    from harness.live.seat import SeatConfig
    with open_database(db_url) as database:
        try:
            if resume_id is not None:
                run_id, result = resume_arena(database, resume_id, rate=rate, allow_engines=allow_engines)
            else:
                if game is None or url is None:
                    raise click.UsageError("give GAME (xiangqi) and --url MATCH_URL, or --resume GAME_ID")
                run_id, result = run_arena(database, SeatConfig(url=url, player=player, seed=seed, rate=rate),
                                           seat, allow_engines=allow_engines)
        except LiveError as error:
            seat_id = getattr(error, "live_game_id", None)
            hint = f"; rejoin with: harness arena --resume {seat_id}" if seat_id is not None else ""
            click.echo(f"harness: the seat stopped: {type(error).__name__}: {error}{hint}", err=True)
            return 1
    extra = result.extra
    click.echo(f"run {run_id}: {result.game} {result.player}: {result.outcome} ({result.reason}), "
               f"ranks {extra.get('ranks')}, local {extra.get('local_outcome')}, {result.plies} plies, "
               f"{extra.get('fallback_moves', 0)} fallback move(s)"
               + (" [MISMATCH with the local engine]" if extra.get("outcome_mismatch") else ""))
    if result.error:
        click.echo(f"error: {result.error}", err=True)
    return 0


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Bind address (loopback by default).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free).")
@click.option("--opponent", default="gbot", show_default=True, help="The stand-in player's spec.")
@click.option("--beat-ms", default=30_000, show_default=True, type=click.IntRange(50, 3_600_000),
              help="Seat-protocol clock per move (50 ms to one hour).")
@click.option("--key-file", default="harness-emulator.key", show_default=True, metavar="PATH",
              help="Signing key kept across restarts (created on first use).")
@click.option("--matches-file", default=None, metavar="PATH",
              help="Keep the seat matches in this file across restarts (default: in memory).")
@click.option("--faults", is_flag=True, help="Serve POST /_admin/faults (fault injection, for tests).")
@click.option("--board-symmetry", default="identity", show_default=True,
              type=click.Choice(["identity", "rotate90", "rotate180", "rotate270", "flip-rows", "flip-columns",
                                 "transpose", "anti-transpose"]),
              help="How observations show the board (to dry-run layout learning).")
@click.option("--max-matches", default=32, show_default=True, type=click.IntRange(1),
              help="Seat matches starting or running at once (one more is refused with 429).")
@limit_option
def emulate(host: str, port: int, opponent: str, beat_ms: int, key_file: str, matches_file: str | None,
            faults: bool, board_symmetry: str, max_matches: int, limits: tuple[str, ...]) -> None:
    """Serve both live protocols locally from the engines and G-Bot stand-ins (for dry runs).

    The seat protocol served is a reading of the rules text, not a copy of a real server.

    \b
    Example:
      harness emulate --port 8765
      harness live ravenward --base-url http://127.0.0.1:8765 --rate 20 --games 2
    """
    from harness.live.emulator import BoardLayout, Emulator
    from harness.serving import parse_limits
    from players import load as load_player
    load_player(opponent)
    emulator = Emulator(host=host, port=port, opponent=opponent, beat_ms=beat_ms, key_file=key_file,
                        matches_file=matches_file, faults=faults, board=BoardLayout(board_symmetry),
                        limits=parse_limits(limits), max_matches=max_matches)
    click.echo(f"serving on {emulator.url} (Gameboard: /api/games/{{ravenward,totality}}/init?seed=N; "
               f"seat protocol: POST /arena/xiangqi/matches); Ctrl-C stops")
    try:
        emulator.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        emulator.stop()

# ---- end of commands: live play, arena, emulator -------------------------------------------------

# ---- commands: tournaments on the Ray pool (owner: cluster) -------------------------------------

@cli.command()
@click.argument("game", required=False)
@click.option("--player", "players", multiple=True, metavar="SPEC",
              help="A player (repeat for several); tuned:<name> names a tuned player.")
@click.option("--opponent", default=None, metavar="SPEC", help="Gauntlet: every player against this one.")
@click.option("--round-robin", is_flag=True, help="Every pair of players, both seats, the same seeds.")
@click.option("--ladder", is_flag=True,
              help="Gauntlet against every rung of the game's ladder of G-Bot stand-ins (harness games).")
@click.option("--rung", "rungs", multiple=True, metavar="SPEC",
              help="With --ladder: only this rung (repeat for several), e.g. a candidate on the hardest first.")
@click.option("--games", type=int, default=None, metavar="N",
              help="Games per player (gauntlet), per player and rung (ladder) or per pair (round-robin, "
                   "even); the cap with --sprt.")
@click.option("--seeds", "seed_start", type=int, callback=stored_integer, default=0, show_default=True, metavar="START",
              help="First seed; seeds START, START+1, ... are played.")
@click.option("--opening-plies", type=click.IntRange(0), callback=stored_integer, default=0, show_default=True,
              help="Random opening plies per match (seeded).")
@click.option("--openings", default="", metavar="SUITE",
              help="Play each seed's opening of this suite (harness openings GAME) instead of random plies.")
@click.option("--sprt", default=None, metavar="ELO0,ELO1[,ALPHA,BETA]",
              help="Two-player comparison: stop when the pentanomial SPRT (logistic Elo) decides.")
@ladder_report_options
@workers_option
@address_option
@click.option("--run-name", default=None, metavar="NAME", help="A name for the run (usable with --resume).")
@click.option("--resume", default=None, metavar="RUN", help="Finish an interrupted run (id or name).")
@json_option("only a one-line JSON summary (format in docs/cluster.md)")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar on stderr.")
@db_option
@allow_engines_option
def tournament(game: str | None, players: tuple[str, ...], opponent: str | None,
               round_robin: bool, ladder: bool, rungs: tuple[str, ...], games: int | None, seed_start: int,
               opening_plies: int, openings: str, sprt: str | None, baseline: tuple[str, ...],
               rescore: tuple[str, ...], verify: int, markdown: bool,
               workers: int | None, address: str | None, run_name: str | None, resume: str | None,
               as_json: bool, quiet: bool, db_url: str | None, allow_engines: bool) -> int:
    """Play a gauntlet or a round-robin on Ray, record every match, print the run's leaderboard.

    A round-robin also prints the players' Bradley-Terry Elo over the run; a
    ladder gauntlet the strength report of harness ladder: per player every
    rung, its worst rung beside the mean over the rungs, and with --baseline
    RUN the paired difference per rung and pooled.

    A match the database holds already (recorded by any run, or imported)
    is reused, not played again: the same command twice plays only what is
    missing. Ctrl-C stops cleanly; --resume RUN finishes the run without
    replaying a recorded match. With --sprt, two players are compared in
    seat-swapped pairs until the test accepts H0 or H1.

    \b
    Examples:
      harness tournament totality --player greedy --player alphabeta:depth=3 --opponent gbot --games 50
      harness tournament ravenward --player greedy --player random --round-robin --games 20 --workers 2
      harness tournament ravenward --player alphabeta:depth=3 --opponent greedy --games 400 --sprt 0,50
      harness tournament ravenward --player strong --ladder --games 20
      harness tournament totality --player strong --ladder --games 100 --opening-plies 2 --rescore totality:easy
      harness tournament xiangqi --player CANDIDATE --ladder --rung gbot:depth=6,eval=active --games 100 --opening-plies 2 --baseline xiangqi-strong
      harness tournament totality --player strong --ladder --games 20 --openings totality-8ply
      harness tournament --resume 12
      harness tournament totality --player greedy --opponent gbot --games 1000 --address auto
      harness tournament totality --player greedy --opponent random --games 20 --json --quiet
      harness tournament xiangqi --player alphabeta:depth=4 --opponent uci:command=fairy-stockfish,nodes=10000 --games 20
      harness tournament xiangqi:black --player alphabeta:depth=3 --ladder --games 10
    """
    import json

    from harness.db.queries import leaderboard_document, ratings_document
    from harness.dbsource import DatabaseSource
    from harness.tournament import run_tournament
    with DatabaseSource(db_url) as source:  # opened once: the run, then its leaderboard
        report = run_tournament(game, players, opponent, round_robin=round_robin, ladder=ladder, rungs=rungs,
                                games=games, seed_start=seed_start, opening_plies=opening_plies, openings=openings,
                                sprt=sprt, workers=workers, address=address, run_name=run_name, resume=resume,
                                allow_engines=allow_engines, baseline=baseline, rescore=rescore, verify=verify,
                                console=None if quiet else output_console(stderr=True), database=source)
        failed = report.strength is not None and report.strength.verification is not None \
            and not report.strength.verification.ok
        code = 130 if report.interrupted else 1 if failed else 0
        if as_json:
            click.echo(json.dumps(report.to_dict()))
            return code
        database, run = source.writable(), str(report.run_id)
        if report.strength is None:
            print_leaderboard(leaderboard_document(database, report.config.game, run=run, by="mean"), "mean")
        if report.config.mode == "round-robin" and report.recorded:  # both seats: Elo says more
            print_ratings(ratings_document(database, report.config.game, run=run))
    if report.strength is not None:
        print_strength(report.strength, markdown=markdown)
    for line in report.summary():
        click.echo(line)
    if failed:
        click.echo(f"harness: error: {report.strength.verification.describe()}", err=True)
    return code


@cli.command()
@click.argument("runs", nargs=-1, required=True)
@click.option("--rung", "rungs", multiple=True, metavar="SPEC",
              help="Only the matches against this rung (repeat for several), e.g. the ones a candidate played.")
@ladder_report_options
@workers_option
@address_option
@json_option("one JSON document (format in docs/players.md)")
@db_option
def ladder(runs: tuple[str, ...], rungs: tuple[str, ...], baseline: tuple[str, ...], rescore: tuple[str, ...],
           verify: int, markdown: bool, workers: int | None, address: str | None, as_json: bool,
           db_url: str | None) -> int:
    """Report stored runs against the ladder: every rung, the worst rung beside the mean, paired with a baseline.

    RUNS are run ids or names (harness runs): ladder tournaments, or
    imported files (harness db import); their matches are read together, so
    a measurement of both Chinese chess seats, or of a run and its
    continuation, is one report. Opponents that are not rungs of the game's
    ladder (Fairy-Stockfish) are rows beside it, outside the totals. With
    --baseline RUN each row is paired seed by seed with the baseline's games;
    the pooled row counts each distinct game once (Totality's easy games are
    its wise games rescored, not more samples). Exit code 1 when --verify
    finds a stored match that replays differently.

    \b
    Examples:
      harness ladder ravenward-strong --markdown
      harness ladder xiangqi-strong --baseline xiangqi-strong-before-behind
      harness ladder totality-strong --verify 4 --workers 2
      harness ladder 14 15 --json
    """
    import json

    from harness.strength import ladder_report
    report = ladder_report(runs, baseline=baseline, rescore_as=rescore, rungs=rungs, verify_count=verify,
                           workers=workers, address=address, db_url=db_url)
    failed = report.verification is not None and not report.verification.ok
    if as_json:
        click.echo(json.dumps(report.to_dict()))
        return 1 if failed else 0
    print_strength(report, markdown=markdown)
    for line in report.summary(standings=False):
        click.echo(line)
    if failed:
        click.echo(f"harness: error: {report.verification.describe()}", err=True)
    return 1 if failed else 0


def print_strength(report: Any, markdown: bool = False) -> None:
    """A ``harness.strength.StrengthReport`` as tables: the rows, the standings, the rows beside the ladder,
    the paired comparison (two decimals for scores within 0..1, as Chinese chess's, else one)."""
    from harness.strength import score_digits as digits
    standings = report.standings

    def game_name(standing: Any) -> str:
        return standing.game + (" (rescored)" if standing.rescored else "")

    several = len({standing.player for standing in standings}) > 1  # else the summary names the one player

    def who(standing: Any) -> list[str]:
        return [standing.player] if several else []

    def row(standing: Any, rung: Any) -> list[Any]:
        d = digits(standing.game)
        return [game_name(standing)] + who(standing) + [
            rung.rung, f"{rung.mean:.{d}f} [{rung.low:.{d}f}, {rung.high:.{d}f}]",
            f"{rung.wins}/{rung.draws}/{rung.losses}", f"{1000 * rung.player_s_per_move:.1f}",
            f"{1000 * rung.opponent_s_per_move:.1f}"]

    columns = (["game"] + (["player"] if several else []) + ["rung", "mean score [95% CI]", "W/D/L", "ms/move",
                                                             "opponent ms/move"])
    print_table("against the ladder", columns,
                [row(standing, rung) for standing in standings for rung in standing.rungs], markdown=markdown)

    def games(standing: Any) -> str:
        low, high = min(r.games for r in standing.rungs), max(r.games for r in standing.rungs)
        return str(low) if low == high else f"{low}-{high}"

    totals = []
    for standing in standings:
        worst, d = standing.worst, digits(standing.game)
        totals.append([game_name(standing)] + who(standing) + [
            len(standing.rungs), games(standing),
            f"{worst.rung} ({worst.mean:.{d}f}, {worst.wins}/{worst.draws}/{worst.losses})",
            f"{standing.mean:.{d}f}", f"{standing.fewest_wins} ({standing.fewest_wins_rung})", standing.losses])
    print_table("the worst rung beside the mean", ["game"] + (["player"] if several else []) + [
        "rungs", "games per rung", "worst rung (mean, W/D/L)", "mean over the rungs", "fewest wins (rung)",
        "losses in all"], totals, markdown=markdown)
    beside = [row(standing, rung) for standing in standings for rung in standing.beside]
    if beside:
        print_table("beside the ladder (not in the totals)", columns, beside, markdown=markdown)
    if report.paired:
        # one player and one baseline (the usual case): their runs named in the header, the specs in the summary
        named = len({(p.player, p.baseline) for p in report.paired}) == 1
        rows = []
        for paired in report.paired:
            d = digits(paired.game)
            mean, low, high = paired.difference
            against = (f"all rows, each distinct game once"
                       + (f" ({paired.left_out} rescored pairs not pooled)" if paired.left_out else "")
                       if paired.pooled else paired.opponent)
            rows.append([paired.game + (" (rescored)" if paired.rescored else "")]
                        + ([] if named else [paired.player, paired.baseline])
                        + [against, paired.pairs,
                           f"{paired.base.wins}/{paired.base.draws}/{paired.base.losses}, {paired.base.mean:.{d}f}",
                           f"{paired.this.wins}/{paired.this.draws}/{paired.this.losses}, {paired.this.mean:.{d}f}",
                           f"{mean:+.{d}f} [{low:.{d}f}, {high:.{d}f}]"])
        sides = ([f"{report.baseline_label} W/D/L, mean", f"{report.label} W/D/L, mean"] if named
                 else ["baseline W/D/L, mean", "player W/D/L, mean"])
        print_table("paired by seed with the baseline",
                    ["game"] + ([] if named else ["player", "baseline"]) + ["against", "pairs"] + sides
                    + ["paired difference [95% CI]"], rows, markdown=markdown)

# ---- end of commands: tournaments -------------------------------------------------------------


def flags_named(error: InvalidInput, command: click.Command) -> str:
    """``error``'s message with each parameter it names written as the option that sets it in ``command``.

    The library speaks of its parameters (``games must be at least 1``); a
    command's click parameters carry the same names, so the one mapping is
    the command's own declaration (``--games``, ``--seeds`` for
    ``seed_start``, ``GAME`` for an argument).
    """
    text = str(error)
    for name in getattr(error, "parameters", ()):
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lambda _: flag_of(command, name), text)
    return text


def flag_of(command: click.Command, name: str) -> str:
    """The option (its long form) or argument of ``command`` that sets the library parameter ``name``."""
    for param in command.params:
        if param.name == name:
            if isinstance(param, click.Option):
                return max(param.opts, key=len)
            return param.human_readable_name
    return "--" + name.replace("_", "-")


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: one line on stderr for every error, never a traceback.

    Returns the exit code: 0, 1, 2 or 130 (see the module docstring).
    """
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        with stop_on_signals():  # SIGTERM as Ctrl-C, and neither lost inside a long command
            result = cli.main(args=args, prog_name="harness", standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("harness: interrupted", err=True)
        return EXIT_INTERRUPTED
    except click.UsageError as error:  # BadParameter, NoSuchOption, MissingParameter ...
        # click quotes what was typed, and a URL may sit where another value was due
        click.echo(f"harness: error: {one_line(masked(error.format_message(), args))}", err=True)
        return EXIT_BAD_INPUT
    except click.ClickException as error:
        click.echo(f"harness: error: {one_line(masked(error.format_message(), args))}", err=True)
        return error.exit_code
    except Exception as error:  # the last resort: whatever escaped a command
        if is_stop(error):  # a Ctrl-C Python wrapped in another error (harness.interrupts)
            click.echo("harness: interrupted", err=True)
            return EXIT_INTERRUPTED
        click.echo(last_resort_line(error, args), err=True)
        return EXIT_FAILED
    return result if isinstance(result, int) else EXIT_OK


def masked(text: str, args: list[str]) -> str:
    """``text`` with the passwords of the command line's database URLs and of any URL in it masked."""
    try:
        from harness.db import mask_secrets
    except Exception:  # a broken install: mask what a pattern can find without the database layer
        return mask_url_passwords(text)
    return mask_secrets(text, given_database_urls(args))


def last_resort_line(error: BaseException, args: list[str]) -> str:
    """One masked line for an error no boundary translated; the traceback first when debugging.

    A database error that reached here through another library (Optuna's
    storage) is still named as one; everything else is ``Class: message``.
    """
    if debug_requested(args):
        print_traceback(error, args)
    translated = None
    if "sqlalchemy" in sys.modules:
        try:
            from harness.db import foreign_database_error
            translated = foreign_database_error(error)
        except Exception:  # a broken install must not hide the error itself
            pass
    if translated is not None:
        return f"harness: error: {one_line(masked(str(translated), args))}"
    text = one_line(str(error)) or "(no message)"
    return f"harness: {type(error).__name__}: {one_line(masked(text, args))}"


def one_line(text: str) -> str:
    """``text`` on one line: line breaks and tabs become spaces, other control characters escapes.

    Messages quote what the user typed, which may hold a newline or a
    terminal escape; the promise is one line on stderr whatever was typed.
    """
    flat = " ".join(part.strip() for part in text.replace("\t", " ").splitlines() if part.strip())
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in flat)


def debug_requested(args: list[str]) -> bool:
    """``harness --debug ...`` or ``HARNESS_DEBUG`` set to 1/true/yes."""
    return "--debug" in args or os.environ.get(DEBUG_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def given_database_urls(args: list[str]) -> list[str]:
    """The database URLs of this command line and of ``$HARNESS_DB``: their passwords get masked."""
    urls = [os.environ["HARNESS_DB"]] if os.environ.get("HARNESS_DB") else []
    for index, arg in enumerate(args):
        if arg == "--db" and index + 1 < len(args):
            urls.append(args[index + 1])
        elif arg.startswith("--db="):
            urls.append(arg[len("--db="):])
    return urls


def print_traceback(error: BaseException, args: list[str] | tuple[str, ...]) -> None:
    """The full traceback on stderr, passwords masked (``--debug``)."""
    text = "".join(traceback.format_exception(error))
    try:
        from harness.db import mask_secrets
        text = mask_secrets(text, given_database_urls(list(args) or sys.argv[1:]))
    except Exception:
        pass
    click.echo(text.rstrip("\n"), err=True)


def entry() -> NoReturn:
    """The console script: ``main``, then the process ends with its exit code.

    When Ray ran in this process, the process ends without the interpreter's
    finalisation (``os._exit`` after flushing): every resource was already
    closed by the command (the pool shut Ray down, the database committed and
    closed), and Ray's native threads can crash at interpreter exit after a
    start that a Ctrl-C cut short, turning a clean, resumable stop (130) into
    a segmentation fault (-11).
    """
    code = main()
    if "ray" not in sys.modules:
        sys.exit(code)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
