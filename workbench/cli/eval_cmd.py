"""`workbench eval QRELS RUN [RUN ...]`: trec_eval-compatible evaluation of run files.

``--format trec`` prints exactly what ``trec_eval [-q] -m ...`` prints (same names, same
numbers, same layout: ``%-22s\\t%s\\t%6.4f``, counts as integers, per-query lines then the
``all`` lines), so it can replace trec_eval in scripts; with several runs the blocks
follow in the order the runs were given. This path imports neither Textual nor
SQLAlchemy (nor Rich unless a table is printed).

Argument handling only: `workbench.evaluation` evaluates (and picks threads, worker
processes or a split run), `workbench.formats.evaluation_output` prints.
"""

from __future__ import annotations

import sys

import click

from workbench.defaults import EVAL_MEASURES
from workbench.errors import UsageError

FORMATS = ("trec", "table", "csv", "json")


# trec_eval's -R formats other than qrels: preference judgments and judgment groups
UNSUPPORTED_FORMATS = {"prefs": "preference judgments", "qrels_prefs": "qrels read as preferences",
                       "qrels_jg": "qrels with judgment groups"}


def _parse(measure_names, compat: int):
    from workbench.metrics.measures import parse_measures

    # a bad name raises MeasureError, a UsageError: one line, exit 2
    return parse_measures(list(measure_names) or list(EVAL_MEASURES), compat=compat)


