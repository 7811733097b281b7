"""Copies of a SQLite results database taken while commands write to it, and their restoring.

A study or a gauntlet writes to its SQLite file for hours; copying the file
then can catch a transaction half-written, and misses what still sits in
the WAL. SQLite's online backup API copies a consistent snapshot instead,
page by page, beside the writers. The copy is checked (``PRAGMA
integrity_check``) before it is renamed into place, gzipped when the file
name ends in ``.gz`` (a study's database shrinks about tenfold), so a copy
that exists is whole. Restoring never writes over a database: it makes a
new file. Both write to a temporary name in the target's directory, flush
it to the disk and rename it (``harness.files.beside`` and ``place``): a
backup or restore killed at any point (SIGKILL, a power cut) leaves the
target whole or absent, and the next one removes the killed one's
temporary file. PostgreSQL has its own tools (``pg_dump``); the message says so.
"""

from __future__ import annotations

import gzip
import os
import shutil
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from harness.db.database import default_url, mask_url, sqlite_file
from harness.errors import DatabaseError, HarnessError, InvalidInput
from harness.files import beside, check_output_file, place

PAGES_PER_STEP = 4096  # the writers get the database back between steps of about 16 MB


@dataclass(frozen=True)
class Copy:
    """What a backup or a restore wrote: the file, its size, and the database's."""

    path: Path
    bytes_written: int
    database_bytes: int
    tables: int
    upgraded_from: str | None = None  # a restore: the harness revision of the copy, when it was older


def sqlite_path(url: str | None, action: str) -> str:
    """The file of a SQLite database URL, or one line saying why there is none to ``action``."""
    text = default_url() if url is None else url
    try:
        parsed = make_url(text)
    except (ArgumentError, ValueError, TypeError):
        raise InvalidInput(f"not a database URL: {mask_url(text)!r}; valid: sqlite:///harness.db") from None
    if parsed.get_backend_name() == "postgresql":
        tool = "pg_dump" if action == "back up" else "pg_restore or psql"
        raise InvalidInput(f"harness db can {action} SQLite files only; {mask_url(text)} is PostgreSQL: "
                           f"use {tool} (PostgreSQL's own tool)")
    path = sqlite_file(parsed)
    if path is None:
        raise InvalidInput(f"cannot {action} {mask_url(text)}: give a SQLite file URL, e.g. sqlite:///harness.db")
    return path


def backup(url: str | None, target: str | os.PathLike[str]) -> Copy:
    """Copy the SQLite database at ``url`` to ``target`` (gzipped if it ends in ``.gz``), consistently.

    Raises:
        InvalidInput: not a SQLite file URL, no database there, or ``target``
            is the database itself.
        UnusableResource: ``target`` cannot be written.
        DatabaseError: the database cannot be read or its copy is damaged.
    """
    source = sqlite_path(url, "back up")
    if not os.path.isfile(source):
        raise InvalidInput(f"no database at {mask_url(url or default_url())}; give --db URL of an existing SQLite file")
    path = check_output_file(target, "file")
    if path.exists() and os.path.samefile(path, source):
        raise InvalidInput(f"FILE {str(target)!r} is the database itself; give another file name")
    with beside(path) as scratch:
        try:
            with closing(sqlite3.connect(source)) as reading, closing(sqlite3.connect(scratch)) as writing:
                reading.backup(writing, pages=PAGES_PER_STEP)
        except sqlite3.Error as error:
            raise _sqlite_error(error, mask_url(url or default_url())) from None
        tables = _checked(scratch, "the copy")
        database_bytes = os.path.getsize(scratch)
        _place(scratch, path, compress=path.name.endswith(".gz"))
    return Copy(path, path.stat().st_size, database_bytes, tables)


def restore(source: str | os.PathLike[str], url: str | None) -> Copy:
    """Make a new SQLite database at ``url`` from the copy ``source`` (plain or gzipped).

    Raises:
        InvalidInput: not a SQLite file URL, a database is already there, or
            ``source`` is missing or not a SQLite database.
        UnusableResource: the database's file cannot be written.
    """
    target = sqlite_path(url, "restore")
    given = Path(source)
    if not given.is_file():
        raise InvalidInput(f"no file {str(source)!r} to restore; give a copy made by harness db backup")
    if os.path.exists(target):
        raise InvalidInput(f"a database is already at {mask_url(url or default_url())}; restoring never writes "
                           "over one: give --db a new file, or move that one away first")
    path = check_output_file(target, "db_url")
    with beside(path) as scratch:
        opener = gzip.open if _is_gzip(given) else open
        try:
            with opener(given, "rb") as reading, open(scratch, "wb") as writing:
                shutil.copyfileobj(reading, writing, 1 << 20)
        except (OSError, EOFError) as error:
            raise InvalidInput(f"{str(source)!r} is not a whole copy: {error}") from None
        tables = _checked(scratch, repr(str(source)))
        upgraded_from = _upgraded(scratch)
        size = os.path.getsize(scratch)
        try:
            place(scratch, path, replace=False)
        except FileExistsError:
            raise InvalidInput(f"a database appeared at {mask_url(url or default_url())} while restoring; "
                               "restoring never writes over one: give --db a new file") from None
    return Copy(path, size, size, tables, upgraded_from)


def _upgraded(path: Path) -> str | None:
    """Bring a restored copy of a harness database to this harness's schema, before it takes its place.

    A copy made by an older harness would otherwise be refused by every reading command (they never
    migrate); the restore is the write the user asked for, so it migrates the new file it makes. A copy
    without the harness's version table is left as it is. Returns the revision the copy was at when it
    was older, else None.
    """
    from sqlalchemy import create_engine

    from harness.db import schema
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as connection:
            revision = schema.current_revision(connection)
            if revision is None or revision == schema.head_revision():
                return None
            schema.upgrade(connection)
            return revision
    finally:
        engine.dispose()


def _checked(path: str, what: str) -> int:
    """The number of tables in the SQLite file at ``path``, after its integrity check passes."""
    try:
        with closing(sqlite3.connect(path)) as connection:
            verdict = connection.execute("PRAGMA integrity_check").fetchone()[0]
            tables = connection.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
    except sqlite3.Error as error:
        raise _sqlite_error(error, what) from None
    if verdict != "ok":
        raise DatabaseError(f"{what} fails SQLite's integrity check: {verdict}")
    return int(tables)


def _sqlite_error(error: sqlite3.Error, what: str) -> HarnessError:
    """Bad input when the file is not a database at all, else a database fault (locked, unreadable)."""
    if type(error) is sqlite3.DatabaseError:  # "file is not a database": not a subclass such as OperationalError
        return InvalidInput(f"{what} is not a SQLite database: {error}")
    return DatabaseError(f"cannot read {what}: {error}")


def _place(scratch: str, path: Path, compress: bool) -> None:
    """Move the finished copy to ``path``, gzipping it on the way when asked."""
    if not compress:
        place(scratch, path)
        return
    with beside(path) as packed:
        with open(scratch, "rb") as reading, gzip.open(packed, "wb") as writing:
            shutil.copyfileobj(reading, writing, 1 << 20)
        place(packed, path)


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as stream:
        return stream.read(2) == b"\x1f\x8b"
