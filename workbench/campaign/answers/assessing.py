"""The assessor's side of nugget assignment: what the screen may show (ONE function,
`answer_view`), which answer comes next, and the writes (label, note, undo), each its own
write transaction, on disk before the screen moves on.

Blind (docs/architecture.md#rules-that-hold-everywhere): `answer_view` is the only place
that picks what an assessor sees of an answer: the topic's text, the answer's sentences
and their citation numbers, the topic's nugget texts in bank order, and this assessor's
own labels and notes. Never the run, its team or metadata, a nugget's origin or
importance, another assessor's or a machine's labels, or any score: the fields are the
campaign's one visibility owner's (campaign/assessors/visibility.py, ANSWER)."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.campaign.database import Database
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError, UsageError
from workbench.formats.answer_files import LABEL_NAMES

NOT_IMPORTED = "(not imported)"


@dataclass(frozen=True)
class Sentence:
    text: str
    citations: tuple[int, ...]  # 1-based numbers into the answer's reference list


@dataclass(frozen=True)
class NuggetLine:
    nugget_id: int
    text: str
    label: int | None  # this assessor's own label
    note: str


@dataclass(frozen=True)
class AnswerView:
    """Everything the assignment screen shows of one answer."""

    answer_id: int
    topic: str  # the topic's title (or id when it has none)
    narrative: str
    sentences: tuple[Sentence, ...]
    n_references: int
    nuggets: tuple[NuggetLine, ...]

    @property
    def done(self) -> bool:
        return all(n.label is not None for n in self.nuggets)


def _assessor(session, name: str) -> int:
    from workbench.campaign.assessors.roster import unknown_assessor
    from workbench.store.external_ids import assessor_id

    aid = assessor_id(session, name)
    if aid is None:
        raise unknown_assessor(name)
    return aid


def answer_view(db: Database, assessor: str, answer_id: int) -> AnswerView:
    """The one function that decides what an assessor sees of an answer (see the module)."""
    from workbench.campaign.assessors.visibility import ANSWER, ASSESSOR_SCREEN, only_shown
    from workbench.store.answer_queue import answer_pair, own_labels, topic_text
    from workbench.store.answers import stored_answer
    from workbench.store.nuggets import nuggets

    with db.reader() as reader:
        aid = _assessor(reader, assessor)
        answer = stored_answer(reader, answer_id)
        if answer is None:
            raise NotFoundError(f"no answer {answer_id}")
        qid, sid = answer_pair(reader, answer_id)
        title, narrative = topic_text(reader, qid)
        bank = nuggets(reader, qid)
        mine = own_labels(reader, aid, qid, sid)
    return AnswerView(**only_shown(ASSESSOR_SCREEN, ANSWER, dict(
        answer_id=answer_id, topic=title or answer.query, narrative=narrative or "",
        sentences=tuple(Sentence(s["text"], tuple(c + 1 for c in s["citations"])) for s in answer.sentences),
        n_references=len(answer.references),
        nuggets=tuple(NuggetLine(n.id, n.text, *mine.get(n.id, (None, ""))) for n in bank))))


def citation_text(db: Database, answer_id: int, number: int) -> tuple[str, str]:
    """(title, text) of the answer's reference `number` (1-based); a reference that is
    not an imported document reads NOT_IMPORTED. The reference id itself is a document id
    the assessor may see (document screens show docnos too)."""
    from workbench.store.answers import document_texts, stored_answer

    with db.reader() as reader:
        answer = stored_answer(reader, answer_id)
        if answer is None or not 1 <= number <= len(answer.references):
            raise UsageError(f"no reference [{number}]")
        ref = answer.references[number - 1]
        found = document_texts(reader, [ref]).get(ref)
    return (ref, NOT_IMPORTED) if found is None else (found[0] or ref, found[1])


def queue_answers(db: Database, assessor: str) -> list[int]:
    """The assessor's answer queue (answer ids), in their order."""
    from workbench.store.answer_queue import queue

    with db.reader() as reader:
        return [a for a, _, _ in queue(reader, _assessor(reader, assessor))]


