"""answers, nuggets, nugget assignments and their history (issue 33, docs/nuggets.md)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def _fk(table: str, column: str, target: str, ondelete: str = 'CASCADE'):
    return sa.ForeignKeyConstraint([column], [f'{target}.id'],
                                   name=op.f(f'fk_{table}_{column}_{target}'), ondelete=ondelete)


def upgrade() -> None:
    op.create_table('answer',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('system_id', sa.Integer(), nullable=False),
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('sentences', sa.Text(), nullable=False),
    sa.Column('refs', sa.Text(), nullable=False),
    sa.Column('length', sa.Integer(), nullable=False),
    sa.Column('shape', sa.String(length=10), nullable=False),
    sa.Column('cites_by_id', sa.Boolean(), nullable=False),
    sa.Column('meta', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    _fk('answer', 'system_id', 'system'),
    _fk('answer', 'query_id', 'query'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_answer')),
    sa.UniqueConstraint('system_id', 'query_id', name=op.f('uq_answer_system_id_query_id'))
    )
    op.create_table('nugget_bank',
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('frozen', sa.Boolean(), nullable=False),
    sa.Column('frozen_at', sa.DateTime(timezone=True), nullable=True),
    _fk('nugget_bank', 'query_id', 'query'),
    sa.PrimaryKeyConstraint('query_id', name=op.f('pk_nugget_bank'))
    )
    op.create_table('nugget',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('importance', sa.String(length=10), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('origin', sa.String(length=10), nullable=False),
    sa.Column('machine_id', sa.Integer(), nullable=True),
    sa.Column('sources', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    _fk('nugget', 'query_id', 'query'),
    sa.ForeignKeyConstraint(['machine_id'], ['assessor.id'], name=op.f('fk_nugget_machine_id_assessor'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_nugget'))
    )
    with op.batch_alter_table('nugget', schema=None) as batch_op:
        batch_op.create_index('ix_nugget_query_position', ['query_id', 'position'], unique=False)
    op.create_table('nugget_assignment',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('system_id', sa.Integer(), nullable=False),
    sa.Column('nugget_id', sa.Integer(), nullable=False),
    sa.Column('assessor_id', sa.Integer(), nullable=False),
    sa.Column('label', sa.Integer(), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    _fk('nugget_assignment', 'query_id', 'query'),
    _fk('nugget_assignment', 'system_id', 'system'),
    _fk('nugget_assignment', 'nugget_id', 'nugget'),
    _fk('nugget_assignment', 'assessor_id', 'assessor'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_nugget_assignment')),
    sa.UniqueConstraint('nugget_id', 'system_id', 'assessor_id', name=op.f('uq_nugget_assignment_nugget_id_system_id_assessor_id'))
    )
    with op.batch_alter_table('nugget_assignment', schema=None) as batch_op:
        batch_op.create_index('ix_nugget_assignment_assessor', ['assessor_id', 'query_id', 'system_id'], unique=False)
    op.create_table('nugget_event',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('system_id', sa.Integer(), nullable=False),
    sa.Column('nugget_id', sa.Integer(), nullable=False),
    sa.Column('assessor_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('old_label', sa.Integer(), nullable=True),
    sa.Column('new_label', sa.Integer(), nullable=True),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('reverts_event_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    _fk('nugget_event', 'query_id', 'query'),
    _fk('nugget_event', 'system_id', 'system'),
    _fk('nugget_event', 'nugget_id', 'nugget'),
    _fk('nugget_event', 'assessor_id', 'assessor'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_nugget_event'))
    )
    with op.batch_alter_table('nugget_event', schema=None) as batch_op:
        batch_op.create_index('ix_nugget_event_item', ['nugget_id', 'system_id', 'assessor_id'], unique=False)
        batch_op.create_index('ix_nugget_event_assessor', ['assessor_id', 'id'], unique=False)
    op.create_table('nugget_event_archive',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('query', sa.String(length=200), nullable=False),
    sa.Column('run', sa.String(length=200), nullable=False),
    sa.Column('nugget', sa.Text(), nullable=False),
    sa.Column('assessor', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('old_label', sa.Integer(), nullable=True),
    sa.Column('new_label', sa.Integer(), nullable=True),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('removed', sa.String(length=250), nullable=False),
    sa.Column('removed_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_nugget_event_archive'))
    )
    op.create_table('answer_queue',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('assessor_id', sa.Integer(), nullable=False),
    sa.Column('answer_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    _fk('answer_queue', 'assessor_id', 'assessor'),
    _fk('answer_queue', 'answer_id', 'answer'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_answer_queue')),
    sa.UniqueConstraint('assessor_id', 'answer_id', name=op.f('uq_answer_queue_assessor_id_answer_id'))
    )
    with op.batch_alter_table('answer_queue', schema=None) as batch_op:
        batch_op.create_index('ix_answer_queue_assessor_position', ['assessor_id', 'position'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('answer_queue', schema=None) as batch_op:
        batch_op.drop_index('ix_answer_queue_assessor_position')
    op.drop_table('answer_queue')
    op.drop_table('nugget_event_archive')
    with op.batch_alter_table('nugget_event', schema=None) as batch_op:
        batch_op.drop_index('ix_nugget_event_assessor')
        batch_op.drop_index('ix_nugget_event_item')
    op.drop_table('nugget_event')
    with op.batch_alter_table('nugget_assignment', schema=None) as batch_op:
        batch_op.drop_index('ix_nugget_assignment_assessor')
    op.drop_table('nugget_assignment')
    with op.batch_alter_table('nugget', schema=None) as batch_op:
        batch_op.drop_index('ix_nugget_query_position')
    op.drop_table('nugget')
    op.drop_table('nugget_bank')
    op.drop_table('answer')
