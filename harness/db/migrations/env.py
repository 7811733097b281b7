"""Alembic environment of the harness's results database.

Configured in code by ``harness.db.schema``: the connection to migrate comes in
``config.attributes["connection"]``; there is no alembic.ini and no URL here.
"""

from __future__ import annotations

from alembic import context

from harness.db.models import Base
from harness.db.schema import VERSION_TABLE, include_object
from harness.errors import DatabaseError

connection = context.config.attributes.get("connection")
if connection is None:
    raise DatabaseError("run the harness's migrations through harness.db (harness db upgrade)")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    version_table=VERSION_TABLE,
    include_object=include_object,
    compare_type=True,
    render_as_batch=True,  # SQLite alters tables by copying them
    transactional_ddl=True,
)
with context.begin_transaction():
    context.run_migrations()
