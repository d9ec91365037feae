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
