"""Labels of positions for ``harness fit`` (``position_labels``), and fitted named players (``named_players.kind``).

A label costs a search (or a solve); it is stored by game, labeller and
position, so a refit with other features or another loss, or a labelling
resumed after Ctrl-C, pays for no search twice. A named player now says
where it came from: ``tuned`` (a study) or ``fitted`` (``harness fit``); the
players saved before this revision were all tuned, which the column's
default keeps.

Revision ID: 0004
Revises: 0003
Create Date: 2027-01-10 10:00:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0004'
down_revision: Union[str, Sequence[str], None] = '0003'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('position_labels',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=400), nullable=False),
    sa.Column('position', sa.String(length=64), nullable=False),
    sa.Column('value', sa.Float(), nullable=True),
    sa.Column('raw', sa.Float(), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_position_labels')),
    sa.UniqueConstraint('game', 'label', 'position', name=op.f('uq_position_labels_game_label_position'))
    )
    with op.batch_alter_table('named_players') as batch:
        batch.add_column(sa.Column('kind', sa.String(length=16), server_default='tuned', nullable=False))


def downgrade() -> None:
    """Downgrade schema (the labels and the fitted players' kind are dropped)."""
    with op.batch_alter_table('named_players') as batch:
        batch.drop_column('kind')
    op.drop_table('position_labels')
