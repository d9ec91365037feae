"""A score beyond float32's range printed numpy's RuntimeWarning with source
paths. It becomes ±inf as in trec_eval (a C float), quietly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[2])


def test_scores_beyond_float32_rank_as_infinity_without_warnings(tmp_path):
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 1e39 r\nq1 Q0 d3 3 -1e39 r\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 0\nq1 0 d2 1\nq1 0 d3 0\n")
    done = subprocess.run(
        [sys.executable, "-W", "default", "-m", "workbench", "eval", str(qrels), str(run),
         "-m", "P.1", "-m", "recip_rank", "--format", "trec"],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    values = {line.split("\t")[0].strip(): line.split("\t")[2] for line in done.stdout.splitlines()}
    assert values == {"P_1": "1.0000", "recip_rank": "1.0000"}
