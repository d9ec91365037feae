"""The evaluation printers: trec_eval's layout, score's runid-first blocks, CSV and JSON."""

from __future__ import annotations

import io
import json

from workbench.formats.evaluation_output import write_csv, write_json, write_trec
from workbench.metrics.evaluate import evaluate

QRELS = (["1", "1", "2"], ["a", "b", "x"], [1, 0, 2])


def _ev(tag="sysA", **kw):
    # query 1: a (relevant) at rank 1, b (not) at rank 2; query 2: x (grade 2) at rank 2
    return evaluate(*QRELS, ["1", "1", "2", "2"], ["a", "b", "y", "x"], [2.0, 1.0, 2.0, 1.0],
                    ["map", "num_ret", "runid"], tag=tag, **kw)


def test_trec_lines_are_trec_eval_layout():
    out = io.StringIO()
    write_trec(out, [_ev()], per_query=True)
    assert out.getvalue() == (
        "num_ret               \t1\t2\n"
        "map                   \t1\t1.0000\n"
        "num_ret               \t2\t2\n"
        f"map                   \t2\t{1 / 2:.4f}\n"
        "runid                 \tall\tsysA\n"
        "num_ret               \tall\t4\n"
        f"map                   \tall\t{(1 + 1 / 2) / 2:.4f}\n"
    )


def test_runid_first_opens_each_block_and_nothing_prints_nothing():
    out = io.StringIO()
    write_trec(out, [_ev("s1"), _ev("s2")], per_query=False, runid_first=True)
    lines = out.getvalue().splitlines()
    assert [line.split("\t") for line in lines if line.startswith("runid")] == [
        ["runid                 ", "all", "s1"]] * 2 + [["runid                 ", "all", "s2"]] * 2
    assert lines[0].endswith("s1") and lines[4].endswith("s2") and len(lines) == 8
    empty = io.StringIO()
    write_trec(empty, [], per_query=True)
    assert empty.getvalue() == ""


def test_upper_lines_follow_their_values():
    out = io.StringIO()
    write_trec(out, [_ev()], per_query=False, uppers=[_ev(unjudged_as=2)])
    assert out.getvalue().splitlines()[-2:] == [
        f"map                   \tall\t{(1 + 1 / 2) / 2:.4f}",
        # y (unjudged, rank 1 of query 2) counted relevant: AP of query 2 = (1 + 1) / 2
        f"map_upper             \tall\t{(1 + 1) / 2:.4f}",
    ]


def test_csv_and_json_values():
    ev = _ev()
    out = io.StringIO()
    write_csv(out, [ev], ["run.txt"], per_query=False)
    assert out.getvalue() == ("run,query,measure,value\nrun.txt,all,runid,sysA\n"
                              "run.txt,all,num_ret,4\nrun.txt,all,map,0.75\n")
    out = io.StringIO()
    write_json(out, [ev], ["run.txt"], True, None, {"ties": "trec_eval"})
    doc = json.loads(out.getvalue())
    assert out.getvalue().endswith("}\n")
    assert doc["runs"][0]["summary"] == {"runid": "sysA", "num_ret": 4, "map": 0.75}
    assert doc["runs"][0]["per_query"]["2"] == {"num_ret": 2, "map": 0.5}


def test_grid_tables_turns_measures_to_rows_then_cuts():
    from workbench.formats.evaluation_output import grid_tables

    cells = [["0.1234", "0.5000", "12"], ["0.0001", "1.0000", "3"]]
    labels = ["map", "iprec_at_recall_0.10", "num_rel"]
    # as columns: cells 3 (run), 6, 20, 7, each with 2 of padding and a rule, + 1 = 49
    assert grid_tables("run", ["a", "b"], labels, cells, 49) == [
        ("run", ["a", "b"], labels, cells)]
    assert grid_tables("run", ["a", "b"], labels, cells, None)[0][2] == labels
    # at 48 the measures become rows: cells 20, 6, 6: 42
    assert grid_tables("run", ["a", "b"], labels, cells, 48) == [
        ("measure", labels, ["a", "b"], [["0.1234", "0.0001"], ["0.5000", "1.0000"],
                                         ["12", "3"]])]
    # at 40 neither fits: the columns cut in two tables (3 rows each) print fewer lines
    # than three runs as columns cut in three (3 measure rows each)
    three = cells + [["0.5000", "0.2500", "1"]]
    parts = grid_tables("run", ["a", "b", "c"], labels, three, 40)
    assert [p[2] for p in parts] == [["map", "iprec_at_recall_0.10"], ["num_rel"]]
    assert [p[3] for p in parts] == [[["0.1234", "0.5000"], ["0.0001", "1.0000"], ["0.5000", "0.2500"]],
                                     [["12"], ["3"], ["1"]]]
    # many measures and two short runs: the measures as rows, cut by runs
    wide = grid_tables("run", ["a", "b"], [f"m{k}" for k in range(12)],
                       [["0.5000"] * 12, ["0.2500"] * 12], 30)
    assert [p[0] for p in wide] == ["measure"] and wide[0][2] == ["a", "b"]


def test_distinct_names_tell_runs_apart():
    from workbench.formats.evaluation_output import distinct_names

    assert distinct_names(["bm25", "qld"], ["a.run", "b.run"]) == ["bm25", "qld"]
    assert distinct_names(["bm25", "bm25", "qld"], ["x/a.run", "y/a.run", "b.run"]) == [
        "bm25 (x/a.run)", "bm25 (y/a.run)", "qld"]
    # one file given twice: its position too; a run without a tag is its file already
    assert distinct_names(["t", "t", "c.run"], ["a.run", "a.run", "c.run"]) == [
        "t (a.run) #1", "t (a.run) #2", "c.run"]


def test_runfile_line_follows_runid_only_when_asked():
    out = io.StringIO()
    write_trec(out, [_ev("s"), _ev("s")], per_query=False, runid_first=True,
               runfiles=["a.run", "b.run"])
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["runid                 \tall\ts", "runfile               \tall\ta.run"]
    assert lines.count("runfile               \tall\tb.run") == 1  # once a block
    one = io.StringIO()
    write_trec(one, [_ev("s")], per_query=False)
    assert "runfile" not in one.getvalue()
