"""The prompt and the reading of an answer (campaign/machine/prompts.py): placeholders are
replaced once (text put in is never read as a placeholder), the scale is the campaign's,
and a grade is read only from `final score: N` or a lone integer on the scale."""

from __future__ import annotations

import pytest

from workbench.campaign.machine.prompts import (
    DEFAULT_TEMPLATE,
    MAX_PASSAGE_CHARS,
    Item,
    Level,
    check_template,
    read_grade,
    render,
)
from workbench.errors import InputError

LEVELS = [Level(0, "Not relevant"), Level(1, "Relevant", "on topic"), Level(2, "Highly relevant")]
ITEM = Item("q7", "d9", "solar {passage} panels", "", "", "Doc {query}", "Body text")


@pytest.mark.parametrize("answer, grade", [
    ("##final score: 2", 2),
    ("##Final Score: 1", 1),
    ("M: 2, T: 1\n##final score: 0", 0),
    ("final score: 1\n...\n##final score: 2", 2),  # the last one counts
    ("**Final score: 2**", 2),
    ("2", 2),
    (" 1.\n", 1),
])
def test_grades_read(answer, grade):
    assert read_grade(answer, [0, 1, 2]) == (grade, "")


@pytest.mark.parametrize("answer, why", [
    ("The passage is relevant, 2 of the 3 aspects match", "no grade in the answer"),
    ("I'd say 1 or 2", "no grade in the answer"),
    ("", "no grade in the answer"),
    ("relevant", "no grade in the answer"),
    ("##final score: 3", "grade 3 is not on the campaign scale (0, 1, 2)"),
    ("-1", "grade -1 is not on the campaign scale"),
    ("2.5", "a fraction, not an integer grade"),
])
def test_no_grade_is_ever_guessed(answer, why):
    grade, reason = read_grade(answer, [0, 1, 2])
    assert grade is None and why in reason


def test_render_replaces_each_placeholder_once_with_the_campaigns_scale():
    text = render(DEFAULT_TEMPLATE, LEVELS, ITEM)
    assert "integer scale of 0 to 2" in text
    assert "0 = Not relevant\n1 = Relevant: on topic\n2 = Highly relevant" in text
    # braces inside the query and the document stay text
    assert "Query: solar {passage} panels" in text and "Passage: Doc {query}\nBody text" in text
    assert "What the searcher wants" not in text  # no description or narrative: no line
    with_need = render(DEFAULT_TEMPLATE, LEVELS, Item("q", "d", "t", "desc", "narr", "", "x"))
    assert "What the searcher wants: desc\nnarr" in with_need
    custom = render("{query}|{passage}|{min}-{max}|{nope}", LEVELS, ITEM)
    assert custom == "solar {passage} panels|Doc {query}\nBody text|0-2|{nope}"


def test_long_passages_are_cut():
    long = Item("q", "d", "t", "", "", "", "x" * (MAX_PASSAGE_CHARS + 500))
    assert render("{passage}", LEVELS, long) == "x" * MAX_PASSAGE_CHARS


def test_template_needs_query_and_passage():
    check_template("{query} {passage}")
    with pytest.raises(InputError, match=r"p.txt: the prompt template has no \{passage\} placeholder"):
        check_template("{query}", "p.txt")
