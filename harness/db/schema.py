"""Schema management with Alembic, configured in code (no alembic.ini at run time).

The migrations ship inside the package (``harness/db/migrations``). Their
version table is ``harness_alembic_version`` so that Optuna's own Alembic
table (``alembic_version``) can live in the same database, as the design
wants for shared studies.
"""

from __future__ import annotations

from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from harness.db.models import Base

VERSION_TABLE = "harness_alembic_version"
SCRIPT_LOCATION = "harness.db:migrations"
# A constant key for PostgreSQL's advisory lock: drivers that open the database
# at the same time upgrade it one after the other.
UPGRADE_LOCK = 0x6861726E  # "harn"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration for the package's migrations.

    Args:
        connection: the connection the migrations run on (env.py uses it).
    """
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest migration's revision id."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the package ships no migrations"
    return head


def current_revision(connection: Connection) -> str | None:
    """The revision the database is at, or None for an empty database."""
    return MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE}).get_current_revision()


def upgrade(connection: Connection) -> str:
    """Bring the schema on ``connection`` to the newest revision, inside its transaction.

    Returns:
        The revision the database is at afterwards.
    """
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({UPGRADE_LOCK})")
    head = head_revision()
    if current_revision(connection) != head:
        command.upgrade(alembic_config(connection), "head")
    return head


# Optuna's own tables (its RDB storage, optuna/storages/_rdb/models.py): the one other program whose tables may
# share a results database, so a database that holds only these is the harness's to use.
OPTUNA_TABLES = frozenset({
    "alembic_version", "version_info", "studies", "study_directions", "study_user_attributes",
    "study_system_attributes", "trials", "trial_user_attributes", "trial_system_attributes", "trial_params",
    "trial_values", "trial_intermediate_values", "trial_heartbeats"})


def schema_problem(tables: set[str], revision: str | None, reading: bool) -> str | None:
    """Why a command must not use a database with these tables at this revision, or None when it may.

    Args:
        tables: every table the database holds.
        revision: the harness revision it is at (None without the version table).
        reading: the command only reads (it never migrates, so the schema must be at head).
    """
    if VERSION_TABLE not in tables:
        foreign = sorted(tables - OPTUNA_TABLES)
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            return (f"not a harness results database (it holds other tables: {shown}) and left untouched; "
                    "give another --db")
        if reading:
            return "holds no harness results yet; record matches first, or run harness db upgrade"
        return None
    if not reading:
        return None
    head = head_revision()
    if revision == head:
        return None
    known = [script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions()]
    if revision in known:
        return (f"its schema is at revision {revision}, older than this harness's {head}; "
                "run harness db upgrade (commands that only read never migrate)")
    return f"its schema is at revision {revision}, which this harness does not know (a newer harness made it)"


def include_object(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """Compare only the harness's own tables: Optuna's may share the database."""
    if type_ == "table":
        return name in Base.metadata.tables
    table = getattr(obj, "table", None)
    return table is None or table.name in Base.metadata.tables


def schema_differences(connection: Connection) -> list[Any]:
    """What differs between the database's schema and the models (empty when equal).

    Uses Alembic's autogenerate comparison with type comparison on.
    """
    context = MigrationContext.configure(connection, opts={
        "version_table": VERSION_TABLE, "compare_type": True, "include_object": include_object})
    return compare_metadata(context, Base.metadata)
