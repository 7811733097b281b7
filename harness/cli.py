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


def allow_engines_option(function: Any) -> Any:
    """``--allow-engines``: run an engine command that a database holds (a tuned alias, a stored plan)."""
    return click.option(
        "--allow-engines", is_flag=True,
        help="Run engine commands (external:, uci:) that come from the database: a tuned: alias, "
             "a resumed run, a stored study.")(function)


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
    """List the games with a one-line description, the strong player and the ladder of stand-ins.

    The ladder is what ``harness tournament GAME --player SPEC --ladder`` plays
    against; every rung is a player spec usable as --opponent.

    \b
    Example:
      harness games
    """
    from harness.games import REGISTRY
    from players.ladder import ladder
    from players.strong import strong_spec
    for name in sorted(REGISTRY):
        info = REGISTRY[name]
        options = " ".join(f"[{k}: {'|'.join(v)}]" for k, v in info.options.items())
        click.echo(f"{name:<10} {info.description} {options}".rstrip())
        click.echo(f"  strong = {strong_spec(name)}; strong:time=2 = {strong_spec(name, live=True)}")
        rungs = ladder(name)
        click.echo(f"  ladder ({len(rungs)} rungs): {', '.join(rungs)}")


@cli.command()
@click.argument("game")
@click.option("--player", "player", default="greedy", show_default=True, help="Your seat's player spec.")
@click.option("--opponent", default="gbot", show_default=True, help="The other seat's player spec.")
@click.option("--seed", default=0, show_default=True, type=int, help="Match seed.")
@click.option("--opening-plies", default=0, show_default=True, type=click.IntRange(0), help="Random opening plies.")
@click.option("--show", is_flag=True, help="Print the board after every move.")
@click.option("--json", "as_json", is_flag=True, help="Print the MatchResult as one JSON line.")
@db_option
@allow_engines_option
def play(game: str, player: str, opponent: str, seed: int, opening_plies: int, show: bool, as_json: bool,
         db_url: str | None, allow_engines: bool) -> None:
    """Play one match locally and print the result and score.

    GAME is a game spec: ravenward, totality, totality:easy, xiangqi:black.
    A player named tuned:<study> is looked up in the results database.

    \b
    Examples:
      harness play totality:easy --player alphabeta:depth=4 --opponent gbot --seed 3 --show
      harness play totality --player tuned:demo-totality --opponent gbot
      harness play xiangqi --player alphabeta:depth=4 --opponent uci:command=fairy-stockfish,nodes=20000
    """
    import json

    from harness.games import load as load_game
    from harness.match import MatchSpec, play_match, replay_lines
    rules = load_game(game)
    if any(spec.startswith("tuned:") for spec in (player, opponent)):
        from harness.db import open_database
        with open_database(db_url) as db:
            player, opponent = (db.resolve_spec(spec, allow_engines=allow_engines) for spec in (player, opponent))
    result = play_match(MatchSpec(rules.spec, player, opponent, seed, opening_plies))
    if show:
        for line in replay_lines(result):
            click.echo(line)
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
    import csv
    import io
    import json

    from harness.db import open_database
    from harness.db.queries import LEADERBOARD_COLUMNS, leaderboard_document
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    with open_database(db_url) as database:
        document = leaderboard_document(database, game, opponent=opponent, run=run, by=by)
    if top is not None:
        document["rows"] = document["rows"][:top]
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
    cells = [[str(cell) for cell in row] for row in rows]
    for index, column in enumerate(columns):
        if column in ("player", "rung"):  # long specs fold inside their column; numbers are never cut
            table.add_column(column, justify="left", overflow="fold")
        else:
            width = max([len(column)] + [len(row[index]) for row in cells])
            table.add_column(column, justify="right", no_wrap=True, min_width=width)
    for row in cells:
        table.add_row(*row)
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

# ---- tuning: tune, report -------------------------------------------------------------


