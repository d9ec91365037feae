"""`workbench autojudge`: a machine assessor labels what the lead chooses.

What it labels: the pool (default), one query's pool (`query`), or the top k of every
stored run (`top_k`, with or without `query`). Items the machine is done with (a grade, or
an answer with no grade in it) are skipped: a rerun continues where the last one stopped.

How a label is kept (docs/architecture.md#rules-that-hold-everywhere, "a grade is on disk before the screen says so"): the calls
run concurrently on an asyncio loop; a writer thread commits the outcomes through the grade
rule (campaign/judging/grades.apply_grades: judgment plus history event) together with each
call's audit row (store/machine.append_call), and only then reports them (`on_stored`).
Group commit: whenever the writer is free it takes every answer already waiting (never
waiting for more to fill a batch) and commits them in one transaction, so one disk flush
serves many labels. Ctrl-C stops the calls and lets the writer finish what has
arrived; kill -9 loses at most calls whose answers were not yet committed, and those were
never reported.

A dead endpoint: after `max_failures` calls in a row got no answer (5 by default; 0: never
stop) the run stops and says why. The machine assessor is created with the first answer
committed: a run in which no call was answered creates nothing (its errors are counted,
not stored: a rerun asks again anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from workbench.campaign.scale import show_scale
from workbench.campaign.database import Database
from workbench.campaign.judging.grades import apply_grades
from workbench.campaign.machine.client import ChatClient, EndpointError
from workbench.campaign.machine.prompts import (
    DEFAULT_TEMPLATE,
    MAX_PASSAGE_CHARS,
    Item,
    Level,
    check_template,
    read_grade,
    render,
)
from workbench.campaign.machine.redaction import clean_key
from workbench.campaign.machine.replay import call_key
from workbench.campaign.machine.provenance import (
    Provenance,
    clean_endpoint,
    ensure_machine,
    existing_machine,
    make_provenance,
)
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError, UsageError
from workbench.names import check_name
from workbench.store.external_ids import query_id
from workbench.store.machine import (
    ERROR,
    FAILURE,
    LABEL,
    append_call,
    document_texts,
    query_texts,
    settled_items,
)
from workbench.store.pools import pool_arrays

TEXT_CHUNK = 256  # items whose texts are read at a time (a big pool's texts stay on disk)
PG_WRITERS = 4  # writer threads on PostgreSQL (see _Writers)


@dataclass(frozen=True)
class Request:
    """What the lead asked for (the command line's options)."""

    model: str
    endpoint: str
    assessor: str | None = None
    template: str = DEFAULT_TEMPLATE
    api_key_env: str | None = None
    concurrency: int = 8
    query: str | None = None
    top_k: int | None = None
    timeout: float = 60.0
    retries: int = 4
    temperature: float = 0.0
    max_tokens: int = 64
    seed: int = 0
    retry_failures: bool = False
    max_failures: int = 5  # calls in a row without an answer that stop the run; 0: never
    offline: bool = False  # label from stored answers only (campaign/machine/replay.py)
    samples: int = 1  # calls per item (self-consistency); the label is their mode

    def sample_parameters(self, sample: int) -> dict:
        """The parameters of sample `sample`: its own seed (seed + sample) where the endpoint
        takes one; sample 0 (the only one without --samples) is `parameters()`."""
        return {**self.parameters(), "seed": self.seed + sample}

    @property
    def name(self) -> str:
        return self.assessor or self.model

    def parameters(self) -> dict:
        """The call's parameters, as sent and as recorded in the provenance."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}

    def provenance(self) -> Provenance:
        return make_provenance(
            self.model, endpoint=self.endpoint, prompt=self.template,
            parameters={**self.parameters(), "max_passage_chars": MAX_PASSAGE_CHARS,
                        "samples": self.samples},
            origin="autojudge --offline" if self.offline else "autojudge",
        )


@dataclass(frozen=True)
class Plan:
    """The items to call, in order (query id, then document id), and what was skipped."""

    assessor: str
    levels: list[Level]
    query_id: np.ndarray
    document_id: np.ndarray
    chosen: int  # items chosen before the skip
    settled: int  # of them, already done

    @property
    def calls(self) -> int:
        return int(self.query_id.size)


@dataclass(frozen=True)
class Stored:
    """One committed outcome, as reported."""

    outcome: str  # label, failure or error
    query: str
    document: str
    grade: int | None
    error: str


@dataclass
class Summary:
    labels: int = 0
    failures: int = 0
    errors: int = 0
    interrupted: bool = False
    stopped: str = ""  # why the run stopped early (a dead endpoint), or ""
    created: bool = True  # False: no call was answered and the machine was not created

    @property
    def stored(self) -> int:
        return self.labels + self.failures + self.errors


def make_plan(db: Database, request: Request) -> Plan:
    """What a run would call (reads only: a dry run writes nothing). Refuses a name that is
    a person's, or a machine made with another model or prompt."""
    name = check_name(request.name)
    check_template(request.template)
    if request.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if request.top_k is not None and request.top_k < 1:
        raise UsageError("--top-k must be at least 1")
    if request.samples < 1:
        raise UsageError("--samples must be at least 1")
    if request.samples > 1 and request.temperature == 0:
        raise UsageError("--samples N asks the same question N times: at temperature 0 every answer "
                         "is the same; give --temperature above 0")
    wanted = request.provenance()
    levels = [Level(g, lab, desc) for g, lab, desc in show_scale(db)]  # the scale's owner
    if not levels:
        raise UsageError("the campaign has no relevance scale (workbench scale)")
    with db.read() as s:
        only = None
        if request.query is not None:
            only = query_id(s, request.query)
            if only is None:
                raise NotFoundError(f"unknown query {request.query!r}")
        qi, di = _chosen(s, request.top_k, only)
        aid = existing_machine(s, name, wanted)
        done: set[tuple[int, int]] = set()
        if aid is not None:
            done = settled_items(s, aid, with_failures=not request.retry_failures)
    if qi.size == 0:
        hint = "top k of the stored runs" if request.top_k else "pool (workbench pool)"
        raise UsageError(f"nothing to label: the {hint} is empty"
                         + (f" for query {request.query!r}" if request.query else ""))
    keep = np.fromiter(((q, d) not in done for q, d in zip(qi.tolist(), di.tolist())),
                       dtype=bool, count=qi.size)
    return Plan(name, levels, qi[keep], di[keep], int(qi.size), int((~keep).sum()))


def _chosen(s, top_k: int | None, only: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(query ids, document ids) sorted: the pool, or the union of every run's top k."""
    if top_k is None:
        pool = pool_arrays(s)
        qi, di = pool.query_id, pool.document_id
    else:
        from workbench.campaign.pooling.query_lists import cut, lists_by_query

        pairs = [(q, int(d)) for q, runs in lists_by_query(s).items()
                 for d in np.unique(np.concatenate(cut(runs, top_k) or [np.empty(0, np.int64)]))]
        arr = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
        qi, di = arr[:, 0], arr[:, 1]
    if only is not None:
        mine = qi == only
        qi, di = qi[mine], di[mine]
    return qi, di


def first_prompt(db: Database, request: Request, plan: Plan) -> str | None:
    """The prompt of the first call (for --dry-run), None when there is none."""
    if plan.calls == 0:
        return None
    (item, _q, _d), = list(_items(db, plan, 0, 1))
    return render(request.template, plan.levels, item)


def _items(db: Database, plan: Plan, start: int, stop: int) -> Iterator[tuple[Item, int, int]]:
    qi, di = plan.query_id[start:stop].tolist(), plan.document_id[start:stop].tolist()
    with db.read() as s:
        queries = query_texts(s, sorted(set(qi)))
        docs = document_texts(s, sorted(set(di)))
    for q, d in zip(qi, di):
        qext, title, description, narrative = queries[q]
        dext, dtitle, dtext = docs[d]
        yield Item(qext, dext, title, description, narrative, dtitle, dtext), q, d


def api_key(request: Request) -> str | None:
    """The key, from the environment only (the variable's name is given, never the key)."""
    if request.api_key_env is None:
        return None
    key = os.environ.get(request.api_key_env)
    if not key:
        raise UsageError(f"the environment variable {request.api_key_env} (--api-key-env) is not set")
    return clean_key(key, request.api_key_env)


def run(db: Database, request: Request, plan: Plan, *,
        on_stored: Callable[[Stored], None] = lambda stored: None,
        client: ChatClient | None = None) -> Summary:
    """Call the endpoint for every item of `plan` and store each outcome as it arrives
    (see the module docstring). Creates the machine assessor with its provenance first.
    KeyboardInterrupt: the calls stop, what arrived is committed, the summary says
    `interrupted`; a dead endpoint (see the module docstring): `stopped`."""
    key = api_key(request) if client is None else None  # checked before anything is written
    endpoint = clean_endpoint(request.endpoint)
    with db.read() as s:
        aid = existing_machine(s, plan.assessor, request.provenance())
    grades = [lv.grade for lv in plan.levels]
    if client is None:
        # one client per sample: each sends its sample's parameters (its own seed)
        clients = [ChatClient(
            endpoint, request.model, api_key=key,
            timeout=request.timeout, retries=request.retries, concurrency=request.concurrency,
            parameters=request.sample_parameters(k) if request.samples > 1 else request.parameters(),
        ) for k in range(request.samples)]
        client = clients[0] if request.samples == 1 else clients
    elif request.samples > 1 and not isinstance(client, list):
        raise UsageError("one client per sample is needed with --samples")
    summary = Summary()
    writer = _Writers(db, aid, grades, summary, on_stored,
                      PG_WRITERS if db.concurrent_writers else 1,
                      create=lambda s: ensure_machine(s, plan.assessor, request.provenance()))
    try:
        asyncio.run(_call_all(db, request, plan, client, grades, writer))
    except KeyboardInterrupt:
        summary.interrupted = True
    except _DeadEndpoint as exc:
        summary.stopped = str(exc)
    finally:
        writer.finish()
    if writer.failed is not None:
        raise writer.failed
    return summary


async def _call_all(db, request: Request, plan: Plan, client: ChatClient, grades, writer) -> None:
    todo: asyncio.Queue = asyncio.Queue(maxsize=2 * request.concurrency)
    loop = asyncio.get_running_loop()

    async def feed() -> None:
        for start in range(0, plan.calls, TEXT_CHUNK):
            stop = min(start + TEXT_CHUNK, plan.calls)
            chunk = await loop.run_in_executor(None, lambda: list(_items(db, plan, start, stop)))
            for entry in chunk:
                await todo.put(entry)
        for _ in range(request.concurrency):
            await todo.put(None)

    in_a_row = 0

    async def work(worker: int) -> None:
        nonlocal in_a_row
        while (entry := await todo.get()) is not None:
            if writer.failed is not None:
                raise writer.failed  # a write failed: stop calling
            item, q, d = entry
            prompt = render(request.template, plan.levels, item)
            if request.samples == 1:
                result = await client.ask(prompt, worker)
                writer.put((item, q, d, result, call_key(request.model, prompt, request.parameters())))
                answered, error = result.answered, result.error
            else:
                results = [await c.ask(prompt, worker) for c in clients]
                keys = [call_key(request.model, prompt, request.sample_parameters(k), k)
                        for k in range(request.samples)]
                writer.put((item, q, d, results, keys))
                answered = any(r.answered for r in results)
                error = next((r.error for r in results if not r.answered), None)
            in_a_row = 0 if answered else in_a_row + 1
            if request.max_failures and in_a_row >= request.max_failures:
                raise _DeadEndpoint(
                    f"stopped: {in_a_row} calls in a row got no answer (the last: "
                    f"{error}); is the endpoint up? (--max-failures)")

    clients = client if isinstance(client, list) else [client]
    async with contextlib.AsyncExitStack() as stack:
        for c in clients:
            await stack.enter_async_context(c)
        tasks = [asyncio.create_task(feed())] + [
            asyncio.create_task(work(i)) for i in range(request.concurrency)
        ]
        try:
            await _first_error(tasks)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


class _DeadEndpoint(Exception):
    """`max_failures` calls in a row got no answer: the run stops."""


async def _first_error(tasks) -> None:
    """Wait for every task; the first exception (an EndpointError) stops them all."""
    pending = set(tasks)
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
        for t in done:
            if t.exception() is not None:
                raise t.exception()


class _Writers:
    """Commit the outcomes in the order the answers came, every answer waiting in one
    transaction (group commit), then report them. Writer threads own their sessions (never shared), and the event loop never
    waits on a disk. SQLite has one write lock: one writer. PostgreSQL commits concurrent
    transactions with one WAL flush, so a few writers keep per-label transactions from
    being bound by the flush (measured: 48 labels/s with one writer)."""

    def __init__(self, db: Database, aid: int | None, grades: list[int], summary: Summary,
                 on_stored, n: int, create: Callable | None = None) -> None:
        self.db, self.aid, self.summary, self.on_stored = db, aid, summary, on_stored
        self._grades = grades
        self._create = create  # session -> the machine's id (made with the first answer)
        self._creating = threading.Lock()
        self._held: list = []  # errors before the first answer, while there is no machine
        self.inbox: queue.Queue = queue.Queue()
        self.failed: BaseException | None = None
        self._said = threading.Lock()  # counts and reports, one at a time
        self.threads = [threading.Thread(target=self._run, name=f"autojudge-writer-{i}", daemon=True)
                        for i in range(n)]
        for t in self.threads:
            t.start()

    def put(self, entry) -> None:
        self.inbox.put(entry)

    def finish(self) -> None:
        for _ in self.threads:
            self.inbox.put(None)
        for t in self.threads:
            t.join()
        if self.aid is None:  # no call was answered: nothing was created, nothing stored
            self.summary.errors += len(self._held)
            self.summary.created = False

    def _run(self) -> None:
        stop = False
        while not stop:
            batch = [self.inbox.get()]
            while batch[-1] is not None:  # every answer already waiting, no more
                try:
                    batch.append(self.inbox.get_nowait())
                except queue.Empty:
                    break
            if batch[-1] is None:
                stop = True
                batch.pop()
            if not batch or self.failed is not None:
                continue  # drain: nothing more is written after a failed write
            try:
                self._store(batch)
            except BaseException as exc:  # reported by run(): the calls stop
                self.failed = exc

    def _outcome(self, result) -> tuple[str, int | None, str]:
        grade, why = (None, result.error)
        if result.answered and result.answer is not None:
            try:
                grade, why = read_grade(result.answer, self._grades)
            except Exception as exc:  # never: reading is bounded; a failure all the same
                grade, why = None, f"the answer could not be read ({type(exc).__name__})"
        outcome = LABEL if grade is not None else (FAILURE if result.answered else ERROR)
        return outcome, grade, why

    def _store(self, batch) -> None:
        if self.aid is None:
            with self._creating:
                if self.aid is None:
                    if not any(_answered(entry[3]) for entry in batch):
                        self._held.extend(batch)  # no machine yet: held, not stored
                        return
                    batch, self._held = self._held + batch, []
                    self._commit(batch, create=True)
                    return
        self._commit(batch)

    def _commit(self, batch, create: bool = False) -> None:
        """Commit `batch` (item, query id, document id, result) in one transaction, then
        report each of its outcomes: no report before the commit that holds it. `create`:
        the machine assessor is created in the same transaction."""
        # entries: (item, query id, document id, result[, replay key]); with --samples the
        # results and keys are lists, one per sample
        keys = [entry[4] if len(entry) > 4 else None for entry in batch]
        batch = [entry[:4] for entry in batch]
        sampled = [isinstance(result, list) for _i, _q, _d, result in batch]
        per_call = [[self._outcome(r) for r in result] if many else [self._outcome(result)]
                    for (_i, _q, _d, result), many in zip(batch, sampled)]
        outcomes = [calls[0] if not many else _mode_outcome(calls) for calls, many in zip(per_call, sampled)]
        with write_transaction(self.db) as s:
            aid = self._create(s) if create else self.aid
            apply_grades(s, aid, [(q, d, grade) for (_i, q, d, _r), (_o, grade, _w)
                                  in zip(batch, outcomes) if grade is not None])
            for (_item, q, d, result), calls, key, many in zip(batch, per_call, keys, sampled):
                results, call_keys = (result, key) if many else ([result], [key])
                for k, (r, (outcome, grade, why), ck) in enumerate(zip(results, calls, call_keys)):
                    append_call(s, aid, q, d, outcome=outcome, grade=grade, raw=r.raw,
                                error=why, attempts=r.attempts, seconds=r.seconds, call_key=ck,
                                sample=k if many else None)
        self.aid = aid  # only once the commit holds it
        with self._said:
            for (item, _q, _d, _r), (outcome, grade, why) in zip(batch, outcomes):
                if outcome == LABEL:
                    self.summary.labels += 1
                elif outcome == FAILURE:
                    self.summary.failures += 1
                else:
                    self.summary.errors += 1
                self.on_stored(Stored(outcome, item.query, item.document, grade, why))


def _answered(result) -> bool:
    """Whether a call (or, with --samples, any of an item's calls) got an answer."""
    return any(r.answered for r in result) if isinstance(result, list) else result.answered


def _mode_outcome(calls: list[tuple[str, int | None, str]]) -> tuple[str, int | None, str]:
    """The item's outcome from its samples: the mode of the graded samples (ties to the
    lower grade); no label when a sample got no answer (run again) or none held a grade."""
    if any(outcome == ERROR for outcome, _g, _w in calls):
        why = next(w for o, _g, w in calls if o == ERROR)
        return ERROR, None, why
    graded = [g for _o, g, _w in calls if g is not None]
    if not graded:
        return FAILURE, None, calls[0][2]
    counts: dict[int, int] = {}
    for g in graded:
        counts[g] = counts.get(g, 0) + 1
    top = max(counts.values())
    return LABEL, min(g for g, c in counts.items() if c == top), ""


__all__ = ["EndpointError", "Plan", "Request", "Stored", "Summary",
           "api_key", "first_prompt", "make_plan", "run"]
