"""campaign.guidelines: campaign-wide judging guidelines shown to assessors

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.add_column(sa.Column('guidelines', sa.Text(), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.drop_column('guidelines')
