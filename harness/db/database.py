"""The results database: open, record, query. The one session choke point.

``open_database(url)`` connects to SQLite (the default, a file in the working
directory) or any SQLAlchemy URL (PostgreSQL for a cluster) and brings the
schema to the newest migration before returning; ``open_database(url,
read_only=True)``, for the commands that only read, opens it read-only (a
SQLite ``mode=ro`` URI, PostgreSQL read-only transactions), never migrates and
never switches SQLite to WAL. Neither touches a database that holds another
program's tables and not the harness's version table. Every operation runs in
``Database.session()``, which commits or rolls back and turns SQLAlchemy's
errors into ``DatabaseError`` once, with the URL's password masked.

Writes are atomic per result and idempotent per match key: ``record`` uses
``INSERT ... ON CONFLICT DO NOTHING`` on both backends, so a batch that a
dead worker ran twice, two drivers racing, a retried trial or the same
gauntlet run twice store each distinct match once; a run that records a key
another run already holds gets a ``run_matches`` row pointing at that match
(it holds the match without a copy, and no count sees it twice). On
SQLite, write transactions start with ``BEGIN IMMEDIATE`` (so two writers
queue on the busy timeout instead of failing on a lock upgrade) and the file
runs in WAL mode (readers never block the writer). Before every transaction
the file is checked to be the one opened and (for a write) writable, so a
file moved, deleted or made read-only while a command runs stops it at the
next result instead of letting open connections write where nothing is kept.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Engine, create_engine, event, func, inspect, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from harness import __version__
from harness.db import queries, schema
from harness.db.models import LiveGameRow, MatchRow, NamedPlayerRow, PlayerRow, PositionLabelRow, RunMatchRow, RunRow
from harness.db.records import (RUN_KINDS, RUN_STATUSES, LeaderboardRow, LiveGameRecord, MatchRecord,
                                NamedPlayerRecord, RunRecord, RunSummary)
from harness.db.specs import canonical_game, game_condition, game_parts, spec_hash, spec_parts
from harness.errors import DatabaseError, HarnessError, InvalidInput, SpecError
from harness.masking import mask_url_passwords
from harness.results import MatchResult
from harness.ratings import Ratings
from harness.trust import guard_command
from harness.verdicts import NAMED_KINDS, check_verdict

DEFAULT_URL = "sqlite:///harness.db"
LABEL_CHUNK = 500  # positions per query when reading labels (under every backend's bound on parameters)
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$")
SQLITE_BUSY_TIMEOUT_MS = 60_000
SUPPORTED_BACKENDS = ("sqlite", "postgresql")


def mask_url(url: str | URL) -> str:
    """The URL as text with its password replaced by ``***`` (safe for messages and logs).

    Text that is not a URL at all is returned with everything between the
    user's ``:`` and the last ``@`` masked, so even a malformed URL never
    leaks a password.
    """
    try:
        if isinstance(url, str) and _has_unquoted_at(url):
            raise ArgumentError("an unquoted @ in the password")
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError, TypeError):  # ValueError: a port that is not a number
        return re.sub(r"^((?:[^:/@]+://)?[^:/@]*):[^@]*@", r"\1:***@", str(url))


def mask_secrets(text: str, urls: Iterable[str | URL] = ()) -> str:
    """``text`` with the passwords of ``urls`` and of every ``scheme://user:password@`` in it masked.

    For messages whose origin is unknown (the CLI's last-resort handler): the
    passwords of the URLs the command was given are masked wherever they
    appear, quoted or not, and so is any password written inside a URL.
    """
    for url in urls:
        for secret in _passwords(url):
            text = text.replace(secret, "***")
    return mask_url_passwords(text)


def _passwords(url: str | URL) -> list[str]:
    """The password of a URL as written and as decoded (empty for none), longest first."""
    found = []
    if isinstance(url, str):
        written = re.match(r"^(?:[^:/@]+://)?[^:/@]*:([^@]*)@", url)
        if written and written.group(1):
            found.append(written.group(1))
    try:
        password = make_url(url).password
    except (ArgumentError, ValueError, TypeError):
        password = None
    if password:
        found.append(str(password))
    return sorted(set(found), key=len, reverse=True)


def _has_unquoted_at(url: str) -> bool:
    """True when the URL's user part holds more than one ``@`` (a password with an unquoted ``@``)."""
    authority = url.partition("://")[2].partition("/")[0]
    return authority.count("@") > 1


def check_player_name(name: str, parameter: str | None = None) -> str:
    """``name`` unchanged when it may name a player (``tuned:<name>``, ``fitted:<name>``).

    Args:
        parameter: the caller's parameter that gave the name, for the message (a CLI writes it as its flag).

    Raises:
        InvalidInput: not letters, digits, ``_ . -`` (at most 200, starting with a letter or digit).
    """
    if not NAME_PATTERN.match(name):
        raise InvalidInput(f"player {parameter or 'name'} {name!r} is not valid; use letters, digits, '_', '.', "
                           "'-' (at most 200, starting with a letter or digit)",
                           parameters=(parameter,) if parameter else ())
    return name


def default_url() -> str:
    """``$HARNESS_DB`` when set, else a SQLite file ``harness.db`` in the working directory."""
    return os.environ.get("HARNESS_DB") or DEFAULT_URL


def to_json(value: Any) -> str:
    """Serialise a JSON column: strict JSON (no NaN), and a clear error for what JSON cannot hold.

    Raises:
        InvalidInput: the value holds something JSON cannot (an object, NaN).
    """
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InvalidInput(f"cannot store as JSON: {error}; counters, actions and extra must be plain "
                           "JSON data (dicts, lists, str, finite numbers, bool, None)") from None


# What a database's message means, and what to do about it (matched by its text).
SQLITE_HINTS = (
    ("readonly database", "the database is read-only: make the file and its directory writable "
                          "(chmod u+w) or give another --db"),
    ("disk is full", "the disk holding the database is full: free space"),
    ("disk i/o error", "the disk failed a read or write (full, removed or failing): check it"),
    ("unable to open database file", "the file cannot be opened: check that its directory exists "
                                     "and is writable, or give another --db"),
    ("file is not a database", "the file is not a SQLite database: give another --db"),
    ("already exists", "the database holds another program's tables of the same names: give another --db"),
)


def database_error(url: URL | None, error: BaseException) -> DatabaseError:
    """The one translation of a SQLAlchemy error: one line, the URL's password masked everywhere."""
    original = getattr(error, "orig", None) or error
    text = " ".join(str(original).split()) or type(original).__name__
    for fragment, hint in SQLITE_HINTS:
        if fragment in text.lower():
            text = f"{text}; {hint}"
            break
    if url is None:
        return DatabaseError(f"database: {mask_secrets(text)}")
    return DatabaseError(f"database {mask_url(url)}: {mask_secrets(text, [url])}")


def foreign_database_error(error: BaseException, url: str | URL | None = None) -> DatabaseError | None:
    """A ``DatabaseError`` for a SQLAlchemy or sqlite3 error anywhere in ``error``'s chain, else None.

    For errors that reach the database through another library (Optuna's
    storage wraps SQLAlchemy's errors in its own) or escape to the CLI's
    last-resort handler: the caller need not import SQLAlchemy to recognise
    them. ``url`` names a database that was open when the error came (the
    study storage, a study's results): a SQLite file no longer at its path
    was then moved or deleted while in use, which is what the error says.
    """
    import sqlite3
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DatabaseError):
            return current
        if isinstance(current, (SQLAlchemyError, sqlite3.Error)):
            try:
                parsed = None if url is None else make_url(url)
            except (ArgumentError, ValueError, TypeError):
                parsed = None
            if parsed is not None and not database_exists(parsed):
                return _moved(mask_url(parsed))  # SQLite itself says only "disk I/O error"
            return database_error(parsed, current)
        current = current.__cause__ or current.__context__
    return None


