"""access_link: the personal links of `workbench serve` (sha256 of each token, never the token)

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('access_link',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('assessor_id', sa.Integer(), nullable=True),
    sa.Column('token_sha256', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['assessor_id'], ['assessor.id'], name=op.f('fk_access_link_assessor_id_assessor'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_access_link')),
    sa.UniqueConstraint('token_sha256', name=op.f('uq_access_link_token_sha256'))
    )
    with op.batch_alter_table('access_link', schema=None) as batch_op:
        batch_op.create_index('ix_access_link_role_name', ['role', 'name'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('access_link', schema=None) as batch_op:
        batch_op.drop_index('ix_access_link_role_name')
    op.drop_table('access_link')
