"""campaign.scoring.quick: the calculator's parser and `workbench quick`'s numbers."""

from __future__ import annotations

import pytest

from workbench.campaign.scoring.quick import parse_grades, quick_score
from workbench.errors import InputError


def test_parse_grades_and_quick_score():
    assert parse_grades("3 2 3\n0, 1; 2  # comment") == [3, 2, 3, 0, 1, 2]
    assert parse_grades("d7 3\n101 0 d2 2\n") == [3, 2]
    with pytest.raises(InputError, match=r"grades:2: 'x' is not an integer grade"):
        parse_grades("1 2\n3 x 4 x")
    with pytest.raises(InputError, match=r"grades:1: 'x' is not"):
        parse_grades("3 x 2")  # a typo on one line is an error, not a 'document grade' line
    with pytest.raises(InputError, match="type some grades"):
        parse_grades("  # nothing\n")
    r = quick_score("3 2 3 0 1 2")
    assert round(r.summary.dcg[r.formulations[0]][2], 3) == 0.961
    assert round(r.summary.cg, 3) == 11
    r = quick_score("1 0 1 0 1", rel_level=1)
    assert round(r.summary.ap, 3) == 0.756  # DESIGN §6: relevant at 1, 3, 5
    with pytest.raises(InputError, match="num_rel"):
        quick_score("1 1", num_rel=1)
