"""`import answers|nuggets|assignments`: all-or-nothing (one transaction for every file;
any bad record raises InputError(file, line, reason) before anything is committed).

Rules (docs/nuggets.md):
- an answer (run, topic) already stored is refused unless `replace` (a second answer of the
  same run and topic in the files given is refused too);
- an assignment record's nuggets are matched to the topic's bank by exact text; a topic
  without a bank gets one from the file (origin `human`, or `machine` for a machine
  assessor); a text not in an existing bank, or a new nugget for a frozen bank, is an error;
- a machine's record whose label is missing or not one of support, partial_support,
  not_support is a recorded failure (a `failure` event), never a label; for a person it is
  an error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass

from workbench.campaign.answers.ids import checked_id, query_ids, system_ids
from workbench.campaign.database import Database
from workbench.campaign.writing import IMPORTS, write_transaction
from workbench.errors import InputError
from workbench.formats.answer_files import LABELS, read_answers, read_assignments, read_nuggets

Progress = Callable[[str, int, int | None], None]
SERIALIZED = IMPORTS  # the same queue as every other import


def _no_progress(stage: str, done: int, total: int | None) -> None:
    pass


@dataclass(frozen=True)
class AnswersSummary:
    kind: str  # answers | nuggets | assignments
    path: str
    records: int
    inserted: int = 0
    replaced: int = 0
    stub_queries: int = 0
    failures: int = 0
    assessor: str | None = None
    updated: int = 0
    unchanged: int = 0

    def message(self) -> str:
        name = os.path.basename(self.path)
        if self.kind == "answers":
            again = f"; replaced {self.replaced}" if self.replaced else ""
            return (f"imported {self.records} answers from {name} ({self.stub_queries} stub "
                    f"queries{again})")
        if self.kind == "nuggets":
            return f"imported {self.inserted} nuggets for {self.records} topics from {name}"
        fails = f", {self.failures} failures recorded" if self.failures else ""
        return (f"imported {self.records} nugget assignments by {self.assessor!r} from {name} "
                f"({self.inserted} new, {self.updated} changed, {self.unchanged} unchanged{fails})")


def _transaction(db: Database, progress: Progress):
    return write_transaction(db, serialize_as=SERIALIZED, on_wait=lambda: progress("waiting", 0, None))


def import_answers(db: Database, paths: list[str] | str, *, replace: bool = False,
                   progress: Progress = _no_progress) -> list[AnswersSummary]:
    from workbench.store.answers import answer_keys, delete_answers, insert_answers

    paths = [paths] if isinstance(paths, str) else list(paths)
    parsed = []
    for path in paths:
        progress("reading", 0, None)
        records = read_answers(path)
        for r in records:
            checked_id(path, r.line, r.run, "run tag")
            checked_id(path, r.line, r.topic, "query id")
        parsed.append((path, records))
    seen: dict[tuple[str, str], tuple[str, int]] = {}
    for path, records in parsed:
        for r in records:
            key = (r.run, r.topic)
            if key in seen:
                first = seen[key]
                raise InputError(path, r.line, f"a second answer of run {r.run!r} to topic {r.topic!r} "
                                 f"(the first is at {first[0]}:{first[1]})")
            seen[key] = (path, r.line)
    summaries = []
    with _transaction(db, progress) as session:
        qids, stubs = query_ids(session, [r.topic for _, rs in parsed for r in rs])
        sids = system_ids(session, [r.run for _, rs in parsed for r in rs])
        stored = answer_keys(session)
        total = 0
        for path, records in parsed:
            rows, again = [], []
            for r in records:
                key = (sids[r.run], qids[r.topic])
                if key in stored:
                    if not replace:
                        raise InputError(path, r.line, f"run {r.run!r} already has an answer to topic "
                                         f"{r.topic!r} (use --replace to replace it)")
                    again.append(key)
                rows.append((key[0], key[1], json.dumps(r.sentences, ensure_ascii=False),
                             json.dumps(r.references, ensure_ascii=False), r.length, r.shape,
                             r.cites_by_id, json.dumps(r.meta, ensure_ascii=False)))
            delete_answers(session, again)
            insert_answers(session, rows)
            total += len(rows)
            summaries.append(AnswersSummary("answers", path, len(rows), inserted=len(rows) - len(again),
                                            replaced=len(again), stub_queries=stubs))
            stubs = 0
            progress("writing", total, None)
        progress("committing", total, total)
    return summaries


def import_nuggets(db: Database, path: str, *, progress: Progress = _no_progress,
                   origin: str = "human") -> AnswersSummary:
    """nuggetizer's create output: each record's topic gets the nuggets as its bank. A topic
    whose bank already has nuggets is refused (edit it on the nugget screen instead)."""
    from workbench.store.nuggets import add_nugget, ensure_bank, nuggets

    records = read_nuggets(path)
    seen: dict[str, int] = {}
    for r in records:
        checked_id(path, r.line, r.qid, "query id")
        if r.qid in seen:
            raise InputError(path, r.line, f"topic {r.qid!r} again (first at line {seen[r.qid]})")
        seen[r.qid] = r.line
        texts = [t for t, _, _ in r.nuggets]
        if len(set(texts)) != len(texts):
            raise InputError(path, r.line, "the same nugget text twice in one topic")
    inserted = 0
    with _transaction(db, progress) as session:
        qids, _ = query_ids(session, [r.qid for r in records])
        _set_titles(session, {qids[r.qid]: r.query for r in records if r.query})
        for r in records:
            qid = qids[r.qid]
            if nuggets(session, qid):
                raise InputError(path, r.line, f"topic {r.qid!r} already has a nugget bank")
            ensure_bank(session, qid)
            for position, (text, importance, _) in enumerate(r.nuggets):
                add_nugget(session, qid, text, importance, position, origin)
                inserted += 1
        progress("committing", inserted, inserted)
    return AnswersSummary("nuggets", path, len(records), inserted=inserted)


def _set_titles(session, titles: dict[int, str]) -> None:
    """Give stub queries (no title yet) the query text a nugget file carries."""
    from workbench.store.nuggets import title_stub_queries

    title_stub_queries(session, titles)


def import_assignments(db: Database, path: str, *, assessor: str, machine=None,
                       progress: Progress = _no_progress) -> AnswersSummary:
    """nuggetizer's assign output as `assessor`'s labels (`machine`: a Provenance, for a
    machine assessor made elsewhere)."""
    from workbench.store.nuggets import (
        add_nugget, current_labels, ensure_bank, frozen_queries, insert_assignments,
        insert_events, label_indexes_rebuilt, label_parents_locked, max_assignment_id, nuggets, set_events_after, update_labels,
    )

    progress("reading", 0, None)
    records = read_assignments(path)
    for r in records:
        checked_id(path, r.line, r.qid, "query id")
        checked_id(path, r.line, r.run, "run tag")
        for text, _, label in r.nuggets:
            if machine is None and label not in LABELS:
                raise InputError(path, r.line, f"nugget {text[:40]!r}: assignment {label!r} is not "
                                 "support, partial_support or not_support")
    inserted = updated = unchanged = failures = count = 0
    with _transaction(db, progress) as session:
        if machine is not None:
            from workbench.campaign.machine.provenance import ensure_machine

            aid = ensure_machine(session, assessor, machine)
        else:
            from workbench.campaign.assessors.roster import get_or_create_assessor

            aid = get_or_create_assessor(session, assessor)  # a machine's name: refused
        qids, _ = query_ids(session, [r.qid for r in records])
        _set_titles(session, {qids[r.qid]: r.query for r in records if r.query})
        sids = system_ids(session, [r.run for r in records])
        frozen = frozen_queries(session)
        banks: dict[int, dict[str, int]] = {}
        origin = "machine" if machine is not None else "human"
        current = current_labels(session, aid)
        new_rows, changes, event_rows, seen = [], [], [], set()
        for r in records:
            qid, sid = qids[r.qid], sids[r.run]
            if (qid, sid) in seen:
                raise InputError(path, r.line, f"run {r.run!r} on topic {r.qid!r} again in this file")
            seen.add((qid, sid))
            bank = banks.get(qid)
            if bank is None:
                bank = banks[qid] = {n.text: n.id for n in nuggets(session, qid)}
                if not bank:  # a topic with no bank yet gets one from the file
                    if qid in frozen:
                        raise InputError(path, r.line, f"topic {r.qid!r}: its nugget bank is frozen")
                    ensure_bank(session, qid)
                    for position, (text, importance, _) in enumerate(r.nuggets):
                        if text not in bank:
                            bank[text] = add_nugget(session, qid, text, importance, position, origin,
                                                    aid if machine is not None else None)
            for text, _, name in r.nuggets:
                nid = bank.get(text)
                if nid is None:
                    why = "its nugget bank is frozen" if qid in frozen else "not in the topic's nugget bank"
                    raise InputError(path, r.line, f"nugget {text[:60]!r}: {why}")
                label = LABELS.get(name)
                if label is None:  # a machine's answer without a label: a failure
                    failures += 1
                    event_rows.append((qid, sid, nid, aid, "failure", None, None,
                                       f"no label in the answer: {name!r}", 0.0))
                    continue
                count += 1
                have = current.get((nid, sid))
                if have is None:
                    new_rows.append((qid, sid, nid, aid, label, "", 0.0))  # its set event: below
                    current[(nid, sid)] = (-1, label)
                    inserted += 1
                elif have[1] != label:
                    changes.append((have[0], label))
                    event_rows.append((qid, sid, nid, aid, "change", have[1], label, "", 0.0))
                    updated += 1
                else:
                    unchanged += 1
        progress("writing", count, count)
        before = max_assignment_id(session)
        with label_indexes_rebuilt(session, len(new_rows) + len(event_rows)), \
                label_parents_locked(session, new_rows + event_rows, aid):
            insert_assignments(session, new_rows)
            set_events_after(session, aid, before)
            insert_events(session, event_rows)
        update_labels(session, changes)
        progress("committing", count, count)
    return AnswersSummary("assignments", path, count, inserted=inserted, updated=updated,
                          unchanged=unchanged, failures=failures, assessor=assessor)
