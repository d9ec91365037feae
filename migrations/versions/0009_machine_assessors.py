"""Machine assessors: assessor.kind (human | machine; every existing assessor is human),
machine_provenance (model, endpoint without credentials, prompt and its sha256,
parameters, origin, version, time) and machine_call (every call's raw answer and outcome,
for audit)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('assessor', schema=None) as batch_op:
        batch_op.add_column(sa.Column('kind', sa.String(length=10), nullable=False, server_default='human'))
    op.create_table('machine_provenance',
    sa.Column('assessor_id', sa.Integer(), nullable=False),
    sa.Column('model', sa.String(length=200), nullable=False),
    sa.Column('endpoint', sa.Text(), nullable=False),
    sa.Column('prompt', sa.Text(), nullable=False),
    sa.Column('prompt_sha256', sa.String(length=64), nullable=False),
    sa.Column('parameters', sa.Text(), nullable=False),
    sa.Column('origin', sa.Text(), nullable=False),
    sa.Column('version', sa.String(length=50), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assessor_id'], ['assessor.id'], name=op.f('fk_machine_provenance_assessor_id_assessor'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('assessor_id', name=op.f('pk_machine_provenance'))
    )
    op.create_table('machine_call',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('assessor_id', sa.Integer(), nullable=False),
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('outcome', sa.String(length=10), nullable=False),
    sa.Column('grade', sa.Integer(), nullable=True),
    sa.Column('raw', sa.Text(), nullable=False),
    sa.Column('error', sa.Text(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assessor_id'], ['assessor.id'], name=op.f('fk_machine_call_assessor_id_assessor'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['document_id'], ['document.id'], name=op.f('fk_machine_call_document_id_document'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['query_id'], ['query.id'], name=op.f('fk_machine_call_query_id_query'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_machine_call'))
    )
    with op.batch_alter_table('machine_call', schema=None) as batch_op:
        batch_op.create_index('ix_machine_call_item', ['assessor_id', 'query_id', 'document_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('machine_call', schema=None) as batch_op:
        batch_op.drop_index('ix_machine_call_item')
    op.drop_table('machine_call')
    op.drop_table('machine_provenance')
    with op.batch_alter_table('assessor', schema=None) as batch_op:
        batch_op.drop_column('kind')
