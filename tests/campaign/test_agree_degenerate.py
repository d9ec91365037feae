"""`agree` on a constant rater: kappa 0 by construction keeps its value, loses
its zero-width interval and names the rater; two constant raters: kappa undefined."""

from __future__ import annotations

import json

from tests.tui.factory import build_campaign
from workbench.campaign.judging.grades import record_grade
from workbench.cli import main


def test_constant_rater(sqlite_db, capsys):
    camp = build_campaign(sqlite_db, n_queries=2, n_systems=2, depth=6,
                          assessors=("alice", "bob", "carol"))
    for q in camp.queries:
        for i, d in enumerate(camp.queues[q]["alice"]):
            record_grade(sqlite_db, "alice", q, d, 1)          # one grade only
            record_grade(sqlite_db, "bob", q, d, i % 3)
            record_grade(sqlite_db, "carol", q, d, 2)          # one grade only
    assert main(["agree", "--db", sqlite_db.url, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    pairs = {(p["a"], p["b"]): p for p in data["pairs"]}
    ab = pairs[("alice", "bob")]
    assert abs(ab["cohen_kappa"]) < 1e-12 and ab["cohen_kappa_ci"] is None
    assert any("Cohen's kappa of alice and bob is 0 by construction: alice gave one value only (1)" in w
               for w in data["warnings"])
    ac = pairs[("alice", "carol")]
    assert ac["cohen_kappa"] is None and ac["cohen_kappa_ci"] is None
    assert any("Cohen's kappa of alice and carol is undefined: both gave one value only" in w
               for w in data["warnings"])
    assert len([w for w in data["warnings"] if "one value only" in w]) == 3  # bob-carol too


def test_constant_raters_in_the_table(sqlite_db, capsys):
    camp = build_campaign(sqlite_db, n_queries=1, n_systems=2, depth=6, assessors=("alice", "carol"))
    for d in camp.queues["q1"]["alice"]:
        record_grade(sqlite_db, "alice", "q1", d, 1)
        record_grade(sqlite_db, "carol", "q1", d, 2)
    assert main(["agree", "--db", sqlite_db.url]) == 0
    out = capsys.readouterr()
    row = next(line for line in out.out.splitlines() if line.strip().startswith("alice"))
    assert row.split()[3:9] == ["0.0000", "—", "—", "—", "—", "—"]  # kappa undefined, not 0
    assert "undefined: both gave one value only (1 and 2)" in out.out + out.err
    # the bootstrap of Fleiss' kappa and alpha cannot vary either: no zero-width interval
    fleiss = next(line for line in out.out.splitlines() if "Fleiss' kappa" in line)
    assert "[-1.000, -1.000]" not in fleiss and "—" in fleiss
