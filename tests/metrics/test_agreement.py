"""Agreement coefficients: the reference notes' worked example, published examples and
reference packages (scikit-learn, statsmodels, krippendorff) as oracles."""

from __future__ import annotations

import math
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from workbench.metrics import agreement as ag

# docs/architecture.md#worked-examples: 400 items; both relevant 300, both non-relevant 70, judge A relevant / B not 20,
# A not / B relevant 10.
A400 = np.array([1] * 300 + [0] * 70 + [1] * 20 + [0] * 10)
B400 = np.array([1] * 300 + [0] * 70 + [0] * 20 + [1] * 10)

# Fleiss (1971) as worked on Wikipedia's "Fleiss' kappa" page: 10 subjects, 14 raters,
# 5 categories; cell = number of raters who put the subject in the category.
FLEISS_WIKI = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)


def _counts_to_labels(counts: np.ndarray) -> np.ndarray:
    """(items x categories) counts -> (items x raters) labels."""
    return np.array([np.repeat(np.arange(counts.shape[1]), row) for row in counts])


# ---------------------------------------------------------------- the notes' example


def test_notes_400_items_observed_and_expected():
    pa = ag.pair_agreement(A400, B400)
    assert pa.n == 400
    assert pa.observed == pytest.approx((300 + 70) / 400)  # 0.925
    # pooled: P(nonrel) = 170/800, P(rel) = 630/800
    assert pa.expected_pooled == pytest.approx((170 / 800) ** 2 + (630 / 800) ** 2)
    assert round(pa.expected_pooled, 4) == 0.6653
    # Cohen: judge A relevant 320/400, judge B 310/400
    assert pa.expected_cohen == pytest.approx(0.8 * 0.775 + 0.2 * 0.225)


def test_notes_400_items_pooled_and_cohen_kappa_differ_at_4_decimals():
    assert round(ag.pooled_kappa(A400, B400), 4) == 0.7759
    assert round(ag.scott_pi(A400, B400), 4) == 0.7759
    assert round(ag.cohen_kappa(A400, B400), 4) == 0.7761
    assert ag.cohen_kappa(A400, B400) == pytest.approx(cohen_kappa_score(A400, B400))
    assert ag.observed_agreement(A400, B400) == pytest.approx(0.925)
    assert ag.expected_agreement(A400, B400, pooled=True) == pytest.approx(0.6653125)
    assert ag.expected_agreement(A400, B400) == pytest.approx(0.665)


def test_notes_example_is_acceptable():
    assert ag.interpret(ag.pooled_kappa(A400, B400)) == "acceptable"
    assert ag.interpret(0.6) == "methodology problem"
    assert ag.interpret(2 / 3) == "acceptable"
    assert ag.interpret(math.nan) == "undefined"
    assert ag.landis_koch(0.7759) == "substantial"
    assert ag.landis_koch(-0.1) == "poor"
    assert ag.landis_koch(0.85) == "almost perfect"
    assert ag.landis_koch(0.2) == "slight"


def test_confusion_matrix_of_the_notes_example():
    table, cats = ag.confusion_matrix(A400, B400)
    assert cats.tolist() == [0, 1]
    # rows = judge A (0, 1), columns = judge B
    assert table.tolist() == [[70, 10], [20, 300]]


# ---------------------------------------------------------------- Fleiss


def test_fleiss_published_example_is_0_210():
    kappa = ag.fleiss_kappa_from_counts(FLEISS_WIKI)
    assert round(kappa, 3) == 0.210
    assert kappa == pytest.approx(sm_fleiss(FLEISS_WIKI))
    # the same from per-rater labels
    assert ag.fleiss_kappa(_counts_to_labels(FLEISS_WIKI)) == pytest.approx(kappa)


def test_fleiss_published_example_intermediate_values():
    # Wikipedia: p_j = 0.143 0.200 0.279 0.150 0.229; P-bar = 0.378; P-bar_e = 0.213
    p_j = FLEISS_WIKI.sum(axis=0) / FLEISS_WIKI.sum()
    assert np.round(p_j, 3).tolist() == [0.143, 0.2, 0.279, 0.15, 0.229]
    p_i = ((FLEISS_WIKI * (FLEISS_WIKI - 1)).sum(axis=1)) / (14 * 13)
    assert round(p_i.mean(), 3) == 0.378
    assert round(float(p_j @ p_j), 3) == 0.213


