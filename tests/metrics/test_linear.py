"""metrics/linear.py: the measures PPI covers, as rank weights times item gains, equal the
evaluation engine's own values on random graded runs; the others are refused with a reason."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.metrics.evaluate import evaluate
from workbench.metrics.linear import linear_form, not_linear_reason
from workbench.metrics.measures import parse_measure

COVERED = ["P@5", "P(rel=2)@10", "DCG@5", "DCG@20", "CG@7", "DCG(gain=exp)@10",
           "DCG(discount=jk,base=3)@10", "dcg", "RBP(rel=1)", "RBP(rel=2,p=0.5)"]


def _campaign(seed: int):
    rng = np.random.default_rng(seed)
    qq, qd, qr, rq, rd, rs = [], [], [], [], [], []
    for q in range(8):
        docs = [f"d{i}" for i in range(40)]
        for d in docs[:30]:
            qq.append(f"q{q}"), qd.append(d), qr.append(int(rng.integers(-1, 4)))
        n = int(rng.integers(3, 25))
        pick = rng.choice(40, size=n, replace=False)
        scores = rng.permutation(n).astype(float)  # distinct: no tie to break
        for d, s in zip(pick, scores):
            rq.append(f"q{q}"), rd.append(f"d{d}"), rs.append(s)
    return (qq, qd, qr), (rq, rd, rs)


@pytest.mark.parametrize("name", COVERED)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weights_times_gains_equal_the_engine(name, seed):
    (qq, qd, qr), (rq, rd, rs) = _campaign(seed)
    m = parse_measure(name)
    form = linear_form(m)
    assert form is not None, not_linear_reason(m)
    ev = evaluate(qq, qd, qr, rq, rd, rs, [m], rel_level=1)
    grade = dict(zip(zip(qq, qd), qr))
    for qi, q in enumerate(ev.qids):
        rows = sorted([(s, d) for qn, d, s in zip(rq, rd, rs) if qn == q], reverse=True)
        docs = [d for _, d in rows]
        if form.depth is not None:
            docs = docs[:form.depth]
        g = np.array([grade.get((q, d), -1) for d in docs])
        ranks = np.arange(1, len(docs) + 1)
        mine = float((form.weights(ranks) * form.gains(g, 1)).sum())
        assert mine == pytest.approx(float(ev.per_query[m][qi]), abs=1e-12), (q, name)


@pytest.mark.parametrize("name,says", [
    ("ndcg_cut.10", "ideal DCG"), ("nDCG@10", "ideal DCG"), ("map", "number of relevant"),
    ("bpref", "bpref"), ("Rprec", "cutoff R"), ("RBP", "top grade"), ("rbp.p=0.5", "top grade"),
    ("recip_rank", "not a sum"), ("P(judged_only=True)@5", "judged_only")])
def test_the_others_are_refused_with_the_reason(name, says):
    m = parse_measure(name)
    assert linear_form(m) is None
    assert says in not_linear_reason(m)
