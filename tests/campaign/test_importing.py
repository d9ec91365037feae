"""Importers on both backends: good files of every format, exact file:line errors, and
all-or-nothing (a bad line leaves the database as it was)."""

from __future__ import annotations

import hashlib
import json
import io
import sqlite3

import numpy as np
import pytest
from sqlalchemy import func, select

import workbench.campaign.catalog.importing as importing
from workbench.campaign.catalog.importing import (
    import_documents,
    import_qrels,
    import_queries,
    import_run,
)
from workbench.errors import InputError
from workbench.formats.trec import read_qrels, write_qrels
from workbench.store.models import (
    Assessor,
    Base,
    Document,
    Judgment,
    JudgmentEvent,
    Query,
    System,
)
from tests.stored_runs import stored_result_count, stored_results


def write(tmp_path, name, content: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(path)


def snapshot(db) -> dict[str, list[tuple]]:
    """Every row of every table, sorted: equal snapshots = nothing written."""
    out = {}
    with db.read() as s:
        for table in Base.metadata.sorted_tables:
            rows = s.execute(select(table)).all()
            out[table.name] = sorted(tuple(map(repr, r)) for r in rows)
    return out


def rows(db, stmt):
    with db.read() as s:
        return s.execute(stmt).all()


def results_of(db, tag):
    return stored_results(db, tag)


def grades_of(db, assessor):
    return rows(
        db,
        select(Query.ext_id, Document.ext_id, Judgment.grade)
        .join(Query, Query.id == Judgment.query_id)
        .join(Document, Document.id == Judgment.document_id)
        .join(Assessor, Assessor.id == Judgment.assessor_id)
        .where(Assessor.name == assessor)
        .order_by(Query.ext_id, Document.ext_id),
    )


def count(db, model) -> int:
    with db.read() as s:
        return s.scalar(select(func.count()).select_from(model))


# --- queries ----------------------------------------------------------------------------

TOPICS = {
    "q.tsv": "q1\tfirst title\nq2\tsecond title\tsecond desc\tsecond narr\n",
    "q.jsonl": '{"id": "q1", "title": "first title"}\n'
               '{"qid": "q2", "query": "second title", "desc": "second desc", "narrative": "second narr"}\n',
    "q.txt": "<top>\n<num> Number: q1\n<title> first title\n</top>\n"
             "<top>\n<num> Number: q2\n<title> second title\n<desc> Description:\nsecond desc\n"
             "<narr> Narrative:\nsecond narr\n</top>\n",
}


@pytest.mark.parametrize("name", sorted(TOPICS))
def test_import_queries_every_format(db, tmp_path, name):
    summary = import_queries(db, write(tmp_path, name, TOPICS[name]))
    assert (summary.records, summary.inserted, summary.updated) == (2, 2, 0)
    assert summary.message() == f"imported 2 queries from {name} (2 new, 0 updated)"
    assert rows(db, select(Query.ext_id, Query.title, Query.description, Query.narrative)
                .order_by(Query.ext_id)) == [
        ("q1", "first title", "", ""),
        ("q2", "second title", "second desc", "second narr"),
    ]


def test_reimporting_queries_updates_them(db, tmp_path):
    import_queries(db, write(tmp_path, "a.tsv", "q1\told\n"))
    summary = import_queries(db, write(tmp_path, "b.tsv", "q1\tnew\nq2\tother\n"))
    assert (summary.inserted, summary.updated) == (1, 1)
    assert rows(db, select(Query.ext_id, Query.title).order_by(Query.ext_id)) == [
        ("q1", "new"), ("q2", "other")]


# --- documents --------------------------------------------------------------------------

DOCS = {
    "d.tsv": "d1\tTitle one\tText one\nd2\t\tText [/b] two\n",
    "d.jsonl": '{"id": "d1", "title": "Title one", "text": "Text one", "url": "http://x/1"}\n'
               '{"docno": "d2", "contents": "Text [/b] two"}\n',
    "d.trec": "<DOC>\n<DOCNO> d1 </DOCNO>\n<HEADLINE>Title one</HEADLINE>\n<TEXT>\nText one\n</TEXT>\n</DOC>\n"
              "<DOC>\n<DOCNO>d2</DOCNO>\n<TEXT>Text [/b] two</TEXT>\n</DOC>\n",
}


@pytest.mark.parametrize("name", sorted(DOCS))
def test_import_documents_every_format(db, tmp_path, name):
    summary = import_documents(db, write(tmp_path, name, DOCS[name]))
    assert summary.message() == f"imported 2 documents from {name} (2 new, 0 updated)"
    got = rows(db, select(Document.ext_id, Document.title, Document.text).order_by(Document.ext_id))
    assert got == [("d1", "Title one", "Text one"), ("d2", "", "Text [/b] two")]


def test_documents_fill_stubs_created_by_a_run(db, tmp_path):
    import_run(db, write(tmp_path, "run.txt", "q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\n"))
    assert rows(db, select(Document.ext_id, Document.text).order_by(Document.ext_id)) == [
        ("d1", ""), ("d2", "")]
    summary = import_documents(db, write(tmp_path, "d.tsv", DOCS["d.tsv"]))
    assert (summary.inserted, summary.updated) == (0, 2)
    assert count(db, Document) == 2
    assert results_of(db, "sys") == [("q1", "d1", 1, 2.0), ("q1", "d2", 2, 1.0)]


# --- runs -------------------------------------------------------------------------------

RUN = """\
q1 Q0 a 1 3.0 bm25
q1 Q0 b 2 3.0 bm25
q1 Q0 c 3 3.0 bm25
q1 Q0 d 4 5.5 bm25
q2\tQ0\ta\t1\t-1\tbm25
"""


def test_import_run_ranks_in_trec_eval_order_and_creates_stubs(db, tmp_path):
    import_queries(db, write(tmp_path, "q.tsv", "q1\tknown\n"))
    summary = import_run(db, write(tmp_path, "run.txt", RUN))
    assert summary.message() == (
        "imported run 'bm25' from run.txt: 5 results for 2 queries "
        "(created 1 stub query and 4 stub documents)"
    )
    # Ties on score: docno descending (c, b, a), as trec_eval orders them.
    assert results_of(db, "bm25") == [
        ("q1", "d", 1, 5.5), ("q1", "c", 2, 3.0), ("q1", "b", 3, 3.0), ("q1", "a", 4, 3.0),
        ("q2", "a", 1, -1.0),
    ]


def test_import_orders_interleaved_queries_each_by_score_then_docno(db, tmp_path):
    """Rows of two queries interleaved in the file: each query's results in trec_eval's
    order (score descending, ties by docno descending); the file's rank column is ignored."""
    path = write(tmp_path, "run.txt", "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 a 1 2.0 t\n"
                                      "q1 Q0 c 3 0.5 t\nq2 Q0 b 2 2.0 t\n")
    import_run(db, path)
    assert results_of(db, "t") == [
        ("q1", "b", 1, 1.0), ("q1", "a", 2, 1.0), ("q1", "c", 3, 0.5),
        ("q2", "b", 1, 2.0), ("q2", "a", 2, 2.0),
    ]


def test_import_ranks_compare_scores_as_doubles_like_eval(db, tmp_path):
    """1.00000002 and 1.00000001 are one float32 but two doubles: trec_eval 10 (and eval)
    put a first; trec_eval 9 tied them and broke the tie by docno descending (b first)."""
    import_run(db, write(tmp_path, "run.txt", "q1 Q0 a 1 1.00000002 t\nq1 Q0 b 2 1.00000001 t\n"))
    assert [(d, rank) for _, d, rank, _ in results_of(db, "t")] == [("a", 1), ("b", 2)]


def test_run_tag_name_duplicate_and_replace(db, tmp_path):
    path = write(tmp_path, "run.txt", RUN)
    import_run(db, path)
    with pytest.raises(InputError) as info:
        import_run(db, path)
    assert str(info.value) == (
        f"{path}: run 'bm25' is already imported (5 results); pass --replace to replace it, "
        "or --name to import it under another tag"
    )
    other = import_run(db, path, name="bm25-copy")
    assert (other.tag, other.stub_documents) == ("bm25-copy", 0)
    smaller = write(tmp_path, "run2.txt", "q1 Q0 z 1 1.0 bm25\n")
    summary = import_run(db, smaller, replace=True)
    assert summary.replaced == 5
    assert summary.message().endswith("(created 0 stub queries and 1 stub document; replaced 5 earlier results)")
    assert results_of(db, "bm25") == [("q1", "z", 1, 1.0)]
    assert len(results_of(db, "bm25-copy")) == 5
    assert count(db, System) == 2


def test_run_with_two_tags_is_refused_without_name(db, tmp_path):
    path = write(tmp_path, "run.txt", "q1 Q0 a 1 1 one\n# comment\nq1 Q0 b 2 0.5 two\n")
    with pytest.raises(InputError) as info:
        import_run(db, path)
    assert str(info.value) == (
        f"{path}:3: run tag 'two' differs from 'one' on the first line; a run file holds one "
        "system (split the file, or pass --name to import it all under one tag)"
    )
    assert import_run(db, path, name="merged").inserted == 2


# --- qrels ------------------------------------------------------------------------------

QRELS = "q1 0 a 2\nq1 0 b 0\nq2 0 a 3\n"


def test_import_qrels_writes_judgments_and_set_events(db, tmp_path):
    summary = import_qrels(db, write(tmp_path, "qrels.txt", QRELS), assessor="ann")
    assert summary.message() == (
        "imported 3 judgments by 'ann' from qrels.txt for 2 queries (3 new, 0 changed, "
        "0 unchanged; created 2 stub queries and 2 stub documents)"
    )
    assert grades_of(db, "ann") == [("q1", "a", 2), ("q1", "b", 0), ("q2", "a", 3)]
    events = rows(db, select(JudgmentEvent.kind, JudgmentEvent.old_grade, JudgmentEvent.new_grade,
                             JudgmentEvent.note).order_by(JudgmentEvent.id))
    assert events == [("set", None, 2, "imported from qrels.txt")] * 1 + [
        ("set", None, 0, "imported from qrels.txt"), ("set", None, 3, "imported from qrels.txt")]


def test_reimporting_qrels_changes_only_different_grades(db, tmp_path):
    import_qrels(db, write(tmp_path, "qrels.txt", QRELS), assessor="ann")
    summary = import_qrels(db, write(tmp_path, "fix.txt", "q1 0 a 1\nq1 0 b 0\nq3 0 c 1\n"),
                           assessor="ann")
    assert (summary.inserted, summary.updated, summary.unchanged) == (1, 1, 1)
    assert grades_of(db, "ann") == [("q1", "a", 1), ("q1", "b", 0), ("q2", "a", 3), ("q3", "c", 1)]
    change = rows(db, select(JudgmentEvent.kind, JudgmentEvent.old_grade, JudgmentEvent.new_grade,
                             JudgmentEvent.note).where(JudgmentEvent.kind == "change"))
    assert change == [("change", 2, 1, "imported from fix.txt")]
    assert count(db, JudgmentEvent) == 5


def test_qrels_grade_outside_scale_names_its_line(db, tmp_path):
    path = write(tmp_path, "qrels.txt", "# header\nq1 0 a 2\nq1 0 c -1\n\nq1 0 b 4\n")
    before = snapshot(db)
    with pytest.raises(InputError) as info:
        import_qrels(db, path, assessor="ann")
    assert str(info.value) == f"{path}:5: grade 4 is not on the campaign scale (0, 1, 2, 3)"
    assert snapshot(db) == before


def test_qrels_need_an_assessor(db, tmp_path):
    with pytest.raises(InputError, match="needs an assessor"):
        import_qrels(db, write(tmp_path, "qrels.txt", QRELS), assessor=" ")


def test_qrels_round_trip_between_assessors(db, tmp_path):
    """Import as A, export A's judgments as qrels, re-import as B: the same grades."""
    import_qrels(db, write(tmp_path, "qrels.txt", QRELS + "q10 0 doc-ü 1\n"), assessor="A")
    exported = grades_of(db, "A")
    out = io.StringIO()
    write_qrels(out, [q for q, _, _ in exported], [d for _, d, _ in exported], [g for *_, g in exported])
    path = write(tmp_path, "exported.qrels", out.getvalue())
    assert read_qrels(path).rel.tolist() == [g for *_, g in exported]
    summary = import_qrels(db, path, assessor="B")
    assert (summary.inserted, summary.stub_queries, summary.stub_documents) == (4, 0, 0)
    assert grades_of(db, "B") == exported


# --- all-or-nothing ---------------------------------------------------------------------

BAD_FILES = [
    (import_queries, "q.tsv", "".join(f"q{i}\tt{i}\n" for i in range(7)) + "q7\n",
     ":8: expected 2 to 4 tab-separated columns (qid, title[, description[, narrative]]), found 1", {}),
    (import_queries, "q.jsonl", "".join(f'{{"id": "q{i}"}}\n' for i in range(7)) + '{"id": "q0"}\n',
     ":8: duplicate query id 'q0' (first on line 1)", {}),
    (import_queries, "q.txt", "<top><num>1</num></top>\n" * 1 + "<top><num>2</num>\n",
     ":2: <top> topic is never closed (expected </top> before the end of the file at line 2)", {}),
    (import_documents, "d.tsv", "".join(f"d{i}\tx\ty\n" for i in range(7)) + "d7\tonly two\n",
     ":8: expected 3 tab-separated columns (id, title, text) like the first document, found 2", {}),
    (import_documents, "d.jsonl", "".join(f'{{"id": "d{i}"}}\n' for i in range(7)) + b'{"id": "\xff"}\n'.decode("latin-1"),
     ":8: invalid UTF-8 at byte 9 of the line", {}),
    (import_documents, "d.trec", "<DOC><DOCNO>d1</DOCNO></DOC>\n<DOC><TEXT>no docno</TEXT></DOC>\n",
     ":2: document without a <DOCNO>", {}),
    (import_run, "run.txt", "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 0.5 t\nq1 Q0 c 3 x t\n",
     ":3: score (column 5) must be a finite number, found 'x'", {}),
    (import_run, "run.txt", "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 0.5\n",
     ":2: expected 6 columns (qid iter docno rank score tag), found 5", {}),
    (import_qrels, "qrels.txt", "q1 0 a 1\nq1 0 b 2\nq1 0 a 3\n",
     ":3: duplicate document 'a' for query 'q1'", {"assessor": "ann"}),
    (import_qrels, "qrels.txt", "q1 0 a 1\nq1 0 b 2\nq1 0 c 9\n",
     ":3: grade 9 is not on the campaign scale (0, 1, 2, 3)", {"assessor": "ann"}),
]


@pytest.mark.parametrize("importer, name, content, message, kwargs", BAD_FILES,
                         ids=[f"{f.__name__}-{n}-{i}" for i, (f, n, *_) in enumerate(BAD_FILES)])
def test_bad_last_line_writes_nothing(db, tmp_path, monkeypatch, importer, name, content, message, kwargs):
    # Earlier records are flushed in batches of 3 before the bad line is read: the rollback
    # must still remove them.
    monkeypatch.setattr(importing, "BATCH", 3)
    import_queries(db, write(tmp_path, "seed.tsv", "q1\tseed\n"))
    import_qrels(db, write(tmp_path, "seed.qrels", "q1 0 seed 1\n"), assessor="ann")
    content = content.encode("latin-1") if "\xff" in content else content
    path = write(tmp_path, name, content)
    before = snapshot(db)
    with pytest.raises(InputError) as info:
        importer(db, path, **kwargs)
    assert str(info.value) == path + message
    assert snapshot(db) == before


def test_sqlite_file_unchanged_by_a_failed_import(sqlite_db, tmp_path):
    import_queries(sqlite_db, write(tmp_path, "q.tsv", "q1\tone\n"))
    db_file = sqlite_db.engine.url.database

    def dump() -> list[str]:
        conn = sqlite3.connect(db_file)
        try:
            return list(conn.iterdump())
        finally:
            conn.close()

    before_dump = dump()
    before_bytes = hashlib.sha256(open(db_file, "rb").read()).hexdigest()
    big = "".join(f"q{i} Q0 d{i} 1 1.0 tag\n" for i in range(25_000)) + "q0 Q0 d0 2 1.0 tag\n"
    with pytest.raises(InputError, match=r":25001: duplicate document 'd0' for query 'q0'"):
        import_run(sqlite_db, write(tmp_path, "run.txt", big))
    late = "".join(f"d{i}\ttext\n" for i in range(25_000)) + "d1\tagain\n"
    with pytest.raises(InputError, match=r":25001: duplicate document id 'd1' \(first on line 2\)"):
        import_documents(sqlite_db, write(tmp_path, "docs.tsv", late))
    assert dump() == before_dump
    assert hashlib.sha256(open(db_file, "rb").read()).hexdigest() == before_bytes


def test_progress_callback_reports_writing(db, tmp_path, monkeypatch):
    monkeypatch.setattr(importing, "BATCH", 2)
    calls = []
    # a run is written as one row of arrays: one "writing" step
    import_run(db, write(tmp_path, "run.txt", RUN), progress=lambda *a: calls.append(a))
    assert calls == [("reading", 0, None), ("writing", 5, 5), ("committing", 5, 5)]
    calls.clear()
    import_qrels(db, write(tmp_path, "q.txt", "q1 0 a 1\nq1 0 b 0\nq2 0 a 2\n"), assessor="ann",
                 progress=lambda *a: calls.append(a))
    assert calls == [("reading", 0, None), ("writing", 2, 3), ("writing", 3, 3), ("writing", 3, 3),
                     ("committing", 3, 3)]


def test_ids_longer_than_the_column_are_refused_with_their_line(db, tmp_path):
    long_id = "x" * 201
    cases = [
        (import_queries, "q.tsv", f"q1\tok\n{long_id}\tt\n", {}, "query id"),
        (import_documents, "d.jsonl", f'{{"id": "d1"}}\n{{"id": "{long_id}"}}\n', {}, "document id"),
        (import_run, "run.txt", f"q1 Q0 d1 1 1 t\nq1 Q0 {long_id} 2 0.5 t\n", {}, "document id"),
        (import_qrels, "qrels.txt", f"q1 0 d1 1\n{long_id} 0 d1 1\n", {"assessor": "ann"}, "query id"),
    ]
    before = snapshot(db)
    for importer, name, content, kwargs, what in cases:
        path = write(tmp_path, name, content)
        with pytest.raises(InputError) as info:
            importer(db, path, **kwargs)
        assert str(info.value) == f"{path}:2: {what} {'x' * 40!r}... is longer than 200 characters"
    assert snapshot(db) == before
    with pytest.raises(InputError, match="run tag 'yyy.*longer than 200"):
        import_run(db, write(tmp_path, "r.txt", "q1 Q0 d1 1 1 t\n"), name="y" * 201)


def test_nul_characters_are_refused(db, tmp_path):
    path = write(tmp_path, "d.jsonl", '{"id": "d1", "text": "a\\u0000b"}\n')
    with pytest.raises(InputError, match=r"d.jsonl:1: text \('text'\) contains a NUL character"):
        import_documents(db, path)
    path = write(tmp_path, "d.tsv", b"d1\tok\nd2\ta\x00b\n")
    with pytest.raises(InputError, match=r"d.tsv:2: NUL byte in the line; expected a text file"):
        import_documents(db, path)
    assert count(db, Document) == 0


def test_stub_ids_map_correctly_after_deletions(db, tmp_path):
    import_documents(db, write(tmp_path, "d.tsv", "a\tx\nb\tx\nc\tx\nd\tx\n"))
    with db.write.begin() as s:  # leave a gap and a lower maximum
        s.execute(Document.__table__.delete().where(Document.ext_id.in_(["b", "d"])))
    summary = import_run(db, write(tmp_path, "run.txt", "q Q0 z 1 4 t\nq Q0 a 2 3 t\nq Q0 y 3 2 t\nq Q0 b 4 1 t\n"))
    assert summary.stub_documents == 3
    assert results_of(db, "t") == [("q", "z", 1, 4.0), ("q", "a", 2, 3.0), ("q", "y", 3, 2.0), ("q", "b", 4, 1.0)]
    assert rows(db, select(Document.ext_id).order_by(Document.id)) == [("a",), ("c",), ("b",), ("y",), ("z",)]


def test_imported_times_are_stored_like_recorded_grades(db, tmp_path):
    """Qrels rows go to the driver as tuples: their times must still be stored the way the
    ORM stores them (so that ordering by time and reading them back work)."""
    from workbench.campaign.judging.grades import record_grade

    import_qrels(db, write(tmp_path, "qrels.txt", "q1 0 a 1\n"), assessor="ann")
    record_grade(db, "ann", "q1", "a", 2)
    with db.read() as s:
        times = s.execute(select(JudgmentEvent.created_at).order_by(JudgmentEvent.id)).scalars().all()
        raw = s.execute(select(func.cast(JudgmentEvent.created_at, Base.metadata.tables["query"].c.title.type))
                        .order_by(JudgmentEvent.id)).scalars().all()
    assert times[0] <= times[1]
    assert (times[0].tzinfo is None) == (times[1].tzinfo is None)
    if db.engine.dialect.name == "sqlite":
        assert all(len(t) == 26 and "+" not in t for t in raw), raw


def test_empty_files(db, tmp_path):
    for importer, kwargs in ((import_queries, {}), (import_documents, {}), (import_qrels, {"assessor": "ann"})):
        summary = importer(db, write(tmp_path, "empty.tsv", "\ufeff\r\n"), **kwargs)
        assert (summary.records, summary.inserted) == (0, 0)
    with pytest.raises(InputError, match="empty.txt: the run file has no results"):
        import_run(db, write(tmp_path, "empty.txt", "# nothing\n"))
    assert count(db, Judgment) == count(db, Query) == count(db, System) == 0


# --- two imports at once (PostgreSQL raced on the unique keys) -----------------------------


def test_two_imports_creating_the_same_stubs_both_succeed(db, tmp_path):
    """Two runs naming the same unknown queries and documents, imported at once: the second
    used to fail on uq_query_ext_id (PostgreSQL, 3 of 3 tries). Imports now run one at a
    time, so the second finds the first's stubs and creates none of its own."""
    from tests.reliability.conftest import race

    lines = [f"nq{q} Q0 nd{d} {d + 1} {10 - d} TAG" for q in range(3) for d in range(4)]
    runs = [write(tmp_path, f"r{i}.txt", "\n".join(lines).replace("TAG", f"r{i}") + "\n")
            for i in range(2)]
    out = race(lambda: import_run(db, runs[0]), lambda: import_run(db, runs[1]))
    first, second = out["first"], out["second"]
    assert not isinstance(first, Exception), first
    assert not isinstance(second, Exception), second
    assert (first.stub_queries, first.stub_documents) == (3, 4)
    assert (second.stub_queries, second.stub_documents) == (0, 0)
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(Query)) == 3
        assert s.scalar(select(func.count()).select_from(Document)) == 4
        assert stored_result_count(db) == 24


