"""workbench.names: the one rule for ids (query, document, run tag) and one for assessor
names, checked at every entry point."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import WorkbenchError
from workbench.names import (
    MAX_LENGTH,
    InvalidName,
    check_id,
    check_name,
    first_invalid_id,
    id_problem,
)
from workbench.store.models import Assessor, Document, Query, System


@pytest.mark.parametrize("value", ["401", "FBIS3-10082", "clueweb09-en0000-00-00000", "é/漢字",
                                   "a#b", "[bold]", "x" * MAX_LENGTH, "q.1_2:3"])
def test_ids_that_read_back_as_one_column(value):
    assert id_problem(value) is None and check_id(value) == value


@pytest.mark.parametrize("value, reason", [
    ("", "empty query id"),
    ("401 extra", "query id '401 extra' contains whitespace (' '); an id is one column of a TREC file"),
    ("a\tb", "query id 'a\\tb' contains whitespace ('\\t'); an id is one column of a TREC file"),
    ("a\u00a0b", "query id 'a\\xa0b' contains whitespace ('\\xa0'); an id is one column of a TREC file"),
    ("a\u2028b", "query id 'a\\u2028b' contains whitespace ('\\u2028'); an id is one column of a TREC file"),
    ("a\x7fb", "query id 'a\\x7fb' contains a control character ('\\x7f'); an id is one column of a TREC file"),
    ("#401", "query id '#401' starts with '#' (it would read back as a comment line)"),
    ("x" * 201, f"query id {'x' * 40!r}... is longer than 200 characters"),
])
def test_ids_that_cannot_be_written_back(value, reason):
    assert id_problem(value, "query id") == reason
    with pytest.raises(InvalidName) as info:
        check_id(value, "query id")
    assert str(info.value) == reason
    assert isinstance(info.value, WorkbenchError) and isinstance(info.value, ValueError)


id_chars = st.sampled_from(list("ab/#1 \t\u00a0\x7f-é"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(id_chars, max_size=4), max_size=6), st.booleans())
def test_first_invalid_id_is_the_one_by_one_rule(values, long_one):
    """The joined-string shortcut never hides a bad id and names the first one."""
    if long_one:
        values = values + ["y" * 201]
    expected = next(((i, id_problem(v, "document id")) for i, v in enumerate(values)
                     if id_problem(v, "document id")), None)
    assert first_invalid_id(values, "document id") == expected


@pytest.mark.parametrize("value, name", [
    ("alice", "alice"), ("  Ann Smith  ", "Ann Smith"), ("[/x] [bold]", "[/x] [bold]"),
    ("#lead", "#lead"), ("é 漢字", "é 漢字"), ("x" * 200, "x" * 200),
])
def test_assessor_names_may_hold_spaces(value, name):
    assert check_name(value) == name


@pytest.mark.parametrize("value, reason", [
    ("", "assessor name must not be empty"),
    (" \t ", "assessor name must not be empty"),
    ("a\tb", "assessor name 'a\\tb' contains '\\t'; only spaces may separate the words of a name"),
    ("a\nb", "assessor name 'a\\nb' contains '\\n'; only spaces may separate the words of a name"),
    ("a\x1b[31m", "assessor name 'a\\x1b[31m' contains '\\x1b'; only spaces may separate the words of a name"),
    ("a\u2028b", "assessor name 'a\\u2028b' contains '\\u2028'; only spaces may separate the words of a name"),
    ("x" * 10_000, f"assessor name {'x' * 40!r}... is longer than 200 characters"),
])
def test_assessor_names_that_are_refused(value, reason):
    with pytest.raises(InvalidName) as info:
        check_name(value)
    assert str(info.value) == reason


def test_the_limit_is_the_stores_column_width():
    for column in (Query.ext_id, Document.ext_id, System.tag, Assessor.name):
        assert column.type.length == MAX_LENGTH


@pytest.mark.parametrize("bad", ["\u202e", "\u202a", "\u2066", "\u2069", "\ud83d"])
def test_bidi_controls_and_lone_surrogates_are_refused_in_ids_and_names(bad):
    """A run tag or name with a bidi override showed reversed text on every screen; the
    screens make it visible, and ids and names refuse it at the door."""
    from workbench.names import check_name, first_invalid_id, id_problem

    assert "control character" in id_problem(f"run{bad}x", "run tag")
    assert first_invalid_id(["ok", f"b{bad}"], "document id")[0] == 1
    with pytest.raises(ValueError):
        check_name(f"ann{bad}lee")
