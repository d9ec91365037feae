"""The hostile-text fixture through every import and every export:
escape sequences, C1, bidi, markup and formulas go in as data and come out as data; CSV text
cells cannot run as formulas, Markdown cannot carry HTML, Rich never parses a name as
markup, and a lone surrogate is refused with file:line."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.cli.helpers import cli_ok, run
from tests.hostile import FORMULA, MARKUP, RAW, SURROGATE_JSON, TAG, TEXT
from workbench.formats.csv_cells import FORMULA_START, csv_cell

ANN = "=ann[/x]"
BEN = "[red]b"


@pytest.fixture
def hostile_url(db_url, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text("".join(json.dumps({"id": f"q{i}", "title": TEXT, "description": TEXT,
                                           "narrative": TEXT}) + "\n" for i in (1, 2)))
    docs = tmp_path / "d.jsonl"
    docs.write_text("".join(json.dumps({"id": f"d{i}", "title": TEXT, "text": TEXT}) + "\n"
                            for i in range(1, 5)))
    cli_ok(db_url, "import", "queries", str(queries))
    cli_ok(db_url, "import", "docs", str(docs))
    for tag, order in ((TAG, (1, 2, 3, 4)), (MARKUP, (4, 3, 2, 1))):
        r = tmp_path / "run.txt"
        r.write_text("".join(f"q{q} Q0 d{d} {k} {10 - k} {tag}\n"
                             for q in (1, 2) for k, d in enumerate(order, 1)))
        cli_ok(db_url, "import", "run", str(r))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(d == 1)}\n" for q in (1, 2) for d in range(1, 5)))
    cli_ok(db_url, "import", "qrels", str(qrels), "--assessor", BEN)
    batch = tmp_path / "batch.txt"
    batch.write_text("".join(f"q{q} d{d} {int(d in (1, 2))} {FORMULA}\n"
                             for q in (1, 2) for d in range(1, 5)))
    cli_ok(db_url, "grade", "-a", ANN, "--anywhere", "--batch", str(batch))
    return db_url


def _no_formula_cells(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    for row in rows:
        for cell in row:
            assert not (cell[:1] in FORMULA_START and not _number(cell)), (cell, row)
    return rows


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_csv_cell_neutralises_text_only():
    assert csv_cell("=1+2") == "'=1+2"
    assert csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert csv_cell("+x") == "'+x" and csv_cell("-x") == "'-x"
    assert csv_cell("\tx") == "'\tx" and csv_cell("\rx") == "'\rx"
    assert csv_cell("-0.2500") == "-0.2500" and csv_cell("+3") == "+3" and csv_cell("-1e-05") == "-1e-05"
    assert csv_cell("-inf") == "-inf"
    assert csv_cell(-3) == -3 and csv_cell(0.5) == 0.5 and csv_cell("a=b") == "a=b"
    assert csv_cell("-1+1") == "'-1+1"


def test_every_csv_export_neutralises_formulas(hostile_url, tmp_path):
    rows = _no_formula_cells(cli_ok(hostile_url, "export", "judgments"))
    notes = {r[4] for r in rows[1:]} - {""}
    assert notes == {"'" + FORMULA} and "'" + ANN in {r[2] for r in rows}
    _no_formula_cells(cli_ok(hostile_url, "export", "judgments", "--history"))
    rows = _no_formula_cells(cli_ok(hostile_url, "export", "scores", "-a", ANN))
    assert "'" + TAG in {r[1] for r in rows}
    rows = _no_formula_cells(cli_ok(hostile_url, "score", "--assessor", ANN, "--format", "csv"))
    assert any("'" + TAG in r for r in rows)
    _no_formula_cells(cli_ok(hostile_url, "compare", "-m", "P@1", "--by-assessor", "--format", "csv"))
    _no_formula_cells(cli_ok(hostile_url, "compare", "--lists", TAG, MARKUP, "--format", "csv"))
    rows = _no_formula_cells(cli_ok(hostile_url, "agree", "--format", "csv"))
    assert any("'" + ANN in r for r in rows)
    for what in ("queries", "docs", "runs", "assessors"):
        rows = _no_formula_cells(cli_ok(hostile_url, "list", what, "--format", "csv"))
    # JSON keeps the text as stored
    assert json.loads(cli_ok(hostile_url, "list", "runs", "--format", "json"))


def test_markdown_scores_escape_html(hostile_url, tmp_path):
    tag = "<script>x</script>"
    r = tmp_path / "run2.txt"
    r.write_text(f"q1 Q0 d1 1 1 {tag}\n")
    cli_ok(hostile_url, "import", "run", str(r))
    out = cli_ok(hostile_url, "export", "scores", "-a", ANN, "--format", "markdown")
    assert "<script>" not in out and "&lt;script&gt;x&lt;/script&gt;" in out


def test_names_with_markup_reach_rich_as_text(hostile_url):
    """`[/x]` in a run tag crashed compare --lists and --by-assessor with a MarkupError;
    `[red]b` was rendered as markup."""
    out = cli_ok(hostile_url, "compare", "--lists", TAG, MARKUP)
    assert TAG in out and MARKUP in out
    out = cli_ok(hostile_url, "compare", "-m", "P@1", "--by-assessor")
    assert MARKUP in out and f"assessor:{BEN}" in out and f"assessor:{ANN}" in out
    out = cli_ok(hostile_url, "agree")
    assert BEN in out and ANN in out
    out = cli_ok(hostile_url, "score", "--assessor", BEN)
    assert MARKUP in out and TAG in out


def test_plain_tables_show_no_raw_control_characters(hostile_url):
    for args in (("list", "queries"), ("list", "docs")):
        out = cli_ok(hostile_url, *args)
        assert RAW.search(out) is None and "\u241b[2J" in out


@pytest.mark.parametrize("kind", ["queries", "docs"])
def test_a_lone_surrogate_in_jsonl_names_file_and_line(db_url, tmp_path, kind):
    """`"\\ud83d"` gave a UnicodeEncodeError traceback."""
    f = tmp_path / f"{kind}.jsonl"
    good = '{"id": "x1", "title": "ok", "text": "ok"}\n' if kind == "docs" else '{"id": "x1", "title": "ok"}\n'
    bad = '{"id": "x2", "title": "a' + SURROGATE_JSON + 'b"' + (', "text": "t"' if kind == "docs" else "") + "}\n"
    f.write_text(good + bad)
    result = run(db_url, "import", kind, str(f))
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, UnicodeError)
    assert f"{f}:2:" in str(result.exception) and "surrogate" in str(result.exception)
    assert json.loads(cli_ok(db_url, "list", kind, "--format", "json")) in ([], {"queries": []}, {"docs": []})


def test_hostile_text_round_trips_in_json(hostile_url):
    items = json.loads(cli_ok(hostile_url, "list", "docs", "--format", "json"))
    assert {d["title"] for d in items} == {TEXT}


def test_tsv_and_trec_imports_keep_hostile_text_as_data(db_url, tmp_path):
    tsv = tmp_path / "q.tsv"
    tsv.write_text(f"q9\t{TEXT}\n", encoding="utf-8")
    cli_ok(db_url, "import", "queries", str(tsv))
    trec = tmp_path / "d.trec"
    trec.write_text(f"<DOC>\n<DOCNO> d9 </DOCNO>\n<TEXT>\n{TEXT}\n</TEXT>\n</DOC>\n", encoding="utf-8")
    cli_ok(db_url, "import", "docs", str(trec), "--format", "trec")
    (query,) = json.loads(cli_ok(db_url, "list", "queries", "--format", "json"))
    assert query["title"] == TEXT
    out = cli_ok(db_url, "list", "queries")
    assert RAW.search(out) is None and "\u241b[2J" in out
    _no_formula_cells(cli_ok(db_url, "list", "queries", "--format", "csv"))


def test_machine_commands_show_hostile_text_as_data(hostile_url, tmp_path):
    """A machine assessor named with markup (its labels imported with --machine), then
    calibrate, list assessors and autojudge --dry-run (whose first prompt quotes the query
    and the document): no raw control character, no markup parsed, no crash."""
    machine = "[/x]llm[red]"
    labels = tmp_path / "labels.txt"
    labels.write_text("".join(f"q{q} 0 d{d} {int(d in (1, 3))}\n" for q in (1, 2) for d in range(1, 5)))
    cli_ok(hostile_url, "import", "qrels", str(labels), "--machine", "--model", machine)
    out = cli_ok(hostile_url, "calibrate", "--machine", machine, "--against", ANN)
    assert RAW.search(out) is None and f"{machine} against assessor:{ANN}" in out
    out = cli_ok(hostile_url, "list", "assessors")
    assert RAW.search(out) is None and machine in out and ANN in out
    _no_formula_cells(cli_ok(hostile_url, "list", "assessors", "--format", "csv"))
    cli_ok(hostile_url, "pool", "--depth", "4")
    out = cli_ok(hostile_url, "autojudge", "--model", "m2", "--endpoint", "http://127.0.0.1:9",
                 "--dry-run")
    assert "# the first prompt:" in out
    assert RAW.search(out) is None and "\u241b[2J" in out and MARKUP in out


def test_settings_commands_show_free_text_harmlessly(db_url, tmp_path):
    """A lead's free text (scale labels, guidelines from a file) echoed by `scale` and
    `guidelines show`: no raw control character on the terminal (a campaign's name is
    refused unless printable)."""
    from tests.hostile import CONTROL

    cli_ok(db_url, "init")
    out = cli_ok(db_url, "scale", f"0=no {CONTROL},1=yes")
    assert RAW.search(out + cli_ok(db_url, "scale")) is None
    assert "0  no \u241b[2J" in cli_ok(db_url, "scale")
    guide = tmp_path / "g.md"
    guide.write_text("Read " + CONTROL + "\nline two\n", encoding="utf-8")
    cli_ok(db_url, "guidelines", "set", str(guide))
    out = cli_ok(db_url, "guidelines", "show")
    assert RAW.search(out) is None and "Read \u241b[2J" in out and "\nline two" in out


def test_error_messages_quoting_outside_text_are_harmless(db_url, tmp_path, capsys):
    """An error names the file or the value it could not use; a file name may hold C1 or
    bidi controls (click strips ANSI sequences only off a terminal): the one-line message
    goes through the one sanitiser."""
    from workbench.cli import main

    cli_ok(db_url, "init")
    name = str(tmp_path / "evil\u202e\x9b2Jlst.qrels")
    assert main(["--db", db_url, "import", "qrels", name, "--assessor", "ann"]) == 1
    err = capsys.readouterr().err
    assert "no such file" in err and RAW.search(err) is None and "evil\ufffd\ufffd2J" in err


def test_autojudge_progress_bar_shows_a_markup_name_as_data(monkeypatch, capsys):
    """On a terminal `autojudge` draws a Rich progress bar described by the machine's name:
    `[/x]` in it raised MarkupError mid-run."""
    import sys

    from workbench.cli.autojudge_cmd import _Bar

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    bar = _Bar(2, "[/x]llm[red]")

    class Stored:
        outcome, query, document, grade = "label", "q1", "d1", 2

    bar.stored(Stored())
    bar.bar.refresh()
    bar.close()
    assert "label q1 d1 2" in capsys.readouterr().out
