"""`workbench pool` end to end: pool size, per-assessor counts, idempotent re-runs."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from workbench.campaign.database import Database
from workbench.cli import cli
from tests.stored_runs import write_results
from workbench.store.models import Assignment, Document, PoolEntry, Query, System


@pytest.fixture
def campaign(db_url):
    """3 queries x 2 systems x 10 documents, systems ranking in opposite orders."""
    database = Database.open(db_url)
    with database.write.begin() as s:
        queries = [Query(ext_id=f"q{i}") for i in range(3)]
        docs = [Document(ext_id=f"d{j:02d}") for j in range(10)]
        systems = [System(tag="up"), System(tag="down")]
        s.add_all(queries + docs + systems)
        s.flush()
        write_results(s, [
            row for q in queries for j, d in enumerate(docs)
            for row in ((systems[0].id, q.id, d.id, 10.0 - j), (systems[1].id, q.id, d.id, float(j)))
        ])
    database.close()
    return db_url


def invoke(url, *args):
    return CliRunner().invoke(cli, ["--db", url, "pool", *args])


def counts(url):
    database = Database.open(url, create=False)
    try:
        with database.read() as s:
            return (
                s.scalar(select(func.count()).select_from(PoolEntry)),
                s.scalar(select(func.count()).select_from(Assignment)),
            )
    finally:
        database.close()


def test_pool_and_split_assignment_print_counts(campaign):
    # depth 3: up gives d00-d02, down gives d09-d07 -> 6 per query, 18 in all
    result = invoke(campaign, "--depth", "3", "-a", "alice", "-a", "bob",
                    "--overlap", "0.5", "--repeat", "0.1", "--seed", "3")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "pool depth 3: 18 documents over 3 queries (18 new)"
    # per query 6 docs: 3 shared, 3 dealt out; the deal carries on across queries, so
    # alice gets 5 of the 9 dealt and bob 4: alice 9 + 5 = 14, bob 9 + 4 = 13.
    rows = {
        cells[0]: cells[1:]
        for cells in (re.findall(r"\w+", line) for line in lines[1:])
        if cells and cells[0] in ("alice", "bob")
    }
    assigned = {name: int(rows[name][0]) for name in rows}
    assert assigned == {"alice": 14, "bob": 13}
    for name in ("alice", "bob"):
        repeats, total = int(rows[name][1]), int(rows[name][2])
        assert repeats == round(0.1 * assigned[name]) and total == assigned[name] + repeats
    assert counts(campaign) == (18, 27 + 1 + 1)  # round(1.4) = round(1.3) = 1 repeat each


def test_rerun_changes_nothing_and_deeper_pool_appends(campaign):
    assert invoke(campaign, "--depth", "2", "-a", "alice").exit_code == 0
    assert counts(campaign) == (12, 12)
    again = invoke(campaign, "--depth", "2", "-a", "alice")
    assert "(0 new)" in again.stdout and counts(campaign) == (12, 12)
    deeper = invoke(campaign, "--depth", "4", "-a", "alice")
    assert "pool depth 4: 24 documents over 3 queries (12 new)" in deeper.stdout
    assert counts(campaign) == (24, 24)


def test_without_assessor_builds_pool_only(campaign):
    result = invoke(campaign, "--depth", "1")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "pool depth 1: 6 documents over 3 queries (6 new)",
        "no assessor has a queue yet (use --assessor NAME)",
    ]


def test_depth_defaults_to_campaign_setting_and_usage_errors(campaign):
    result = invoke(campaign)  # the new campaign's pool depth is 10: every document
    assert result.stdout.startswith("pool depth 10: 30 documents over 3 queries")
    assert invoke(campaign, "--depth", "0").exit_code == 2
    assert invoke(campaign, "--depth", "2", "--overlap", "0.2").exit_code == 2
    assert invoke(campaign, "--depth", "2", "-a", "x", "--overlap", "1.5").exit_code == 2


@pytest.mark.parametrize("name", [" ", "a\tb", "x" * 201], ids=["blank", "tab", "201 characters"])
def test_a_bad_assessor_name_is_refused_before_the_pool_is_written(campaign, name):
    """A name no entry point stores, refused by `pool` too, before anything is written
    (`pool --assessor ' '` committed the pool, then failed)."""
    result = invoke(campaign, "--depth", "3", "-a", "alice", "-a", name)
    assert result.exit_code == 1 and result.stdout == ""
    assert str(result.exception).startswith("assessor name ")
    assert counts(campaign) == (0, 0)


def grade(url, *args):
    return CliRunner().invoke(cli, ["--db", url, "grade", *args])


def queue_of(url, assessor, query):
    from workbench.campaign.judging.assessing import load_queue

    database = Database.open(url, create=False)
    try:
        return [it.document for it in load_queue(database, assessor, query).items]
    finally:
        database.close()


def test_mtf_pool_grows_one_document_per_grade(campaign):
    """Runs `up` (d00, d01, ...) and `down` (d09, d08, ...): move-to-front gives `up` the
    turn while its documents are relevant, then passes it to `down`."""
    result = invoke(campaign, "--method", "mtf", "-a", "alice", "--seed", "4")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "pool mtf, seed 4: 3 documents over 3 queries (3 new); the next documents are "
        "chosen as grades come in")
    assert counts(campaign) == (3, 3) and queue_of(campaign, "alice", "q0") == ["d00"]
    # a document not served yet is outside alice's assignment
    refused = grade(campaign, "-a", "alice", "q0", "d05", "1")
    assert refused.exit_code == 1 and "not in alice's assignment" in str(refused.exception)
    assert grade(campaign, "-a", "alice", "q0", "d00", "1").stdout == "ok q0 d00\n"
    assert queue_of(campaign, "alice", "q0") == ["d00", "d01"]
    batch = CliRunner().invoke(cli, ["--db", campaign, "grade", "-a", "alice", "--batch", "-"],
                               input="q0 d01 0\n")
    assert batch.exit_code == 0 and batch.stdout == "ok q0 d01\n"
    assert queue_of(campaign, "alice", "q0") == ["d00", "d01", "d09"]
    assert counts(campaign) == (5, 5)


def test_a_cant_judge_mark_serves_the_next_adaptive_document(campaign):
    """A mark settles the item as a grade does: the queue grows; the marked document is
    not relevant to the method (no grade), so move-to-front passes the turn to `down`."""
    assert invoke(campaign, "--method", "mtf", "-a", "alice", "--seed", "4").exit_code == 0
    marked = grade(campaign, "-a", "alice", "--cant-judge", "q0", "d00", "--note", "broken")
    assert marked.exit_code == 0 and marked.stdout == "ok q0 d00\n"
    assert queue_of(campaign, "alice", "q0") == ["d00", "d09"]


def test_an_adaptive_pool_over_a_larger_pool_says_its_budget_is_spent(campaign):
    assert invoke(campaign, "--depth", "3", "-a", "alice").exit_code == 0
    result = invoke(campaign, "--method", "mtf", "--budget", "4", "-a", "bob")
    assert result.exit_code == 0, result.output
    n = counts(campaign)[0]
    assert n >= 4
    assert result.stdout.splitlines()[0] == (
        f"pool mtf, budget 4, seed 0: {n} documents over 3 queries (0 new); the budget is "
        f"spent: the pool already holds {n} documents, so no document will be served")


def test_depth_with_a_budget_spreads_it_over_the_queries(campaign):
    result = invoke(campaign, "--depth", "3", "--budget", "5", "-a", "alice")
    assert result.exit_code == 0, result.output
    # 5 over 3 queries: q0 and q1 get 2 (each run's rank 1), q2 gets 1 (up's rank 1)
    assert result.stdout.splitlines()[0] == "pool depth 3, budget 5: 5 documents over 3 queries (5 new)"
    assert queue_of(campaign, "alice", "q2") == ["d00"]
    assert sorted(queue_of(campaign, "alice", "q0")) == ["d00", "d09"]
    again = invoke(campaign, "--depth", "3", "--budget", "5", "-a", "alice")
    assert "(0 new)" in again.stdout and counts(campaign) == (5, 5)


def test_bandit_budget_and_method_usage_errors(campaign):
    result = invoke(campaign, "--method", "bandit", "--budget", "4", "--depth", "5", "-a", "bob")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("pool bandit depth 5, budget 4, seed 0: 3 documents")
    assert invoke(campaign, "--method", "random").exit_code == 2
    assert invoke(campaign, "--method", "mtf", "--budget", "0").exit_code == 2


def test_the_summary_counts_in_singular_and_plural(tmp_path):
    """`1 query`, `1 document`: never "3 documents over 1 queries"."""
    from tests.cli.helpers import run

    db = str(tmp_path / "one.sqlite")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 3 s\nq1 Q0 d2 2 2 s\nq1 Q0 d3 3 1 s\n")
    assert run(db, "import", "run", str(tmp_path / "r.run")).exit_code == 0
    assert run(db, "pool", "--depth", "3").stdout.splitlines()[0] == \
        "pool depth 3: 3 documents over 1 query (3 new)"
    assert run(db, "pool", "--depth", "3", "--budget", "1").stdout.splitlines()[0].startswith(
        "pool depth 3, budget 1: 3 documents over 1 query")
