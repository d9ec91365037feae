"""One big run evaluated in pieces by forked processes, reading included.

Why: reading a 10-million-line run and a 9-million-line qrels file is most of the cost of
`workbench eval`, and one core can only do it so fast. Here every process reads a slice
of both files, so nothing of size runs on one core alone:

1. each process k reads piece k of the run (cut where the query changes) and piece k of
   the qrels (cut at any line), then leaves its qrels arrays and the run's query ids in a
   scratch folder (tmpfs where there is room);
2. when all have, each process takes, from every qrels piece, the rows of the queries it
   owns -- those of its run piece, and a qrels query that no run piece has goes to the
   first qrels piece holding it -- builds its own index and evaluates its run piece;
3. the parent (itself process 0) merges the per-query values by query id.

Every query's values depend on its own qrels and run rows only, so the numbers are those
of the one-process path. Anything unusual (a bad line, a duplicate, a query found in two
run pieces, a process that dies) makes `evaluate_split` return None, and the caller then
evaluates the run in one process, which reports errors with their exact lines.
`workbench.evaluation.strategy` decides when a run is split.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import tempfile

import numpy as np

__all__ = ["Piece", "evaluate_split", "line_cuts", "run_cuts", "scratch_dir"]


def line_cuts(path, parts: int) -> list[int]:
    """Byte offsets [0, c1, ..., size] cutting a file into about `parts` equal pieces,
    each cut at the start of a line."""
    size = os.path.getsize(path)
    cuts = [0]
    with open(path, "rb") as fh:
        for k in range(1, parts):
            pos = max(size * k // parts, cuts[-1] + 1)
            if pos >= size:
                break
            fh.seek(pos - 1)
            at = -1
            base = pos - 1
            while at < 0:
                block = fh.read(1 << 16)
                if not block:
                    break
                at = block.find(b"\n")
                if at < 0:
                    base += len(block)
            if at < 0:
                break
            start = base + at + 1
            if cuts[-1] < start < size:
                cuts.append(start)
    cuts.append(size)
    return cuts


def run_cuts(path, jobs: int) -> list[int] | None:
    """Where to cut one run for `jobs` processes, or None to read it in one process (no
    query change found near the cut points). Whether to split at all is the strategy's
    call (`workbench.evaluation.strategy`)."""
    from workbench.formats.trec import query_cuts

    from workbench.evaluation.strategy import can_fork

    if jobs < 2 or not can_fork():
        return None
    from workbench.formats.textlines import is_gzip

    if is_gzip(path):  # a compressed stream is read from its start
        return None
    try:
        cuts = query_cuts(path, jobs)
    except OSError:
        return None  # the one-process path reports it
    return cuts if len(cuts) > 2 else None


def scratch_dir(need: int) -> str:
    """A new private folder for the pieces' arrays: /dev/shm when it has room."""
    shm = "/dev/shm"
    try:
        st = os.statvfs(shm)
        if st.f_bavail * st.f_frsize > 2 * need and os.access(shm, os.W_OK):
            return tempfile.mkdtemp(prefix="workbench-eval-", dir=shm)
    except OSError:
        pass
    return tempfile.mkdtemp(prefix="workbench-eval-")


