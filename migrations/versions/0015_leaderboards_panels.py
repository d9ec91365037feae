"""leaderboard, leaderboard_value: imported leaderboards (`workbench import leaderboard`);
panel, panel_member: judge panels (`workbench panel create`);
machine_call.call_key, machine_call.sample: each call's replay key (`autojudge --offline`)
and sample index (`autojudge --samples N`)

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('leaderboard',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('format', sa.String(length=16), nullable=False),
    sa.Column('source_file', sa.String(length=1000), nullable=False),
    sa.Column('imported_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_leaderboard')),
    sa.UniqueConstraint('name', name=op.f('uq_leaderboard_name'))
    )
    op.create_table('leaderboard_value',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('leaderboard_id', sa.Integer(), nullable=False),
    sa.Column('run', sa.String(length=200), nullable=False),
    sa.Column('topic', sa.String(length=200), nullable=False),
    sa.Column('measure', sa.String(length=100), nullable=False),
    sa.Column('value', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['leaderboard_id'], ['leaderboard.id'], name=op.f('fk_leaderboard_value_leaderboard_id_leaderboard'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_leaderboard_value')),
    sa.UniqueConstraint('leaderboard_id', 'run', 'topic', 'measure', name=op.f('uq_leaderboard_value_leaderboard_id_run_topic_measure'))
    )
    op.create_table('panel',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('aggregate', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_panel')),
    sa.UniqueConstraint('name', name=op.f('uq_panel_name'))
    )
    op.create_table('panel_member',
    sa.Column('panel_id', sa.Integer(), nullable=False),
    sa.Column('assessor_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['assessor_id'], ['assessor.id'], name=op.f('fk_panel_member_assessor_id_assessor'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['panel_id'], ['panel.id'], name=op.f('fk_panel_member_panel_id_panel'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('panel_id', 'assessor_id', name=op.f('pk_panel_member'))
    )
    with op.batch_alter_table('machine_call', schema=None) as batch_op:
        batch_op.add_column(sa.Column('call_key', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('sample', sa.Integer(), nullable=True))
        batch_op.create_index('ix_machine_call_call_key', ['call_key'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('machine_call', schema=None) as batch_op:
        batch_op.drop_index('ix_machine_call_call_key')
        batch_op.drop_column('sample')
        batch_op.drop_column('call_key')
    op.drop_table('panel_member')
    op.drop_table('panel')
    op.drop_table('leaderboard_value')
    op.drop_table('leaderboard')
