import pytest

from workbench.errors import InputError
from workbench.formats.documents import DocumentRecord, read_documents
from workbench.formats.records import sniff_format


def write(tmp_path, name, content: str | bytes):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return str(path)


TREC_DOCS = """\
<DOC>
<DOCNO> FT911-3 </DOCNO>
<PROFILE>_AN-BEOAJAAAFT</PROFILE>
<DATE>910514
</DATE>
<HEADLINE>
FT  14 MAY 91 / International
  Company News
</HEADLINE>
<TEXT>
<P>First paragraph [/x] with a &lt; b &amp; c.</P>
<P>Second.</P>
</TEXT>
<TEXT>Another block.</TEXT>
</DOC>
<DOC><DOCNO>LA010189-0001</DOCNO><TITLE>Short</TITLE><URL>http://example.org/a</URL><TEXT>one line</TEXT></DOC>

<DOC>
<DOCNO>empty</DOCNO>
</DOC>
"""


def test_trec_documents(tmp_path):
    docs = list(read_documents(write(tmp_path, "docs.trec", TREC_DOCS)))
    assert docs == [
        DocumentRecord(
            "FT911-3", "FT 14 MAY 91 / International Company News",
            "First paragraph [/x] with a < b & c.\nSecond.\nAnother block.", None, 1,
        ),
        DocumentRecord("LA010189-0001", "Short", "one line", "http://example.org/a", 16),
        DocumentRecord("empty", "", "", None, 18),
    ]


def test_tsv_layouts(tmp_path):
    two = write(tmp_path, "two.tsv", "docno\ttext\r\nd1\tsome text\r\nd2\t\r\n")
    assert list(read_documents(two)) == [
        DocumentRecord("d1", "", "some text", None, 2), DocumentRecord("d2", "", "", None, 3)]
    three = write(tmp_path, "three.tsv", b"\xef\xbb\xbfd1\tA title\tbody <b>x</b>\n")
    assert list(read_documents(three)) == [DocumentRecord("d1", "A title", "body <b>x</b>", None, 1)]
    four = write(tmp_path, "marco.tsv", "D1\thttp://u/1\tTitle\tBody\n")
    assert list(read_documents(four)) == [DocumentRecord("D1", "Title", "Body", "http://u/1", 1)]


def test_jsonl_aliases(tmp_path):
    path = write(
        tmp_path, "c.jsonl",
        '{"id": "1", "title": "T", "text": "X", "url": "http://a"}\n'
        '{"docno": "2", "contents": "C"}\n{"doc_id": "3", "body": "B"}\n'
        '{"_id": "4", "title": "beir", "text": "t", "metadata": {}}\n{"pid": 5, "text": "p"}\n',
    )
    assert [(d.id, d.title, d.text, d.url) for d in read_documents(path)] == [
        ("1", "T", "X", "http://a"), ("2", "", "C", None), ("3", "", "B", None),
        ("4", "beir", "t", None), ("5", "", "p", None),
    ]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("d.tsv", "d1\ta\tb\nd2\tonly\n", "d.tsv:2: expected 3 tab-separated columns (id, title, text) like the first document, found 2"),
        ("d.tsv", "d1\ta\tb\tc\td\n", "d.tsv:1: expected 2, 3 or 4 tab-separated columns (id, text | id, title, text | id, url, title, text), found 5"),
        ("d.tsv", "d1\ttext\n \tx\n", "d.tsv:2: missing id (expected a non-empty 'id')"),
        ("d.tsv", "d1\ttext\nd2\tx\nd1\ty\n", "d.tsv:3: duplicate document id 'd1' (first on line 1)"),
        ("d.tsv", b"d1\tok\nd2\t\xc3\x28\n", "d.tsv:2: invalid UTF-8 at byte 4 of the line"),
        ("d.jsonl", '{"title": "no id"}\n', "d.jsonl:1: missing id (expected a non-empty 'id')"),
        ("d.jsonl", '{"id": "1", "text": 3.5}\n{"id": "2", "text": {"a": 1}}\n', "d.jsonl:2: text ('text') must be a string, found dict"),
        ("d.jsonl", '{"id": "1"}\n"just a string"\n', "d.jsonl:2: expected a JSON object, found str"),
        ("d.trec", "<DOC>\n<TEXT>x</TEXT>\n</DOC>\n", "d.trec:1: document without a <DOCNO>"),
        ("d.trec", "<DOC><DOCNO>a</DOCNO>\n<TEXT>x</TEXT>\n", "d.trec:1: <DOC> document is never closed (expected </DOC> before the end of the file at line 2)"),
        ("d.trec", "<DOC><DOCNO>a</DOCNO></DOC>\n<DOCNO>b</DOCNO>\n", "d.trec:2: <DOCNO> outside a <DOC> document"),
        ("d.trec", "<DOC><DOCNO>a</DOCNO></DOC>\n<DOC><DOCNO>a</DOCNO></DOC>\n", "d.trec:2: duplicate document id 'a' (first on line 1)"),
        ("d.trec", b"<DOC><DOCNO>a</DOCNO>\n<TEXT>caf\xe9</TEXT></DOC>\n", "d.trec:2: invalid UTF-8 at byte 10 of the line"),
    ],
)
def test_bad_document_files(tmp_path, name, content, message):
    path = write(tmp_path, name, content)
    with pytest.raises(InputError) as info:
        list(read_documents(path))
    assert str(info.value) == f"{tmp_path}/{message}"


def test_empty_files_are_zero_documents(tmp_path):
    for name in ("e.tsv", "e.jsonl", "e.trec", "e.txt"):
        assert list(read_documents(write(tmp_path, name, ""))) == []
    assert list(read_documents(write(tmp_path, "bom.tsv", b"\xef\xbb\xbf\r\n"))) == []


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("a.txt", "d1\ttext\n", "tsv"),
        ("a.txt", '\n  {"id": "1"}\n', "jsonl"),
        ("a.txt", "<DOC>\n", "trec"),
        ("a.jsonl", "", "jsonl"),
        ("a.tsv", "", "tsv"),
        ("a.sgml", "", "trec"),
        ("a.dat", "", "tsv"),
        # content wins over a misleading extension
        ("a.tsv", '{"id": "1"}\n', "jsonl"),
    ],
)
def test_sniff_format(tmp_path, name, content, expected):
    assert sniff_format(write(tmp_path, name, content)) == expected


def test_documents_are_streamed_one_at_a_time(tmp_path):
    path = write(tmp_path, "d.jsonl", "".join(f'{{"id": "{i}"}}\n' for i in range(3)) + "not json\n")
    docs = read_documents(path)
    assert [next(docs).id for _ in range(3)] == ["0", "1", "2"]
    with pytest.raises(InputError, match=r"d.jsonl:4: invalid JSON"):
        next(docs)


from hypothesis import given, settings, strategies as st

# ids as workbench.names allows them (no '#' first: it would read back as a comment)
_ids = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1,
               max_size=12).filter(lambda i: not i.startswith("#"))
_any = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(_ids, st.tuples(_any, _any), max_size=6), st.booleans())
def test_jsonl_round_trips_any_text(tmp_path_factory, docs, ascii_only):
    import json

    path = tmp_path_factory.mktemp("rt") / "docs.jsonl"
    path.write_text("".join(
        json.dumps({"id": i, "title": t, "text": x}, ensure_ascii=ascii_only) + "\n"
        for i, (t, x) in docs.items()
    ), encoding="utf-8")
    got = [(d.id, d.title, d.text) for d in read_documents(str(path))]
    assert got == [(i.strip(), t.strip(), x) for i, (t, x) in docs.items()]