def test_fleiss_of_two_raters_is_scott_pi():
    assert ag.fleiss_kappa(np.stack([A400, B400], axis=1)) == pytest.approx(
        ag.pooled_kappa(A400, B400)
    )


def test_fleiss_against_statsmodels_random():
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 4, 300)
    labels = np.where(rng.random((300, 6)) < 0.6, truth[:, None], rng.integers(0, 4, (300, 6)))
    expected = sm_fleiss(aggregate_raters(labels)[0])
    assert ag.fleiss_kappa(labels) == pytest.approx(expected)


def test_fleiss_with_missing_drops_items_with_fewer_than_two_labels():
    labels = np.array([[1, 1, -1], [0, 0, 0], [1, -1, -1], [0, 1, 1]])
    # item 2 (one label) is dropped; the others keep their own n_i
    counts = np.array([[0, 2], [3, 0], [1, 2]])
    n_i = counts.sum(axis=1)
    p_bar = np.mean((counts * (counts - 1)).sum(axis=1) / (n_i * (n_i - 1)))
    p_j = counts.sum(axis=0) / counts.sum()
    expected = (p_bar - p_j @ p_j) / (1 - p_j @ p_j)
    assert ag.fleiss_kappa(labels) == pytest.approx(expected)


# ---------------------------------------------------------------- weighted kappa


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_against_sklearn(weights):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, 500)
    y = np.clip(x + rng.integers(-1, 2, 500), 0, 3)
    assert ag.weighted_kappa(x, y, weights) == pytest.approx(
        cohen_kappa_score(x, y, weights=weights)
    )
    assert ag.weighted_kappa(x, y, weights, categories=[0, 1, 2, 3]) == pytest.approx(
        cohen_kappa_score(x, y, weights=weights, labels=[0, 1, 2, 3])
    )


def test_weighted_kappa_uses_grade_values_not_category_positions():
    # grade 2 never used: a 1-vs-3 disagreement is a gap of 2, as with the full scale.
    x = np.array([0, 1, 3, 3, 1, 0, 3])
    y = np.array([0, 3, 3, 1, 1, 1, 3])
    assert ag.weighted_kappa(x, y, "linear") == pytest.approx(
        cohen_kappa_score(x, y, weights="linear", labels=[0, 1, 2, 3])
    )


def test_weighted_kappa_hand_computed():
    # 2x2 binary: linear and quadratic weights are both [[0,1],[1,0]] -> Cohen's kappa.
    assert ag.weighted_kappa(A400, B400, "quadratic") == pytest.approx(ag.cohen_kappa(A400, B400))
    with pytest.raises(ValueError):
        ag.weighted_kappa(A400, B400, "cubic")


# ---------------------------------------------------------------- Krippendorff


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_against_krippendorff_package_with_missing(level):
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 4, 250)
    labels = np.where(rng.random((250, 4)) < 0.7, truth[:, None], rng.integers(0, 4, (250, 4)))
    labels = labels.astype(float)
    labels[rng.random(labels.shape) < 0.3] = np.nan
    expected = krippendorff.alpha(labels.T, level_of_measurement=level)
    assert ag.krippendorff_alpha(labels, level) == pytest.approx(expected)
    # -1 marks missing in integer arrays just as NaN does in float arrays
    as_int = np.where(np.isnan(labels), -1, labels).astype(int)
    assert ag.krippendorff_alpha(as_int, level) == pytest.approx(expected)


def test_alpha_wikipedia_example():
    # Wikipedia "Krippendorff's alpha" example (also in the krippendorff package's docs):
    # 3 coders, 15 units, missing values; nominal alpha 0.691, interval alpha 0.811.
    rows = (
        "*    *    *    *    *    3    4    1    2    1    1    3    3    *    3",
        "1    *    2    1    3    3    4    3    *    *    *    *    *    *    *",
        "*    *    2    1    3    4    4    *    2    1    1    3    3    *    4",
    )
    data = np.array([[np.nan if v == "*" else float(v) for v in r.split()] for r in rows])
    labels = data.T  # ours is items x raters
    assert round(ag.krippendorff_alpha(labels, "nominal"), 3) == 0.691
    assert round(ag.krippendorff_alpha(labels, "interval"), 3) == 0.811
    for level in ("nominal", "ordinal", "interval"):
        assert ag.krippendorff_alpha(labels, level) == pytest.approx(
            krippendorff.alpha(data, level_of_measurement=level)
        )