def next_answer(db: Database, assessor: str, *, skip: set[int] = frozenset()) -> int | None:
    """The first answer of the queue with a nugget this assessor has not labelled
    (answers in `skip`, put off with "later", come after the others)."""
    from workbench.store.answer_queue import labelled_counts, queue
    from workbench.store.nuggets import nuggets

    with db.reader() as reader:
        aid = _assessor(reader, assessor)
        items = queue(reader, aid)
        counts = labelled_counts(reader, aid)
        sizes: dict[int, int] = {}
        for n in nuggets(reader):
            sizes[n.query_id] = sizes.get(n.query_id, 0) + 1
    open_ = [a for a, q, s in items if counts.get((q, s), 0) < sizes.get(q, 0)]
    first = [a for a in open_ if a not in skip]
    return (first or open_ or [None])[0]


def has_answer_queue(db: Database, assessor: str) -> bool:
    from workbench.store.answer_queue import has_answer_queue as has
    from workbench.store.external_ids import assessor_id

    with db.reader() as reader:
        aid = assessor_id(reader, assessor)
        return aid is not None and has(reader, aid)


def has_document_queue(db: Database, assessor: str) -> bool:
    from workbench.store.answer_queue import has_document_queue as has
    from workbench.store.external_ids import assessor_id

    with db.reader() as reader:
        aid = assessor_id(reader, assessor)
        return aid is not None and has(reader, aid)


def _pair(session, answer_id: int) -> tuple[int, int]:
    from workbench.store.answer_queue import answer_pair

    pair = answer_pair(session, answer_id)
    if pair is None:
        raise NotFoundError(f"no answer {answer_id}")
    return pair


def label_nugget(db: Database, assessor: str, answer_id: int, nugget_id: int, label: int,
                 seconds: float = 0.0) -> None:
    """One label (2 support, 1 partial_support, 0 not_support), committed on return."""
    from workbench.store.answer_queue import current, write_label

    if label not in LABEL_NAMES:
        raise UsageError(f"label {label!r}: expected 2 (support), 1 (partial) or 0 (not)")
    with write_transaction(db) as session:
        aid = _assessor(session, assessor)
        qid, sid = _pair(session, answer_id)
        have = current(session, aid, nugget_id, sid)
        kind = "set" if have is None else "change"
        if have is not None and int(have[1]) == label:
            return
        write_label(session, aid, qid, sid, nugget_id, label, seconds, kind)


def note_nugget(db: Database, assessor: str, answer_id: int, nugget_id: int, note: str) -> None:
    """A note on one nugget of the answer (kept with this assessor's label)."""
    from workbench.store.answer_queue import current, write_label

    with write_transaction(db) as session:
        aid = _assessor(session, assessor)
        qid, sid = _pair(session, answer_id)
        have = current(session, aid, nugget_id, sid)
        if have is None:
            raise UsageError("label the nugget first, then add a note")
        write_label(session, aid, qid, sid, nugget_id, int(have[1]), 0.0, "note", note=note)


def undo_last(db: Database, assessor: str) -> tuple[int | None, int] | None:
    """Undo the assessor's latest label change (the label before it comes back, or none);
    (answer id, nugget id) undone, or None when there is nothing to undo."""
    from workbench.store.answer_queue import answer_of, last_undoable, write_label

    with write_transaction(db) as session:
        aid = _assessor(session, assessor)
        last = last_undoable(session, aid)
        if last is None:
            return None
        event, qid, sid, nid, old = last
        write_label(session, aid, int(qid), int(sid), int(nid), None if old is None else int(old),
                    0.0, "undo", reverts=int(event))
        return answer_of(session, int(sid), int(qid)), int(nid)
