"""`workbench eval QRELS RUN [RUN ...]`: trec_eval-compatible evaluation of run files.

``--format trec`` prints exactly what ``trec_eval [-q] -m ...`` prints (same names, same
numbers, same layout: ``%-22s\\t%s\\t%6.4f``, counts as integers, per-query lines then the
``all`` lines), so it can replace trec_eval in scripts; with several runs the blocks
follow in the order the runs were given. This path imports neither Textual nor
SQLAlchemy (nor Rich unless a table is printed).
"""

from __future__ import annotations

import json
import sys

import click

from workbench.errors import InputError, UsageError

FORMATS = ("trec", "table", "csv", "json")


def _tune_allocator() -> None:
    """Keep freed array memory in the process (glibc only; a no-op elsewhere).

    Why: glibc serves large blocks with mmap and returns them on free, so every large
    temporary array faults in fresh zeroed pages; evaluating a million-line run makes
    dozens of them. Serving them from the heap and not trimming it made whole
    evaluations up to ~2x faster here. Only this short-lived command does this.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-4, 0)  # M_MMAP_MAX: no mmap-served blocks
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep up to 1 GB of freed heap
    except (OSError, AttributeError):
        pass


def _parse(measure_names):
    from workbench.metrics.measures import parse_measures

    # a bad name raises MeasureError, a UsageError: one line, exit 2
    return parse_measures(list(measure_names) or ["official"])


def _fmt(m, v: float) -> str:
    return str(int(round(v))) if m.is_count else f"{v:6.4f}"


def _trec_lines(ev, per_query: bool, upper=None) -> list[str]:
    """trec_eval's output for one run (print_single / print_final layouts)."""
    out: list[str] = []
    ms = [m for m in ev.measures]
    if per_query:
        cols = {m: ev.per_query[m] for m in ms}
        ucols = {m: upper.per_query[m] for m in ms} if upper else None
        for i, q in enumerate(ev.qids):
            for m in ms:
                if m.summary_only:
                    continue  # trec_eval prints these in the summary only
                out.append(f"{m.label:<22}\t{q}\t{_fmt(m, cols[m][i])}")
                if ucols is not None:
                    out.append(f"{m.label + '_upper':<22}\t{q}\t{_fmt(m, ucols[m][i])}")
    for m in ms:
        if m.aggregation == "runid":
            out.append(f"{'runid':<22}\tall\t{ev.tag}")
            continue
        if m.aggregation == "count":
            out.append(f"{'num_q':<22}\tall\t{len(ev.qids)}")
            continue
        out.append(f"{m.label:<22}\tall\t{_fmt(m, ev.summary[m])}")
        if upper is not None:
            out.append(f"{m.label + '_upper':<22}\tall\t{_fmt(m, upper.summary[m])}")
    return out


def _value(m, ev, v):
    if m.aggregation == "runid":
        return ev.tag
    if m.aggregation == "count":
        return len(ev.qids)
    return int(round(v)) if m.is_count else float(v)


def _csv(evs, names, per_query, uppers) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    header = ["run", "query", "measure", "value"] + (["upper"] if uppers else [])
    w.writerow(header)
    for k, (ev, name) in enumerate(zip(evs, names)):
        up = uppers[k] if uppers else None
        rows = []
        if per_query:
            for i, q in enumerate(ev.qids):
                for m in ev.measures:
                    if m.summary_only:
                        continue
                    row = [name, q, m.label, _value(m, ev, ev.per_query[m][i])]
                    if up:
                        row.append(_value(m, up, up.per_query[m][i]))
                    rows.append(row)
        for m in ev.measures:
            row = [name, "all", m.label, _value(m, ev, ev.summary.get(m, 0.0))]
            if up:
                row.append(_value(m, up, up.summary.get(m, 0.0)))
            rows.append(row)
        w.writerows(rows)
    return buf.getvalue()


