"""Nugget scores with nothing labelled yet: zeros, never a numpy casting error (bincount of
no rows is int64 even with float weights; the lead's F10 on the sample said "could not
load")."""

from __future__ import annotations

import numpy as np

from workbench.metrics.nuggets import MEASURES, nugget_scores


def test_no_label_scores_zero_for_every_system_and_topic():
    # two systems, two topics with three nuggets (one vital), no label at all
    scores = nugget_scores(2, np.array([0, 0, 1]), np.array([True, False, False]), 2,
                           np.array([], dtype=np.int64), np.array([], dtype=np.int64),
                           np.array([], dtype=np.int64))
    assert set(scores) == set(MEASURES)
    for values in scores.values():
        assert values.dtype == np.float64 and values.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_an_empty_campaign_has_empty_tables():
    scores = nugget_scores(0, np.array([], dtype=np.int64), np.array([], dtype=bool), 0,
                           np.array([], dtype=np.int64), np.array([], dtype=np.int64),
                           np.array([], dtype=np.int64))
    assert all(v.shape == (0, 0) and v.dtype == np.float64 for v in scores.values())


def test_one_label_still_computes_its_share():
    # one system, one topic, nuggets: vital, okay; the vital one supported -> all 0.5,
    # vital 1.0, weighted 1 / 1.5
    scores = nugget_scores(1, np.array([0, 0]), np.array([True, False]), 1,
                           np.array([0]), np.array([0]), np.array([2]))
    assert scores["all"].tolist() == [[0.5]] and scores["vital"].tolist() == [[1.0]]
    assert np.isclose(scores["weighted"][0, 0], 1 / 1.5)
