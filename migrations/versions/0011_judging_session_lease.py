"""judging_session: one open judging session per assessor (a lease the newest screen
holds; an older screen sees it was taken over and stops)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('judging_session',
    sa.Column('assessor_id', sa.Integer(), nullable=False),
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.Column('holder', sa.String(length=200), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assessor_id'], ['assessor.id'], name=op.f('fk_judging_session_assessor_id_assessor'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('assessor_id', name=op.f('pk_judging_session'))
    )


def downgrade() -> None:
    op.drop_table('judging_session')
