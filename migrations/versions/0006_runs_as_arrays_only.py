"""runs as arrays only: run_arrays filled for every system from `result`, which is dropped

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""
from __future__ import annotations

import hashlib

from alembic import op
import numpy as np
import sqlalchemy as sa

from workbench.metrics.ranking import trec_order


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

# The tables as this revision knows them (the models may change later; this must not).
_RESULT = sa.table('result', sa.column('system_id', sa.Integer), sa.column('query_id', sa.Integer),
                   sa.column('document_id', sa.Integer), sa.column('rank', sa.Integer),
                   sa.column('score', sa.Float))
_RUN_ARRAYS = sa.table('run_arrays', sa.column('system_id', sa.Integer), sa.column('encoding', sa.Integer),
                       sa.column('generation', sa.BigInteger), sa.column('n_rows', sa.Integer),
                       sa.column('query_ids', sa.LargeBinary), sa.column('document_ids', sa.LargeBinary),
                       sa.column('scores', sa.LargeBinary))
_SYSTEM = sa.table('system', sa.column('id', sa.Integer))
_DOCUMENT = sa.table('document', sa.column('id', sa.Integer), sa.column('ext_id', sa.String))
_ENCODING = 1  # int32 query ids, int32 document ids, float64 scores, little-endian


def _arrays_row(system_id: int, query_id, document_id, score) -> dict:
    """One run_arrays row, as store/run_arrays.py writes it (encoding 1, 40-bit digest)."""
    blobs = {
        'query_ids': np.asarray(query_id).astype('<i4').tobytes(),
        'document_ids': np.asarray(document_id).astype('<i4').tobytes(),
        'scores': np.asarray(score).astype('<f8').tobytes(),
    }
    digest = hashlib.blake2b(digest_size=5)
    for blob in blobs.values():
        digest.update(blob)
    return {'system_id': system_id, 'encoding': _ENCODING, 'n_rows': len(score),
            'generation': int.from_bytes(digest.digest(), 'big'), **blobs}


def _fill_run_arrays(conn) -> None:
    """Arrays for every system without current ones (runs imported before revision 0003),
    from its `result` rows in trec_eval's order (metrics.ranking.trec_order: per query,
    score descending as float32, ties by docno descending), queries by database id."""
    have = sa.select(_RUN_ARRAYS.c.system_id).where(_RUN_ARRAYS.c.encoding == _ENCODING)
    missing = [sid for (sid,) in conn.execute(
        sa.select(_SYSTEM.c.id).where(_SYSTEM.c.id.not_in(have)).order_by(_SYSTEM.c.id))]
    if not missing:
        return
    conn.execute(sa.delete(_RUN_ARRAYS).where(_RUN_ARRAYS.c.system_id.in_(missing)))
    docs = conn.execute(sa.select(_DOCUMENT.c.id, _DOCUMENT.c.ext_id).order_by(_DOCUMENT.c.id)).all()
    doc_ids = np.array([d for d, _ in docs], dtype=np.int64)
    doc_names = np.array([n.encode('utf-8') for _, n in docs], dtype='S') if docs else np.empty(0, 'S1')
    for sid in missing:
        rows = conn.execute(
            sa.select(_RESULT.c.query_id, _RESULT.c.document_id, _RESULT.c.score)
            .where(_RESULT.c.system_id == sid)
        ).all()
        data = np.array(rows, dtype=np.float64).reshape(-1, 3)
        qid, did, score = data[:, 0].astype(np.int64), data[:, 1].astype(np.int64), data[:, 2].copy()
        order = trec_order(qid, score, doc_names[np.searchsorted(doc_ids, did)])
        conn.execute(sa.insert(_RUN_ARRAYS), [_arrays_row(sid, qid[order], did[order], score[order])])


def upgrade() -> None:
    _fill_run_arrays(op.get_bind())
    with op.batch_alter_table('result', schema=None) as batch_op:
        batch_op.drop_index('ix_result_query_system')
    op.drop_table('result')


def downgrade() -> None:
    # `result` again, from the arrays; a row's rank is its place in trec_eval's order.
    op.create_table('result',
    sa.Column('system_id', sa.Integer(), nullable=False),
    sa.Column('query_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('rank', sa.Integer(), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['document_id'], ['document.id'], name=op.f('fk_result_document_id_document'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['query_id'], ['query.id'], name=op.f('fk_result_query_id_query'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['system_id'], ['system.id'], name=op.f('fk_result_system_id_system'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('system_id', 'query_id', 'document_id', name=op.f('pk_result'))
    )
    with op.batch_alter_table('result', schema=None) as batch_op:
        batch_op.create_index('ix_result_query_system', ['query_id', 'system_id'], unique=False)
    conn = op.get_bind()
    for sid, encoding, q, d, s in conn.execute(sa.select(
            _RUN_ARRAYS.c.system_id, _RUN_ARRAYS.c.encoding, _RUN_ARRAYS.c.query_ids,
            _RUN_ARRAYS.c.document_ids, _RUN_ARRAYS.c.scores)).all():
        if encoding != _ENCODING:
            continue
        qid = np.frombuffer(q, dtype='<i4').astype(np.int64)
        did = np.frombuffer(d, dtype='<i4').astype(np.int64)
        score = np.frombuffer(s, dtype='<f8')
        starts = np.r_[0, np.flatnonzero(qid[1:] != qid[:-1]) + 1] if qid.size else np.zeros(0, np.int64)
        rank = np.arange(qid.size) - np.repeat(starts, np.diff(np.r_[starts, qid.size])) + 1
        rows = [{'system_id': sid, 'query_id': a, 'document_id': b, 'rank': r, 'score': c}
                for a, b, r, c in zip(qid.tolist(), did.tolist(), rank.tolist(), score.tolist())]
        for start in range(0, len(rows), 10_000):
            conn.execute(sa.insert(_RESULT), rows[start:start + 10_000])
