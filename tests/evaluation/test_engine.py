"""The evaluation engine's entry points: files and read runs give the same records, and
the printers write what `eval` prints."""

from __future__ import annotations

from click.testing import CliRunner

from workbench.cli import cli
from workbench.evaluation import evaluate_files, evaluate_runs
from workbench.formats.evaluation_output import trec_lines
from workbench.formats.trec import read_qrels, read_run


def _files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n3 0 z 1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n2 Q0 x 1 5 t\n2 Q0 a 2 4 t\n")
    return str(qrels), str(run)


def test_files_and_read_runs_give_the_same_evaluation(tmp_path):
    qrels, run = _files(tmp_path)
    (a,) = evaluate_files(qrels, [run], ["map", "P.2", "num_rel"], jobs=1)
    (b,) = evaluate_runs(read_qrels(qrels), [read_run(run)], ["map", "P.2", "num_rel"])
    assert trec_lines(a.evaluation, True) == trec_lines(b.evaluation, True)
    # query 3 is in the qrels only: a warning, not averaged without -c
    assert "1 qrels query missing from the run" in a.warning
    assert a.name == "t"
    # q1: a and b tie at 2.0, trec_eval puts b (docno descending) first: b (0), a (1),
    # c (2): AP = (1/2 + 2/3) / 2; q2: x, a: AP = 1/2
    assert a.evaluation.value("map") == ((1 / 2 + 2 / 3) / 2 + 1 / 2) / 2


def test_eval_prints_the_printers_lines(tmp_path):
    qrels, run = _files(tmp_path)
    out = CliRunner().invoke(cli, ["eval", qrels, run, "-m", "map", "-m", "P.2", "-q"]).stdout
    (a,) = evaluate_files(qrels, [run], ["map", "P.2"], jobs=1)
    assert out.splitlines() == trec_lines(a.evaluation, True)
