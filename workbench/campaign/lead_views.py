"""Read models for the team-lead screens that no CLI use case gives: a system's ranked list
for one query with every assessor's grade, interpolated precision–recall points, the
confusion matrix of two assessors, and the quick calculator on typed text.

NOT blind (system names, ranks, every assessor's grade): lead screens only. Numbers come
from the same places as the CLI: scoring.py (the metrics registry) and metrics.graded /
metrics.agreement, so a screen and `workbench score|agree|quick` cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from workbench.campaign.database import Database
from workbench.campaign.qrels import qrels_rows
from workbench.errors import InputError, NotFoundError
from workbench.store.models import (
    Adjudication,
    Assessor,
    Document,
    Judgment,
    Query,
    Result,
    System,
)

RECALL_LEVELS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class RankedDoc:
    rank: int  # 1-based, trec_eval order (score descending, ties by docno descending)
    document: str
    title: str
    score: float
    grade: int | None  # under the chosen qrels source; None = unjudged there
    grades: tuple[tuple[str, int], ...]  # every assessor's current grade
    final: int | None  # adjudicated grade, if any


def ranked_list(
    db: Database,
    system: str,
    query: str,
    *,
    assessor: str | None = None,
    consensus: str | None = None,
) -> list[RankedDoc]:
    """`system`'s results for `query` in evaluation order, with the source's grade."""
    with db.read() as s:
        sid = s.scalar(select(System.id).where(System.tag == system))
        if sid is None:
            raise NotFoundError(f"unknown system {system!r}")
        qid = s.scalar(select(Query.id).where(Query.ext_id == query))
        if qid is None:
            raise NotFoundError(f"unknown query {query!r}")
        results = s.execute(
            select(Document.id, Document.ext_id, Document.title, Result.score)
            .join(Document, Document.id == Result.document_id)
            .where(Result.system_id == sid, Result.query_id == qid)
        ).all()
        grades: dict[int, list[tuple[str, int]]] = {}
        for did, name, g in s.execute(
            select(Judgment.document_id, Assessor.name, Judgment.grade)
            .join(Assessor, Assessor.id == Judgment.assessor_id)
            .where(Judgment.query_id == qid)
        ):
            grades.setdefault(did, []).append((name, g))
        finals = dict(s.execute(
            select(Adjudication.document_id, Adjudication.grade).where(Adjudication.query_id == qid)
        ).all())
        source = {d: g for _, d, g in qrels_rows(
            s, assessor=assessor, consensus=consensus, queries=[query])}
    # trec_eval's order: score descending, ties by docno descending (DESIGN §3).
    ordered = sorted(results, key=lambda r: (r[3], r[1]), reverse=True)
    return [
        RankedDoc(i + 1, ext, title or "", float(score), source.get(ext),
                  tuple(sorted(grades.get(did, []))), finals.get(did))
        for i, (did, ext, title, score) in enumerate(ordered)
    ]


def pr_curves(
    db: Database,
    *,
    assessor: str | None = None,
    consensus: str | None = None,
) -> dict[str, list[float]]:
    """Each system's mean interpolated precision at recall 0.0, 0.1, ... 1.0 (trec_eval's
    iprec_at_recall, through scoring.py), system -> 11 values."""
    from workbench.campaign.scoring import score_campaign

    table = score_campaign(db, ["iprec_at_recall"], assessor=assessor, consensus=consensus)
    return {
        system: [float(table.means[m][i]) for m in table.measures]
        for i, system in enumerate(table.systems)
        if table.n_queries[i]
    }


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
    from workbench.campaign.agreement import load_labels
    from workbench.campaign.assessing import scale
    from workbench.metrics.agreement import confusion_matrix

    labels = load_labels(db, [a, b])
    cats = [e.grade for e in scale(db)] or None
    matrix, categories = confusion_matrix(labels.grades[:, 0], labels.grades[:, 1], cats)
    return Confusion(a, b, tuple(int(c) for c in categories),
                     tuple(tuple(int(v) for v in row) for row in matrix))


# ---------------------------------------------------------------- quick calculator


@dataclass(frozen=True)
class QuickResult:
    grades: tuple[int, ...]
    summary: object  # metrics.graded.QuickSummary
    table: object  # metrics.graded.RankTable of the chosen formulation
    formulations: tuple  # every formulation in summary.dcg, in display order


def parse_grades(text: str, where: str = "grades") -> list[int]:
    """Grades in rank order: integers separated by spaces, commas or newlines; or a pasted
    ranked list of two or more lines, one document per line, whose LAST field is its grade
    ("d12 2", "101 0 d12 2"). `#` starts a comment. InputError names the line and the bad
    token (a typo such as "3 x 2" on one line is an error, never a silent guess)."""
    lines = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        tokens = line.split("#", 1)[0].replace(",", " ").replace(";", " ").split()
        if tokens:
            lines.append((lineno, tokens))
    ranked = len(lines) >= 2 and all(
        len(t) >= 2 and _is_int(t[-1]) and not all(map(_is_int, t)) for _, t in lines
    )
    if ranked:
        return [int(t[-1]) for _, t in lines]
    out = []
    for lineno, tokens in lines:
        for token in tokens:
            if not _is_int(token):
                raise InputError(where, lineno, f"{token!r} is not an integer grade "
                                 "(give grades, or one 'document grade' per line)")
            out.append(int(token))
    if not out:
        raise InputError(where, None, "type some grades, e.g. 3 2 3 0 1 2")
    return out


def _is_int(token: str) -> bool:
    try:
        int(token)
    except ValueError:
        return False
    return True


def quick_score(
    text: str,
    *,
    k: int | None = None,
    rel_level: int = 1,
    num_rel: int | None = None,
    gain: str = "linear",
    discount: str = "log2",
    base: float = 2.0,
) -> QuickResult:
    """`workbench quick` on typed text: InputError for anything a user can get wrong."""
    from workbench.metrics.graded import FORMULATIONS, Formulation, quick_summary, rank_table

    grades = parse_grades(text)
    chosen = Formulation(gain, discount, base)
    formulations = list(FORMULATIONS) + ([chosen] if chosen not in FORMULATIONS else [])
    try:
        summary = quick_summary(grades, k=k, rel_level=rel_level, num_rel=num_rel,
                                formulations=formulations)
    except ValueError as exc:
        raise InputError("grades", None, str(exc)) from None
    return QuickResult(tuple(grades), summary, rank_table(grades, chosen), tuple(formulations))


def grades_of_ranked_list(items: list[RankedDoc]) -> list[int]:
    """A ranked list's grades for the calculator (unjudged -> 0, as trec_eval counts them)."""
    return [0 if d.grade is None or d.grade < 0 else d.grade for d in items]



