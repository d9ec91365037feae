"""`--compat` on the command line: `workbench campaign --compat 9|10` (the stored runs'
order), and simulate / reusability over files."""

from __future__ import annotations

import json

from tests.cli.helpers import cli_ok, run
from workbench.errors import UsageError

# q1: a and b are one float32, two doubles (a higher); b is the only relevant document
QRELS = "q1 0 a 0\nq1 0 b 1\nq1 0 c 0\nq2 0 x 1\n"
RUNS = {
    "A": "q1 Q0 a 1 0.6336937199542163 A\nq1 Q0 b 2 0.6336936930397126 A\nq1 Q0 c 3 0.1 A\n"
         "q2 Q0 x 1 1.0 A\n",
    "B": "q1 Q0 c 1 0.9 B\nq1 Q0 b 2 0.5 B\nq1 Q0 a 3 0.1 B\nq2 Q0 y 1 1.0 B\nq2 Q0 x 2 0.5 B\n",
}


def _files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    paths = []
    for tag, text in RUNS.items():
        (tmp_path / tag).write_text(text)
        paths.append(str(tmp_path / tag))
    return str(tmp_path / "qrels"), paths


def test_campaign_compat_is_shown_and_set(db_url, tmp_path):
    cli_ok(db_url, "init")
    assert "score order: trec_eval 10 (scores compared as doubles)" in cli_ok(db_url, "campaign")
    qrels, paths = _files(tmp_path)
    cli_ok(db_url, "import", "qrels", qrels, "--assessor", "ann")
    cli_ok(db_url, "import", "run", paths[0])

    def rr():
        doc = json.loads(cli_ok(db_url, "score", "-m", "RR", "--assessor", "ann", "-q", "--format", "json"))
        return doc["systems"][0]["per_query"]["q1"]["RR"]

    assert rr() == 0.5
    assert "score order: trec_eval 9 (scores compared as floats)" in cli_ok(db_url, "campaign", "--compat", "9")
    assert rr() == 1.0
    cli_ok(db_url, "campaign", "--compat", "10")
    assert rr() == 0.5


def test_simulate_and_reusability_take_compat_with_files(db_url, tmp_path):
    qrels, paths = _files(tmp_path)

    def scores(compat):
        doc = json.loads(cli_ok(db_url, "reusability", "--qrels", qrels, *paths, "-m", "RR",
                                "--depth", "3", "--format", "json", "--compat", compat))
        return {r["run"]: r["score_full"] for r in doc["runs"]}

    # A's RR on q1: 1/2 as doubles, 1 as floats (b before a); q2: 1
    assert scores("10")["A"] == (0.5 + 1) / 2
    assert scores("9")["A"] == (1 + 1) / 2
    out = cli_ok(db_url, "simulate", "--qrels", qrels, *paths, "--method", "depth", "--budget", "2",
                 "--compat", "9", "--format", "json")
    assert json.loads(out)["method"] == "depth"
    # without files the stored campaign's own order applies
    result = run(db_url, "simulate", "--method", "depth", "--budget", "2", "--compat", "9")
    assert isinstance(result.exception, UsageError)
    assert "workbench campaign --compat" in str(result.exception)
