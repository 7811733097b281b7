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


# ---- tuning: tune, report -------------------------------------------------------------


@cli.command()
@click.argument("study")
@click.option("--trials", type=click.IntRange(1), default=None, help="Total trials the study should hold [default: the file's budget].")
@click.option("--workers", type=click.IntRange(1), default=None, help="Ray workers of the local pool [default: 2].")
@click.option("--address", default=None, help="Join a Ray cluster (auto or ray://host:port) instead of a local one.")
@click.option("--db", "db_url", default=None, envvar="HARNESS_DB", help="Results database URL, also the study's storage [default: sqlite:///harness.db].")
@click.option("--validate", "validate_only", is_flag=True, help="Only validate STUDY's best trial against the defaults.")
@click.option("--stale-after", type=click.IntRange(2), default=120, show_default=True, help="Seconds without a heartbeat after which another driver's trial counts as abandoned.")
def tune(study: str, trials: int | None, workers: int | None, address: str | None, db_url: str | None,
         validate_only: bool, stale_after: int) -> None:
    """Tune a player's evaluation weights with Optuna; validate the best and save it as tuned:<study>.

    STUDY is a study file (studies/*.toml); with --validate also the name of a
    study in the database. Running the same command again resumes the study.

    \b
    Examples:
      harness tune studies/demo-totality.toml --workers 2
      harness tune studies/ravenward.toml --trials 60 --db postgresql://tuner@db/harness
      harness tune --validate demo-totality
    """
    from rich.console import Console

    from harness import tuning
    console = Console()
    if validate_only:
        validation = tuning.validate(study, db_url=db_url, workers=workers, address=address)
        console.print(tuning.validation_table(validation))
        return
    summary = tuning.tune(tuning.load_study_file(study), trials=trials, workers=workers, address=address,
                          db_url=db_url, grace_period=stale_after)
    best = "-" if summary.best_value is None else f"{summary.best_value:.3f} (trial {summary.best_trial})"
    console.print(f"study {summary.study}: {summary.trials_complete} complete, {summary.trials_pruned} pruned, "
                  f"{summary.trials_failed} failed; {summary.games} games in {summary.seconds:.0f}s; best {best}")
    if summary.validation is not None:
        console.print(tuning.validation_table(summary.validation))


@cli.command()
@click.argument("study")
@click.option("--out", type=click.Path(dir_okay=False), default="report.html", show_default=True, help="HTML file to write.")
@click.option("--db", "db_url", default=None, envvar="HARNESS_DB", help="Results database URL [default: sqlite:///harness.db].")
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
