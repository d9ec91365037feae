"""How the judging assessors agree, as a lead reads it: `workbench agree --per-query` over
them, the reading of a kappa/alpha, and the confusion matrix of two assessors (numbers from
campaign.agreement.report and metrics.agreement, the CLI's own paths)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.campaign.database import Database

if TYPE_CHECKING:  # annotations only
    from workbench.campaign.agreement.report import AgreementReport


@dataclass(frozen=True)
class Confusion:
    a: str
    b: str
    categories: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]  # rows: a's grade, columns: b's grade

    @property
    def n(self) -> int:
        return sum(map(sum, self.counts))


def confusion(db: Database, a: str, b: str) -> Confusion:
    """How often assessor `a` gave grade i where `b` gave j, over items both graded."""
    from workbench.campaign.agreement.report import load_labels
    from workbench.campaign.judging.assessing import scale
    from workbench.metrics.agreement import confusion_matrix

    labels = load_labels(db, [a, b])
    cats = [e.grade for e in scale(db)] or None
    matrix, categories = confusion_matrix(labels.grades[:, 0], labels.grades[:, 1], cats)
    return Confusion(a, b, tuple(int(c) for c in categories),
                     tuple(tuple(int(v) for v in row) for row in matrix))


def reading(value: float) -> str:
    """The reading `workbench agree` prints (metrics.agreement.reading)."""
    from workbench.metrics.agreement import reading as one_reading

    return one_reading(value)


def judges_agreement(db: Database, *, binary: bool = False) -> AgreementReport | None:
    """`workbench agree --per-query` over the assessors who graded something (a lead who
    only adjudicated is left out), or None when fewer than two did."""
    from workbench.campaign.assessors.roster import grading
    from workbench.campaign.agreement.report import agreement_from_db

    names = grading(db)
    if len(names) < 2:
        return None
    return agreement_from_db(db, names, binary=binary, per_query=True)
