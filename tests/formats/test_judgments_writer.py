import csv
import io
import json
from datetime import datetime, timedelta, timezone

import pytest

from workbench.formats.judgments import (
    COLUMNS,
    JudgmentRow,
    format_seconds,
    write_judgments,
    write_judgments_csv,
    write_judgments_jsonl,
)

T0 = datetime(2026, 11, 22, 1, 2, 3, 456789)  # naive: SQLite gives UTC back without tz
ROWS = [
    JudgmentRow("401", "FT911-3", "ann", 2, "", 12.0, T0),
    JudgmentRow("401", "doc,with\"quote", "bob", 0, 'said "no", twice\nreally', 3.25,
                datetime(2026, 11, 22, 3, 2, 3, tzinfo=timezone(timedelta(hours=2)))),
]


def test_csv_header_and_quoting():
    out = io.StringIO()
    assert write_judgments_csv(ROWS, out) == 2
    text = out.getvalue()
    assert text.splitlines()[0] == "query,document,assessor,grade,note,seconds,updated_at"
    assert text.splitlines()[1] == "401,FT911-3,ann,2,,12,2026-11-22T01:02:03.456+00:00"
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert parsed[1] == {
        "query": "401", "document": 'doc,with"quote', "assessor": "bob", "grade": "0",
        "note": 'said "no", twice\nreally', "seconds": "3.25",
        "updated_at": "2026-11-22T01:02:03.000+00:00",
    }


def test_csv_history_adds_event_column_and_empty_grade_for_clear():
    rows = [
        JudgmentRow("q", "d", "ann", 1, event="set", updated_at=T0),
        JudgmentRow("q", "d", "ann", None, event="clear", updated_at=T0),
    ]
    out = io.StringIO()
    write_judgments_csv(rows, out, history=True)
    assert out.getvalue().splitlines() == [
        "query,document,assessor,grade,note,seconds,updated_at,event",
        "q,d,ann,1,,0,2026-11-22T01:02:03.456+00:00,set",
        "q,d,ann,,,0,2026-11-22T01:02:03.456+00:00,clear",
    ]


def test_jsonl_same_keys_typed_values():
    out = io.StringIO()
    write_judgments_jsonl(ROWS[:1] + [JudgmentRow("q", "d", "é", None, event="clear")], out, history=True)
    first, second = [json.loads(line) for line in out.getvalue().splitlines()]
    assert list(first) == list(COLUMNS) + ["event"]
    assert first == {"query": "401", "document": "FT911-3", "assessor": "ann", "grade": 2,
                     "note": "", "seconds": 12.0, "updated_at": "2026-11-22T01:02:03.456+00:00",
                     "event": ""}
    assert second["grade"] is None and second["event"] == "clear" and second["assessor"] == "é"
    assert "é" in out.getvalue()  # not \u escaped


def test_dispatch_and_empty():
    out = io.StringIO()
    assert write_judgments([], out, format="csv") == 0
    assert out.getvalue() == "query,document,assessor,grade,note,seconds,updated_at\n"
    out = io.StringIO()
    assert write_judgments([], out, format="jsonl") == 0 and out.getvalue() == ""
    with pytest.raises(ValueError, match="unknown judgments format 'xml'"):
        write_judgments([], io.StringIO(), format="xml")


@pytest.mark.parametrize("value, text", [(0.0, "0"), (12.0, "12"), (3.5, "3.5"), (0.1254, "0.125"), (None, "")])
def test_format_seconds(value, text):
    assert format_seconds(value) == text


from hypothesis import given, settings, strategies as st

_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=20)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_text, _text, _text, st.one_of(st.none(), st.integers(-3, 10)), _text), max_size=5))
def test_csv_round_trips_any_text(values):
    """Any text comes back as stored, but a formula-like text cell with its leading '
    (workbench.formats.csv_cells)."""
    from workbench.formats.csv_cells import csv_cell

    rows = [JudgmentRow(q, d, a, g, n, 1.5, T0) for q, d, a, g, n in values]
    out = io.StringIO()
    write_judgments_csv(rows, out)
    back = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["query"], r["document"], r["assessor"], r["grade"], r["note"]) for r in back] == [
        (csv_cell(q), csv_cell(d), csv_cell(a), "" if g is None else str(g), csv_cell(n))
        for q, d, a, g, n in values
    ]
