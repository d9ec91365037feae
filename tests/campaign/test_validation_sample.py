"""`pool --validate`: the stratified sample's allocation and inclusion probabilities (worked
example, stored values, Horvitz-Thompson totals, empirical frequencies over many draws), the
disagreement sample, the queues it fills, and calibrate's weighted estimates over it."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from tests.campaign.machine_campaign import build_machine_campaign, people_majority
from tests.cli.helpers import cli_ok, run
from workbench.campaign.agreement.calibration import calibrate
from workbench.campaign.machine.provenance import make_provenance
from workbench.campaign.catalog.importing import import_qrels
from workbench.campaign.pooling.validation import allocate, choose_stratified, validate_machine
from workbench.campaign.scoring.sources import QrelsSource
from workbench.errors import UsageError
from workbench.store.external_ids import assessor_id
from workbench.store.models import Assignment, Document, Query, ValidationItem
from tests.campaign.machine_campaign import write_qrels


def test_allocation_worked_example():
    # 40 over strata of 100, 10, 5, 50: 10 each, the 5 gives its 5 back, shared by the
    # strata with room (13 and 12: the remainder to the first)
    assert allocate([100, 10, 5, 50], 40).tolist() == [13, 10, 5, 12]
    assert allocate([3, 4], 100).tolist() == [3, 4]  # the budget exceeds the labels
    assert allocate([7, 7, 7], 6).tolist() == [2, 2, 2]


def test_inclusion_probabilities_match_empirical_frequencies():
    grades = np.repeat([0, 1, 2, 3], [120, 40, 25, 15])
    hits = np.zeros(grades.size)
    draws = 3000
    for seed in range(draws):
        idx, prob, strata = choose_stratified(grades, 40, np.random.default_rng(seed))
        hits[idx] += 1
    idx, prob, strata = choose_stratified(grades, 40, np.random.default_rng(0))
    assert [(s.grade, s.population, s.sampled) for s in strata] == [(0, 120, 10), (1, 40, 10), (2, 25, 10), (3, 15, 10)]
    expected = np.array([10 / 120, 10 / 40, 10 / 25, 10 / 15])[grades]
    assert np.allclose(prob, expected[idx])
    # each item is drawn with its stated probability (binomial sd <= 0.009 at 3000 draws)
    for g in range(4):
        assert abs(hits[grades == g].mean() / draws - expected[grades == g][0]) < 0.01
    # Horvitz-Thompson: the weights of a sample add up to the population
    assert (1 / prob).sum() == pytest.approx(grades.size)


@pytest.fixture
def campaign(db, tmp_path):
    return db, build_machine_campaign(db, tmp_path / "f", people=("alice",), judged_share=0.0)


def _stored(db):
    from sqlalchemy import select

    with db.read() as s:
        rows = s.execute(select(Query.ext_id, Document.ext_id, ValidationItem.stratum,
                                ValidationItem.inclusion_probability, ValidationItem.strategy)
                         .join(Query, Query.id == ValidationItem.query_id)
                         .join(Document, Document.id == ValidationItem.document_id)).all()
    return {(q, d): (st, p, strategy) for q, d, st, p, strategy in rows}


def _queue(db, name):
    from sqlalchemy import select

    with db.read() as s:
        aid = assessor_id(s, name)
        rows = s.execute(select(Query.ext_id, Document.ext_id, Assignment.repeat)
                         .join(Query, Query.id == Assignment.query_id)
                         .join(Document, Document.id == Assignment.document_id)
                         .where(Assignment.assessor_id == aid)).all()
    return rows


def test_stratified_sample_is_stored_and_queued(campaign):
    db, c = campaign
    sample = validate_machine(db, "llm", budget=60, strategy="stratified", assessors=["carol", "dave"], seed=5)
    stored = _stored(db)
    assert sample.n_items == len(stored) == 60
    population = {g: sum(1 for v in c.machine.values() if v == g) for g in range(4)}
    for (q, d), (stratum, prob, strategy) in stored.items():
        assert strategy == "stratified" and c.machine[(q, d)] == stratum
        taken = sum(1 for v in stored.values() if v[0] == stratum)
        assert prob == pytest.approx(taken / population[stratum])
    assert sum(1 / p for _, p, _ in stored.values()) == pytest.approx(len(c.machine))
    for name in ("carol", "dave"):
        queue = _queue(db, name)
        assert {(q, d) for q, d, _ in queue} == set(stored) and not any(r for _, _, r in queue)
    assert sample.queued == {"carol": 60, "dave": 60}
    # one sample per machine; a person is no machine, a machine gets no queue
    with pytest.raises(UsageError):
        validate_machine(db, "llm", budget=5, assessors=["carol"])
    with pytest.raises(UsageError):
        validate_machine(db, "alice", budget=5, assessors=["carol"])


def test_same_seed_same_sample(tmp_path):
    from workbench.campaign.database import Database

    samples = []
    for name, seed in (("a", 9), ("b", 9), ("c", 10)):
        db = Database.open(f"sqlite:///{tmp_path / name}.sqlite")
        try:
            build_machine_campaign(db, tmp_path / name, people=(), judged_share=0.0)
            validate_machine(db, "llm", budget=30, assessors=["carol"], seed=seed)
            samples.append(set(_stored(db)))
        finally:
            db.close()
    assert samples[0] == samples[1] and len(samples[0]) == 30
    assert samples[0] != samples[2]


def test_disagreement_sample_takes_the_largest_gaps(campaign, tmp_path):
    db, c = campaign
    # a second machine that disagrees by 2 on ten items and by 1 on ten others
    items = sorted(c.machine)
    other = dict(c.machine)
    for i, item in enumerate(items[:20]):
        g = c.machine[item]
        other[item] = (g + 2) % 4 if i < 10 and g in (0, 1) else (g - 2 if i < 10 else (g + 1 if g < 3 else g - 1))
    import_qrels(db, write_qrels(tmp_path / "llm2.qrels", other), assessor="llm2",
                 machine=make_provenance("other-model"))
    gaps = {item: abs(other[item] - c.machine[item]) for item in items}
    sample = validate_machine(db, "llm", budget=10, strategy="disagreement", assessors=["carol"])
    stored = _stored(db)
    assert len(stored) == sample.n_items == 10
    assert all(p is None and s == "disagreement" for _, p, s in stored.values())
    chosen_gaps = sorted(gaps[i] for i in stored)
    assert chosen_gaps == sorted(gaps.values(), reverse=True)[:10]


def test_disagreement_with_named_qrels(campaign):
    db, c = campaign
    # alice judged nothing yet: grade five items against the machine by 3
    from workbench.campaign.judging.grades import record_grade

    items = [i for i in sorted(c.machine) if c.machine[i] in (0, 3)][:5]
    for q, d in items:
        record_grade(db, "alice", q, d, 3 - c.machine[(q, d)])
    sample = validate_machine(db, "llm", budget=50, strategy="disagreement", assessors=["carol"],
                              against=QrelsSource.assessor("alice"))
    assert sample.n_items == 5 and set(_stored(db)) == set(items)


def test_calibrate_weights_a_stratified_sample(campaign):
    """People judge the stratified sample; the weighted kappa is the kappa of the table
    whose cells are weighted by 1 / probability (computed here by hand)."""
    db, c = campaign
    from workbench.campaign.judging.grades import record_grade

    validate_machine(db, "llm", budget=80, assessors=["carol"], seed=1)
    stored = _stored(db)
    rng = np.random.default_rng(0)
    truth = {}
    for (q, d), (stratum, _, _) in sorted(stored.items()):
        g = stratum if rng.random() < 0.7 else int(rng.integers(0, 4))
        record_grade(db, "carol", q, d, g)
        truth[(q, d)] = g
    report = calibrate(db, "llm")
    items = sorted(stored)
    h = np.array([truth[i] for i in items])
    m = np.array([c.machine[i] for i in items])
    w = np.array([1 / stored[i][1] for i in items])
    assert report.items == 80
    assert report.agreement.kappa_weighted == pytest.approx(
        cohen_kappa_score(h, m, labels=[0, 1, 2, 3], weights="linear"), abs=1e-12)
    weighted = report.weighted
    assert weighted is not None and weighted.items == 80
    assert weighted.kappa_binary == pytest.approx(
        cohen_kappa_score(h >= 1, m >= 1, sample_weight=w), abs=1e-12)
    assert weighted.kappa_weighted == pytest.approx(
        cohen_kappa_score(h, m, labels=[0, 1, 2, 3], weights="linear", sample_weight=w), abs=1e-12)
    assert weighted.leniency == pytest.approx(float(np.average(m - h, weights=w)), abs=1e-12)
    assert weighted.confusion.sum() == pytest.approx(len(c.machine))  # estimates a total
    assert weighted.kappa_binary_ci[0] <= weighted.kappa_binary <= weighted.kappa_binary_ci[1]
    j = report.to_json()
    assert j["sample"]["strategy"] == "stratified" and j["sample"]["judged"] == 80
    assert j["sample"]["weighted"]["kappa_weighted"] == pytest.approx(weighted.kappa_weighted)


def test_pool_validate_cli(campaign, db_url):
    db, c = campaign
    out = cli_ok(db_url, "pool", "--validate", "llm", "--budget", "20", "--assessor", "carol", "--seed", "2")
    assert "validation sample of llm (stratified, seed 2): 20 items" in out
    assert "carol: 20 added to the queue" in out
    assert "inclusion probability" in out
    bad = run(db_url, "pool", "--validate", "llm", "--assessor", "carol")
    assert bad.exit_code == 2 and "--budget" in bad.output
    bad = run(db_url, "pool", "--strategy", "disagreement", "--depth", "3")
    assert bad.exit_code == 2


def test_a_person_is_never_asked_to_judge_an_item_again(db, tmp_path):
    """Items people already judged stay in the stratified sample (their grade
    is known) but go to no queue of a person who judged them (graded from imported qrels,
    with no queue entry, or marked "can't judge")."""
    from workbench.campaign.judging.grades import mark_item
    from workbench.campaign.writing import write_transaction
    from workbench.store.external_ids import document_id, query_id
    from workbench.store.models import utcnow

    c = build_machine_campaign(db, tmp_path / "f", people=("alice",), judged_share=0.5)
    judged = set(c.people["alice"])
    unjudged = sorted(set(c.machine) - judged)
    marked = unjudged[0]
    with db.write.begin() as s:
        aid = assessor_id(s, "alice")
        mark_item(s, query_id(s, marked[0]), document_id(s, marked[1]), aid,
                  reason="unreadable", at=utcnow())
    sample = validate_machine(db, "llm", budget=len(c.machine), strategy="stratified",
                              assessors=["alice", "carol"], seed=1)
    stored = _stored(db)
    assert set(stored) == set(c.machine)  # judged items count in the sample
    alice = {(q, d) for q, d, _ in _queue(db, "alice")}
    assert alice == set(c.machine) - judged - {marked}
    assert {(q, d) for q, d, _ in _queue(db, "carol")} == set(c.machine)
    assert sample.queued == {"alice": len(alice), "carol": len(c.machine)}


def test_the_blindness_warning_says_what_it_can_check(db, tmp_path):
    """The settings keep no history of blindness; the warning says the campaign
    is not blind now and that this is all it can check (documented in machine-assessors.md)."""
    from workbench.campaign.settings import set_blind

    c = build_machine_campaign(db, tmp_path / "f", people=("alice",), judged_share=0.5)
    validate_machine(db, "llm", budget=len(c.machine), assessors=["carol"], seed=1)
    said = [w for w in calibrate(db, "llm").warnings if "blind" in w]
    assert said == []  # blind now
    set_blind(db, False)
    said = [w for w in calibrate(db, "llm").warnings if "blind" in w]
    assert len(said) == 1 and "not blind now" in said[0] and "no history" in said[0]


def test_the_sample_is_shuffled_among_the_unjudged_items_not_appended(campaign):
    """The sample went after everything queued, so the queue's tail was the
    machine's sample (51% machine-"3" there against 9% before it, for a skewed machine).
    Now it is shuffled among the items not reached yet, as a re-pool does: what was shown
    (up to the last judged item) stays where it was."""
    from workbench.campaign.judging.grades import record_grade
    from workbench.campaign.pooling.assign import assign, build_pool

    db, c = campaign
    build_pool(db, 3)
    assign(db, ["carol"])
    before = _positions(db, "carol")
    first_query = sorted(before)[0]
    shown = [d for _p, d in sorted(before[first_query])][:2]
    for d in shown:  # carol judged the first two of a query
        record_grade(db, "carol", first_query, d, 1)
    sample = validate_machine(db, "llm", budget=120, assessors=["carol"], seed=4)
    after = _positions(db, "carol")
    new_late = mixed = 0
    for q, rows in after.items():
        old = {d for _p, d in before.get(q, [])}
        order = [d for _p, d in sorted(rows)]
        assert sorted(p for p, _ in rows) == list(range(len(rows)))  # no gaps, no clashes
        if q == first_query:
            assert order[:2] == shown  # what was shown stays where it was
        added = [i for i, d in enumerate(order) if d not in old]
        kept = [i for i, d in enumerate(order) if d in old]
        if added and kept:
            new_late += min(added) > max(kept)  # appended: every new item after the old ones
            mixed += 1
    assert sample.queued["carol"] == sum(len(r) for r in after.values()) - sum(len(r) for r in before.values())
    assert mixed >= 6 and new_late == 0, (mixed, new_late)


def _positions(db, name):
    from sqlalchemy import select

    with db.read() as s:
        aid = assessor_id(s, name)
        rows = s.execute(select(Query.ext_id, Assignment.position, Document.ext_id)
                         .join(Query, Query.id == Assignment.query_id)
                         .join(Document, Document.id == Assignment.document_id)
                         .where(Assignment.assessor_id == aid)).all()
    out: dict[str, list] = {}
    for q, p, d in rows:
        out.setdefault(q, []).append((p, d))
    return out