@cli.command()
@click.argument("study")
@click.option("--trials", type=click.IntRange(1), default=None, help="Total trials the study should hold [default: the file's budget].")
@click.option("--workers", type=click.IntRange(1), default=None, help="Ray workers of the local pool [default: 2].")
@click.option("--address", default=None, help="Join a Ray cluster (auto or ray://host:port) instead of a local one.")
@db_option
@click.option("--validate", "validate_only", is_flag=True, help="Only validate STUDY's best trial against the defaults.")
@click.option("--stale-after", type=click.IntRange(2), default=120, show_default=True, help="Seconds without a heartbeat after which another driver's trial counts as abandoned.")
@allow_engines_option
def tune(study: str, trials: int | None, workers: int | None, address: str | None, db_url: str | None,
         validate_only: bool, stale_after: int, allow_engines: bool) -> None:
    """Tune a player's evaluation weights with Optuna; validate the best and save it as tuned:<study>.

    STUDY is a study file (studies/*.toml); with --validate also the name of a
    study in the database. Running the same command again resumes the study.

    \b
    Examples:
      harness tune studies/demo-totality.toml --workers 2
      harness tune studies/ravenward.toml --trials 60 --db postgresql+psycopg://tuner@dbhost/harness
      harness tune --validate demo-totality
    """
    from rich.console import Console

    from harness import tuning
    console = Console()
    if validate_only:
        validation = tuning.validate(study, db_url=db_url, workers=workers, address=address,
                                     allow_engines=allow_engines)
        console.print(tuning.validation_table(validation))
        return
    summary = tuning.tune(tuning.load_study_file(study), trials=trials, workers=workers, address=address,
                          db_url=db_url, grace_period=stale_after, allow_engines=allow_engines)
    best = "-" if summary.best_value is None else f"{summary.best_value:.3f} (trial {summary.best_trial})"
    console.print(f"study {summary.study}: {summary.trials_complete} complete, {summary.trials_pruned} pruned, "
                  f"{summary.trials_failed} failed; {summary.games} games in {summary.seconds:.0f}s; best {best}")
    if summary.validation is not None:
        console.print(tuning.validation_table(summary.validation))


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
    from harness.report import write_report
    click.echo(f"wrote {write_report(study, out, db_url)}")


# ---- end tuning ------------------------------------------------------------------------


# ---- commands: live play, arena, emulator (owner: live) -----------------------------------------

DEFAULT_MOVE_TIME = 2.0  # seconds per move in live play: the Gameboard API has no clock

@cli.command()
@click.argument("game", required=False)
@click.option("--player", default="strong", show_default=True,
              help="Player spec (or tuned:<name>); strong is the game's recommended player (harness games).")