# ---------------------------------------------------------------- scoreboard helpers


def judged_depth(measures: list[str] | tuple[str, ...]) -> int:
    """The k of the Judged@k column: the deepest cutoff among `measures`, else 10.
    Raises UsageError for a name the registry does not know (before any scoring)."""
    from workbench.errors import UsageError
    from workbench.metrics.measures import MeasureError, parse_measures

    try:
        parsed = parse_measures(list(measures))
    except MeasureError as exc:
        raise UsageError(str(exc)) from None
    cutoffs = [m.cutoff for m in parsed if m.cutoff]
    return max(cutoffs) if cutoffs else 10


def qrels_sources(db: Database) -> list[str]:
    """Every qrels source a lead can score against, in menu order."""
    from workbench.campaign.adjudication import judging_assessors

    return ["consensus:majority", "consensus:mean", "consensus:adjudicated"] + [
        f"assessor:{name}" for name in judging_assessors(db)
    ]


def split_source(source: str) -> dict[str, str]:
    """'assessor:alice' -> {'assessor': 'alice'}; 'consensus:mean' -> {'consensus': 'mean'}."""
    kind, _, name = source.partition(":")
    if kind not in ("assessor", "consensus") or not name:
        from workbench.errors import UsageError

        raise UsageError(f"unknown qrels source {source!r}")
    return {kind: name}


def query_ids(db: Database) -> list[str]:
    with db.read() as s:
        return list(s.scalars(select(Query.ext_id).order_by(Query.id)))


def query_titles(db: Database) -> dict[str, str]:
    with db.read() as s:
        return {q: t or "" for q, t in s.execute(select(Query.ext_id, Query.title))}


def reading(value: float) -> str:
    """The reference notes' reading of a kappa/alpha with the Landis & Koch band, as
    `workbench agree` prints it ("acceptable (substantial)")."""
    from workbench.metrics.agreement import interpret, landis_koch

    return f"{interpret(value)} ({landis_koch(value)})"


def lead_agreement(db: Database, *, binary: bool = False):
    """`workbench agree --per-query` over the assessors who graded something (a lead who
    only adjudicated is left out), or None when fewer than two did."""
    from workbench.campaign.adjudication import judging_assessors
    from workbench.campaign.agreement import agreement_from_db

    names = judging_assessors(db)
    if len(names) < 2:
        return None
    return agreement_from_db(db, names, binary=binary, per_query=True)


def lead_comparison(db: Database, measure: str | None, *, test: str = "t",
                    consensus: str = "majority"):
    """`workbench compare --by-assessor` for the Systems screen: the consensus and each
    judging assessor's ranking (default measure: the campaign's first), with the same
    seed as the CLI so randomization/bootstrap p-values match it."""
    from workbench.campaign.adjudication import judging_assessors
    from workbench.campaign.comparison import compare_systems
    from workbench.campaign.settings import campaign_measures
    from workbench.errors import UsageError
    from workbench.metrics.measures import MeasureError

    measure = measure or campaign_measures(db)[0]
    try:
        return compare_systems(db, measure, consensus=consensus,
                               assessors=judging_assessors(db) or None, test=test)
    except (MeasureError, ValueError) as exc:
        raise UsageError(str(exc)) from None