def test_the_same_tag_imported_twice_at_once_is_refused_once(db, tmp_path):
    """Both processes see the tag as new without the queue; now the second is told it is
    already imported, as it would be a second later."""
    from tests.reliability.conftest import race

    run = write(tmp_path, "r.txt", RUN)
    out = race(lambda: import_run(db, run), lambda: import_run(db, run))
    assert out["first"].inserted == 5
    assert isinstance(out["second"], InputError)
    assert out["second"].reason.startswith("run 'bm25' is already imported (5 results)")


def test_a_new_assessor_created_by_two_imports_at_once_exists_once(db, tmp_path):
    from tests.reliability.conftest import race

    a = write(tmp_path, "a.qrels", "q1 0 d1 1\n")
    b = write(tmp_path, "b.qrels", "q2 0 d2 1\n")
    out = race(lambda: import_qrels(db, a, assessor="ann"), lambda: import_qrels(db, b, assessor="ann"))
    assert [out["first"].inserted, out["second"].inserted] == [1, 1]
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(Assessor)) == 1
        assert s.scalar(select(func.count()).select_from(Judgment)) == 2


def test_an_import_kept_waiting_past_the_lock_wait_gives_up_in_one_line(db_url, tmp_path, monkeypatch):
    """The wait is bounded on both backends (PostgreSQL: lock_timeout on the import lock;
    SQLite: BEGIN IMMEDIATE retried until the deadline) and ends in our one line."""
    import workbench.store.dbapi as engine  # BUSY_TIMEOUT_MS: read when connections are made
    from tests.reliability.conftest import race
    from workbench.campaign import writing
    from workbench.campaign.database import Database
    from workbench.errors import DatabaseError

    monkeypatch.setattr(engine, "BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr(writing, "LOCK_WAIT_S", 0.3)
    db = Database.open(db_url)
    try:
        a, b = write(tmp_path, "a.txt", RUN), write(tmp_path, "b.txt", RUN.replace("bm25", "ql"))
        out = race(lambda: import_run(db, a), lambda: import_run(db, b), overlap_s=1.5)
        assert out["first"].inserted == 5
        assert isinstance(out["second"], DatabaseError)
        assert str(out["second"]) == ("the database stayed locked by another writer for 0.3 s; "
                                      "nothing was written (try again when it has finished)")
        with db.read() as s:
            assert s.scalars(select(System.tag)).all() == ["bm25"]
            assert stored_result_count(db) == 5
    finally:
        db.close()


def test_an_import_that_has_to_wait_says_so_through_progress(db, tmp_path):
    """The CLI's bar shows "waiting" while another import holds the lock (held 1 s here,
    past NOTICE_AFTER_S), on both backends; an import that does not wait never says it."""
    from tests.reliability.conftest import race

    a, b = write(tmp_path, "a.txt", RUN), write(tmp_path, "b.txt", RUN.replace("bm25", "ql"))
    first, second = [], []
    race(lambda: import_run(db, a, progress=lambda *c: first.append(c)),
         lambda: import_run(db, b, progress=lambda *c: second.append(c)), overlap_s=1.0)
    assert [c[0] for c in first] == ["reading", "writing", "committing"]
    assert [c[0] for c in second] == ["reading", "waiting", "writing", "committing"]
    assert second[1] == ("waiting", 0, None)


def test_ids_whose_hashes_collide_are_told_apart_byte_for_byte(db, tmp_path, monkeypatch):
    """Known ids are found by a 64-bit hash, confirmed byte for byte; were every hash the
    same, each id must still map to its own row (the control: with real hashes)."""
    import numpy as np

    from workbench.campaign.catalog import id_maps

    first = write(tmp_path, "a.txt", "q1 Q0 d1 1 3 A\nq1 Q0 d2 2 2 A\nq2 Q0 d3 1 1 A\n")
    second = write(tmp_path, "b.txt", "q2 Q0 d2 1 5 B\nq1 Q0 d3 1 4 B\nq1 Q0 d1 2 3 B\nq2 Q0 d4 2 1 B\n")
    import_run(db, first)
    monkeypatch.setattr(id_maps, "hash_bytes", lambda values: np.zeros(len(values), dtype=np.uint64))
    summary = import_run(db, second)
    assert (summary.stub_queries, summary.stub_documents) == (0, 1)
    assert results_of(db, "B") == [("q1", "d3", 1, 4.0), ("q1", "d1", 2, 3.0),
                                   ("q2", "d2", 1, 5.0), ("q2", "d4", 2, 1.0)]
    with db.read() as s:
        assert sorted(s.scalars(select(Document.ext_id))) == ["d1", "d2", "d3", "d4"]


def test_known_ids_are_found_whatever_they_hold_and_in_any_order(db, tmp_path):
    """store.ext_ids.known_ids sends the names as one JSON array (SQLite) or one text[]
    (PostgreSQL) and reads the ids back in the names' order: ids with a quote, a backslash,
    JSON's own syntax, non-ASCII letters, and thousands of them out of order map to their
    own rows, known ones to the same rows as before, unknown ones to new stubs."""
    import random

    odd = ['d"q', "d\\b", '"]', "[1,2]", "\\u0041", "dé", "文書7", "null", "-1", "d,e", "'x'"]
    rng = random.Random(3)
    known = odd[::2] + [f"k{i}" for i in range(3000)]
    import_documents(db, write(tmp_path, "d.jsonl", "".join(
        json.dumps({"id": x, "text": f"text of {x}"}) + "\n" for x in known)))
    before = dict(rows(db, select(Document.ext_id, Document.id)))
    names = odd + [f"k{i}" for i in range(0, 6000, 2)]
    rng.shuffle(names)
    run = "".join(f"q1 Q0 {x} {i + 1} {10_000 - i} t\n" for i, x in enumerate(names))
    summary = import_run(db, write(tmp_path, "run.txt", run))
    after = dict(rows(db, select(Document.ext_id, Document.id)))
    assert summary.stub_documents == len(set(names) - set(known)) == 5 + 1500
    assert {x: after[x] for x in known} == before  # known ids kept their rows
    assert len(set(after.values())) == len(after)
    assert [d for _, d, _, _ in results_of(db, "t")] == names


def test_qrels_outside_the_assessors_assignment_are_counted_and_strict_refuses_them(db, tmp_path):
    """`import qrels -a bob` brought in grades outside bob's queue silently."""
    from tests.tui.factory import build_campaign

    camp = build_campaign(db, n_queries=2, assessors=("bob",))
    inside = camp.queues["q1"]["bob"][:2]
    path = write(tmp_path, "bob.qrels",
                 f"q1 0 {inside[0]} 2\nq1 0 nowhere 1\nq1 0 {inside[1]} 0\nq9 0 {inside[0]} 3\n")
    before = snapshot(db)
    with pytest.raises(InputError) as info:
        import_qrels(db, path, assessor="bob", strict=True)
    assert str(info.value) == (
        f"{path}:2: 2 of 4 grades are outside the assignment of 'bob' (the first: query q1, "
        "document nowhere); --strict refuses them: nothing was written")
    assert snapshot(db) == before
    summary = import_qrels(db, path, assessor="bob")
    assert summary.outside == 2
    assert summary.message().endswith(
        "; 2 grades outside the assignment of 'bob' (--strict refuses them)")
    # an assessor without a queue (qrels from elsewhere): nothing is outside
    assert import_qrels(db, path, assessor="nobody", strict=True).outside == 0