def _json(evs, names, per_query, uppers, settings) -> str:
    runs = []
    for k, (ev, name) in enumerate(zip(evs, names)):
        item = {
            "run": name,
            "tag": ev.tag,
            "queries": len(ev.qids),
            "missing": list(ev.missing),
            "summary": {m.label: _value(m, ev, ev.summary.get(m, 0.0)) for m in ev.measures},
        }
        if uppers:
            up = uppers[k]
            item["upper"] = {m.label: _value(m, up, up.summary.get(m, 0.0)) for m in up.measures}
        if per_query:
            item["per_query"] = {
                q: {m.label: _value(m, ev, ev.per_query[m][i]) for m in ev.measures
                    if not m.summary_only}
                for i, q in enumerate(ev.qids)
            }
        runs.append(item)
    return json.dumps({"settings": settings, "runs": runs}, indent=2)


def _table(evs, names, per_query, uppers, settings) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    ms = [m for m in evs[0].measures if m.aggregation != "runid"]
    caption = f"ties: {settings['ties']} · relevance >= {settings['rel_level']}"
    if settings["max_depth"] is not None:
        caption += f" · top {settings['max_depth']}"
    if settings["complete"]:
        caption += " · all qrels queries (-c)"
    if uppers:
        caption += " · [value, upper bound if unjudged were relevant]"

    def cell(m, ev, v, up=None, uv=None) -> Text:
        s = _fmt(m, v) if m.aggregation != "count" else str(len(ev.qids))
        if up is not None and m.aggregation != "count":
            s += f" / {_fmt(m, uv)}"
        return Text(s)

    table = Table(title="Evaluation", caption=caption)
    table.add_column("run", no_wrap=True)
    for m in ms:
        table.add_column(m.label, justify="right")
    for k, (ev, name) in enumerate(zip(evs, names)):
        up = uppers[k] if uppers else None
        table.add_row(Text(name), *[
            cell(m, ev, ev.summary[m], up, up.summary[m] if up else None) for m in ms
        ])
    console.print(table)
    if per_query:
        pq = [m for m in ms if not m.summary_only]
        for k, (ev, name) in enumerate(zip(evs, names)):
            up = uppers[k] if uppers else None
            t = Table(title=Text(f"{name}: per query"), caption=caption)
            t.add_column("query", no_wrap=True)
            for m in pq:
                t.add_column(m.label, justify="right")
            for i, q in enumerate(ev.qids):
                t.add_row(Text(q), *[
                    cell(m, ev, ev.per_query[m][i], up, up.per_query[m][i] if up else None)
                    for m in pq
                ])
            console.print(t)


def _evaluate_one(r, path, ms, index, rel_level, ties, max_depth, complete, compat, top_grade):
    """(evaluation, upper bound or None, warning or None) for one read run."""
    from workbench.metrics.evaluate import RunArrays, evaluate_many
    from workbench.metrics.qrels_index import DuplicatePairError

    arrays = RunArrays(r.qid, r.docno, r.score, r.last_tag or path, r.rank)  # runid: the last tag, as trec_eval
    kw = dict(rel_level=rel_level, ties=ties, max_depth=max_depth, complete=complete,
              compat=compat, index=index)
    up = None
    try:
        (ev,) = evaluate_many(None, None, None, [arrays], ms, **kw)
        if top_grade is not None:
            (up,) = evaluate_many(None, None, None, [arrays], ms, unjudged_as=top_grade, **kw)
    except DuplicatePairError as exc:
        raise InputError(path, int(r.line[exc.row]), str(exc).replace(" in the run", "")) from None
    except ValueError as exc:
        raise InputError(path, None, str(exc)) from None
    return ev, up, _check(ev, path, complete)


def _check(ev, path, complete) -> str | None:
    """Refuse a run with no query in the qrels; the warning for missing queries, if any."""
    if not ev.qids:
        raise InputError(path, None, "no query of the run is in the qrels "
                                     "(trec_eval: no queries with both results and relevance info)")
    warning = None
    if ev.missing and not complete:
        warning = (
            f"workbench: warning: {path}: {len(ev.missing)} qrels "
            f"quer{'y' if len(ev.missing) == 1 else 'ies'} missing from the run, not averaged "
            f"(use -c to count them as 0)"
        )
    return warning


