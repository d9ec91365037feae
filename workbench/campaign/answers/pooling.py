"""`pool --answers -a ann -a bob [--overlap F] [--seed S]`: each topic's answers dealt to
the assessors as document pools are (campaign/pooling/assign.py `split_pool`: a shared
share `overlap`, the rest round-robin), each assessor's queue in their own shuffled order
(`queue_order`, seeded by assessor and topic). Rebuilding replaces the named assessors'
answer queues; their labels stay."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from workbench.campaign.database import Database
from workbench.campaign.pooling.assign import queue_order, split_pool
from workbench.campaign.writing import write_transaction
from workbench.errors import WorkbenchError


@dataclass(frozen=True)
class AnswerPoolSummary:
    answers: int
    topics: int
    queues: dict[str, int]

    def message(self) -> str:
        each = ", ".join(f"{a}: {n}" for a, n in self.queues.items())
        return f"pooled {self.answers} answers of {self.topics} topics ({each})"


def pool_answers(db: Database, assessors: list[str], *, overlap: float | None = None,
                 seed: int = 0) -> AnswerPoolSummary:
    from workbench.store.answer_queue import replace_queue
    from workbench.store.answers import answer_ids
    from workbench.campaign.assessors.roster import get_or_create_assessor
    from workbench.store.nuggets import query_names, system_tags

    if not assessors:
        raise WorkbenchError("pool --answers needs at least one assessor (-a NAME)")
    with write_transaction(db, serialize_as="pool") as session:
        rows = answer_ids(session)
        if not rows:
            raise WorkbenchError("no answers to pool: import answers first (`import answers FILE`)")
        tags, topics = system_tags(session), query_names(session)
        by_topic: dict[int, dict[str, int]] = defaultdict(dict)
        for aid, qid, sid in rows:
            by_topic[qid][tags[sid]] = aid
        ids = {}
        for name in assessors:
            ids[name] = get_or_create_assessor(session, name)  # a machine's name: refused
        queues: dict[str, list[int]] = {a: [] for a in assessors}
        start = 0
        for qid in sorted(by_topic):
            answers = by_topic[qid]
            topic = topics[qid][0]
            dealt = split_pool(sorted(answers), list(assessors), overlap, seed=seed, query=topic,
                               start=start)
            start = (start + len(answers)) % len(assessors)
            for name, runs in dealt.items():
                queues[name].extend(answers[r] for r in queue_order(runs, seed=seed, assessor=name,
                                                                    query=topic))
        for name, answer_list in queues.items():
            replace_queue(session, ids[name], answer_list)
    return AnswerPoolSummary(len(rows), len(by_topic), {a: len(q) for a, q in queues.items()})