class Piece:
    """One process's share: read (phase 1), then evaluate (phase 2)."""

    def __init__(self, k, job) -> None:
        self.k, self.job = k, job

    def _file(self, j: int, what: str) -> str:
        return os.path.join(self.job["dir"], f"{j}.{what}.npy")

    def read(self) -> None:
        from workbench.formats.trec import read_qrels, read_run

        j, k = self.job, self.k
        qc = j["qrels_cuts"]
        if k + 1 < len(qc):
            q = read_qrels(j["qrels"], threads=1, byte_range=(qc[k], qc[k + 1]),
                           check_duplicates=False, line_numbers=False)
            self.qrels = (q.qid, q.docno, q.rel)
        else:
            self.qrels = (np.empty(0, "S1"), np.empty(0, "S1"), np.empty(0, np.int64))
        self.groups = _group_ids(self.qrels[0])
        for what, arr in zip(("qid", "docno", "rel", "gq", "gsize"), (*self.qrels, *self.groups)):
            np.save(self._file(k, what), arr)
        rc = j["run_cuts"]
        self.run = read_run(j["run"], threads=1, byte_range=(rc[k], rc[k + 1]),
                            keep_rank=j["keep_rank"], check_duplicates=False,
                            all_tags=False, line_numbers=False)
        np.save(self._file(k, "runq"), np.unique(_group_ids(self.run.qid)[0]))

    def evaluate(self):
        """(query ids, values per measure aligned with them, present, tag) or None."""
        from workbench.metrics.evaluate import RunArrays, per_query_values, positive_qrels
        from workbench.metrics.qrels_index import QrelsIndex

        j, k = self.job, self.k
        n = j["n"]
        runq = [np.load(self._file(i, "runq")) for i in range(n)]
        run_owner = _owner_table(runq)
        if run_owner is None:  # a query in two run pieces: not cut at query changes
            return None
        # Only the pieces' query groups (small) are read whole; of their rows, each process
        # touches its own, so this phase shrinks with more processes instead of scanning
        # every qrels line in every process.
        n_qrels = len(j["qrels_cuts"]) - 1
        groups = [self.groups if i == k else
                  (np.load(self._file(i, "gq")), np.load(self._file(i, "gsize")))
                  for i in range(n_qrels)]
        qrels_owner = _owner_table([np.unique(g[0]) for g in groups], first_wins=True)
        mine = []
        for i, (gq, sizes) in enumerate(groups):
            owner = _lookup(run_owner, gq)
            no_run = owner < 0
            owner[no_run] = _lookup(qrels_owner, gq[no_run])
            rows = _rows_of(owner == k, sizes)
            if rows is None:
                continue
            cols = (self.qrels if i == k else
                    [np.load(self._file(i, w), mmap_mode="r") for w in ("qid", "docno", "rel")])
            mine.append(tuple(np.asarray(c[rows]) for c in cols))
        if mine:
            cat = [_concat([m[c] for m in mine]) for c in range(3)]
        else:
            cat = [np.empty(0, "S1"), np.empty(0, "S1"), np.empty(0, np.int64)]
        index = QrelsIndex(*cat)
        ms, rel_level, ties, max_depth, compat, judged_only, num_docs = j["eval"]
        r = self.run
        values, present = per_query_values(
            index, RunArrays(r.qid, r.docno, r.score, r.tag, r.rank), ms,
            rel_level=rel_level, ties=ties, max_depth=max_depth, compat=compat,
            judged_only=judged_only, num_docs=num_docs)
        return (index.qids, [values[m] for m in ms], present, r.last_tag, r.tag,
                positive_qrels(index))


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    """np.concatenate, but byte strings of several widths are joined by byte copies
    (numpy's own S-to-S cast is many times slower)."""
    from workbench.formats.columns import concat_strings

    if len(parts) == 1:
        return np.asarray(parts[0])
    if parts[0].dtype.kind != "S":
        return np.concatenate(parts)
    return concat_strings([(np.ascontiguousarray(p), p.dtype.itemsize) for p in parts])


