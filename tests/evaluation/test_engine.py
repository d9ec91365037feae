"""The evaluation engine: every strategy prints trec_eval's bytes, the arrays form gives the
files form's numbers, results arrive in run order before a later run's error, and `eval`
prints the printers' lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import cli, main
from workbench.errors import InputError
from workbench.evaluation import evaluate_arrays, evaluate_files
from workbench.formats.evaluation_output import trec_lines
from workbench.formats.trec import read_qrels, read_run
from workbench.metrics.evaluate import RunArrays

QUICKTEST = Path(__file__).resolve().parents[1] / "data" / "trec_eval_quicktest"
# every family of trec_eval 10's -m all_trec that takes no parameter here (not rbp,
# Rprec_mult, utility, ...); out.test.aq's lines for these must come out exactly
MEASURES = ["official", "recall", "infAP", "11pt_avg", "ndcg", "ndcg_cut", "map_cut",
            "success", "set_P", "set_recall", "set_F"]
CASES = {  # trec_eval's quicktest: qrels, run, options, expected output
    "aq": ("qrels.test", "results.test", [], "out.test.aq"),
    "aqc": ("qrels.test", "results.trunc", ["-c"], "out.test.aqc"),
}


def _eval(capsys, qrels, runs, *opts):
    args = ["eval", str(QUICKTEST / qrels), *[str(QUICKTEST / r) for r in runs], "-q", *opts]
    for m in MEASURES:
        args += ["-m", m]
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def _trec_eval_lines(expected: str, printed: str) -> str:
    """trec_eval's expected output cut to the measures `printed` has."""
    names = {line.split("\t")[0] for line in printed.splitlines()}
    lines = [line for line in (QUICKTEST / expected).read_text().splitlines()
             if line.split("\t")[0] in names]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", sorted(CASES))
def test_eval_prints_trec_eval_bytes_through_every_strategy(capsys, case):
    qrels, run, opts, expected = CASES[case]
    threads = _eval(capsys, qrels, [run], *opts, "-j", "1")
    assert threads[0] == _trec_eval_lines(expected, threads[0])
    assert len(threads[0].splitlines()) == 255  # 3 queries x 80 lines + 15 summary lines
    split = _eval(capsys, qrels, [run], *opts, "-j", "2")
    assert split == threads
    # two runs: one worker process each; the blocks follow the runs' order
    processes = _eval(capsys, qrels, [run, run], *opts, "-j", "2")
    serial = _eval(capsys, qrels, [run, run], *opts, "-j", "1")
    # the same file twice shares its tag: a runfile line follows each runid line
    runfile = f"runfile               \tall\t{QUICKTEST / run}\n"
    one = "".join(line + (runfile if line.startswith("runid") else "")
                  for line in threads[0].splitlines(keepends=True))
    assert processes == serial and processes[0] == one * 2


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_strategy_named_is_the_one_that_ran(case):
    """(So that the test above compares three strategies, not one three times.)"""
    qrels, run, opts, _ = CASES[case]
    q, r = QUICKTEST / qrels, QUICKTEST / run
    kw = dict(complete="-c" in opts)
    assert [x.strategy for x in evaluate_files(q, [r], ["map"], jobs=1, **kw)] == ["threads"]
    # results.trunc interleaves its queries: no cut keeps each query in one piece, so the
    # split gives up and the run is evaluated in this process
    one_run = "threads" if case == "aqc" else "split"
    assert [x.strategy for x in evaluate_files(q, [r], ["map"], jobs=2, **kw)] == [one_run]
    assert [x.strategy for x in evaluate_files(q, [r, r], ["map"], jobs=2, **kw)] == [
        "processes", "processes"]
    # small files and no -j: this process (forking would cost more than it saves)
    assert [x.strategy for x in evaluate_files(q, [r, r], ["map"], **kw)] == ["threads"] * 2


def test_results_carry_what_eval_prints_around_the_numbers():
    q, r = QUICKTEST / "qrels.test", QUICKTEST / "results.trunc"
    (plain,) = evaluate_files(q, [r], ["map", "P.5"], jobs=1)
    assert plain.path == str(r) and plain.name == "STANDARD" and plain.upper is None
    assert plain.unaveraged == ("302",)  # eval warns: not averaged without -c
    assert plain.evaluation.qids == ("301", "303")
    (complete,) = evaluate_files(q, [r], ["map", "P.5"], jobs=1, complete=True)
    assert complete.unaveraged == () and complete.evaluation.qids == ("301", "302", "303")
    (bounded,) = evaluate_files(q, [r], ["P.5"], jobs=1, bounds=True)
    assert bounded.upper.summary[bounded.upper.measures[0]] >= plain.evaluation.value("P.5")


