"""The results database: every match recorded, leaderboards as queries over them.

The only package that imports SQLAlchemy and Alembic. Open it with
``open_database(url)`` (SQLite by default, PostgreSQL for a cluster); the
schema is brought to the newest migration first. Records handed out are
frozen dataclasses (``RunRecord``, ``MatchRecord``, ``LeaderboardRow``,
``LiveGameRecord``), never live ORM objects.
"""

from __future__ import annotations

from harness.db.database import (DEFAULT_URL, Database, database_exists, default_url, foreign_database_error,
                                  mask_secrets, mask_url, open_database, read_only_url,
                                  stored_tables)
from harness.db.records import (LeaderboardRow, LiveGameRecord, MatchRecord, NamedPlayerRecord, RunRecord,
                                RunSummary)

__all__ = ["DEFAULT_URL", "Database", "LeaderboardRow", "LiveGameRecord", "MatchRecord", "NamedPlayerRecord",
           "RunRecord", "RunSummary", "database_exists", "default_url", "foreign_database_error", "mask_secrets",
           "mask_url", "open_database", "read_only_url", "stored_tables"]
