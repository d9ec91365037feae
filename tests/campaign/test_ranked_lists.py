"""campaign.comparison.ranked_lists: a system's ranked list for one query, in the order scoring reads
the stored run, with the source's grade and every assessor's."""

from __future__ import annotations

from tests.tui.factory import build_campaign
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.catalog.importing import import_run
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.comparison.ranked_lists import grades_of_ranked_list, ranked_list
from workbench.campaign.agreement.adjudication import adjudicate


def test_ranked_list_is_trec_order_with_ties_by_docno_descending(sqlite_db, tmp_path):
    db = sqlite_db
    camp = build_campaign(db, n_queries=2, n_systems=1, depth=4, assessors=("alice", "bob"))
    q, other = camp.queries
    docs = sorted(camp.queues[q]["alice"])
    run = tmp_path / "tied.run"  # every score tied: trec_eval sorts by docno descending
    run.write_text("".join(f"{q} Q0 {d} {i} 1.0 tied\n" for i, d in enumerate(docs, 1))
                   + f"{other} Q0 {docs[0]} 1 9.0 tied\n")
    import_run(db, run)
    record_grade(db, "alice", q, docs[-2], 2)
    record_grade(db, "bob", q, docs[-2], 0)
    items = ranked_list(db, "tied", q, QrelsSource.assessor("alice"))
    assert [d.document for d in items] == docs[::-1]
    assert [d.rank for d in items] == [1, 2, 3, 4]
    assert [d.title for d in items] == [f"Document {d}" for d in docs[::-1]]
    assert [d.score for d in items] == [1.0] * 4
    assert items[1].grade == 2 and items[1].grades == (("alice", 2), ("bob", 0))
    assert items[0].grade is None and items[0].grades == ()
    assert all(d.final is None for d in items)
    majority = ranked_list(db, "tied", q, QrelsSource.consensus("majority"))
    assert majority[1].grade == 0  # tie 2/0 goes to the lower grade
    assert grades_of_ranked_list(items) == [0, 2, 0, 0]
    adjudicate(db, "lead", q, docs[-2], 3)
    adjudicated = ranked_list(db, "tied", q, QrelsSource.consensus("adjudicated"))
    assert adjudicated[1].final == 3 and adjudicated[1].grade == 3
    assert [d.document for d in ranked_list(db, "tied", other)] == [docs[0]]
