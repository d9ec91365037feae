"""run_arrays: each system's results as arrays in trec_eval order, read by scoring

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Existing systems get no row here: the loader reads them from `result` until their
    # run is imported again (store/run_arrays.py).
    op.create_table('run_arrays',
    sa.Column('system_id', sa.Integer(), nullable=False),
    sa.Column('encoding', sa.Integer(), nullable=False),
    sa.Column('generation', sa.BigInteger(), nullable=False),
    sa.Column('n_rows', sa.Integer(), nullable=False),
    sa.Column('query_ids', sa.LargeBinary(), nullable=False),
    sa.Column('document_ids', sa.LargeBinary(), nullable=False),
    sa.Column('scores', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['system_id'], ['system.id'], name=op.f('fk_run_arrays_system_id_system'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('system_id', name=op.f('pk_run_arrays'))
    )


def downgrade() -> None:
    op.drop_table('run_arrays')
