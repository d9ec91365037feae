"""pool_plan: the campaign's pooling method (depth, mtf, bandit), depth, budget and seed

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'pool_plan',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('method', sa.String(length=20), nullable=False, server_default='depth'),
        sa.Column('depth', sa.Integer(), nullable=True),
        sa.Column('budget', sa.Integer(), nullable=True),
        sa.Column('seed', sa.BigInteger(), nullable=False, server_default='0'),
        sa.Column('overlap', sa.Float(), nullable=True),
        sa.Column('repeat', sa.Float(), nullable=False, server_default='0'),
        sa.PrimaryKeyConstraint('id'),
    )


def downgrade() -> None:
    op.drop_table('pool_plan')
