"""Nugget banks, nuggets, nugget assignments and their event history: every SQL statement
of the answers domain's rules (campaign/answers/). SQL text on a Reader (store.dbapi):
`conn` is a Session, a Connection or a Reader. Labels: 2 support, 1 partial_support,
0 not_support."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from workbench.store.bulk import bulk_insert, indexes_rebuilt, parents_locked
from workbench.store.dbapi import as_reader

ASSIGNMENT_COLUMNS = ("query_id", "system_id", "nugget_id", "assessor_id", "label", "note",
                      "seconds", "updated_at")
EVENT_COLUMNS = ("query_id", "system_id", "nugget_id", "assessor_id", "kind", "old_label",
                 "new_label", "note", "seconds", "created_at")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _stamp(reader):
    """One timestamp for a bulk insert; on SQLite the text the sqlite3 adapter would make of
    it, made once (adapting it per row cost 1 s per 180 000 rows)."""
    now = _now()
    return now.isoformat(" ") if reader.dialect == "sqlite" else now


@dataclass(frozen=True)
class NuggetRow:
    id: int
    query_id: int
    text: str
    importance: str
    position: int
    origin: str


def nuggets(conn, query_id: int | None = None) -> list[NuggetRow]:
    """The nuggets of one topic (or of all), by topic and position."""
    where, params = ("WHERE query_id = :q ", {"q": query_id}) if query_id is not None else ("", {})
    return [NuggetRow(int(i), int(q), t, imp, int(p), o) for i, q, t, imp, p, o in as_reader(conn).rows(
        "SELECT id, query_id, text, importance, position, origin FROM nugget "
        f"{where}ORDER BY query_id, position, id", params)]


def nugget_arrays(conn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nugget id, query id, vital as bool) of every nugget, by id."""
    rows = as_reader(conn).rows("SELECT id, query_id, importance FROM nugget ORDER BY id")
    if not rows:
        z = np.zeros(0, dtype=np.int64)
        return z, z, np.zeros(0, dtype=bool)
    ids, qids, imp = zip(*rows)
    return (np.array(ids, dtype=np.int64), np.array(qids, dtype=np.int64),
            np.array([i == "vital" for i in imp], dtype=bool))


def add_nugget(conn, query_id: int, text: str, importance: str, position: int, origin: str,
               machine_id: int | None = None, sources: str = "[]") -> int:
    return int(as_reader(conn).scalar(
        "INSERT INTO nugget (query_id, text, importance, position, origin, machine_id, sources, created_at) "
        "VALUES (:q, :t, :i, :p, :o, :m, :s, :c) RETURNING id",
        {"q": query_id, "t": text, "i": importance, "p": position, "o": origin, "m": machine_id,
         "s": sources, "c": _now()}))


def ensure_bank(conn, query_id: int) -> None:
    reader = as_reader(conn)
    if reader.scalar("SELECT 1 FROM nugget_bank WHERE query_id = :q", {"q": query_id}) is None:
        reader.run("INSERT INTO nugget_bank (query_id, frozen) VALUES (:q, :f)", {"q": query_id, "f": False})


def frozen_queries(conn) -> set[int]:
    return {int(q) for (q,) in as_reader(conn).rows(
        "SELECT query_id FROM nugget_bank WHERE frozen = :t", {"t": True})}


def set_frozen(conn, query_id: int, frozen: bool) -> None:
    ensure_bank(conn, query_id)
    as_reader(conn).run("UPDATE nugget_bank SET frozen = :f, frozen_at = :at WHERE query_id = :q",
                        {"f": frozen, "at": _now() if frozen else None, "q": query_id})


def current_labels(conn, assessor_id: int) -> dict[tuple[int, int], tuple[int, int]]:
    """(nugget id, system id) -> (assignment id, label) of one assessor."""
    return {(int(n), int(s)): (int(i), int(lab)) for i, n, s, lab in as_reader(conn).rows(
        "SELECT id, nugget_id, system_id, label FROM nugget_assignment WHERE assessor_id = :a",
        {"a": assessor_id})}


def insert_assignments(conn, rows: list[tuple]) -> None:
    """Rows in ASSIGNMENT_COLUMNS order without updated_at."""
    now = _stamp(as_reader(conn))
    bulk_insert(as_reader(conn), "nugget_assignment", ASSIGNMENT_COLUMNS, [(*r, now) for r in rows],
                binary=True)


