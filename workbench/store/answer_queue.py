"""The assessors' answer queues (`answer_queue`) and the writes of the assignment screen:
one label, a note, an undo. SQL text on a Reader (store.dbapi)."""

from __future__ import annotations

from datetime import datetime, timezone

from workbench.store.dbapi import as_reader


def _now():
    return datetime.now(timezone.utc)


def replace_queue(conn, assessor_id: int, answer_ids: list[int]) -> None:
    from workbench.store.bulk import bulk_insert

    reader = as_reader(conn)
    reader.run("DELETE FROM answer_queue WHERE assessor_id = :a", {"a": assessor_id})
    bulk_insert(reader, "answer_queue", ("assessor_id", "answer_id", "position"),
                [(assessor_id, aid, i) for i, aid in enumerate(answer_ids)])


def queue(conn, assessor_id: int) -> list[tuple[int, int, int]]:
    """(answer id, query id, system id) of the assessor's queue, in order."""
    return [(int(a), int(q), int(s)) for a, q, s in as_reader(conn).rows(
        "SELECT aq.answer_id, a.query_id, a.system_id FROM answer_queue aq "
        "JOIN answer a ON a.id = aq.answer_id WHERE aq.assessor_id = :a ORDER BY aq.position",
        {"a": assessor_id})]


def has_answer_queue(conn, assessor_id: int) -> bool:
    return as_reader(conn).scalar("SELECT 1 FROM answer_queue WHERE assessor_id = :a LIMIT 1",
                                  {"a": assessor_id}) is not None


def has_document_queue(conn, assessor_id: int) -> bool:
    return as_reader(conn).scalar("SELECT 1 FROM assignment WHERE assessor_id = :a LIMIT 1",
                                  {"a": assessor_id}) is not None


def own_labels(conn, assessor_id: int, query_id: int, system_id: int) -> dict[int, tuple[int, str]]:
    """nugget id -> (label, note) of this assessor for one answer."""
    return {int(n): (int(lab), note or "") for n, lab, note in as_reader(conn).rows(
        "SELECT nugget_id, label, note FROM nugget_assignment WHERE assessor_id = :a AND "
        "query_id = :q AND system_id = :s", {"a": assessor_id, "q": query_id, "s": system_id})}


def labelled_counts(conn, assessor_id: int) -> dict[tuple[int, int], int]:
    """(query id, system id) -> how many nuggets this assessor labelled."""
    return {(int(q), int(s)): int(n) for q, s, n in as_reader(conn).rows(
        "SELECT query_id, system_id, count(*) FROM nugget_assignment WHERE assessor_id = :a "
        "GROUP BY query_id, system_id", {"a": assessor_id})}


def current(conn, assessor_id: int, nugget_id: int, system_id: int):
    """(assignment id, label, note) or None."""
    return as_reader(conn).first(
        "SELECT id, label, note FROM nugget_assignment WHERE assessor_id = :a AND nugget_id = :n "
        "AND system_id = :s", {"a": assessor_id, "n": nugget_id, "s": system_id})


def write_label(conn, assessor_id: int, query_id: int, system_id: int, nugget_id: int,
                label: int | None, seconds: float, kind: str, *, reverts: int | None = None,
                note: str | None = None) -> int:
    """Set (or, label None, clear) one label and append its event; the event's id."""
    reader, now = as_reader(conn), _now()
    have = current(reader, assessor_id, nugget_id, system_id)
    old = None if have is None else int(have[1])
    keep_note = note if note is not None else ("" if have is None else have[2] or "")
    if label is None:
        if have is not None:
            reader.run("DELETE FROM nugget_assignment WHERE id = :i", {"i": have[0]})
    elif have is None:
        reader.run(
            "INSERT INTO nugget_assignment (query_id, system_id, nugget_id, assessor_id, label, note, "
            "seconds, updated_at) VALUES (:q, :s, :n, :a, :l, :note, :sec, :u)",
            {"q": query_id, "s": system_id, "n": nugget_id, "a": assessor_id, "l": label,
             "note": keep_note, "sec": seconds, "u": now})
    else:
        reader.run("UPDATE nugget_assignment SET label = :l, note = :note, seconds = seconds + :sec, "
                   "updated_at = :u WHERE id = :i",
                   {"l": label, "note": keep_note, "sec": seconds, "u": now, "i": have[0]})
    return int(reader.scalar(
        "INSERT INTO nugget_event (query_id, system_id, nugget_id, assessor_id, kind, old_label, "
        "new_label, note, seconds, reverts_event_id, created_at) VALUES (:q, :s, :n, :a, :k, :o, :l, "
        ":note, :sec, :r, :u) RETURNING id",
        {"q": query_id, "s": system_id, "n": nugget_id, "a": assessor_id, "k": kind, "o": old,
         "l": label, "note": keep_note if kind == "note" else "", "sec": seconds, "r": reverts, "u": now}))


def last_undoable(conn, assessor_id: int):
    """(event id, query, system, nugget, old label) of the assessor's latest set/change
    event not yet undone, or None."""
    return as_reader(conn).first(
        "SELECT e.id, e.query_id, e.system_id, e.nugget_id, e.old_label FROM nugget_event e "
        "WHERE e.assessor_id = :a AND e.kind IN ('set', 'change') AND NOT EXISTS "
        "(SELECT 1 FROM nugget_event u WHERE u.reverts_event_id = e.id) ORDER BY e.id DESC LIMIT 1",
        {"a": assessor_id})


def answer_pair(conn, answer_id: int) -> tuple[int, int] | None:
    """(query id, system id) of an answer."""
    row = as_reader(conn).first("SELECT query_id, system_id FROM answer WHERE id = :i", {"i": answer_id})
    return None if row is None else (int(row[0]), int(row[1]))


def answer_of(conn, system_id: int, query_id: int) -> int | None:
    return as_reader(conn).scalar("SELECT id FROM answer WHERE system_id = :s AND query_id = :q",
                                  {"s": system_id, "q": query_id})


def topic_text(conn, query_id: int) -> tuple[str, str]:
    """(title, narrative) of a query."""
    row = as_reader(conn).first("SELECT title, narrative FROM query WHERE id = :q", {"q": query_id})
    return ("", "") if row is None else (row[0] or "", row[1] or "")