# ----------------------------------------------------------------------------- processes
#
# Several runs are evaluated by worker processes forked after the qrels index is built:
# the children share it copy-on-write and send back only the small per-query results.
# One big run is read and evaluated in pieces, qrels and all (see eval_split).
# (Threads could not help: most of the work holds the GIL.)

MIN_PARALLEL_BYTES = 8 << 20  # below this much run text, forking costs more than it saves
_JOB: dict = {}  # what forked workers need; set in the parent just before forking


def default_jobs() -> int:
    """Worker processes: WORKBENCH_THREADS if set, else the number of cores."""
    import os

    env = os.environ.get("WORKBENCH_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return os.cpu_count() or 1


def _use_processes(runs, jobs: int | None) -> int:
    """How many worker processes to evaluate `runs` with (0: evaluate in this one)."""
    import multiprocessing
    import os

    if len(runs) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    n = min(jobs if jobs is not None else default_jobs(), len(runs))
    if n < 2:
        return 0
    if jobs is None:  # by default only when the files are big enough to be worth it
        try:
            size = sum(os.path.getsize(p) for p in runs)
        except OSError:
            return 0  # let the serial path report the missing file
        if size < MIN_PARALLEL_BYTES:
            return 0
    return n


def _work(k: int):
    """In a worker: read and evaluate run k; errors come back as values, raised in order."""
    from workbench.errors import WorkbenchError
    from workbench.formats.trec import read_run

    j = _JOB
    path = j["runs"][k]
    try:
        r = read_run(path, threads=1, **j["read"])
        ev, up, warning = _evaluate_one(r, path, *j["args"])
        return "ok", (ev, up, warning, r.tag or path)
    except InputError as exc:
        return "input", (exc.path, exc.line, exc.reason)
    except WorkbenchError as exc:
        return "other", str(exc)


def _evaluate_in_processes(runs, n, read, args):
    """(evaluation, upper, warning, name) per run, in run order, from n forked workers."""
    import multiprocessing

    from workbench.errors import WorkbenchError

    _JOB.update(runs=list(runs), read=read, args=args)
    try:
        with multiprocessing.get_context("fork").Pool(n) as pool:
            for kind, value in pool.imap(_work, range(len(runs))):
                if kind == "input":
                    raise InputError(*value)
                if kind == "other":
                    raise WorkbenchError(value)
                yield value
    finally:
        _JOB.clear()


@click.command(name="eval")
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-m", "--measure", "measures", multiple=True,
              help="Measure (trec_eval or ir_measures name), repeatable: map, P.5,10, nDCG@10, "
                   "P(rel=2)@5 ... Default: trec_eval's official set.")
@click.option("-q", "per_query", is_flag=True, help="Also print each query's values.")
@click.option("-c", "complete", is_flag=True,
              help="Average over every qrels query; a query missing from the run scores 0.")
@click.option("-l", "rel_level", type=int, default=1, show_default=True,
              help="Relevance threshold: grades >= N are relevant.")
@click.option("-M", "max_depth", type=click.IntRange(min=0), default=None,
              help="Evaluate only the top N documents of each query.")
@click.option("--compat", type=click.Choice(["9", "10"]), default="10", show_default=True,
              help="trec_eval version for iprec_at_recall / 11pt_avg rounding.")
@click.option("--ties", type=click.Choice(["trec_eval", "input", "rank"]), default="trec_eval",
              show_default=True,
              help="Order of tied scores: trec_eval (docno descending), input (file order), "
                   "rank (the rank column).")
@click.option("--bounds", is_flag=True,
              help="Also give each value if every unjudged retrieved document were relevant "
                   "(at the top grade).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="trec", show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes: one run each, or pieces of one big run (default: "
                   "WORKBENCH_THREADS or the number of cores, for big enough files; 1: none).")
