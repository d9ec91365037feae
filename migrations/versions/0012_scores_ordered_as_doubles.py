"""stored runs ordered as trec_eval 10 orders them (scores compared as doubles), and
campaign.score_compat (`workbench campaign --compat 9` orders them as trec_eval 9)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27

Runs imported before this revision were stored with their scores compared as 32-bit floats
(trec_eval 9's order); two scores that differ only beyond float32 (16-digit scores of
neural rankers) then tied and fell to the docno order. The float64 scores are stored, so
each run is re-sorted from them; a run whose order does not change is not rewritten.
Downgrade puts the float32 order back.
"""
from __future__ import annotations

import hashlib

from alembic import op
import numpy as np
import sqlalchemy as sa

from workbench.metrics.ranking import trec_order


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

# The tables as this revision knows them (the models may change later; this must not).
_RUN_ARRAYS = sa.table('run_arrays', sa.column('system_id', sa.Integer), sa.column('encoding', sa.Integer),
                       sa.column('generation', sa.BigInteger), sa.column('n_rows', sa.Integer),
                       sa.column('query_ids', sa.LargeBinary), sa.column('document_ids', sa.LargeBinary),
                       sa.column('scores', sa.LargeBinary))
_DOCUMENT = sa.table('document', sa.column('id', sa.Integer), sa.column('ext_id', sa.String))
_ENCODING = 1  # int32 query ids, int32 document ids, float64 scores, little-endian


def _resort(compat: int) -> None:
    """Every stored run in trec_eval `compat`'s order (per query by database id, score
    descending at that precision, ties by docno descending)."""
    conn = op.get_bind()
    systems = [sid for (sid,) in conn.execute(
        sa.select(_RUN_ARRAYS.c.system_id).where(_RUN_ARRAYS.c.encoding == _ENCODING)
        .order_by(_RUN_ARRAYS.c.system_id))]
    if not systems:
        return
    docs = conn.execute(sa.select(_DOCUMENT.c.id, _DOCUMENT.c.ext_id).order_by(_DOCUMENT.c.id)).all()
    doc_ids = np.array([d for d, _ in docs], dtype=np.int64)
    doc_names = np.array([n.encode('utf-8') for _, n in docs], dtype='S') if docs else np.empty(0, 'S1')
    for sid in systems:  # one run in memory at a time
        q, d, s = conn.execute(
            sa.select(_RUN_ARRAYS.c.query_ids, _RUN_ARRAYS.c.document_ids, _RUN_ARRAYS.c.scores)
            .where(_RUN_ARRAYS.c.system_id == sid)).one()
        qid = np.frombuffer(q, dtype='<i4').astype(np.int64)
        did = np.frombuffer(d, dtype='<i4').astype(np.int64)
        score = np.frombuffer(s, dtype='<f8')
        order = trec_order(qid, score, doc_names[np.searchsorted(doc_ids, did)], compat=compat)
        if np.array_equal(order, np.arange(order.size)):
            continue
        blobs = {'query_ids': qid[order].astype('<i4').tobytes(),
                 'document_ids': did[order].astype('<i4').tobytes(),
                 'scores': score[order].astype('<f8').tobytes()}
        digest = hashlib.blake2b(digest_size=5)  # as store/run_arrays.py: readers compare it
        for blob in blobs.values():
            digest.update(blob)
        conn.execute(sa.update(_RUN_ARRAYS).where(_RUN_ARRAYS.c.system_id == sid).values(
            generation=int.from_bytes(digest.digest(), 'big'), **blobs))


def upgrade() -> None:
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.add_column(sa.Column('score_compat', sa.Integer(), server_default='10', nullable=False))
    _resort(10)


def downgrade() -> None:
    _resort(9)
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.drop_column('score_compat')