def test_alpha_interval_on_real_values():
    rng = np.random.default_rng(5)
    labels = rng.normal(size=(40, 3)) + np.arange(40)[:, None] * 0.2
    labels = np.abs(labels)  # missing = negative; keep all present
    expected = krippendorff.alpha(labels.T, level_of_measurement="interval")
    assert ag.krippendorff_alpha(labels, "interval") == pytest.approx(expected)


def test_alpha_unknown_level():
    with pytest.raises(ValueError):
        ag.krippendorff_alpha([[0, 1], [1, 1]], "ratio")


# ---------------------------------------------------------------- edge cases


def test_single_category_is_undefined_nan():
    same = np.ones(20, dtype=int)
    assert math.isnan(ag.cohen_kappa(same, same))
    assert math.isnan(ag.pooled_kappa(same, same))
    assert math.isnan(ag.weighted_kappa(same, same, "linear"))
    assert math.isnan(ag.fleiss_kappa(np.ones((20, 3), dtype=int)))
    assert math.isnan(ag.krippendorff_alpha(np.ones((20, 3), dtype=int), "interval"))
    pa = ag.pair_agreement(same, same)
    assert pa.observed == 1.0 and pa.n == 20
    assert ag.interpret(pa.cohen_kappa) == "undefined"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(cohen_kappa_score(same, same))  # sklearn agrees


def test_no_overlap_is_nan():
    a = np.array([1, 0, -1, -1])
    b = np.array([-1, -1, 1, 0])
    pa = ag.pair_agreement(a, b)
    assert pa.n == 0
    assert math.isnan(pa.observed) and math.isnan(pa.cohen_kappa)
    assert math.isnan(ag.fleiss_kappa(np.stack([a, b], 1)))
    assert math.isnan(ag.krippendorff_alpha(np.stack([a, b], 1)))


def test_missing_items_are_skipped_pairwise():
    a = np.array([1, 0, 1, np.nan, 1, 0])
    b = np.array([1, 0, 0, 1, np.nan, 0])
    assert ag.pair_agreement(a, b).n == 4
    assert ag.cohen_kappa(a, b) == pytest.approx(cohen_kappa_score([1, 0, 1, 0], [1, 0, 0, 0]))


def test_binarize_keeps_missing():
    out = ag.binarize(np.array([[0, 1, 2, 3, -1]]), threshold=2)
    assert out.tolist() == [[0, 0, 1, 1, -1]]
    out = ag.binarize(np.array([0.0, np.nan, 3.0]), threshold=1)
    assert out.tolist() == [0, -1, 1]


def test_label_outside_given_categories_is_an_error():
    with pytest.raises(ValueError):
        ag.cohen_kappa([0, 1, 5], [0, 1, 1], categories=[0, 1, 2])


def test_categories_of():
    assert ag.categories_of([[0, 3], [-1, 2]]).tolist() == [0, 2, 3]
    assert ag.categories_of([[0]], categories=[3, 0, 1]).tolist() == [0, 1, 3]


# ---------------------------------------------------------------- per query


def test_per_query_agreement_hand_computed():
    queries = np.array(["q1", "q1", "q1", "q2", "q2", "q2"])
    labels = np.array([[1, 1], [0, 0], [1, 0], [1, 1], [1, 1], [0, -1]])
    rows = ag.per_query_agreement(queries, labels)
    assert [r.query for r in rows] == ["q1", "q2"]
    q1, q2 = rows
    assert q1.n_items == 3 and q1.observed == pytest.approx(2 / 3)
    assert q1.fleiss_kappa == pytest.approx(ag.pooled_kappa([1, 0, 1], [1, 0, 0]))
    assert q2.n_items == 2 and q2.observed == 1.0
    assert math.isnan(q2.fleiss_kappa)  # only category 1 among pairable items


def test_per_query_matches_whole_set_restricted_to_each_query():
    rng = np.random.default_rng(2)
    queries = rng.integers(0, 5, 400)
    labels = rng.integers(0, 3, (400, 3))
    labels[rng.random(labels.shape) < 0.2] = -1
    for row in ag.per_query_agreement(queries, labels):
        sub = labels[queries == row.query]
        assert row.fleiss_kappa == pytest.approx(ag.fleiss_kappa(sub))
        assert row.alpha_nominal == pytest.approx(ag.krippendorff_alpha(sub))


# ---------------------------------------------------------------- generated label sets