def _jobs_here() -> str:
    """The default's ceiling as detected now, for --help."""
    import os

    from workbench.cores import usable_cpus

    n = usable_cpus()
    here = f"{n} usable core{'' if n == 1 else 's'} here"
    env = os.environ.get("WORKBENCH_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return f"WORKBENCH_THREADS={int(env)} here ({here})"
    return here


def _check_rel_format(fmt: str) -> None:
    """trec_eval's -R: only ``qrels`` is read; the others are refused by name."""
    if fmt == "qrels":
        return
    what = UNSUPPORTED_FORMATS.get(fmt)
    if what is None:
        raise UsageError(f"not supported: -R {fmt} (trec_eval knows qrels, prefs, "
                         f"qrels_prefs, qrels_jg; workbench reads qrels only)")
    raise UsageError(f"not supported: -R {fmt} ({what}); workbench reads qrels only")


def _warn_unaveraged(result) -> None:
    n = len(result.unaveraged)
    if n:
        click.echo(f"workbench: warning: {result.path}: {n} qrels "
                   f"quer{'y' if n == 1 else 'ies'} missing from the run, not averaged "
                   f"(use -c to count them as 0)", err=True)


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
@click.option("-J", "judged_only", is_flag=True,
              help="Evaluate only the judged retrieved documents (unjudged ones are dropped "
                   "and the rest move up).")
@click.option("-N", "num_docs", type=click.IntRange(min=0), default=0,
              help="Number of documents in the collection (utility's non-retrieved "
                   "non-relevant count).")
@click.option("-Z", "zscores_file", type=click.Path(dir_okay=False), default=None,
              help="Print z-scores: each query's value against the mean and standard deviation "
                   "that this file gives (lines `qid measure mean stddev`).")
@click.option("-R", "rel_format", default="qrels", show_default=True,
              help="Format of the relevance file; only trec_eval's qrels is supported.")
@click.option("--compat", type=click.Choice(["9", "10"]), default="10", show_default=True,
              help="trec_eval version: 10 compares run scores as doubles; 9 as floats (two scores "
                   "equal to 7 digits tie), rounds iprec_at_recall / 11pt_avg as trec_eval 9 and "
                   "leaves its missing families (unj, rbp, rbp_resid) out of all_trec.")
@click.option("--ties", type=click.Choice(["trec_eval", "input", "rank"]), default="trec_eval",
              show_default=True,
              help="Order of tied scores: trec_eval (docno descending), input (file order), "
                   "rank (the rank column).")
@click.option("--bounds", is_flag=True,
              help="Also give each value if every unjudged retrieved document were relevant "
                   "(at the top grade).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="trec", show_default=True)
@click.option("--plot", "plot", default=None, metavar="FILE",
              help="Also draw the runs' interpolated precision-recall curves to FILE "
                   "(.png, .svg or .pdf; pip install 'workbench[plots]').")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes: one run each, or pieces of one big run (default: as "
                   "many as the input's size makes worth it, up to WORKBENCH_THREADS or the "
                   "cores this process may use, " + _jobs_here() + "; 1: none).")
def eval_(qrels, runs, measures, per_query, complete, rel_level, max_depth, judged_only,
          num_docs, zscores_file, rel_format, compat, ties, bounds, fmt, plot, jobs) -> None:
    """Evaluate RUN files against QRELS, like `trec_eval [-q] -m MEASURE QRELS RUN`.

    QRELS may be `irds:ID`: the qrels of an ir_datasets dataset (pip install
    'workbench[datasets]'), as ir_measures reads them."""
    from dataclasses import asdict

    from workbench.evaluation import EvalSettings, evaluate_files
    from workbench.evaluation.allocator import tune_allocator
    from workbench.formats import evaluation_output as output

    _check_rel_format(rel_format)
    ms = _parse(measures, int(compat))
    if plot is not None:
        from workbench.campaign.plotting import check

        check(plot)
    if rel_level < 0:
        raise UsageError("-l must be >= 0")
    table = None
    if zscores_file is not None:
        from workbench.formats.zscores import read_zscores

        table = read_zscores(zscores_file)  # before any work: a bad line stops here
    tune_allocator()
    settings = EvalSettings(rel_level=rel_level, ties=ties, max_depth=max_depth,
                            complete=complete, compat=int(compat), judged_only=judged_only,
                            num_docs=num_docs)
    if qrels.startswith("irds:"):  # an ir_datasets dataset's qrels (formats.irds)
        from workbench.evaluation.datasets import evaluate_on_dataset

        results = evaluate_on_dataset(qrels[len("irds:"):], runs, ms, settings, bounds=bounds,
                                      jobs=jobs, on_result=_warn_unaveraged)
    else:
        results = evaluate_files(qrels, runs, ms, **asdict(settings), bounds=bounds, jobs=jobs,
                                 on_result=_warn_unaveraged)
    evs = [r.evaluation for r in results]
    files = [str(p) for p in runs]  # as given (results keep the runs' order)
    # runs that share a tag are told apart by their file, in every format
    names = output.distinct_names([r.name for r in results], files)
    if plot is not None:
        from workbench.campaign.plotting import plot_eval

        plot_eval(plot, qrels, runs, names, settings)
    uppers = [r.upper for r in results] if bounds else None
    if table is not None:
        from workbench.evaluation.zscored import zscored

        evs = [zscored(ev, table) for ev in evs]
        uppers = [zscored(up, table) for up in uppers] if uppers else None
    if fmt == "trec":  # trec_eval's names in trec_eval's order
        # trec_eval reads one run; with several, each block opens with its run tag, the
        # line `-m runid` prints (unless runid was asked for: then it is there already)
        tagged = len(evs) > 1 and not any(m.aggregation == "runid" for m in ms)
        # runs that share a tag: a `runfile` line after each runid line names the file
        alike = len(evs) > 1 and (output.shares_a_tag(evs) or names != [r.name for r in results])
        output.write_trec(sys.stdout, evs, per_query, uppers, runid_first=tagged,
                          runfiles=files if alike else None)
        return
    shown = _shown(measures, int(compat), ms)
    if fmt == "csv":
        output.write_csv(sys.stdout, evs, names, per_query, uppers, shown)
    elif fmt == "json":  # the values are z-scores with -Z: the settings say against what
        jobs_used = max((r.jobs for r in results), default=1)
        output.write_json(sys.stdout, evs, names, per_query, uppers,
                          {**settings.as_dict(), "zscores": zscores_file, "jobs": jobs_used}, shown,
                          files)
    else:
        output.write_table(evs, names, per_query, uppers, settings.as_dict(), shown)


def _shown(measure_names, compat: int, ms) -> list[tuple]:
    """(measure, name) in the user's order and spelling, as `score` shows them, for the
    measures evaluated (metrics.requested.evaluated_measures)."""
    from workbench.metrics.requested import evaluated_measures

    shown = evaluated_measures(list(measure_names) or list(EVAL_MEASURES), compat=compat)
    return list(zip(shown.measures, shown.names))
