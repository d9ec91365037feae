"""validation_item: the items `pool --validate MACHINE` chose for people to judge, with
the strategy, the machine's grade (stratum) and the inclusion probability of a stratified
sample (for weighted estimates in `workbench calibrate`)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('validation_item',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('machine_id', sa.Integer(), nullable=False),
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('strategy', sa.String(length=20), nullable=False),
    sa.Column('stratum', sa.Integer(), nullable=True),
    sa.Column('inclusion_probability', sa.Float(), nullable=True),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['machine_id'], ['assessor.id'], name=op.f('fk_validation_item_machine_id_assessor'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['document_id'], ['document.id'], name=op.f('fk_validation_item_document_id_document'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['query_id'], ['query.id'], name=op.f('fk_validation_item_query_id_query'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_validation_item')),
    sa.UniqueConstraint('machine_id', 'query_id', 'document_id', name=op.f('uq_validation_item_machine_id_query_id_document_id'))
    )


def downgrade() -> None:
    op.drop_table('validation_item')
