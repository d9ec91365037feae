"""The validation samples of machine assessors (`validation_item`): what `pool --validate`
writes and `calibrate` reads. The rules (how items are chosen, what the probabilities
mean) live in campaign/pooling/validation.py and campaign/agreement/calibration.py."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.store.bulk import bulk_insert
from workbench.store.models import ValidationItem, utcnow


@dataclass(frozen=True)
class ValidationArrays:
    """One machine's validation items: query_id[i], document_id[i] (int64), stratum[i]
    (int64, -1 when none), probability[i] (float64, NaN for a non-probability sample) and
    strategy[i] (str), sorted by (query id, document id)."""

    query_id: np.ndarray
    document_id: np.ndarray
    stratum: np.ndarray
    probability: np.ndarray
    strategy: np.ndarray

    def __len__(self) -> int:
        return int(self.query_id.size)


COLUMNS = ("machine_id", "query_id", "document_id", "strategy", "stratum",
           "inclusion_probability", "seed", "created_at")


def add_validation_items(session: Session, machine_id: int, strategy: str, seed: int,
                         query_id, document_id, stratum, probability) -> None:
    """Insert the chosen items (parallel arrays; a NaN probability is stored as NULL)."""
    now = utcnow()
    rows = [
        (machine_id, int(q), int(d), strategy, int(s), None if np.isnan(p) else float(p), seed, now)
        for q, d, s, p in zip(np.asarray(query_id).tolist(), np.asarray(document_id).tolist(),
                              np.asarray(stratum).tolist(), np.asarray(probability, dtype=float).tolist())
    ]
    if rows:
        bulk_insert(session.connection(), ValidationItem.__table__, COLUMNS, rows)


def validation_items(session: Session, machine_id: int) -> ValidationArrays:
    """Every validation item of the machine."""
    rows = session.execute(
        select(ValidationItem.query_id, ValidationItem.document_id, ValidationItem.stratum,
               ValidationItem.inclusion_probability, ValidationItem.strategy)
        .where(ValidationItem.machine_id == machine_id)
        .order_by(ValidationItem.query_id, ValidationItem.document_id)
    ).all()
    return ValidationArrays(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.int64),
        np.array([-1 if r[2] is None else r[2] for r in rows], dtype=np.int64),
        np.array([np.nan if r[3] is None else r[3] for r in rows], dtype=np.float64),
        np.array([r[4] for r in rows], dtype=object),
    )


__all__ = ["ValidationArrays", "add_validation_items", "validation_items"]
