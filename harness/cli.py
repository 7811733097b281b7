"""The ``harness`` command: each subcommand parses, calls one library function, prints.

Bad input raises ``click.UsageError``/``click.BadParameter`` or the library's
``InvalidInput``; either way the user sees one line on stderr and exit code 2.
Other harness errors are one line and exit code 1. Never a traceback.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from harness import __version__
from harness.errors import HarnessError, InvalidInput


class HarnessGroup(click.Group):
    """A click group that turns the harness's errors into clean exits."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InvalidInput as error:
            raise click.UsageError(str(error), ctx) from None
        except HarnessError as error:
            raise click.ClickException(str(error)) from None


# ---- shared options: the results database (owner: db) -----------------------------------------

def db_option(function: Any) -> Any:
    """``--db URL``: the results database; default ``$HARNESS_DB`` or ``sqlite:///harness.db``.

    The command receives ``db_url`` (None when neither is given) and passes it
    to ``harness.db.open_database``, which upgrades the schema first.
    """
    return click.option(
        "--db", "db_url", envvar="HARNESS_DB", default=None, metavar="URL", show_envvar=True,
        help="Results database (any SQLAlchemy URL) [default: sqlite:///harness.db]")(function)

# ---- end of shared options: the results database ------------------------------------------------


@click.group(cls=HarnessGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harness")
def cli() -> None:
    """Play, tune and rank board-game bots: Ravenward, Totality and Chinese chess.

    \b
    Examples:
      harness games
      harness play ravenward --player greedy --opponent gbot --seed 7 --show
    """


@cli.command()
def games() -> None:
    """List the games with a one-line description.

    \b
    Example:
      harness games
    """
    from harness.games import REGISTRY
    for name in sorted(REGISTRY):
        info = REGISTRY[name]
        options = " ".join(f"[{k}: {'|'.join(v)}]" for k, v in info.options.items())
        click.echo(f"{name:<10} {info.description} {options}".rstrip())


@cli.command()
@click.argument("game")
@click.option("--player", "player", default="greedy", show_default=True, help="Your seat's player spec.")
@click.option("--opponent", default="gbot", show_default=True, help="The other seat's player spec.")
@click.option("--seed", default=0, show_default=True, type=int, help="Match seed.")
@click.option("--opening-plies", default=0, show_default=True, type=click.IntRange(0), help="Random opening plies.")
@click.option("--show", is_flag=True, help="Print the board after every move.")
@click.option("--json", "as_json", is_flag=True, help="Print the MatchResult as one JSON line.")
def play(game: str, player: str, opponent: str, seed: int, opening_plies: int, show: bool, as_json: bool) -> None:
    """Play one match locally and print the result and score.

    GAME is a game spec: ravenward, totality, totality:easy, xiangqi:black.

    \b
    Example:
      harness play totality:easy --player alphabeta:depth=4 --opponent gbot --seed 3 --show
    """
    import json

    from harness.games import load as load_game
    from harness.match import MatchSpec, play_match
    rules = load_game(game)
    result = play_match(MatchSpec(rules.spec, player, opponent, seed, opening_plies))
    if show:
        state = rules.initial_state()
        click.echo(rules.render(state))
        for number, action in enumerate(result.actions, 1):
            side = rules.to_move(state)
            state = rules.apply(state, action)
            who = "player" if side == rules.user_side else "opponent"
            click.echo(f"\nply {number} ({who}): {json.dumps(action)}")
            click.echo(rules.render(state))
    if as_json:
        click.echo(json.dumps(result.to_dict()))
        return
    click.echo(f"{result.game}: {result.player} vs {result.opponent}, seed {seed}: "
               f"{result.outcome} ({result.reason}), score {result.score:g}, {result.plies} plies, "
               f"{result.duration_s:.2f}s")
    if result.error:
        click.echo(f"error: {result.error}", err=True)


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
    """Bring the database's schema to the newest migration (every command does this first).

    \b
    Example:
      harness db upgrade --db sqlite:///results.db
    """
    from harness.db import open_database
    with open_database(db_url) as database:
        click.echo(f"{database.masked_url}: schema at revision {database.revision()}")


@cli.command()
@click.argument("game")
@click.option("--opponent", default=None, metavar="SPEC", help="Only matches against this opponent.")
@click.option("--run", "run", default=None, metavar="ID", help="Only matches of this run (id or name).")
@click.option("--by", type=click.Choice(["mean", "lcb"]), default="mean", show_default=True,
              help="Rank by mean score or by the lower bound of its 95% interval.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (format in docs/db.md).")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV with a header row.")
@db_option
def leaderboard(game: str, opponent: str | None, run: str | None, by: str, as_json: bool, as_csv: bool,
                db_url: str | None) -> None:
    """Rank every player configuration that played GAME by its documented score.

    GAME is a game spec; its exact configuration counts (totality is level
    wise, totality:easy level easy).

    \b
    Examples:
      harness leaderboard ravenward
      harness leaderboard totality:easy --opponent gbot:easy --by lcb --json
    """
    import csv
    import io
    import json

    from harness.db import open_database
    from harness.db.queries import LEADERBOARD_COLUMNS, leaderboard_document
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    with open_database(db_url) as database:
        document = leaderboard_document(database, game, opponent=opponent, run=run, by=by)
    rows = document["rows"]
    if as_json:
        click.echo(json.dumps(document))
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
                    [[row["rank"], row["player"] + (f"  ({row['alias']})" if row["alias"] else ""),
                      row["games"], row["wins"], row["draws"], row["losses"], f"{row['mean']:.3f}",
                      format_interval(row["low"], row["high"]), f"{row['best']:.3f}", f"{row['worst']:.3f}",
                      row["mismatches"]] for row in rows])


