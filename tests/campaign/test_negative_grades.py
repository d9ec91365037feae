"""Negative grades in the store: a qrels file's negative grade is trec_eval's "in the pool,
unjudged". `import qrels` refused `-1` ("not on the campaign scale"), so infAP and the
unjudged measures from stored grades differed from `eval` on the same file. Stored as
written, they give `eval`'s (and pytrec_eval's) values, come back byte-equal from
`export qrels`, and no agreement figure counts them as a grade."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import pytrec_eval

from workbench.cli import main

MEASURES = ["infAP", "bpref", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "map",
            "ndcg", "P_10"]


def _cli(argv, capsys) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.fixture
def files(tmp_path):
    """Two runs and two assessors' qrels with grades -1 and -2 among 0-3, sorted as
    `export qrels` sorts (qid, then docno)."""
    rnd = random.Random(7)
    docs = [f"d{i:03d}" for i in range(60)]
    ann, bob = [], []
    for q in range(1, 7):
        for d in sorted(rnd.sample(docs, 35)):
            g = rnd.choice([-1, -1, -2, 0, 0, 1, 2, 3])
            ann.append((f"q{q}", d, g))
            r = rnd.random()
            bob.append((f"q{q}", d, -1 if r < 0.2 else g if r < 0.6 and g >= 0 else rnd.randint(0, 3)))
    paths = {}
    for name, rows in (("ann", ann), ("bob", bob)):
        paths[name] = tmp_path / f"{name}.qrels"
        paths[name].write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in rows))
    for tag in ("A", "B"):
        lines = []
        for q in range(1, 7):
            for rank, d in enumerate(rnd.sample(docs, 40)):
                lines.append(f"q{q} Q0 {d} {rank + 1} {100 - rank + rnd.random():.4f} {tag}\n")
        paths[tag] = tmp_path / f"{tag}.run"
        paths[tag].write_text("".join(lines))
    assert any(g < 0 for _, _, g in ann) and any(g == -2 for _, _, g in ann)
    return paths


def _pytrec(qrels_path, run_path):
    qrels: dict = {}
    for line in qrels_path.read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict = {}
    for line in run_path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)


def test_stored_negative_grades_score_as_eval_and_pytrec_eval(files, db_url, capsys):
    out = _cli(["import", "qrels", str(files["ann"]), "-a", "ann", "--db", db_url], capsys)
    assert "imported 210 judgments by 'ann'" in out
    _cli(["import", "run", str(files["A"]), str(files["B"]), "--db", db_url], capsys)
    argv = ["-q", "--format", "json"] + [x for m in MEASURES + ["Judged@10"] for x in ("-m", m)]
    scored = json.loads(_cli(["score", "--db", db_url, "--source", "assessor:ann", *argv], capsys))
    majority = json.loads(_cli(["score", "--db", db_url, *argv], capsys))  # one assessor
    for tag in ("A", "B"):
        stored = next(s for s in scored["systems"] if s["system"] == tag)["per_query"]
        assert next(s for s in majority["systems"] if s["system"] == tag)["per_query"] == stored
        oracle = _pytrec(files["ann"], files[tag])
        evaluated = json.loads(_cli(["eval", str(files["ann"]), str(files[tag]), *argv], capsys))
        assert sorted(stored) == sorted(oracle) == [f"q{i}" for i in range(1, 7)]
        for q in oracle:
            for m in MEASURES:
                assert stored[q][m] == pytest.approx(oracle[q][m], abs=1e-9), (tag, q, m)
        per_query = evaluated["runs"][0]["per_query"]
        for q in oracle:
            for m in MEASURES + ["Judged@10"]:
                assert stored[q][m] == pytest.approx(per_query[q][m], abs=1e-9), (tag, q, m)
    # infAP and bpref differ from what the grades give with the negative ones dropped
    kept = files["ann"].parent / "kept.qrels"
    kept.write_text("".join(line + "\n" for line in files["ann"].read_text().splitlines()
                            if not line.endswith("-1") and not line.endswith("-2")))
    dropped = _pytrec(kept, files["A"])
    stored = next(s for s in scored["systems"] if s["system"] == "A")["per_query"]
    assert any(abs(stored[q]["infAP"] - dropped[q]["infAP"]) > 1e-3 for q in dropped)


def test_export_qrels_gives_the_file_back_byte_equal(files, db_url, capsys, tmp_path):
    _cli(["import", "qrels", str(files["ann"]), "-a", "ann", "--db", db_url], capsys)
    for options in (["--source", "assessor:ann"], ["-a", "ann"], []):  # [] the majority
        out = tmp_path / "out.qrels"
        _cli(["export", "qrels", "-o", str(out), "--db", db_url, *options], capsys)
        assert out.read_bytes() == files["ann"].read_bytes(), options
    # a second import of the file changes nothing
    out = _cli(["import", "qrels", str(files["ann"]), "-a", "ann", "--db", db_url], capsys)
    assert "(0 new, 0 changed, 210 unchanged;" in out


def test_agreement_and_consensus_leave_negative_grades_out(files, db_url, capsys, tmp_path):
    from sklearn.metrics import cohen_kappa_score
    import krippendorff

    for name in ("ann", "bob"):
        _cli(["import", "qrels", str(files[name]), "-a", name, "--db", db_url], capsys)
    report = json.loads(_cli(["agree", "--db", db_url, "--format", "json"], capsys))
    rows = {name: {tuple(line.split()[::2][:2]): int(line.split()[3])
                   for line in files[name].read_text().splitlines()} for name in ("ann", "bob")}
    both = [k for k in rows["ann"] if rows["ann"][k] >= 0 and rows["bob"][k] >= 0]
    a = [rows["ann"][k] for k in both]
    b = [rows["bob"][k] for k in both]
    pair = report["pairs"][0]
    assert report["n_items"] == pair["n"] == len(both) < len(rows["ann"])
    assert pair["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b))
    assert pair["weighted_kappa_linear"] == pytest.approx(cohen_kappa_score(a, b, weights="linear"))
    items = sorted(rows["ann"])
    data = np.array([[rows[n][k] if rows[n][k] >= 0 else np.nan for k in items]
                     for n in ("ann", "bob")], dtype=float)
    assert report["krippendorff_alpha_nominal"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    # the files agree with the database
    files_report = json.loads(_cli(["agree", "--qrels", str(files["ann"]), str(files["bob"]),
                                    "--format", "json"], capsys))
    assert files_report["pairs"][0]["cohen_kappa"] == pytest.approx(pair["cohen_kappa"])
    # the lead's disagreement list: the items with two different grades, none negative
    from workbench.campaign.agreement.adjudication import list_disagreements
    from workbench.campaign.database import Database

    database = Database.open(db_url, create=False)
    try:
        listed = {(d.query, d.document): dict(d.grades) for d in list_disagreements(database)}
    finally:
        database.close()
    assert listed == {k: {"ann": rows["ann"][k], "bob": rows["bob"][k]} for k in both
                      if rows["ann"][k] != rows["bob"][k]}
    # the majority: a negative grade is no vote; an item negative for both stays negative
    out = tmp_path / "majority.qrels"
    _cli(["export", "qrels", "-o", str(out), "--db", db_url], capsys)
    got = {tuple(line.split()[::2][:2]): int(line.split()[3]) for line in out.read_text().splitlines()}
    for k, g in rows["ann"].items():
        h = rows["bob"][k]
        votes = [x for x in (g, h) if x >= 0]
        want = min(votes) if len(votes) == 2 and g != h else votes[0] if votes else min(g, h) \
            if g != h else g
        assert got[k] == want, (k, g, h)


def test_a_negative_grade_on_a_queued_item_leaves_it_to_judge(db, tmp_path):
    """An imported -1 on an item of bob's queue is no judgment: the queue shows the item
    unjudged, `list assessors` and `list queries` do not count it, a can't-judge mark stays;
    judging it then replaces the -1 (a `change`)."""
    from tests.tui.factory import build_campaign
    from workbench.campaign.catalog.importing import import_qrels
    from workbench.campaign.catalog.listing import listing
    from workbench.campaign.judging.assessing import load_queue
    from workbench.campaign.judging.grades import record_grade
    from workbench.campaign.judging.marks import mark_cant_judge
    from workbench.campaign.scoring.qrels import derive_qrels
    from workbench.campaign.scoring.sources import QrelsSource

    camp = build_campaign(db, n_queries=1, assessors=("bob",))
    first, second, third = camp.queues["q1"]["bob"][:3]
    mark_cant_judge(db, "bob", "q1", third, reason="broken")
    path = tmp_path / "bob.qrels"
    path.write_text(f"q1 0 {first} -1\nq1 0 {second} 2\nq1 0 {third} -1\n")
    import_qrels(db, path, assessor="bob")
    items = {i.document: i for i in load_queue(db, "bob", "q1").items}
    assert (items[first].judged, items[second].judged, items[second].grade) == (False, True, 2)
    assert items[third].cant_judge and items[third].grade is None
    people = {row[0]: row for row in listing(db, "assessors").rows}
    assert people["bob"][3] == 1  # judged: the 2 only
    queries = {row[0]: row for row in listing(db, "queries").rows}
    assert queries["q1"][3:5] == (1, 1)  # judged documents, judgments
    assert derive_qrels(db, QrelsSource.assessor("bob")).rows() == sorted(
        [("q1", first, -1), ("q1", second, 2), ("q1", third, -1)])
    record_grade(db, "bob", "q1", first, 1)
    assert {i.document: i.grade for i in load_queue(db, "bob", "q1").items}[first] == 1
