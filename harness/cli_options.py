"""The options several ``harness`` commands share, each declared once with one default and one help text.

A command that takes ``--workers`` or ``--address`` passes the value to the
library unchanged; None is the library's own default (every CPU of this
machine, or of the cluster joined with ``--address``), so the help text and
the behaviour cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

Command = TypeVar("Command", bound=Callable[..., Any])

WORKERS_HELP = ("Worker processes [default: every CPU of this machine, or of the cluster joined with "
                "--address; 1 plays in this process, without Ray].")
ADDRESS_HELP = ("Join a running Ray cluster: HOST:PORT of a head started with scripts/ray_head, or auto "
                "(the cluster this machine joined with ray start) [default: a local one].")
DB_HELP = "Results database (any SQLAlchemy URL) [default: sqlite:///harness.db]"


def stored_integer(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """A seed or ply count that the results database can store (a 64-bit integer), else bad input."""
    if value is not None and not -(2**63) <= value < 2**63:
        raise click.BadParameter(f"{value} does not fit a 64-bit integer, as the results database stores it")
    return value


def db_option(function: Command) -> Command:
    """``--db URL``: the results database; default ``$HARNESS_DB`` or ``sqlite:///harness.db``.

    The command receives ``db_url`` (None when neither is given) and passes it
    to ``harness.db.open_database``, which upgrades the schema first.
    """
    return click.option("--db", "db_url", envvar="HARNESS_DB", default=None, metavar="URL", show_envvar=True,
                        help=DB_HELP)(function)


def workers_option(function: Command) -> Command:
    """``--workers W``: worker processes; the command receives ``workers`` (None: every CPU)."""
    return click.option("--workers", type=click.IntRange(1), default=None, metavar="W", help=WORKERS_HELP)(function)


def address_option(function: Command) -> Command:
    """``--address ADDR``: the Ray cluster to join; the command receives ``address`` (None: a local one)."""
    return click.option("--address", default=None, metavar="ADDR", help=ADDRESS_HELP)(function)


def json_option(what: str) -> Callable[[Command], Command]:
    """``--json``: print ``what`` (the document and where its format is documented) instead of text.

    The command receives ``as_json``.
    """
    def decorate(function: Command) -> Command:
        return click.option("--json", "as_json", is_flag=True, help=f"Print {what}.")(function)
    return decorate


def limit_option(function: Command) -> Command:
    """``--limit NAME=VALUE`` (repeatable): a server bound of ``harness.serving.ServerLimits``.

    The command receives ``limits``, the settings as given; ``harness.serving.parse_limits`` reads them.
    """
    return click.option("--limit", "limits", multiple=True, metavar="NAME=VALUE",
                        help="Change a server limit, e.g. --limit max_body_bytes=65536 --limit request_timeout_s=30 "
                             "(names and defaults: docs/web.md, 'Limits').")(function)


def allow_engines_option(function: Command) -> Command:
    """``--allow-engines``: run an engine command that a database holds (a tuned alias, a stored plan)."""
    return click.option(
        "--allow-engines", is_flag=True,
        help="Run engine commands (external:, uci:) that come from the database: a tuned: alias, "
             "a resumed run, a stored study.")(function)


def ladder_report_options(function: Command) -> Command:
    """``--baseline RUN``, ``--rescore GAME``, ``--verify N`` and ``--markdown``: what a ladder report adds.

    The command receives ``baseline`` and ``rescore`` (tuples), ``verify`` (0: none) and ``markdown``.
    """
    options = [
        click.option("--baseline", multiple=True, metavar="RUN",
                     help="Pair each match, seed by seed, with this run's match of the same game, rung, seed and "
                          "opening (the player a candidate would replace; repeat to pool runs): the paired "
                          "score difference with its 95% interval per rung, and pooled with each distinct game "
                          "once."),
        click.option("--rescore", multiple=True, metavar="GAME",
                     help="Also report the games under this configuration of the same game, replayed through its "
                          "rules (totality:easy for totality's games: neither the players nor a rung reads the "
                          "level): rows of their own, never pooled with the games they rescore."),
        click.option("--verify", type=click.IntRange(0), default=0, metavar="N",
                     help="Replay N of the stored matches (spread over them) and fail (exit 1) if any plays out "
                          "differently: how a store left stale by a change to a search is caught."),
        click.option("--markdown", is_flag=True, help="Print the tables as Markdown (for the docs)."),
    ]
    for option in reversed(options):
        function = option(function)
    return function