@click.option("--games", default=1, show_default=True, type=click.IntRange(1), help="Number of live games.")
@click.option("--seed-start", default=0, show_default=True, type=int, help="Server seed of the first game.")
@click.option("--base-url", default=None, metavar="URL", help="Server [default: https://gameboard.gg].")
@click.option("--rate", default=0.5, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Requests per second at most, across all workers.")
@click.option("--level", type=click.Choice(["wise", "easy"]), help="Totality level (sent as ?level= on init).")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1), help="Games in parallel (Ray pool).")
@click.option("--move-time", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Per-move time budget for players that take one [default: 2].")
@click.option("--address", default=None, help="Ray cluster to join (default: a local one).")
@click.option("--resume", "resume_id", type=int, metavar="GAME_ID", help="Continue an interrupted live game.")
@db_option
def live(game: str | None, player: str, games: int, seed_start: int, base_url: str | None, rate: float,
         level: str | None, workers: int, move_time: float | None, address: str | None,
         resume_id: int | None, db_url: str | None) -> None:
    """Play live games against the Gameboard API and record them (source live).

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
                                  progress=progress)
        else:
            if game is None:
                raise click.UsageError("give a GAME (ravenward, totality) or --resume GAME_ID")
            config = LiveRunConfig(game=game, player=player, games=games, seed_start=seed_start,
                                   base_url=base_url or DEFAULT_BASE_URL, rate=rate, level=level,
                                   workers=workers, move_time=move_time, address=address)
            summary = run_live(database, config, progress=progress)
    print_summary(summary)


@cli.command()
@click.argument("game", type=click.Choice(["xiangqi"]))
@click.option("--url", required=True, metavar="MATCH_URL",
              help="Your seat's URL (or an emulator's .../arena/xiangqi/matches to create a match).")
@click.option("--player", default="greedy", show_default=True, help="Player spec (or tuned:<name>).")
@click.option("--seat", type=click.Choice(["red", "black"]), default="red", show_default=True,
              help="Seat to ask for when the URL creates a match.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seeds the player's tie-breaking.")
@click.option("--rate", default=2.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Requests per second at most (pollAfterMs hints come on top).")
@db_option
def arena(game: str, url: str, player: str, seat: str, seed: int, rate: float, db_url: str | None) -> None:
    """Play one seat of a Chinese chess match over the seat protocol, within its clock.

    \b
    Examples:
      harness arena xiangqi --url https://platform.example/matches/42/seats/1 --player alphabeta:depth=30
      harness arena xiangqi --url http://127.0.0.1:8765/arena/xiangqi/matches --seat black
    """
    from harness.db import open_database
    from harness.live.runner import run_arena
    from harness.live.seat import SeatConfig
    with open_database(db_url) as database:
        run_id, result = run_arena(database, SeatConfig(url=url, player=player, seed=seed, rate=rate), seat)
    extra = result.extra
    click.echo(f"run {run_id}: {result.game} {result.player}: {result.outcome} ({result.reason}), "
               f"ranks {extra.get('ranks')}, local {extra.get('local_outcome')}, {result.plies} plies"
               + (" [MISMATCH with the local engine]" if extra.get("outcome_mismatch") else ""))
    if result.error:
        click.echo(f"error: {result.error}", err=True)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Bind address (loopback by default).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free).")
@click.option("--opponent", default="gbot", show_default=True, help="The stand-in player's spec.")
@click.option("--beat-ms", default=30_000, show_default=True, type=click.IntRange(1), help="Seat-protocol clock per move.")
def emulate(host: str, port: int, opponent: str, beat_ms: int) -> None:
    """Serve both live protocols locally from the engines and G-Bot stand-ins (for dry runs).

    The seat protocol served is a reading of the rules text, not a copy of a real server.

    \b
    Example:
      harness emulate --port 8765
      harness live ravenward --base-url http://127.0.0.1:8765 --rate 20 --games 2
    """
    from harness.live.emulator import Emulator
    from players import load as load_player
    load_player(opponent)
    emulator = Emulator(host=host, port=port, opponent=opponent, beat_ms=beat_ms)
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
@click.option("--games", type=int, default=None, metavar="N",
              help="Games per player (gauntlet), per player and rung (ladder) or per pair (round-robin, "
                   "even); the cap with --sprt.")
@click.option("--seeds", "seed_start", type=int, default=0, show_default=True, metavar="START",
              help="First seed; seeds START, START+1, ... are played.")
@click.option("--opening-plies", type=click.IntRange(0), default=0, show_default=True,
              help="Random opening plies per match (seeded).")
@click.option("--sprt", default=None, metavar="ELO0,ELO1[,ALPHA,BETA]",
              help="Two-player comparison: stop when the pentanomial SPRT (logistic Elo) decides.")
@click.option("--workers", type=click.IntRange(1), default=None, metavar="W",
              help="Worker processes [default: every CPU of the machine or cluster].")
@click.option("--address", default=None, metavar="ADDR",
              help="Join a running Ray cluster: auto, HOST:PORT or ray://HOST:10001.")
@click.option("--run-name", default=None, metavar="NAME", help="A name for the run (usable with --resume).")
@click.option("--resume", default=None, metavar="RUN", help="Finish an interrupted run (id or name).")
@db_option
@allow_engines_option
@click.pass_context
def tournament(ctx: click.Context, game: str | None, players: tuple[str, ...], opponent: str | None,
               round_robin: bool, ladder: bool, games: int | None, seed_start: int, opening_plies: int, sprt: str | None,
               workers: int | None, address: str | None, run_name: str | None, resume: str | None,
               db_url: str | None, allow_engines: bool) -> int:
    """Play a gauntlet or a round-robin on Ray, record every match, print the run's leaderboard.

    A round-robin also prints the players' Bradley-Terry Elo over the run; a
    ladder gauntlet a table per player of every rung, its worst rung and the
    mean over the rungs.

    Ctrl-C stops cleanly; --resume RUN finishes the run without replaying a
    recorded match. With --sprt, two players are compared in seat-swapped
    pairs until the test accepts H0 or H1.

    \b
    Examples:
      harness tournament totality --player greedy --player alphabeta:depth=3 --opponent gbot --games 50
      harness tournament ravenward --player greedy --player random --round-robin --games 20 --workers 2
      harness tournament ravenward --player alphabeta:depth=3 --opponent greedy --games 400 --sprt 0,50
      harness tournament ravenward --player strong --ladder --games 20
      harness tournament --resume 12
      harness tournament totality --player greedy --opponent gbot --games 1000 --address auto
      harness tournament xiangqi --player alphabeta:depth=4 --opponent uci:command=fairy-stockfish,nodes=10000 --games 20
    """
    from rich.console import Console

    from harness.tournament import run_tournament
    report = run_tournament(game, players, opponent, round_robin=round_robin, ladder=ladder, games=games,
                            seed_start=seed_start, opening_plies=opening_plies, sprt=sprt, workers=workers,
                            address=address, db_url=db_url, run_name=run_name, resume=resume,
                            allow_engines=allow_engines, console=Console(stderr=True))
    ctx.invoke(leaderboard, game=report.config.game, opponent=None, run=str(report.run_id), by="mean",
               as_json=False, as_csv=False, db_url=db_url)
    if report.config.mode == "round-robin" and report.recorded:  # both seats: Elo says more
        ctx.invoke(ratings, game=report.config.game, run=str(report.run_id), anchor=None, as_json=False,
                   db_url=db_url)
    for standing in report.ladder:
        worst = standing.worst.rung
        print_table(f"{standing.player} against the ladder", ["rung", "games", "W", "D", "L", "mean", "worst"],
                    [[rung.rung, rung.games, rung.wins, rung.draws, rung.losses, f"{rung.mean:.1f}",
                      "<- worst" if rung.rung == worst else ""] for rung in standing.rungs]
                    + [["mean over the rungs", sum(r.games for r in standing.rungs), "", "", "",
                        f"{standing.mean:.1f}", ""]])
    for line in report.summary():
        click.echo(line)
    return 130 if report.interrupted else 0

# ---- end of commands: tournaments -------------------------------------------------------------


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
