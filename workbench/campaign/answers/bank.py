"""A topic's nugget bank as the lead edits it (the nugget screen, `workbench nuggets`):
add, edit, split, merge, reorder, delete, toggle vital/okay, freeze. A frozen bank refuses
every edit; a nugget that already has labels is neither deleted nor merged away (its labels
would go with it). Editing a machine's nugget makes it `edited`. Each edit is one write
transaction."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.campaign.database import Database
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError, UsageError


@dataclass(frozen=True)
class BankView:
    topic: str
    title: str
    narrative: str
    frozen: bool
    nuggets: tuple  # store.nuggets.NuggetRow, in order
    documents: tuple[tuple[str, str], ...]  # judged relevant, best first: (title, text)


def _qid(session, topic: str) -> int:
    from workbench.store.external_ids import query_id

    qid = query_id(session, topic)
    if qid is None:
        raise NotFoundError(f"unknown query {topic!r}")
    return qid


def bank_view(db: Database, topic: str, documents: int = 20) -> BankView:
    from workbench.store.answer_queue import topic_text
    from workbench.store.nuggets import frozen_queries, nuggets, relevant_documents

    with db.reader() as reader:
        qid = _qid(reader, topic)
        title, narrative = topic_text(reader, qid)
        return BankView(topic, title, narrative, qid in frozen_queries(reader), tuple(nuggets(reader, qid)),
                        tuple(relevant_documents(reader, qid, documents)))


def _editing(db: Database, topic: str):
    from contextlib import contextmanager

    from workbench.store.nuggets import frozen_queries, nuggets

    @contextmanager
    def edit():
        with write_transaction(db) as session:
            qid = _qid(session, topic)
            if qid in frozen_queries(session):
                raise UsageError(f"the nugget bank of {topic!r} is frozen")
            yield session, qid, nuggets(session, qid)

    return edit()


def _one(rows, nugget_id: int):
    for n in rows:
        if n.id == nugget_id:
            return n
    raise NotFoundError(f"no nugget {nugget_id} in this bank")


def _text(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        raise UsageError("a nugget needs text")
    return text


def add(db: Database, topic: str, text: str, importance: str = "okay") -> int:
    from workbench.store.nuggets import add_nugget, ensure_bank

    with _editing(db, topic) as (s, qid, rows):
        if any(n.text == _text(text) for n in rows):
            raise UsageError("the bank already has this nugget")
        ensure_bank(s, qid)
        return add_nugget(s, qid, _text(text), importance, len(rows), "human")


def edit(db: Database, topic: str, nugget_id: int, text: str) -> None:
    from workbench.store.nuggets import update_nugget

    with _editing(db, topic) as (s, _, rows):
        n = _one(rows, nugget_id)
        update_nugget(s, nugget_id, text=_text(text), origin="edited" if n.origin != "human" else None)


def toggle(db: Database, topic: str, nugget_id: int) -> str:
    from workbench.store.nuggets import update_nugget

    with _editing(db, topic) as (s, _, rows):
        new = "okay" if _one(rows, nugget_id).importance == "vital" else "vital"
        update_nugget(s, nugget_id, importance=new)
        return new


def delete(db: Database, topic: str, nugget_id: int) -> None:
    from workbench.store.nuggets import delete_nugget, label_count, set_positions

    with _editing(db, topic) as (s, _, rows):
        _one(rows, nugget_id)
        if label_count(s, nugget_id):
            raise UsageError("this nugget has labels: it cannot be deleted")
        delete_nugget(s, nugget_id)
        set_positions(s, [n.id for n in rows if n.id != nugget_id])


def move(db: Database, topic: str, nugget_id: int, step: int) -> None:
    from workbench.store.nuggets import set_positions

    with _editing(db, topic) as (s, _, rows):
        ids = [n.id for n in rows]
        i = ids.index(_one(rows, nugget_id).id)
        j = max(0, min(len(ids) - 1, i + step))
        ids.insert(j, ids.pop(i))
        set_positions(s, ids)


def split(db: Database, topic: str, nugget_id: int, first: str, second: str) -> int:
    """The nugget's text becomes `first`; `second` is a new nugget right after it."""
    from workbench.store.nuggets import add_nugget, set_positions, update_nugget

    with _editing(db, topic) as (s, qid, rows):
        n = _one(rows, nugget_id)
        update_nugget(s, nugget_id, text=_text(first), origin="edited" if n.origin != "human" else None)
        new = add_nugget(s, qid, _text(second), n.importance, len(rows), "edited" if n.origin != "human" else "human")
        ids = [r.id for r in rows]
        ids.insert(ids.index(nugget_id) + 1, new)
        set_positions(s, ids)
        return new


def merge(db: Database, topic: str, nugget_id: int, other_id: int, text: str) -> None:
    """`other_id` goes; `nugget_id` gets `text` (vital if either was)."""
    from workbench.store.nuggets import delete_nugget, label_count, set_positions, update_nugget

    with _editing(db, topic) as (s, _, rows):
        a, b = _one(rows, nugget_id), _one(rows, other_id)
        if label_count(s, other_id):
            raise UsageError("the second nugget has labels: it cannot be merged away")
        update_nugget(s, nugget_id, text=_text(text),
                      importance="vital" if "vital" in (a.importance, b.importance) else "okay",
                      origin="edited" if "human" != a.origin or "human" != b.origin else None)
        delete_nugget(s, other_id)
        set_positions(s, [r.id for r in rows if r.id != other_id])


def set_frozen(db: Database, topic: str, frozen: bool) -> None:
    from workbench.store.nuggets import set_frozen as store_frozen

    with write_transaction(db) as s:
        store_frozen(s, _qid(s, topic), frozen)
