"""Generated answers (`answer`): the SQL of importing, listing, removing and reading them.

SQL text on a Reader (store.dbapi): `conn` is a Session, a Connection or a Reader.
An answer's sentences and references are JSON (store/models.py, `Answer`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone

from workbench.store.dbapi import as_reader

COLUMNS = ("system_id", "query_id", "sentences", "refs", "length", "shape", "cites_by_id",
           "meta", "created_at")


@dataclass(frozen=True)
class StoredAnswer:
    id: int
    run: str
    query: str
    sentences: list  # [{"text": str, "citations": [int]}]
    references: list  # [str]
    length: int
    shape: str
    cites_by_id: bool
    meta: dict


def answer_keys(conn) -> set[tuple[int, int]]:
    """Every stored (system id, query id)."""
    return {(int(s), int(q)) for s, q in as_reader(conn).rows("SELECT system_id, query_id FROM answer")}


def delete_answers(conn, keys: list[tuple[int, int]]) -> None:
    reader = as_reader(conn)
    for sid, qid in keys:
        reader.run("DELETE FROM answer WHERE system_id = :s AND query_id = :q", {"s": sid, "q": qid})


def insert_answers(conn, rows: list[tuple]) -> None:
    """Rows in COLUMNS order without created_at (set here)."""
    from workbench.store.bulk import bulk_insert

    now = datetime.now(timezone.utc)
    bulk_insert(as_reader(conn), "answer", COLUMNS, [(*row, now) for row in rows])


def answer_counts(conn) -> dict[str, int]:
    """Answers per run tag (runs without answers are left out)."""
    return {tag: int(n) for tag, n in as_reader(conn).rows(
        "SELECT s.tag, count(*) FROM answer a JOIN system s ON s.id = a.system_id GROUP BY s.tag")}


def answered_pairs(conn) -> list[tuple[int, int]]:
    """(system id, query id) of every answer, and of every pair with nugget assignments."""
    return [(int(s), int(q)) for s, q in as_reader(conn).rows(
        "SELECT system_id, query_id FROM answer UNION "
        "SELECT DISTINCT system_id, query_id FROM nugget_assignment")]


_SELECT = ("SELECT a.id, s.tag, q.ext_id, a.sentences, a.refs, a.length, a.shape, a.cites_by_id, a.meta "
           "FROM answer a JOIN system s ON s.id = a.system_id JOIN query q ON q.id = a.query_id")


def _stored(row) -> StoredAnswer:
    aid, tag, query, sentences, refs, length, shape, by_id, meta = row
    return StoredAnswer(int(aid), tag, query, json.loads(sentences), json.loads(refs), int(length),
                        shape, bool(by_id), json.loads(meta))


def stored_answers(conn) -> list[StoredAnswer]:
    """Every answer, in import order (the answer's id)."""
    return [_stored(r) for r in as_reader(conn).rows(_SELECT + " ORDER BY a.id")]


def stored_answer(conn, answer_id: int) -> StoredAnswer | None:
    row = as_reader(conn).first(_SELECT + " WHERE a.id = :id", {"id": answer_id})
    return None if row is None else _stored(row)


def answer_ids(conn) -> list[tuple[int, int, int]]:
    """(answer id, query id, system id) of every answer, by answer id."""
    return [(int(a), int(q), int(s)) for a, q, s in as_reader(conn).rows(
        "SELECT id, query_id, system_id FROM answer ORDER BY id")]


def document_texts(conn, ext_ids: list[str]) -> dict[str, tuple[str, str]]:
    """(title, text) of the imported documents among `ext_ids` (a citation of a segment
    that was never imported is simply absent)."""
    from workbench.store.dbapi import in_list

    if not ext_ids:
        return {}
    among, params = in_list("d", ext_ids)
    return {e: (t or "", x or "") for e, t, x in as_reader(conn).rows(
        f"SELECT ext_id, title, text FROM document WHERE ext_id IN {among}", params)}


def answer_only_tags(conn) -> list[str]:
    """Tags of the runs that have answers and no ranked results."""
    return [t for (t,) in as_reader(conn).rows(
        "SELECT s.tag FROM system s WHERE EXISTS (SELECT 1 FROM answer a WHERE a.system_id = s.id) "
        "AND NOT EXISTS (SELECT 1 FROM run_arrays r WHERE r.system_id = s.id) ORDER BY s.id")]
