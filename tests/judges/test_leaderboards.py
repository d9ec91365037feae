"""Leaderboards in and out: AutoJudge's four formats read with file:line errors, stored on
each backend (all or nothing), read back as `leaderboard:NAME`, and written by
`export scores -q --format tot|ir_measures|jsonl`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.cli.helpers import cli_ok, run
from workbench.campaign.database import Database
from workbench.campaign.scoring.leaderboards import leaderboard_names, leaderboard_scores
from workbench.errors import InputError
from workbench.formats.leaderboards import read_leaderboard

TOT = """\
runA ndcg_cut_10 q1 0.5
runA ndcg_cut_10 q2 0.25
runA ndcg_cut_10 all 0.375
runA P_10 q1 0.2
runB ndcg_cut_10 q1 0.75
runB ndcg_cut_10 q2 0.5
"""


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_four_formats_read_the_same_rows(tmp_path):
    tot = read_leaderboard(_write(tmp_path, "a.tot", TOT), "tot")
    irm_text = "".join(f"{r} {t} {m} {v}\n" for r, m, t, v in (line.split() for line in TOT.splitlines()))
    irm = read_leaderboard(_write(tmp_path, "a.irm", irm_text), "ir_measures")
    jsonl_text = "".join(json.dumps({"run_id": r, "topic_id": t, "measure": m, "value": float(v)}) + "\n"
                         for r, m, t, v in (line.split() for line in TOT.splitlines()))
    js = read_leaderboard(_write(tmp_path, "a.jsonl", jsonl_text))  # sniffed
    assert tot == irm == js
    assert tot.runs[:3] == ("runA",) * 3 and tot.values[2] == 0.375
    only = read_leaderboard(_write(tmp_path, "b.tot", TOT), "tot", measure="P_10")
    assert only.measures == ("P_10",) and only.values == (0.2,)


def test_trec_eval_takes_the_run_from_the_file_name(tmp_path):
    path = _write(tmp_path, "bm25.eval", "runid all whatever\nmap q1 0.5\nmap all 0.5\n")
    rows = read_leaderboard(path)  # three columns: trec_eval
    assert rows.runs == ("bm25.eval", "bm25.eval") and rows.topics == ("q1", "all")


@pytest.mark.parametrize("text, fmt, line, reason", [
    (TOT, None, 1, "give --format tot or --format ir_measures"),
    ("r m q1 0.5\nr m q1 x\n", "tot", 2, "is not a number"),
    ("r m q1 0.5\nr m q1 0.7\n", "tot", 2, "repeats line 1"),
    ("r m q1 0.5\nr m q1\n", "tot", 2, "3 columns; `tot` has 4"),
    ('{"run_id": "r", "topic_id": "q", "measure": "m"}\n', "jsonl", 1, "missing value"),
    ("r m q1 nan\n", "tot", 1, "not a finite number"),
])
def test_bad_lines_name_file_and_line(tmp_path, text, fmt, line, reason):
    path = _write(tmp_path, "bad.txt", text)
    with pytest.raises(InputError) as info:
        read_leaderboard(path, fmt)
    assert info.value.line == line and reason in info.value.reason
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_import_store_and_read_back(db_url, tmp_path):
    path = _write(tmp_path, "board.tot", TOT)
    out = cli_ok(db_url, "import", "leaderboard", path, "--name", "official", "--format", "tot")
    assert "imported leaderboard official" in out and "6 values, 2 runs" in out
    database = Database.open(db_url)
    try:
        assert leaderboard_names(database) == ["official"]
        b = leaderboard_scores(database, "official", "ndcg_cut_10")
        assert b.source == "leaderboard:official" and b.systems == ("runA", "runB")
        assert b.topics == ("q1", "q2")
        assert b.values.tolist() == [[0.5, 0.25], [0.75, 0.5]]
        assert b.means.tolist() == [0.375, 0.625]  # the file's all line; else the topics' mean
    finally:
        database.close()
    # a bad file writes nothing and keeps the old leaderboard
    bad = _write(tmp_path, "bad.tot", TOT + "runC ndcg_cut_10 q1 oops\n")
    result = run(db_url, "import", "leaderboard", bad, "--name", "official", "--format", "tot")
    assert result.exit_code == 1 and f"{bad}:7:" in str(result.exception)
    refused = run(db_url, "import", "leaderboard", path, "--name", "other")
    assert refused.exit_code == 1 and "four columns" in str(refused.exception)
    exported = cli_ok(db_url, "export", "scores", "-q", "--source", "leaderboard:official", "--format", "ir_measures")
    assert exported.splitlines()[0] == "runA q1 ndcg_cut_10 0.5" and len(exported.splitlines()) == 6


def test_export_scores_in_leaderboard_formats_round_trips(db_url, tmp_path):
    run_file = _write(tmp_path, "sysA.run", "q1 Q0 d1 1 2.0 sysA\nq1 Q0 d2 2 1.0 sysA\nq2 Q0 d2 1 1.0 sysA\n")
    qrels = _write(tmp_path, "ann.qrels", "q1 0 d1 1\nq2 0 d2 0\n")
    cli_ok(db_url, "import", "run", run_file)
    cli_ok(db_url, "import", "qrels", qrels, "--assessor", "ann")
    tot = cli_ok(db_url, "export", "scores", "-q", "-m", "P@1", "--format", "tot")
    assert tot.splitlines() == ["sysA P@1 q1 1.0", "sysA P@1 q2 0.0", "sysA P@1 all 0.5"]
    js = cli_ok(db_url, "export", "scores", "-q", "-m", "P@1", "--format", "jsonl")
    assert json.loads(js.splitlines()[2]) == {"run_id": "sysA", "topic_id": "all", "measure": "P@1", "value": 0.5}
    path = _write(tmp_path, "out.tot", tot)
    cli_ok(db_url, "import", "leaderboard", path, "--name", "mine", "--format", "tot")
    database = Database.open(db_url)
    try:
        b = leaderboard_scores(database, "mine", "P@1")
        assert np.allclose(b.values, [[1.0, 0.0]]) and b.means.tolist() == [0.5]
    finally:
        database.close()
    refused = run(db_url, "export", "scores", "--format", "tot")
    assert refused.exit_code == 2 and "add -q" in refused.output
