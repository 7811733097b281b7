"""Each distinct match once: remove duplicate keys, make the key unique, runs hold matches.

Before this revision a match key was unique per run only, so a retried
tuning trial copied the games it took over and the same gauntlet run twice
stored every game twice: the leaderboard counted them twice. This revision

1. creates ``run_matches`` (a run holds a match it played or reused) and
   fills it from every existing row, each pointing at the first row of its
   key, so every run still holds every match it held;
2. deletes every row of a key but its first (the copies);
3. adds a unique index on ``matches.key``, so no copy can come back.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 22:30:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0002'
down_revision: Union[str, Sequence[str], None] = '0001'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('run_matches',
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_run_matches_match_id_matches'),
                            ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], name=op.f('fk_run_matches_run_id_runs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('run_id', 'match_id', name=op.f('pk_run_matches'))
    )
    op.create_index(op.f('ix_run_matches_match_id'), 'run_matches', ['match_id'], unique=False)
    op.execute(
        "INSERT INTO run_matches (run_id, match_id) "
        "SELECT DISTINCT m.run_id, earliest.id FROM matches m "
        "JOIN (SELECT key, MIN(id) AS id FROM matches GROUP BY key) earliest ON earliest.key = m.key")
    op.execute("DELETE FROM matches WHERE id NOT IN (SELECT MIN(id) FROM matches GROUP BY key)")
    op.create_index(op.f('ix_matches_key'), 'matches', ['key'], unique=True)


def downgrade() -> None:
    """Downgrade schema (the removed copies are not restored)."""
    op.drop_index(op.f('ix_matches_key'), table_name='matches')
    op.drop_index(op.f('ix_run_matches_match_id'), table_name='run_matches')
    op.drop_table('run_matches')
