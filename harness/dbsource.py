"""The results database of one command: opened at most once, and only when the work needs it.

A command may need the database early, only to read (a named player while
the input is checked), and later to write (the run it records); opening it
for writing creates an SQLite file, which bad input must not do. One
``DatabaseSource`` per command opens it at the first use, in the mode that
use needs, and hands the same open database to every later use.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.db import Database


class DatabaseSource:
    """Opens the database at ``url`` (None: ``$HARNESS_DB`` or the default file) once, when first asked."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url
        self._database: Database | None = None

    def existing(self) -> Database:
        """The database for reading; it must exist already (nothing is created).

        Raises:
            InvalidInput: there is no database at the URL.
            DatabaseError: it cannot be reached or migrated.
        """
        return self._open(create=False)

    def writable(self) -> Database:
        """The database for recording; a missing SQLite file is created."""
        return self._open(create=True)

    @property
    def opened(self) -> Database | None:
        """The database if a use opened it already, else None."""
        return self._database

    def _open(self, create: bool) -> Database:
        if self._database is None:
            from harness.db import open_database
            self._database = open_database(self.url, create=create)
        return self._database

    def close(self) -> None:
        """Close the database if it was opened."""
        if self._database is not None:
            self._database.close()
            self._database = None

    def __enter__(self) -> DatabaseSource:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