def eval_(qrels, runs, measures, per_query, complete, rel_level, max_depth, compat, ties,
          bounds, fmt, jobs) -> None:
    """Evaluate RUN files against QRELS, like `trec_eval [-q] -m MEASURE QRELS RUN`."""
    from concurrent.futures import ThreadPoolExecutor

    from workbench.formats.trec import read_qrels, read_run
    from workbench.metrics.qrels_index import DuplicatePairError, QrelsIndex

    ms = _parse(measures)
    if rel_level < 0:
        raise UsageError("-l must be >= 0")
    if sys.platform.startswith("linux"):
        _tune_allocator()
    # Several big runs: worker processes (see _evaluate_in_processes). Otherwise files
    # are read ahead in threads (numpy releases the GIL while parsing): the qrels and the
    # first run together, then the next run while this one is evaluated.
    # Duplicates are checked once, by the evaluation's own key sort; rows map to lines.

    keep_rank = ties == "rank"
    settings = {"ties": ties, "rel_level": rel_level, "max_depth": max_depth,
                "complete": complete, "compat": int(compat)}
    evs, uppers, names = [], [], []
    from workbench.formats.trec import default_threads

    read = dict(keep_rank=keep_rank, check_duplicates=False, all_tags=False)
    n_proc = _use_processes(runs, jobs)

    def qrels_index(q):
        try:
            index = QrelsIndex(q.qid, q.docno, q.rel)
        except DuplicatePairError as exc:
            raise InputError(q.path, int(q.line[exc.row]), str(exc).replace(" in the qrels", "")) from None
        top_grade = max(int(q.rel.max()) if len(q) else 1, rel_level, 1)
        return index, top_grade

    def keep(ev, up, warning, name):
        if warning is not None:
            click.echo(warning, err=True)
        if up is not None:
            uppers.append(up)
        evs.append(ev)
        names.append(name)

    split = None  # one big run read and evaluated in pieces (None: not tried, or gave up)
    if not n_proc and len(runs) == 1 and not bounds:
        from workbench.cli.eval_split import evaluate_split, run_cuts

        cuts = run_cuts(runs[0], jobs if jobs is not None else default_jobs(), forced=jobs is not None)
        if cuts is not None:
            split = evaluate_split(qrels, runs[0], cuts, ms, rel_level=rel_level, ties=ties,
                                   max_depth=max_depth, complete=complete, compat=int(compat))
    if split is not None:
        keep(split, None, _check(split, runs[0], complete), split.tag)
    elif n_proc:
        index, top_grade = qrels_index(read_qrels(qrels, check_duplicates=False))
        args = (ms, index, rel_level, ties, max_depth, complete, int(compat),
                top_grade if bounds else None)
        for result in _evaluate_in_processes(runs, n_proc, read, args):
            keep(*result)
    else:
        with ThreadPoolExecutor(max_workers=default_threads()) as pool:
            fq = pool.submit(read_qrels, qrels, check_duplicates=False)
            ahead = [pool.submit(read_run, runs[0], **read)]
            index, top_grade = qrels_index(fq.result())
            for k, path in enumerate(runs):
                if k + 1 < len(runs):
                    ahead.append(pool.submit(read_run, runs[k + 1], **read))
                r = ahead[k].result()
                ahead[k] = None  # let the arrays go once evaluated
                keep(*_evaluate_one(r, path, ms, index, rel_level, ties, max_depth, complete,
                                    int(compat), top_grade if bounds else None), r.tag or path)
    out = sys.stdout
    if fmt == "trec":
        lines: list[str] = []
        for k, ev in enumerate(evs):
            lines.extend(_trec_lines(ev, per_query, uppers[k] if bounds else None))
        out.write("\n".join(lines) + ("\n" if lines else ""))
    elif fmt == "csv":
        out.write(_csv(evs, names, per_query, uppers if bounds else None))
    elif fmt == "json":
        out.write(_json(evs, names, per_query, uppers if bounds else None, settings) + "\n")
    else:
        _table(evs, names, per_query, uppers if bounds else None, settings)
