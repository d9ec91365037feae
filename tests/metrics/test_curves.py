"""Precision-recall points and the interpolated 11-point curve."""

from __future__ import annotations

import numpy as np

from workbench.metrics.curves import interpolated_curve, precision_recall


def test_points_at_each_relevant_document():
    # query q: relevant at ranks 1, 3, 4 of R = 4 (one never retrieved)
    qrels = (["q"] * 5, ["a", "b", "c", "d", "z"], [1, 0, 2, 1, 1])
    run = (["q"] * 4 + ["r"], ["a", "b", "c", "d", "a"], [4.0, 3.0, 2.0, 1.0, 1.0])
    (pts,) = precision_recall(*qrels, *run)
    assert pts.qid == "q" and pts.num_rel == 4
    assert pts.rank.tolist() == [1, 3, 4]
    assert np.allclose(pts.recall, [1 / 4, 2 / 4, 3 / 4])
    assert np.allclose(pts.precision, [1 / 1, 2 / 3, 3 / 4])


def test_query_without_relevant_retrieved_has_no_points():
    qrels = (["q", "p"], ["a", "b"], [1, 1])
    run = (["q", "p"], ["x", "b"], [1.0, 1.0])
    pts = {p.qid: p for p in precision_recall(*qrels, *run)}
    assert pts["q"].rank.size == 0 and pts["p"].precision.tolist() == [1.0]


def test_interpolated_curve():
    qrels = (["q"] * 2, ["a", "b"], [1, 1])
    run = (["q"] * 3, ["x", "a", "b"], [3.0, 2.0, 1.0])
    levels, prec = interpolated_curve(*qrels, *run)
    assert levels.tolist() == [i / 10 for i in range(11)]
    # precision 1/2 at rank 2 and 2/3 at rank 3: interpolated 2/3 everywhere
    assert np.allclose(prec, 2 / 3)