def label_parents_locked(conn, rows: list[tuple], assessor_id: int):
    """A block for bulk label and event rows of one assessor (ASSIGNMENT_COLUMNS or
    EVENT_COLUMNS order: query, system, nugget first) whose parents all exist in this
    transaction: on PostgreSQL they are locked and the per-row foreign-key triggers skipped
    where the role may (store/bulk.py `parents_locked`)."""
    queries, systems, nuggets_ = set(), set(), set()
    for r in rows:
        queries.add(r[0])
        systems.add(r[1])
        nuggets_.add(r[2])
    return parents_locked(conn, {"assessor": [assessor_id], "query": queries, "system": systems,
                                 "nugget": nuggets_})


def label_indexes_rebuilt(conn, rows: int):
    """A block for a first bulk load of `rows` labels and their events (store/bulk.py
    `indexes_rebuilt` on nugget_assignment and nugget_event)."""
    return indexes_rebuilt(conn, ("nugget_assignment", "nugget_event"), rows)


def update_labels(conn, rows: list[tuple[int, int]]) -> None:
    """(assignment id, new label) pairs."""
    reader, now = as_reader(conn), _now()
    for aid, label in rows:
        reader.run("UPDATE nugget_assignment SET label = :l, updated_at = :u WHERE id = :i",
                   {"l": label, "u": now, "i": aid})


def insert_events(conn, rows: list[tuple]) -> None:
    """Rows in EVENT_COLUMNS order without created_at."""
    now = _stamp(as_reader(conn))
    bulk_insert(as_reader(conn), "nugget_event", EVENT_COLUMNS, [(*r, now) for r in rows])


def assessor_kinds(conn) -> dict[int, tuple[str, str]]:
    """assessor id -> (name, kind)."""
    return {int(i): (n, k) for i, n, k in as_reader(conn).rows("SELECT id, name, kind FROM assessor")}


def assignment_arrays(conn, assessor_ids: list[int]) -> dict[str, np.ndarray]:
    """The current labels of the given assessors as int64 arrays `nugget`, `system`,
    `label`, in no particular order: read in chunks straight into numpy (a list of 900 000
    row tuples took 0.9 GB and 2 s)."""
    import itertools

    from workbench.store.dbapi import in_list

    names = ("nugget", "system", "label")
    if not assessor_ids:
        return {n: np.zeros(0, dtype=np.int64) for n in names}
    among, params = in_list("a", assessor_ids)
    parts, rows = [], as_reader(conn).each(
        f"SELECT nugget_id, system_id, label FROM nugget_assignment WHERE assessor_id IN {among}", params)
    while True:
        chunk = list(itertools.islice(rows, 65536))
        if not chunk:
            break
        parts.append(np.fromiter(itertools.chain.from_iterable(chunk), dtype=np.int64,
                                 count=3 * len(chunk)).reshape(-1, 3))
    arr = np.concatenate(parts) if parts else np.zeros((0, 3), dtype=np.int64)
    return {n: arr[:, i].copy() for i, n in enumerate(names)}


def system_tags(conn) -> dict[int, str]:
    return {int(i): t for i, t in as_reader(conn).rows("SELECT id, tag FROM system")}


def query_names(conn) -> dict[int, tuple[str, str]]:
    """query id -> (ext id, title)."""
    return {int(i): (e, t or "") for i, e, t in as_reader(conn).rows("SELECT id, ext_id, title FROM query")}


def events(conn, assessor_id: int | None = None) -> list[tuple]:
    """The event history (id, query, system, nugget, assessor, kind, old, new, note,
    seconds, reverts), oldest first."""
    where, params = ("WHERE assessor_id = :a ", {"a": assessor_id}) if assessor_id is not None else ("", {})
    return as_reader(conn).rows(
        "SELECT id, query_id, system_id, nugget_id, assessor_id, kind, old_label, new_label, note, "
        f"seconds, reverts_event_id FROM nugget_event {where}ORDER BY id", params)


def archive_run(conn, system_id: int, removed: str) -> int:
    """Copy the nugget events of one run into nugget_event_archive by names, then delete
    the run's assignments, events and answers; the number of events archived."""
    reader = as_reader(conn)
    n = int(reader.scalar("SELECT count(*) FROM nugget_event WHERE system_id = :s", {"s": system_id}) or 0)
    reader.run(
        "INSERT INTO nugget_event_archive (query, run, nugget, assessor, kind, old_label, new_label, "
        "note, seconds, created_at, removed, removed_at) "
        "SELECT q.ext_id, s.tag, n.text, a.name, e.kind, e.old_label, e.new_label, e.note, e.seconds, "
        "e.created_at, :removed, :now FROM nugget_event e JOIN query q ON q.id = e.query_id "
        "JOIN system s ON s.id = e.system_id JOIN nugget n ON n.id = e.nugget_id "
        "JOIN assessor a ON a.id = e.assessor_id WHERE e.system_id = :s ORDER BY e.id",
        {"removed": removed, "now": _now(), "s": system_id})
    for table in ("nugget_event", "nugget_assignment", "answer"):
        reader.run(f"DELETE FROM {table} WHERE system_id = :s", {"s": system_id})
    return n