@pytest.mark.parametrize("jobs", [1, 2])
def test_arrays_give_the_numbers_of_the_files(jobs):
    q = read_qrels(QUICKTEST / "qrels.test")
    r = read_run(QUICKTEST / "results.test")
    runs = [RunArrays(r.qid, r.docno, r.score, "a"), RunArrays(r.qid[:500], r.docno[:500],
                                                              r.score[:500], "b")]
    got = evaluate_arrays(q, runs, MEASURES, jobs=jobs, bounds=True)
    assert [x.strategy for x in got] == (["threads"] * 2 if jobs == 1 else ["processes"] * 2)
    assert [x.name for x in got] == ["a", "b"]
    (whole,) = evaluate_files(QUICKTEST / "qrels.test", [QUICKTEST / "results.test"],
                              MEASURES, jobs=1, bounds=True)
    for mine, theirs in ((got[0].evaluation, whole.evaluation), (got[0].upper, whole.upper)):
        assert mine.qids == theirs.qids and mine.measures == theirs.measures
        for m in mine.measures:
            assert mine.per_query[m].tolist() == theirs.per_query[m].tolist(), m.label
    assert got[1].evaluation.qids == ("301",)  # the first 500 lines are query 301's
    assert got[1].unaveraged == ("302", "303")


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_arrive_in_order_before_a_later_runs_error(tmp_path, capsys, jobs):
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 1.0 t\n301 Q0 d2 2 oops t\n")
    seen = []
    with pytest.raises(InputError) as err:
        evaluate_files(QUICKTEST / "qrels.test", [QUICKTEST / "results.trunc", bad], ["map"],
                       jobs=jobs, on_result=seen.append)
    assert (err.value.path, err.value.line) == (str(bad), 2)
    assert [x.path for x in seen] == [str(QUICKTEST / "results.trunc")]
    # so eval warns about the first run before it reports the second one's bad line
    args = ["eval", str(QUICKTEST / "qrels.test"), str(QUICKTEST / "results.trunc"), str(bad)]
    assert main([*args, "-j", str(jobs)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"workbench: warning: {QUICKTEST / 'results.trunc'}: 1 qrels query missing from the "
        "run, not averaged (use -c to count them as 0)",
        f"workbench: {bad}:2: score (column 5) must be a finite number, found 'oops'",
    ]


def _files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n3 0 z 1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n2 Q0 x 1 5 t\n2 Q0 a 2 4 t\n")
    return str(qrels), str(run)


def test_files_and_read_runs_give_the_same_evaluation(tmp_path):
    qrels, run = _files(tmp_path)
    (a,) = evaluate_files(qrels, [run], ["map", "P.2", "num_rel"], jobs=1)
    q, r = read_qrels(qrels), read_run(run)
    (b,) = evaluate_arrays(q, [RunArrays(r.qid, r.docno, r.score, r.tag)], ["map", "P.2", "num_rel"])
    assert trec_lines(a.evaluation, True) == trec_lines(b.evaluation, True)
    # query 3 is in the qrels only: not averaged without -c (eval warns)
    assert a.unaveraged == b.unaveraged == ("3",)
    assert a.name == b.name == "t"
    # q1: a and b tie at 2.0, trec_eval puts b (docno descending) first: b (0), a (1),
    # c (2): AP = (1/2 + 2/3) / 2; q2: x, a: AP = 1/2
    assert a.evaluation.value("map") == ((1 / 2 + 2 / 3) / 2 + 1 / 2) / 2


def test_eval_prints_the_printers_lines(tmp_path):
    qrels, run = _files(tmp_path)
    out = CliRunner().invoke(cli, ["eval", qrels, run, "-m", "map", "-m", "P.2", "-q"]).stdout
    (a,) = evaluate_files(qrels, [run], ["map", "P.2"], jobs=1)
    assert out.splitlines() == trec_lines(a.evaluation, True)