def _group_ids(qid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(id of each run of equal neighbours, its length)."""
    if qid.size == 0:
        return qid[:0].copy(), np.empty(0, np.int64)
    heads = np.flatnonzero(np.concatenate(([True], qid[1:] != qid[:-1])))
    return np.asarray(qid[heads]), np.diff(np.append(heads, qid.size))


def _rows_of(owned: np.ndarray, sizes: np.ndarray):
    """The rows of the owned groups (groups of `sizes` rows, in order): a slice when they
    are one stretch (qrels sorted by query), else an index array; None for no row."""
    at = np.flatnonzero(owned)
    if at.size == 0:
        return None
    starts = np.cumsum(sizes) - sizes
    if at[-1] - at[0] + 1 == at.size:  # one stretch of groups
        return slice(int(starts[at[0]]), int(starts[at[-1]] + sizes[at[-1]]))
    take = sizes[at]
    # each owned group's start, repeated over its rows, plus the row's place in it
    first = np.repeat(starts[at] - (np.cumsum(take) - take), take)
    return first + np.arange(int(take.sum()))


def _owner_table(id_sets, first_wins: bool = False):
    """(sorted ids, owning piece of each) from each piece's distinct ids; None when an
    id is in two pieces, unless first_wins (then the first piece holding it owns it)."""
    ids = _concat(id_sets) if id_sets else np.empty(0, "S1")
    owner = np.repeat(np.arange(len(id_sets)), [s.size for s in id_sets])
    order = np.argsort(ids, kind="stable")
    ids, owner = ids[order], owner[order]
    first = np.concatenate(([True], ids[1:] != ids[:-1])) if ids.size else np.empty(0, bool)
    if not first.all():
        if not first_wins:
            return None
        ids, owner = ids[first], owner[first]
    return ids, owner


def _lookup(table, ids: np.ndarray) -> np.ndarray:
    """The owner of each id, -1 for ids not in the table."""
    keys, owner = table
    out = np.full(ids.size, -1, dtype=np.int64)
    if keys.size == 0 or ids.size == 0:
        return out
    pos = np.searchsorted(keys, ids)
    pos[pos == keys.size] = 0
    hit = keys[pos] == ids
    out[hit] = owner[pos[hit]]
    return out


def _merge(results):
    """Per-query values of every piece as one (query ids, values, present, last tag,
    first tag, qrels lines graded above 0)."""
    qids = _concat([r[0] for r in results])
    order = np.argsort(qids, kind="stable")
    qids = qids[order]
    if qids.size > 1 and np.any(qids[1:] == qids[:-1]):
        return None  # (cannot happen: every query has one owner)
    nm = len(results[0][1])
    values = [np.concatenate([r[1][i] for r in results])[order] for i in range(nm)]
    present = np.concatenate([r[2] for r in results])[order]
    tag = next((r[3] for r in reversed(results) if r[3]), "")  # the file's last line's
    first = next((r[4] for r in results if r[4]), "")  # the file's first line's
    return qids, values, present, tag, first, sum(r[5] for r in results)


def _term_raises():
    """Make SIGTERM raise SystemExit in this (main) thread, so that the scratch folder is
    removed when the command is stopped; returns the old handler (None off the main thread)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    return signal.signal(signal.SIGTERM, stop)


def _child(piece: Piece, ready_w: int, go_r: int, out_path: str) -> None:
    """A forked process's whole life: read, report, wait for the others, evaluate."""
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        piece.read()
        os.write(ready_w, b"1")
        if os.read(go_r, 1) == b"1":
            result = piece.evaluate()
            if result is not None:
                with open(out_path, "wb") as fh:
                    pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
                code = 0
    except BaseException:  # noqa: BLE001 - the parent redoes the run in one process
        pass
    finally:
        os._exit(code)


def evaluate_split(qrels_path, run_path, cuts, ms, *, rel_level, ties, max_depth, complete,
                   compat, judged_only=False, num_docs=0):
    """(Evaluation, the run's first tag) of one run, read and evaluated in len(cuts) - 1
    processes; None when any piece failed (then the caller evaluates the run itself,
    errors and all)."""
    from workbench.metrics.evaluate import evaluation_from_values

    from workbench.formats.textlines import is_gzip

    n = len(cuts) - 1
    if is_gzip(qrels_path) or is_gzip(run_path):  # compressed: no byte offsets to cut at
        return None
    try:
        qrels_cuts = line_cuts(qrels_path, n)
        need = os.path.getsize(qrels_path) + os.path.getsize(run_path) // 8
    except OSError:
        return None
    job = {
        "n": n, "qrels": qrels_path, "run": run_path, "qrels_cuts": qrels_cuts,
        "run_cuts": cuts, "keep_rank": ties == "rank",
        "eval": (ms, rel_level, ties, max_depth, compat, judged_only, num_docs),
    }
    job["dir"] = scratch_dir(need)
    children = []  # (pid, ready_r, go_w, out_path)
    finished = False
    old_term = _term_raises()
    try:
        for k in range(1, n):
            ready_r, ready_w = os.pipe()
            go_r, go_w = os.pipe()
            out_path = os.path.join(job["dir"], f"{k}.result.pickle")
            pid = os.fork()
            if pid == 0:  # child
                os.close(ready_r)
                os.close(go_w)
                for _, r, w, _ in children:
                    os.close(r)
                    os.close(w)
                _child(Piece(k, job), ready_w, go_r, out_path)
            os.close(ready_w)
            os.close(go_r)
            children.append((pid, ready_r, go_w, out_path))
        me = Piece(0, job)
        ok = True
        try:
            me.read()
        except Exception:  # noqa: BLE001 - redone in one process
            ok = False
        for _, ready_r, _, _ in children:
            ok = os.read(ready_r, 1) == b"1" and ok
        for _, _, go_w, _ in children:
            try:
                os.write(go_w, b"1" if ok else b"0")
            except BrokenPipeError:  # that child has already given up
                ok = False
        results = None
        if ok:
            try:
                results = [me.evaluate()]
            except Exception:  # noqa: BLE001
                results = None
        for pid, ready_r, go_w, out_path in children:
            _, status = os.waitpid(pid, 0)
            if results is None or results[-1] is None:
                continue
            if os.waitstatus_to_exitcode(status) != 0:
                results.append(None)
                continue
            with open(out_path, "rb") as fh:
                results.append(pickle.load(fh))
        finished = True
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        for pid, ready_r, go_w, _ in children:
            if not finished:  # interrupted: stop the others now, not after their reading
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for fd in (ready_r, go_w):  # (a child still waiting reads EOF and stops)
                try:
                    os.close(fd)
                except OSError:
                    pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass  # already reaped
        shutil.rmtree(job["dir"], ignore_errors=True)
    if results is None or any(r is None for r in results):
        return None
    merged = _merge(results)
    if merged is None:
        return None
    qids, values, present, tag, first, positive = merged
    return evaluation_from_values(
        qids, ms, dict(zip(ms, values)), present, tag=tag or run_path, ties=ties,
        complete=complete,
        settings={"rel_level": rel_level, "max_depth": max_depth, "complete": complete,
                  "compat": compat, "unjudged_as": None, "judged_only": judged_only,
                  "num_docs": num_docs},
        num_rel_all=positive,
    ), first