def pair_order(conn) -> dict[tuple[int, int], int]:
    """(query id, system id) -> the id of its first stored label: the order the pairs came
    in (an export writes them back in it)."""
    return {(int(q), int(s)): int(i) for q, s, i in as_reader(conn).rows(
        "SELECT query_id, system_id, min(id) FROM nugget_assignment GROUP BY query_id, system_id")}


def max_assignment_id(conn) -> int:
    return int(as_reader(conn).scalar("SELECT coalesce(max(id), 0) FROM nugget_assignment") or 0)


def set_events_after(conn, assessor_id: int, after_id: int) -> None:
    """A `set` event for each of the assessor's assignments inserted after `after_id`, in
    one statement (a bulk import's events without a Python row each)."""
    as_reader(conn).run(
        "INSERT INTO nugget_event (query_id, system_id, nugget_id, assessor_id, kind, old_label, "
        "new_label, note, seconds, created_at) SELECT query_id, system_id, nugget_id, assessor_id, "
        "'set', NULL, label, note, seconds, updated_at FROM nugget_assignment "
        "WHERE assessor_id = :a AND id > :after ORDER BY id", {"a": assessor_id, "after": after_id})


def labelled_rows(conn, assessor_ids: list[int]) -> dict[str, np.ndarray]:
    """As assignment_arrays, with the `query` and `assessor` of each label too (agreement)."""
    from workbench.store.dbapi import in_list

    names = ("query", "nugget", "system", "assessor", "label")
    among, params = in_list("a", assessor_ids)
    rows = as_reader(conn).rows(
        "SELECT query_id, nugget_id, system_id, assessor_id, label FROM nugget_assignment "
        f"WHERE assessor_id IN {among}", params) if assessor_ids else []
    arr = np.array(rows, dtype=np.int64).reshape(-1, 5)
    return {n: arr[:, i].copy() for i, n in enumerate(names)}


def title_stub_queries(conn, titles: dict[int, str]) -> None:
    """Give the queries without a title the titles given (query id -> title)."""
    reader = as_reader(conn)
    for qid, title in titles.items():
        reader.run("UPDATE query SET title = :t WHERE id = :q AND title = ''", {"t": title, "q": qid})


def relevant_documents(conn, query_id: int, limit: int) -> list[tuple[str, str]]:
    """(title or id, text) of the documents people graded relevant (grade >= 1) for a
    query, best first (highest mean grade, then most graders, then id)."""
    return [(t or e, x or "") for e, t, x in as_reader(conn).rows(
        "SELECT d.ext_id, d.title, d.text FROM judgment j JOIN document d ON d.id = j.document_id "
        "JOIN assessor a ON a.id = j.assessor_id WHERE j.query_id = :q AND a.kind <> 'machine' AND j.grade >= 0 "
        "GROUP BY d.id, d.ext_id, d.title, d.text HAVING avg(j.grade) >= 1 "
        "ORDER BY avg(j.grade) DESC, count(*) DESC, d.id LIMIT :n", {"q": query_id, "n": limit})]


def update_nugget(conn, nugget_id: int, *, text: str | None = None, importance: str | None = None,
                  origin: str | None = None) -> None:
    reader = as_reader(conn)
    for column, value in (("text", text), ("importance", importance), ("origin", origin)):
        if value is not None:
            reader.run(f"UPDATE nugget SET {column} = :v WHERE id = :i", {"v": value, "i": nugget_id})


def delete_nugget(conn, nugget_id: int) -> None:
    as_reader(conn).run("DELETE FROM nugget WHERE id = :i", {"i": nugget_id})


def set_positions(conn, ordered_ids: list[int]) -> None:
    reader = as_reader(conn)
    for k, nid in enumerate(ordered_ids):
        reader.run("UPDATE nugget SET position = :p WHERE id = :i", {"p": k, "i": nid})


def label_count(conn, nugget_id: int) -> int:
    return int(as_reader(conn).scalar("SELECT count(*) FROM nugget_assignment WHERE nugget_id = :i",
                                      {"i": nugget_id}) or 0)


def labelling_assessors(conn) -> set[int]:
    """Ids of the assessors with at least one nugget label."""
    return {int(a) for (a,) in as_reader(conn).rows("SELECT DISTINCT assessor_id FROM nugget_assignment")}