label_sets = arrays(
    np.int64,
    st.tuples(st.integers(2, 30), st.integers(2, 4)),
    elements=st.integers(-1, 3),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(label_sets)
def test_generated_pairwise_against_sklearn(labels):
    a, b = labels[:, 0], labels[:, 1]
    both = (a >= 0) & (b >= 0)
    pa = ag.pair_agreement(a, b)
    assert pa.n == both.sum()
    if pa.n == 0:
        assert math.isnan(pa.cohen_kappa)
        return
    x, y = a[both], b[both]
    assert pa.observed == pytest.approx(np.mean(x == y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = cohen_kappa_score(x, y)
        expected_q = cohen_kappa_score(x, y, weights="quadratic", labels=[0, 1, 2, 3])
    if np.isnan(expected) or len(np.unique(np.concatenate([x, y]))) == 1:
        assert math.isnan(pa.cohen_kappa)
    else:
        assert pa.cohen_kappa == pytest.approx(expected, abs=1e-9)
        assert ag.weighted_kappa(a, b, "quadratic", categories=[0, 1, 2, 3]) == pytest.approx(
            expected_q, abs=1e-9
        )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(label_sets, st.sampled_from(["nominal", "ordinal", "interval"]))
def test_generated_alpha_against_krippendorff_package(labels, level):
    data = np.where(labels < 0, np.nan, labels).astype(float).T
    pairable = (labels >= 0).sum(axis=1) >= 2
    values = labels[pairable][labels[pairable] >= 0]
    ours = ag.krippendorff_alpha(labels, level)
    if pairable.sum() == 0 or len(np.unique(values)) < 2:
        assert math.isnan(ours)  # the package raises here: one value, nothing to compare
        return
    assert ours == pytest.approx(krippendorff.alpha(data, level_of_measurement=level), abs=1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrays(np.int64, st.tuples(st.integers(1, 25), st.integers(2, 5)), elements=st.integers(0, 2)))
def test_generated_fleiss_against_statsmodels(labels):
    counts = aggregate_raters(labels, n_cat=3)[0]
    p_j = counts.sum(axis=0) / counts.sum()
    ours = ag.fleiss_kappa(labels)
    if np.isclose(p_j @ p_j, 1.0):
        assert math.isnan(ours)
        return
    assert ours == pytest.approx(sm_fleiss(counts), abs=1e-9)


# ---------------------------------------------------------------- speed


def test_a_million_labels_well_under_a_second():
    import time

    rng = np.random.default_rng(0)
    pair = rng.integers(0, 4, (500_000, 2))
    many = rng.integers(0, 4, (200_000, 5))
    for fn in (
        lambda: ag.cohen_kappa(pair[:, 0], pair[:, 1]),
        lambda: ag.fleiss_kappa(many),
        lambda: ag.krippendorff_alpha(many, "ordinal"),
    ):
        start = time.perf_counter()
        fn()
        assert time.perf_counter() - start < 1.0


def test_the_reading_never_contradicts_itself():
    assert ag.reading(0.65) == "methodology problem (below 2/3)"  # Landis & Koch: substantial
    assert ag.reading(0.7) == "acceptable (substantial)"
    assert ag.reading(0.9) == "acceptable (almost perfect)"
    assert ag.reading(float("nan")) == "undefined"
    for v in np.linspace(-1, 1, 201):
        r = ag.reading(float(v))
        assert ("acceptable" in r) != ("methodology problem" in r)


def test_cohen_kappa_fast_integer_path_equals_sklearn():
    # The integer fast path (one bincount) gives sklearn's values, including
    # grades only one rater used, a grade gap nobody used, and uint8 labels
    rng = np.random.default_rng(24)
    for trial in range(60):
        n = int(rng.integers(2, 5000))
        top = int(rng.integers(1, 7))
        a = rng.integers(0, top + 1, n)
        b = np.clip(a + rng.integers(-2, 3, n), 0, top + 2)
        if trial % 3 == 0:
            a, b = a * 2, b * 2  # odd grades never used
        if trial % 5 == 0:
            a, b = a.astype(np.uint8), b.astype(np.uint8)
        expected = cohen_kappa_score(a, b)
        got = ag.cohen_kappa(a, b)
        if np.isnan(expected):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(expected, abs=1e-12)


def test_cohen_kappa_fast_path_leaves_missing_labels_to_the_general_path():
    a = np.array([0, 1, 1, -1, 2, 0])
    b = np.array([0, 1, 0, 2, 2, -1])
    assert ag.cohen_kappa(a, b) == pytest.approx(ag.cohen_kappa(a[[0, 1, 2, 4]], b[[0, 1, 2, 4]]))
