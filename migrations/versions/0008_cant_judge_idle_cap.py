"""cant_judge marks (an assessor's "can't judge / broken document", not a grade) and
campaign.idle_cap_seconds (time on one document counts up to it)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('cant_judge',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('assessor_id', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assessor_id'], ['assessor.id'], name=op.f('fk_cant_judge_assessor_id_assessor'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['document_id'], ['document.id'], name=op.f('fk_cant_judge_document_id_document'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['query_id'], ['query.id'], name=op.f('fk_cant_judge_query_id_query'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cant_judge')),
    sa.UniqueConstraint('query_id', 'document_id', 'assessor_id', name=op.f('uq_cant_judge_query_id_document_id_assessor_id'))
    )
    with op.batch_alter_table('cant_judge', schema=None) as batch_op:
        batch_op.create_index('ix_cant_judge_assessor_query', ['assessor_id', 'query_id'], unique=False)
    # Five minutes: a pause longer than that on one document is not judging time.
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.add_column(sa.Column('idle_cap_seconds', sa.Integer(), nullable=False, server_default='300'))


def downgrade() -> None:
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.drop_column('idle_cap_seconds')
    with op.batch_alter_table('cant_judge', schema=None) as batch_op:
        batch_op.drop_index('ix_cant_judge_assessor_query')
    op.drop_table('cant_judge')
