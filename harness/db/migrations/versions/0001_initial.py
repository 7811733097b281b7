"""Initial schema: players, runs, matches, named players, live games.

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-29 13:43:19.060025

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = '0001'
down_revision: Union[str, Sequence[str], None] = None
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('named_players',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('spec', sa.Text(), nullable=False),
    sa.Column('game', sa.String(length=400), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_named_players')),
    sa.UniqueConstraint('name', name=op.f('uq_named_players_name'))
    )
    op.create_table('players',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.Column('kind', sa.String(length=64), nullable=False),
    sa.Column('spec', sa.Text(), nullable=False),
    sa.Column('params', sa.JSON(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_players')),
    sa.UniqueConstraint('hash', name=op.f('uq_players_hash'))
    )
    op.create_table('runs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=True),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('game', sa.String(length=400), nullable=False),
    sa.Column('config', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('started', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ended', sa.DateTime(timezone=True), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('version', sa.String(length=64), nullable=False),
    sa.Column('study', sa.String(length=200), nullable=True),
    sa.Column('trial', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_runs'))
    )
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_runs_name'), ['name'], unique=False)
        batch_op.create_index(batch_op.f('ix_runs_study_trial'), ['study', 'trial'], unique=False)

    op.create_table('live_games',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('game', sa.String(length=400), nullable=False),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('player', sa.Text(), nullable=False),
    sa.Column('server_state', sa.JSON(), nullable=False),
    sa.Column('actions', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=32), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('server_score', sa.Float(), nullable=True),
    sa.Column('updated', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], name=op.f('fk_live_games_run_id_runs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_live_games')),
    sa.UniqueConstraint('run_id', 'key', name=op.f('uq_live_games_run_id_key'))
    )
    op.create_table('matches',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('game', sa.String(length=400), nullable=False),
    sa.Column('game_name', sa.String(length=64), nullable=False),
    sa.Column('seat', sa.String(length=16), nullable=True),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('opening_plies', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('opponent_id', sa.Integer(), nullable=False),
    sa.Column('outcome', sa.String(length=8), nullable=False),
    sa.Column('reason', sa.String(length=64), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.Column('counters', sa.JSON(), nullable=False),
    sa.Column('plies', sa.Integer(), nullable=False),
    sa.Column('actions', sa.JSON(), nullable=False),
    sa.Column('duration_s', sa.Float(), nullable=False),
    sa.Column('player_s', sa.Float(), nullable=False),
    sa.Column('opponent_s', sa.Float(), nullable=False),
    sa.Column('source', sa.String(length=8), nullable=False),
    sa.Column('server_score', sa.Float(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=False),
    sa.Column('recorded', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['opponent_id'], ['players.id'], name=op.f('fk_matches_opponent_id_players')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_matches_player_id_players')),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], name=op.f('fk_matches_run_id_runs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_matches')),
    sa.UniqueConstraint('run_id', 'key', name=op.f('uq_matches_run_id_key'))
    )
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_matches_game_name'), ['game_name'], unique=False)
        batch_op.create_index(batch_op.f('ix_matches_game_opponent_id'), ['game', 'opponent_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_matches_game_player_id'), ['game', 'player_id'], unique=False)



def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_matches_game_player_id'))
        batch_op.drop_index(batch_op.f('ix_matches_game_opponent_id'))
        batch_op.drop_index(batch_op.f('ix_matches_game_name'))

    op.drop_table('matches')
    op.drop_table('live_games')
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_runs_study_trial'))
        batch_op.drop_index(batch_op.f('ix_runs_name'))

    op.drop_table('runs')
    op.drop_table('players')
    op.drop_table('named_players')
