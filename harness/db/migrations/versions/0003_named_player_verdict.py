"""A tuned player carries its study's verdict: ``named_players.verdict`` and ``verdict_detail``.

A study confirms its chosen weights against its incumbent and says better,
no gain or worse; the player it saves keeps that answer, so every listing
can show it and using a player not confirmed better can say so. Both columns
are nullable: the players saved before this revision keep NULL, which reads
as unconfirmed (no confirmation stands behind them).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-08 10:00:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0003'
down_revision: Union[str, Sequence[str], None] = '0002'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('named_players') as batch:
        batch.add_column(sa.Column('verdict', sa.String(length=16), nullable=True))
        batch.add_column(sa.Column('verdict_detail', sa.Text(), nullable=True))


def downgrade() -> None:
    """Downgrade schema (the verdicts are dropped)."""
    with op.batch_alter_table('named_players') as batch:
        batch.drop_column('verdict_detail')
        batch.drop_column('verdict')