@cli.command()
@click.argument("game")
@click.option("--run", "run", default=None, metavar="ID", help="Only matches of this run (id or name).")
@click.option("--anchor", default=None, metavar="SPEC", help="Pin this player at Elo 0 (default: mean 0).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (format in docs/db.md).")
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
    import json

    from harness.db import open_database
    from harness.db.queries import ratings_document
    with open_database(db_url) as database:
        document = ratings_document(database, game, run=run, anchor=anchor)
    if as_json:
        click.echo(json.dumps(document))
        return
    note = f", {document['prior_draws']:g} virtual draws each" if document["prior_draws"] else ""
    print_table(f"{document['game']}: Bradley-Terry Elo{note}",
                ["#", "player", "Elo", "95% interval", "games", "points"],
                [[r["rank"], r["player"] + (f"  ({r['alias']})" if r["alias"] else ""), f"{r['elo']:.0f}",
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
    with open_database(db_url) as database:
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
    with open_database(db_url) as database:
        for line in export_lines(database, game=game, run=run):
            click.echo(line)


def print_table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    """A rich table on stdout; numbers right-aligned."""
    from rich.console import Console
    from rich.table import Table
    table = Table(title=title)
    for column in columns:
        table.add_column(column, justify="left" if column == "player" else "right", no_wrap=True)
    for row in rows:
        table.add_row(*(str(cell) for cell in row))
    console = Console()
    if not console.is_terminal:  # piped: keep whole specs instead of fitting 80 columns
        console.width = 200
    console.print(table)


def format_interval(low: float | None, high: float | None, number: str = "{:.3f}") -> str:
    """``[low, high]`` for a table; an unbounded interval (one game) shows as ``-``."""
    if low is None or high is None:
        return "-"
    return f"[{number.format(low)}, {number.format(high)}]"

# ---- end of commands: results database ----------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: one line on stderr for every error, never a traceback."""
    try:
        result = cli.main(args=argv, prog_name="harness", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("harness: interrupted", err=True)
        return 130
    except click.UsageError as error:  # BadParameter, NoSuchOption, MissingParameter ...
        click.echo(f"harness: error: {error.format_message()}", err=True)
        return 2
    except click.ClickException as error:
        click.echo(f"harness: error: {error.format_message()}", err=True)
        return error.exit_code
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
