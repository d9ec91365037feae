"""campaign.scoring.quick: the calculator's parser and `workbench quick`'s numbers."""

from __future__ import annotations

import math

import pytest

from workbench.campaign.scoring.quick import parse_grades, quick_score
from workbench.errors import InputError, UsageError


def test_parse_grades_and_quick_score():
    assert parse_grades("3 2 3\n0, 1; 2  # comment") == [3, 2, 3, 0, 1, 2]
    assert parse_grades("d7 3\n101 0 d2 2\n") == [3, 2]
    with pytest.raises(InputError, match=r"grades:2: grade 'x' is not an integer"):
        parse_grades("1 2\n3 x 4 x")
    with pytest.raises(InputError, match=r"grades:1: grade 'x' is not"):
        parse_grades("3 x 2")  # a typo on one line is an error, not a 'document grade' line
    with pytest.raises(InputError, match="type some grades"):
        parse_grades("  # nothing\n")
    r = quick_score("3 2 3 0 1 2")
    assert round(r.summary.dcg[r.formulations[0]][2], 3) == 0.961
    assert round(r.summary.cg, 3) == 11
    r = quick_score("1 0 1 0 1", rel_level=1)
    assert round(r.summary.ap, 3) == 0.756  # docs/architecture.md#worked-examples: relevant at 1, 3, 5
    with pytest.raises(UsageError, match="num_rel"):
        quick_score("1 1", num_rel=1)


def test_grades_off_the_scale_are_refused():
    """F6 took grade 5000 (nDCG nan and an overflow warning) where the CLI refused it."""
    with pytest.raises(InputError, match=r"grades:1: grade 5000 is out of range"):
        quick_score("3 5000 1")
    with pytest.raises(InputError, match=r"grades:2: grade -1001 is out of range"):
        parse_grades("d1 3\nd2 -1001\n")


def test_a_ranked_list_takes_r_and_the_ideal_from_the_judged_documents():
    """From a system's ranked list the calculator counts R and builds the ideal from every
    judged document of the query, as the scoreboard does (it counted only the listed ones).
    The list 2 0 1 retrieves two of R = 4 relevant (judged: 2 2 1 1 0)."""
    r = quick_score("2 0 1", judged=(2, 2, 1, 1, 0))
    assert r.summary.num_rel == 4
    assert r.summary.ap == pytest.approx((1 / 1 + 2 / 3) / 4)
    dcg, idcg, ndcg = r.summary.dcg[r.formulations[0]]
    assert dcg == pytest.approx(2 + 1 / math.log2(4))
    assert idcg == pytest.approx(2 + 2 / math.log2(3) + 1 / math.log2(4))
    assert [int(g) for g in r.table.ideal_grade] == [2, 2, 1]
    alone = quick_score("2 0 1")  # the list by itself: R = 2, ideal 2 1 0
    assert alone.summary.num_rel == 2 and alone.summary.ap == pytest.approx((1 + 2 / 3) / 2)