def _moved(masked_url: str) -> DatabaseError:
    return DatabaseError(f"database {masked_url}: the file was moved or deleted while in use; "
                         "put it back (or give another --db)")


def now() -> datetime:
    """The current time in UTC (stored with every row that has a time)."""
    return datetime.now(timezone.utc)


RECONNECT_ATTEMPTS = 8  # a write that lost its server is tried again with a doubling pause ...
RECONNECT_FIRST_S = 0.25
RECONNECT_TOTAL_S = 60.0  # ... for a minute at most (a server restart), then the command stops with its resume


def _connection_lost(error: BaseException | None) -> bool:
    """Whether a SQLAlchemy error says the connection to a database server was lost (worth a reconnect)."""
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    return isinstance(error, OperationalError) and any(
        words in str(error).lower() for words in ("connection", "server closed", "terminating", "shutting down",
                                                  "starting up", "could not receive", "consuming input"))


class Database:
    """A handle on one results database; see ``open_database``.

    Not shared between processes: workers never touch the database, the
    driver records each result as it arrives.
    """

    def __init__(self, url: str | URL, read_only: bool = False) -> None:
        if isinstance(url, str) and _has_unquoted_at(url):
            raise InvalidInput(f"database URL {mask_url(url)}: quote special characters in the password "
                               "(@ as %40, / as %2F, : as %3A); valid: postgresql+psycopg://user:***@host/db")
        try:
            self.url = make_url(url)
        except (ValueError, TypeError) as error:  # SQLAlchemy reads the port with int()
            problem = "its port is not a number" if "int()" in str(error) else "it cannot be read"
            raise InvalidInput(f"not a database URL: {mask_url(url)!r}: {problem}; valid: sqlite:///harness.db "
                               "or postgresql+psycopg://user:***@host:5432/db") from None
        self.masked_url = mask_url(self.url)
        self.read_only = read_only
        self._player_ids: dict[str, int] = {}
        self._file = sqlite_file(self.url)
        self._file_identity: tuple[int, int] | None = None
        self.engine = self._create_engine()
        writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self._reads = sessionmaker(self.engine, expire_on_commit=False)
        self._writes = sessionmaker(writer, expire_on_commit=False)
        self._writer = writer

    def __repr__(self) -> str:
        return f"<Database {self.masked_url}>"

    # -- plumbing ---------------------------------------------------------------------------

    def _create_engine(self) -> Engine:
        backend = self.url.get_backend_name()
        if backend not in SUPPORTED_BACKENDS:
            raise InvalidInput(f"database URL {self.masked_url}: backend {backend!r} is not supported; "
                               f"valid: {', '.join(SUPPORTED_BACKENDS)} (e.g. sqlite:///harness.db)")
        try:
            url = read_only_url(self.url) if self.read_only else self.url
            if backend == "sqlite":
                engine = create_engine(url, json_serializer=to_json,
                                       connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
                event.listen(engine, "connect", _configure_sqlite_reader if self.read_only else _configure_sqlite)
                event.listen(engine, "begin", _begin_sqlite)
            else:
                engine = create_engine(url, json_serializer=to_json, pool_pre_ping=True)
        except (ArgumentError, NoSuchModuleError, ValueError, TypeError) as error:
            raise InvalidInput(f"cannot use database URL {self.masked_url}: "
                               f"{mask_secrets(str(error), [self.url])}; "
                               "valid: sqlite:///harness.db or postgresql+psycopg://user:***@host/db") from None
        return engine

    def _fail(self, error: Exception) -> DatabaseError:
        return database_error(self.url, error)

    def _check_file(self, write: bool) -> None:
        """Refuse to go on when the SQLite file was moved, deleted or replaced, or became read-only.

        Open connections would otherwise keep writing into a deleted file (its
        results silently lost) or into one no longer at the path; checked
        before every transaction (two system calls), so the command stops at
        the first result it could not keep, with everything before it intact.

        Raises:
            DatabaseError: the file is gone, another file took its place, or
                (for a write) it cannot be written.
        """
        if self._file is None:
            return
        try:
            status = os.stat(self._file)
        except OSError:
            if self._file_identity is None:
                return  # a new database: SQLite creates the file
            raise _moved(self.masked_url) from None
        identity = (status.st_dev, status.st_ino)
        if self._file_identity is None:
            self._file_identity = identity
        elif identity != self._file_identity:
            raise DatabaseError(f"database {self.masked_url}: another file took the database's place while "
                                "in use; put the original back (or give another --db)")
        if write and not os.access(self._file, os.W_OK):
            raise DatabaseError(f"database {self.masked_url}: the file became read-only (no write permission "
                                "or a read-only filesystem); make it writable (chmod u+w) or give another --db")

    @contextmanager
    def session(self, write: bool = False) -> Iterator[Session]:
        """A session that commits on success and rolls back on any error.

        Args:
            write: start a write transaction (``BEGIN IMMEDIATE`` on SQLite).

        Raises:
            DatabaseError: the database refused the work or cannot be reached.
        """
        if write and self.read_only:
            raise DatabaseError(f"database {self.masked_url}: opened read-only; a command that only reads "
                                "never writes")
        self._check_file(write)
        session = (self._writes if write else self._reads)()
        try:
            yield session
            session.commit()
        except SQLAlchemyError as error:
            session.rollback()
            if isinstance(getattr(error, "orig", None), HarnessError):  # raised by our own JSON serializer
                raise error.orig from None
            raise self._fail(error) from error
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def upgrade(self) -> str:
        """Bring the schema to the newest migration; returns its revision.

        Raises:
            InvalidInput: the database holds another program's tables (see ``check_schema``).
            DatabaseError: the database cannot be reached or migrated, or was opened read-only.
        """
        if self.read_only:
            raise DatabaseError(f"database {self.masked_url}: opened read-only; run harness db upgrade")
        self._check_file(write=False)
        self.check_schema(reading=False)
        try:
            with self._writer.begin() as connection:
                revision = schema.upgrade(connection)
        except SQLAlchemyError as error:
            raise self._fail(error) from error
        self._check_file(write=False)  # remembers a file SQLite has just created
        return revision

    def check_writable(self) -> None:
        """Fail now if the database refuses writes (a read-only file or server), before any work.

        A write that changes nothing, rolled back: commands that will record
        results call it before they start Ray or create anything.

        Raises:
            DatabaseError: the database cannot be written; the message says why.
        """
        self._check_file(write=True)
        try:
            with self._writer.connect() as connection:
                transaction = connection.begin()
                connection.exec_driver_sql(f"UPDATE {schema.VERSION_TABLE} SET version_num = version_num")
                transaction.rollback()
        except SQLAlchemyError as error:
            raise self._fail(error) from error

    def check_schema(self, reading: bool) -> None:
        """Refuse a database the harness must not use, before anything is read or written.

        Args:
            reading: the command only reads, so the schema must be at the newest
                revision already (readers never migrate).

        Raises:
            InvalidInput: the database holds tables of another program and not
                the harness's version table (every command refuses it, untouched);
                or, ``reading``, it holds no harness schema yet or one at another
                revision (``harness db upgrade`` brings it to the newest).
            DatabaseError: the database cannot be reached.
        """
        if not database_exists(self.url):
            return  # a new SQLite file: nothing there to refuse
        reader = self if self.read_only else Database(self.url, read_only=True)  # a writer's opens in WAL mode
        try:
            with reader.engine.connect() as connection:
                tables = set(inspect(connection).get_table_names())
                revision = schema.current_revision(connection) if schema.VERSION_TABLE in tables else None
        except SQLAlchemyError as error:
            raise self._fail(error) from error
        finally:
            if reader is not self:
                reader.close()
        problem = schema.schema_problem(tables, revision, reading)
        if problem is not None:
            raise InvalidInput(f"database {self.masked_url}: {problem}")

    def revision(self) -> str | None:
        """The schema revision the database is at (None: empty database)."""
        try:
            with self.engine.connect() as connection:
                return schema.current_revision(connection)
        except SQLAlchemyError as error:
            raise self._fail(error) from error

    def schema_differences(self) -> list[Any]:
        """Differences between the database's schema and the models (empty when equal)."""
        try:
            with self.engine.connect() as connection:
                return schema.schema_differences(connection)
        except SQLAlchemyError as error:
            raise self._fail(error) from error

    def close(self) -> None:
        """Release every pooled connection; the handle must not be used afterwards."""
        self.engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _insert(self, table: Any) -> Any:
        """An INSERT that does nothing on a unique conflict, in the backend's dialect."""
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        return dialect.insert(table)

    # -- runs -------------------------------------------------------------------------------

    def start_run(self, kind: str, game: str, config: dict[str, Any], name: str | None = None,
                  study: str | None = None, trial: int | None = None) -> int:
        """Record the start of a run of work and return its id.

        Args:
            kind: tournament, study or live.
            game: the game spec the run plays.
            config: the run's settings as plain JSON data (players, seeds, limits).
            name: an optional name; ``run(name)`` finds the newest run of that name.
            study: the Optuna study of a tuning trial.
            trial: the trial number within ``study``.

        Raises:
            InvalidInput: an unknown kind.
        """
        if kind not in RUN_KINDS:
            raise InvalidInput(f"unknown run kind {kind!r}; valid kinds: {', '.join(RUN_KINDS)}")
        row = RunRow(name=name, kind=kind, game=game, config=dict(config), status="running", started=now(),
                     ended=None, host=socket.gethostname(), version=__version__, study=study, trial=trial)
        with self.session(write=True) as session:
            session.add(row)
            session.flush()
            return row.id

    def run(self, run: int | str) -> RunRecord | None:
        """A run by id (an int or digits) or by name (the newest run of that name)."""
        with self.session() as session:
            query = select(RunRow)
            if isinstance(run, int) or str(run).isdigit():
                query = query.where(RunRow.id == int(run))
            else:
                query = query.where(RunRow.name == run).order_by(RunRow.id.desc()).limit(1)
            row = session.scalars(query).first()
            return None if row is None else _run_record(row)

    def runs(self, kind: str | None = None) -> list[RunRecord]:
        """Every run (of one kind), oldest first."""
        with self.session() as session:
            query = select(RunRow).order_by(RunRow.id)
            if kind is not None:
                query = query.where(RunRow.kind == kind)
            return [_run_record(row) for row in session.scalars(query)]

    def run_summaries(self, kind: str | None = None, game: str | None = None,
                      run: int | str | None = None) -> list[RunSummary]:
        """Every run (of one kind, of one game's configurations, or one run) with its match counts, oldest first.

        Args:
            kind: only runs of this kind.
            game: a game name (every configuration) or a spec with options (that one).
            run: only this run (id or name).

        Raises:
            InvalidInput: an unknown kind, game or run.
        """
        if kind is not None and kind not in RUN_KINDS:
            raise InvalidInput(f"unknown run kind {kind!r}; valid kinds: {', '.join(RUN_KINDS)}")
        counts = (select(RunMatchRow.run_id, func.count(MatchRow.id).label("matches"),
                         func.avg(MatchRow.score).label("mean"), func.min(MatchRow.recorded).label("first"),
                         func.max(MatchRow.recorded).label("last"))
                  .join(MatchRow, MatchRow.id == RunMatchRow.match_id)
                  .group_by(RunMatchRow.run_id).subquery())
        query = (select(RunRow, counts.c.matches, counts.c.mean, counts.c.first, counts.c.last)
                 .outerjoin(counts, counts.c.run_id == RunRow.id).order_by(RunRow.id))
        if kind is not None:
            query = query.where(RunRow.kind == kind)
        if run is not None:
            query = query.where(RunRow.id == self.run_id(run))
        if game is not None:
            name = game_parts(game)[0]
            wanted = canonical_game(game) if ":" in game else None
        with self.session() as session:
            rows = session.execute(query).all()
        summaries = []
        for row, matches, mean, first, last in rows:
            if game is not None:
                played = canonical_game(row.game)
                if game_parts(played)[0] != name or (wanted is not None and played != wanted):
                    continue
            record = _run_record(row)
            summaries.append(RunSummary(record, int(matches or 0), planned_matches(record),
                                        None if mean is None else float(mean), _utc(first), _utc(last)))
        return summaries

    def run_id(self, run: int | str) -> int:
        """The id of a run given by id or name.

        Raises:
            InvalidInput: no such run.
        """
        record = self.run(run)
        if record is None:
            raise InvalidInput(f"no run {run!r} in {self.masked_url}; give a run id or name "
                               "(harness runs lists them)")
        return record.id

    def set_run_status(self, run_id: int, status: str) -> None:
        """Set a run's status; any status but running also sets its end time.

        Raises:
            InvalidInput: an unknown status or run.
        """
        if status not in RUN_STATUSES:
            raise InvalidInput(f"unknown run status {status!r}; valid: {', '.join(RUN_STATUSES)}")
        with self.session(write=True) as session:
            ended = None if status == "running" else now()
            changed = session.execute(update(RunRow).where(RunRow.id == run_id)
                                      .values(status=status, ended=ended)).rowcount
        if not changed:
            raise InvalidInput(f"no run with id {run_id} in {self.masked_url}")

    # -- players ----------------------------------------------------------------------------

    def _player_ids_for(self, session: Session, specs: set[str]) -> dict[str, int]:
        """The ids of player configurations, inserting the new ones (race-free, one lock order)."""
        ids = {spec: self._player_ids[spec_hash(spec)] for spec in specs if spec_hash(spec) in self._player_ids}
        missing = sorted(specs - set(ids), key=spec_hash)
        if missing:
            created = now()
            rows = [dict(zip(("kind", "params"), spec_parts(spec)), hash=spec_hash(spec), spec=spec, created=created)
                    for spec in missing]
            session.connection().execute(
                self._insert(PlayerRow.__table__).on_conflict_do_nothing(index_elements=["hash"]), rows)
            by_hash = dict(session.execute(select(PlayerRow.hash, PlayerRow.id)
                                           .where(PlayerRow.hash.in_([row["hash"] for row in rows]))).all())
            ids.update({spec: by_hash[spec_hash(spec)] for spec in missing})
        return ids

    # -- matches ----------------------------------------------------------------------------

    def record(self, run_id: int, result: MatchResult) -> bool:
        """Store one match result atomically.

        Returns:
            True if the run gained the match (stored, or the match another
            run recorded under the same key, now held by this run too); False
            if this run already holds the key (a re-run batch, a second
            driver): nothing is changed.

        Raises:
            DatabaseError: the write failed; nothing of it was stored.
        """
        return self.record_many(run_id, [result]) == 1

    def record_many(self, run_id: int, results: list[MatchResult]) -> int:
        """Store several results in one transaction (all or none); returns how many the run gained.

        A key already recorded (by any run) is never stored again: the run
        holds the recorded match instead, whatever the new result says.

        Raises:
            InvalidInput: a result holds data JSON cannot store; nothing was stored.
            DatabaseError: the write failed; nothing of it was stored.
        """
        return self.record_runs({run_id: results})[run_id]

    def record_runs(self, results: Mapping[int, list[MatchResult]]) -> dict[int, int]:
        """Store the results of several runs in one transaction (all or none).

        Why: a tuning driver gets a finished batch's games for several trials
        at once, and one commit per batch instead of one per game is most of
        the driver's CPU per game.

        Returns:
            How many matches each run gained (see ``record_many``).

        Raises:
            InvalidInput / DatabaseError: as ``record_many``; nothing was stored.
        """
        gained = {run_id: 0 for run_id in results}
        if not any(results.values()):
            return gained
        ids: dict[str, int] = {}
        waited = 0.0
        for attempt in range(RECONNECT_ATTEMPTS + 1):
            try:
                with self.session(write=True) as session:
                    for run_id, items in results.items():
                        if items:
                            gained[run_id], used = self._insert_matches(session, run_id, items)
                            ids.update(used)
                break
            except DatabaseError as error:
                # the server went away (a PostgreSQL restart): the transaction rolled back, or committed
                # with its answer lost; either way running it again stores each key once (ON CONFLICT)
                if attempt == RECONNECT_ATTEMPTS or self._file is not None or not _connection_lost(error.__cause__):
                    raise
                pause = min(RECONNECT_FIRST_S * 2 ** attempt, RECONNECT_TOTAL_S - waited)
                if pause <= 0:
                    raise
                time.sleep(pause)
                waited += pause
        # only after the commit: a rolled-back transaction may have dropped new player rows
        self._player_ids.update({spec_hash(spec): player_id for spec, player_id in ids.items()})
        return gained

    def import_run(self, name: str | None, game: str, config: dict[str, Any],
                   results: list[MatchResult]) -> tuple[int, int, int]:
        """A new run of kind ``import`` holding ``results``, written in one transaction with it (all or none).

        Each key is stored once: a key the database holds already is not
        stored again (the run holds the recorded match), after checking that
        the recorded match tells the same game (outcome, score, actions).

        Returns:
            The run's id, how many matches were stored new, how many were already recorded (now held).

        Raises:
            InvalidInput: a key already recorded with another result (a stale file or database); nothing
                was written.
            DatabaseError: the write failed; nothing was written.
        """
        keys = sorted({result.key for result in results})
        by_key = {result.key: result for result in results}
        ids: dict[str, int] = {}
        with self.session(write=True) as session:
            recorded = 0
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                for key, outcome, score, actions in session.execute(
                        select(MatchRow.key, MatchRow.outcome, MatchRow.score, MatchRow.actions)
                        .where(MatchRow.key.in_(chunk))):
                    new = by_key[key]
                    if (outcome, float(score), actions) != (new.outcome, float(new.score), new.actions):
                        raise InvalidInput(f"match {key} ({new.game}, {new.player} vs {new.opponent}, seed "
                                           f"{new.seed}) is recorded with another result ({outcome}, score "
                                           f"{score:g}) than the file's ({new.outcome}, score {new.score:g}); "
                                           "one of them is stale: replay it (harness ladder RUN --verify)")
                    recorded += 1
            row = RunRow(name=name, kind="import", game=game, config=dict(config), status="done", started=now(),
                         ended=now(), host=socket.gethostname(), version=__version__, study=None, trial=None)
            session.add(row)
            session.flush()
            run_id = row.id
            if results:
                _, ids = self._insert_matches(session, run_id, list(by_key.values()))
        self._player_ids.update({spec_hash(spec): player_id for spec, player_id in ids.items()})
        return run_id, len(keys) - recorded, recorded

    def hold(self, run_id: int, keys: list[str]) -> set[str]:
        """Let a run hold the matches already recorded under ``keys`` (by any run), without a copy.

        This is how a retried or resumed trial reuses the games its
        predecessors played: by key, never by copying rows.

        Returns:
            The keys that are recorded (now held by the run).
        """
        if not keys:
            return set()
        wanted = sorted(set(keys))
        with self.session(write=True) as session:
            found = [row for start in range(0, len(wanted), 500)  # a bounded number of SQL variables a query
                     for row in session.execute(select(MatchRow.id, MatchRow.key)
                                                .where(MatchRow.key.in_(wanted[start:start + 500]))).all()]
            if found:
                session.connection().execute(
                    self._insert(RunMatchRow.__table__).on_conflict_do_nothing(index_elements=["run_id", "match_id"]),
                    [dict(run_id=run_id, match_id=match_id) for match_id, _ in found])
            return {key for _, key in found}
    def _insert_matches(self, session: Session, run_id: int,
                        results: list[MatchResult]) -> tuple[int, dict[str, int]]:
        """Insert results inside ``session``'s transaction, held by ``run_id``.

        Returns:
            How many matches the run gained (new rows, or rows another run had
            already recorded under the same key), and the player ids used.
        """
        games = {spec: (canonical_game(spec), *game_parts(spec)) for spec in {r.game for r in results}}
        recorded = now()
        ids = self._player_ids_for(session, {s for r in results for s in (r.player, r.opponent)})
        rows = [dict(run_id=run_id, key=r.key, game=games[r.game][0], game_name=games[r.game][1],
                     seat=games[r.game][2], seed=r.seed, opening_plies=r.opening_plies,
                     player_id=ids[r.player], opponent_id=ids[r.opponent], outcome=r.outcome, reason=r.reason,
                     score=float(r.score), counters=r.counters, plies=r.plies, actions=r.actions,
                     duration_s=r.duration_s, player_s=r.player_s, opponent_s=r.opponent_s, source=r.source,
                     server_score=r.server_score, error=r.error, extra=r.extra, recorded=recorded)
                for r in results]
        connection = session.connection()
        connection.execute(self._insert(MatchRow.__table__).on_conflict_do_nothing(), rows)
        keys = sorted({r.key for r in results})
        match_ids = connection.execute(select(MatchRow.id).where(MatchRow.key.in_(keys))).scalars().all()
        gained = connection.execute(
            self._insert(RunMatchRow.__table__).on_conflict_do_nothing(index_elements=["run_id", "match_id"])
            .returning(RunMatchRow.__table__.c.match_id),
            [dict(run_id=run_id, match_id=match_id) for match_id in match_ids])
        return len(gained.all()), ids


    def recorded_keys(self, run_id: int) -> set[str]:
        """The match keys a run holds: what a resumed run skips."""
        with self.session() as session:
            return set(session.scalars(select(MatchRow.key).where(_held_by(run_id))))

    def matches(self, run_id: int | None = None, game: str | None = None,
                match_id: int | None = None, keys: list[str] | None = None) -> list[MatchRecord]:
        """Recorded matches in recording order, optionally of one run, game spec (exact), id or keys."""
        return list(self.iter_matches(run_id=run_id, game=game, match_id=match_id, keys=keys))

    def iter_matches(self, run_id: int | None = None, game: str | None = None, match_id: int | None = None,
                     pool_configurations: bool = False, batch: int = 500,
                     keys: list[str] | None = None) -> Iterator[MatchRecord]:
        """Stream recorded matches in recording order, ``batch`` rows at a time.

        Args:
            run_id: only the matches this run holds.
            game: only this game spec's matches (its canonical configuration).
            match_id: only this match.
            pool_configurations: with a bare game name, every configuration
                of the game (both seats, both levels) instead of its default.
            batch: rows fetched per round trip.
            keys: only the matches of these keys.
        """
        player, opponent = PlayerRow.__table__.alias("player"), PlayerRow.__table__.alias("opponent")
        query = (select(MatchRow, player.c.spec, opponent.c.spec)
                 .join(player, player.c.id == MatchRow.player_id)
                 .join(opponent, opponent.c.id == MatchRow.opponent_id)
                 .order_by(MatchRow.id)
                 .execution_options(yield_per=batch))
        if run_id is not None:
            query = query.where(_held_by(run_id))
        if game is not None:
            query = query.where(game_condition(game, pool_configurations))
        if match_id is not None:
            query = query.where(MatchRow.id == match_id)
        if keys is not None:
            query = query.where(MatchRow.key.in_(sorted(set(keys))))
        with self.session() as session:
            for row, player_spec, opponent_spec in session.execute(query):
                yield _match_record(row, player_spec, opponent_spec)

    def match(self, match_id: int) -> MatchRecord | None:
        """One recorded match by id."""
        found = self.matches(match_id=match_id)
        return found[0] if found else None

    def count_matches(self, run_id: int | None = None) -> int:
        """How many matches are recorded (in one run)."""
        query = select(func.count(MatchRow.id))
        if run_id is not None:
            query = query.where(_held_by(run_id))
        with self.session() as session:
            return int(session.scalar(query) or 0)

    # -- leaderboards -------------------------------------------------------------------------

    def leaderboard(self, game: str, opponent: str | None = None, run_id: int | str | None = None,
                    by: str = "mean") -> list[LeaderboardRow]:
        """Per player configuration of ``game``: results and mean score with a 95% interval.

        See ``harness.db.queries.leaderboard``; ``run_id`` may also be a run name.
        """
        return queries.leaderboard(self, game, opponent=opponent, run=run_id, by=by)

    def ratings(self, game: str, run_id: int | str | None = None, anchor: str | None = None) -> Ratings:
        """Bradley-Terry Elo with 95% intervals; see ``harness.db.queries.ratings``."""
        return queries.ratings(self, game, run=run_id, anchor=anchor)

    # -- named players ----------------------------------------------------------------------

    def save_named_player(self, name: str, spec: str, game: str, note: str = "", *, verdict: str | None = None,
                          detail: str = "", kind: str = "tuned") -> None:
        """Store (or replace) the alias ``<kind>:<name>`` for a canonical player spec, with its study's verdict.

        Args:
            verdict: the study's confirmation against its incumbent, one of
                ``harness.verdicts.VERDICTS``; None (a player saved by hand,
                or fitted) is unconfirmed. Replacing a player replaces its
                verdict too: the old one spoke of other weights.
            detail: the confirmation's evidence in a few words
                (``+12.3 [4.1, 20.5] over 240 openings``).
            kind: ``tuned`` (a study's) or ``fitted`` (``harness fit``'s).
                Names are one namespace: a name held by the other kind is
                refused rather than replaced, so ``tuned:x`` never silently
                becomes a fit.

        Raises:
            InvalidInput: a name that is not letters, digits, ``_ . -``, an
                unknown verdict or kind, or a name the other kind holds.
        """
        check_player_name(name)
        if kind not in NAMED_KINDS:
            raise InvalidInput(f"unknown kind of named player {kind!r}; valid: {', '.join(NAMED_KINDS)}")
        values = dict(spec=spec, game=game, note=note, verdict=check_verdict(verdict), verdict_detail=detail or None)
        with self.session(write=True) as session:
            held = session.scalar(select(NamedPlayerRow.kind).where(NamedPlayerRow.name == name))
            if held is not None and held != kind:
                raise InvalidInput(f"the name {name!r} is taken by {held}:{name}; choose another name")
            session.execute(self._insert(NamedPlayerRow).values(name=name, created=now(), kind=kind, **values)
                            .on_conflict_do_nothing(index_elements=["name"]))
            session.execute(update(NamedPlayerRow).where(NamedPlayerRow.name == name).values(**values))

    def named_player(self, name: str) -> str | None:
        """The canonical spec stored for a name, or None."""
        with self.session() as session:
            return session.scalar(select(NamedPlayerRow.spec).where(NamedPlayerRow.name == name))

    def named_player_record(self, name: str) -> NamedPlayerRecord | None:
        """The alias ``<kind>:<name>`` as stored (spec, game, note, verdict, kind), or None."""
        with self.session() as session:
            row = session.scalar(select(NamedPlayerRow).where(NamedPlayerRow.name == name))
            return None if row is None else _named_record(row)

    def named_players(self) -> dict[str, str]:
        """Every stored name and its spec, sorted by name."""
        with self.session() as session:
            rows = session.execute(select(NamedPlayerRow.name, NamedPlayerRow.spec).order_by(NamedPlayerRow.name))
            return {name: spec for name, spec in rows}

    def named_player_records(self) -> list[NamedPlayerRecord]:
        """Every stored alias (tuned and fitted) with its spec, game, note, time and verdict, sorted by name."""
        with self.session() as session:
            rows = session.scalars(select(NamedPlayerRow).order_by(NamedPlayerRow.name))
            return [_named_record(row) for row in rows]

    def study_names(self) -> list[str]:
        """The studies whose trials or validations are recorded here (runs with a study), sorted."""
        with self.session() as session:
            return list(session.scalars(select(RunRow.study).where(RunRow.study.is_not(None))
                                        .distinct().order_by(RunRow.study)))

    def resolve_spec(self, spec: str, allow_engines: bool = False) -> str:
        """Resolve a ``tuned:<name>`` or ``fitted:<name>`` alias to its stored spec; any other spec unchanged.

        Args:
            spec: a player spec or a named player.
            allow_engines: accept an alias whose stored spec runs a command
                (``external``, ``uci``); by default that is refused, since a
                command in a shared database would run on every machine.

        Raises:
            SpecError: an unknown name, or one of the other kind (the message
                lists the known names), or an engine command without
                ``allow_engines``.
        """
        kind, _, name = spec.partition(":")
        if kind not in NAMED_KINDS or not name:
            return spec
        record = self.named_player_record(name)
        if record is None or record.kind != kind:
            known = ", ".join(f"{p.kind}:{p.name}" for p in self.named_player_records()
                              ) or "none yet (harness tune and harness fit make them)"
            raise SpecError(f"unknown {kind} player {spec!r}; known: {known} (harness players lists them)")
        return guard_command(record.spec, f"{kind} player {spec!r}", allow_engines)

    # -- position labels --------------------------------------------------------------------

    def save_labels(self, game: str, label: str, values: Iterable[tuple[str, float | None, float | None]]) -> int:
        """Store labels of positions, each ``(position key, value in [0, 1] or None, raw search value or None)``.

        One transaction: a batch is stored whole or not at all. A label stored
        already is kept (the same labeller gives the same value), so a batch
        a dead worker ran twice stores nothing twice.

        Returns:
            How many labels were new.
        """
        rows = [dict(game=game, label=label, position=key, value=value, raw=raw, created=now())
                for key, value, raw in values]
        if not rows:
            return 0
        with self.session(write=True) as session:
            result = session.execute(self._insert(PositionLabelRow).on_conflict_do_nothing(
                index_elements=["game", "label", "position"]).returning(PositionLabelRow.id), rows)
            return len(result.all())

    def labels(self, game: str, label: str, positions: Iterable[str]) -> dict[str, tuple[float | None, float | None]]:
        """The stored labels of these positions by one labeller: key -> (value, raw); a position not labelled
        yet is absent (a position the labeller could not reach is present with value None)."""
        wanted = sorted(set(positions))
        found: dict[str, tuple[float | None, float | None]] = {}
        with self.session() as session:
            for start in range(0, len(wanted), LABEL_CHUNK):
                query = (select(PositionLabelRow.position, PositionLabelRow.value, PositionLabelRow.raw)
                         .where(PositionLabelRow.game == game, PositionLabelRow.label == label,
                                PositionLabelRow.position.in_(wanted[start:start + LABEL_CHUNK])))
                found.update((key, (value, raw)) for key, value, raw in session.execute(query))
        return found

    # -- live games -------------------------------------------------------------------------

    def save_live_game(self, run_id: int, key: str, game: str, seed: int, player: str, server_state: Any,
                       actions: list[Any], status: str, error: str | None = None,
                       server_score: float | None = None, result: MatchResult | None = None) -> int:
        """Insert or update the live game ``(run_id, key)``; returns its id.

        With ``result`` (a finished game) its match row is written in the same
        transaction, ``extra["live_game_id"]`` set: both or neither are stored.
        """
        values = dict(game=game, seed=seed, player=player, server_state=server_state, actions=list(actions),
                      status=status, error=error, server_score=server_score, updated=now())
        ids: dict[str, int] = {}
        with self.session(write=True) as session:
            session.execute(self._insert(LiveGameRow).values(run_id=run_id, key=key, **values)
                            .on_conflict_do_update(index_elements=["run_id", "key"], set_=values))
            game_id = session.scalar(select(LiveGameRow.id).where(LiveGameRow.run_id == run_id,
                                                                  LiveGameRow.key == key))
            if result is not None:
                result = replace(result, extra={**result.extra, "live_game_id": game_id})
                _, ids = self._insert_matches(session, run_id, [result])
        self._player_ids.update({spec_hash(spec): player_id for spec, player_id in ids.items()})
        return game_id

    def live_game(self, game_id: int) -> LiveGameRecord | None:
        """A live game by id."""
        with self.session() as session:
            row = session.get(LiveGameRow, game_id)
            return None if row is None else _live_record(row)

    def live_games(self, run_id: int) -> list[LiveGameRecord]:
        """The live games of a run, in the order they were first saved."""
        with self.session() as session:
            rows = session.scalars(select(LiveGameRow).where(LiveGameRow.run_id == run_id).order_by(LiveGameRow.id))
            return [_live_record(row) for row in rows]


def database_exists(url: str | URL | None = None) -> bool:
    """False only for a SQLite file that is not there yet (opening it would create it).

    A server database (PostgreSQL) is taken to exist: connecting says otherwise.
    """
    text = default_url() if url is None else url
    try:
        parsed = make_url(text)
    except (ArgumentError, ValueError, TypeError):
        return True  # open_database reports the malformed URL
    if parsed.get_backend_name() != "sqlite":
        return True
    path = parsed.database or ""
    if path in ("", ":memory:") or path.startswith("file:"):
        return True
    return os.path.exists(path)


def open_database(url: str | URL | None = None, create: bool = True, read_only: bool = False) -> Database:
    """Open the results database and bring its schema to the newest migration.

    Args:
        url: any SQLAlchemy URL; None means ``$HARNESS_DB`` or
            ``sqlite:///harness.db`` in the working directory.
        create: create a SQLite file that is not there yet; False for
            commands that read before they write, so bad input creates nothing.
        read_only: for commands that only read: open the database read-only
            and never migrate it (implies ``create=False``).

    Raises:
        InvalidInput: the URL is malformed or names an unknown driver, or
            (``create=False``) the SQLite file does not exist, or the database
            holds another program's tables, or (``read_only``) its schema is
            not at the newest revision (see ``Database.check_schema``).
        DatabaseError: the database cannot be reached or migrated.
    """
    text = default_url() if url is None else url
    if (read_only or not create) and not database_exists(text):
        raise InvalidInput(f"no results database at {mask_url(text)} yet; give --db URL (or HARNESS_DB), "
                           "or record matches first (harness tournament, harness play --record)")
    try:
        database = Database(text, read_only=read_only)
    except (ArgumentError, ValueError) as error:
        if isinstance(error, InvalidInput):
            raise
        raise InvalidInput(f"not a database URL: {mask_url(text)!r}; valid: sqlite:///harness.db or "
                           "postgresql+psycopg://user:***@host/db") from None
    try:
        if read_only:
            database.check_schema(reading=True)
        else:
            database.upgrade()
    except BaseException:
        database.close()
        raise
    return database


def stored_tables(url: str | URL | None = None) -> set[str]:
    """The names of the tables a database holds, without creating or changing anything.

    For readers of data another library keeps in the same database (Optuna's
    studies): a missing SQLite file holds no tables and is not created.

    Raises:
        InvalidInput: the URL is malformed.
        DatabaseError: the database cannot be reached.
    """
    text = default_url() if url is None else url
    if not database_exists(text):
        return set()
    database = Database(text, read_only=True)
    try:
        with database.engine.connect() as connection:
            return set(inspect(connection).get_table_names())
    except SQLAlchemyError as error:
        raise database._fail(error) from error
    finally:
        database.close()


@contextmanager
def scratch_database(url: str) -> Iterator[str]:
    """A throwaway, empty database on the server of ``url``, for tests and benchmarks.

    PostgreSQL: a new schema, selected through the connection's search_path
    and dropped with everything in it afterwards. SQLite: a new file in a
    temporary directory. Yields the URL to open.
    """
    if make_url(url).get_backend_name() == "sqlite":
        import tempfile
        with tempfile.TemporaryDirectory(prefix="harness-db-") as directory:
            yield f"sqlite:///{os.path.join(directory, 'harness.db')}"
        return
    name = f"scratch_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url)
    try:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{name}"')
        scratch = make_url(url).update_query_dict({"options": f"-csearch_path={name}"})
        yield scratch.render_as_string(hide_password=False)
    except SQLAlchemyError as error:
        raise database_error(make_url(url), error) from error
    finally:
        try:
            with admin.begin() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        finally:
            admin.dispose()


def _held_by(run_id: int) -> Any:
    """The condition on ``matches`` for the matches a run holds."""
    return MatchRow.id.in_(select(RunMatchRow.match_id).where(RunMatchRow.run_id == run_id))


def sqlite_file(url: URL) -> str | None:
    """The absolute path of a SQLite database file, or None (another backend, memory, a URI)."""
    if url.get_backend_name() != "sqlite" or url.query.get("uri"):
        return None
    if url.database in (None, "", ":memory:") or url.database.startswith("file:"):
        return None
    return os.path.abspath(url.database)


def read_only_url(url: str | URL) -> str:
    """The URL of the same database for connections that cannot write.

    SQLite: a ``file:...?mode=ro`` URI (SQLite refuses every write and creates
    no file). PostgreSQL: every transaction read-only
    (``default_transaction_read_only``), added to the URL's own ``options``.
    For Optuna's storage too, when a command only reads a study.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_file(parsed)
        if path is None:  # memory or a URI already: SQLite's own query options say what it may do
            return parsed.render_as_string(hide_password=False)
        from urllib.parse import quote
        parsed = parsed.set(database=f"file:{quote(path)}").update_query_dict({"mode": "ro", "uri": "true"})
    else:
        options = " ".join(part for part in (parsed.query.get("options"), "-cdefault_transaction_read_only=on")
                           if part)
        parsed = parsed.update_query_dict({"options": options})
    return parsed.render_as_string(hide_password=False)


def _pragmas(connection: Any, *pragmas: str) -> None:
    """We issue BEGIN ourselves; foreign keys on; wait on locks; then ``pragmas``."""
    connection.isolation_level = None
    cursor = connection.cursor()
    for pragma in ("foreign_keys=ON", f"busy_timeout={SQLITE_BUSY_TIMEOUT_MS}", *pragmas):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def _configure_sqlite_reader(connection: Any, record: Any) -> None:
    """Per read-only connection: as a writer's, but no WAL switch and no writes."""
    _pragmas(connection, "query_only=ON")


def _configure_sqlite(connection: Any, record: Any) -> None:
    """Per connection: WAL, and commits synced at checkpoints."""
    _pragmas(connection, "journal_mode=WAL", "synchronous=NORMAL")


def _begin_sqlite(connection: Any) -> None:
    """Start SQLite transactions ourselves: IMMEDIATE for writers, DEFERRED for readers."""
    mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
    connection.exec_driver_sql(f"BEGIN {mode}")


def _utc(moment: datetime | None) -> datetime | None:
    """Stored times are UTC; SQLite hands them back without a zone, PostgreSQL with one."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=timezone.utc)


def planned_matches(run: RunRecord) -> int | None:
    """How many matches a run's plan holds, from its config (None when it does not say).

    A tournament plays ``games`` per gauntlet player (and rung of a ladder) or per round-robin pair;
    an import holds its file's lines; ``play --record`` and live sessions store their ``games``; a tuning
    trial's budget lives in its study, not its run.
    """
    config = run.config if isinstance(run.config, dict) else {}
    try:
        if run.kind == "tournament":
            players, games = len(config["players"]), int(config["games"])
            if config.get("ladder"):
                return games * players * len(config["ladder"])
            if config.get("opponent") is not None:
                return games * players
            return games * players * (players - 1) // 2
        if run.kind in ("play", "live"):
            return int(config["games"])
        if run.kind == "import":
            return int(config["lines"])
    except (KeyError, TypeError, ValueError):
        return None
    return None


def _run_record(row: RunRow) -> RunRecord:
    return RunRecord(id=row.id, name=row.name, kind=row.kind, game=row.game, config=row.config, status=row.status,
                     started=_utc(row.started), ended=_utc(row.ended), study=row.study, trial=row.trial, host=row.host,
                     version=row.version)


def _match_record(row: MatchRow, player: str, opponent: str) -> MatchRecord:
    return MatchRecord(
        id=row.id, run_id=row.run_id, recorded=_utc(row.recorded), game=row.game, player=player, opponent=opponent,
        seed=row.seed, outcome=row.outcome, reason=row.reason, score=row.score, counters=row.counters,
        actions=row.actions, plies=row.plies, duration_s=row.duration_s, player_s=row.player_s,
        opponent_s=row.opponent_s, key=row.key, opening_plies=row.opening_plies, source=row.source,
        server_score=row.server_score, error=row.error, extra=row.extra)


def _named_record(row: NamedPlayerRow) -> NamedPlayerRecord:
    return NamedPlayerRecord(row.name, row.spec, row.game, row.note, _utc(row.created), verdict=row.verdict,
                             detail=row.verdict_detail or "", kind=row.kind)


def _live_record(row: LiveGameRow) -> LiveGameRecord:
    return LiveGameRecord(id=row.id, run_id=row.run_id, key=row.key, game=row.game, seed=row.seed,
                          player=row.player, server_state=row.server_state, actions=row.actions, status=row.status,
                          error=row.error, server_score=row.server_score, updated=_utc(row.updated))
