import gzip

import pytest

from workbench.errors import InputError
from workbench.formats.topics import Topic, read_topics

TREC_TOPICS = """\
<top>
<num> Number: 401
<title> foreign minorities, Germany

<desc> Description:
What language and cultural differences impede the integration
of foreign minorities in Germany?

<narr> Narrative:
A relevant document will focus on the causes &amp; effects
of the lack of integration.
</top>

<top>
<num> Number: 402 <title> behavioral genetics
<desc> Description:
What is happening in the field?
<narr> Narrative:
Any study [/bold] counts.
</top>
"""


def write(tmp_path, name, content: str | bytes):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return str(path)


def error_of(path, fmt=None) -> str:
    with pytest.raises(InputError) as info:
        list(read_topics(path, fmt))
    return str(info.value)


def test_trec_topics_unclosed_fields(tmp_path):
    path = write(tmp_path, "topics.401-402.txt", TREC_TOPICS)
    assert list(read_topics(path)) == [
        Topic(
            "401",
            "foreign minorities, Germany",
            "What language and cultural differences impede the integration of foreign "
            "minorities in Germany?",
            "A relevant document will focus on the causes & effects of the lack of integration.",
            1,
        ),
        Topic("402", "behavioral genetics", "What is happening in the field?",
              "Any study [/bold] counts.", 14),
    ]


def test_trec_topics_closed_and_web_track_style(tmp_path):
    path = write(
        tmp_path, "web.xml",
        '<topic number="201" type="single">\n  <query>raspberry pi</query>\n'
        "  <description>What is a raspberry pi?</description>\n"
        '  <subtopic number="1" type="inf">ignored</subtopic>\n</topic>\n'
        "<top><num>7</num><title>Closed title</title></top>\n"
        '<topic number="3"><query>coronavirus origin</query>'
        "<question>Where did it come from?</question><narrative>seeking origin</narrative></topic>\n",
    )
    assert [(t.id, t.title, t.description, t.narrative) for t in read_topics(path)] == [
        ("201", "raspberry pi", "What is a raspberry pi?", ""),
        ("7", "Closed title", "", ""),
        ("3", "coronavirus origin", "Where did it come from?", "seeking origin"),
    ]


def test_tsv_topics_with_header_bom_crlf(tmp_path):
    path = write(tmp_path, "q.tsv", b"\xef\xbb\xbfqid\ttitle\r\nq1\tfirst query\r\n\r\nq2\tsecond\tdesc two\tnarr two\r\n")
    assert list(read_topics(path)) == [
        Topic("q1", "first query", "", "", 2),
        Topic("q2", "second", "desc two", "narr two", 4),
    ]


def test_jsonl_topics_with_aliases(tmp_path):
    path = write(
        tmp_path, "q.jsonl",
        '{"id": "1", "title": "t1", "description": "d1", "narrative": "n1"}\n'
        '{"qid": 2, "query": "t2"}\n'
        '{"_id": "3", "text": "t3", "desc": "d3", "narr": "n3"}\n',
    )
    assert list(read_topics(path)) == [
        Topic("1", "t1", "d1", "n1", 1), Topic("2", "t2", "", "", 2), Topic("3", "t3", "d3", "n3", 3),
    ]


def test_gzip_and_empty_files(tmp_path):
    gz = tmp_path / "q.jsonl.gz"
    gz.write_bytes(gzip.compress(b'{"id": "a", "title": "x"}\n'))
    assert [t.id for t in read_topics(str(gz))] == ["a"]
    for name in ("empty.tsv", "empty.jsonl", "empty.txt"):
        assert list(read_topics(write(tmp_path, name, ""))) == []
    assert list(read_topics(write(tmp_path, "blank.txt", "\n\n  \n"))) == []


def test_reader_streams(tmp_path):
    lines = "".join(f"q{i}\ttitle {i}\n" for i in range(5)) + "q1\tagain\n"
    records = read_topics(write(tmp_path, "q.tsv", lines))
    assert next(records).id == "q0"  # records come before the bad line is reached
    with pytest.raises(InputError):
        list(records)


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("q.tsv", "q1\tone\nq2\n", "q.tsv:2: expected 2 to 4 tab-separated columns (qid, title[, description[, narrative]]), found 1"),
        ("q.tsv", "q1\tone\nq2\ta\tb\tc\td\n", "q.tsv:2: expected 2 to 4 tab-separated columns (qid, title[, description[, narrative]]), found 5"),
        ("q.tsv", "q1\tone\n\ttwo\n", "q.tsv:2: missing id (expected a non-empty 'qid')"),
        ("q.tsv", "q1\tone\nq2\ttwo\nq1\tthree\n", "q.tsv:3: duplicate query id 'q1' (first on line 1)"),
        ("q.tsv", b"q1\tone\nq2\tt\xe9\n", "q.tsv:2: invalid UTF-8 at byte 5 of the line"),
        ("q.jsonl", '{"id": "1", "title": "a"}\n{"title": "b"}\n', "q.jsonl:2: missing id (expected a non-empty 'id')"),
        ("q.jsonl", '{"id": "1"}\n{"id": "2", "title": "b"\n', "q.jsonl:2: invalid JSON: Expecting ',' delimiter at column 25"),
        ("q.jsonl", '{"id": "1"}\n[1, 2]\n', "q.jsonl:2: expected a JSON object, found list"),
        ("q.jsonl", '{"id": "1", "title": ["a"]}\n', "q.jsonl:1: title ('title') must be a string, found list"),
        ("q.jsonl", '{"id": "1"}\n\n{"id": 1}\n', "q.jsonl:3: duplicate query id '1' (first on line 1)"),
        ("t.txt", "<top>\n<title> no number\n</top>\n", "t.txt:1: topic without a number (expected <num> Number: ...)"),
        ("t.txt", "<top>\n<num> Number: 1\n<title> x\n", "t.txt:1: <top> topic is never closed (expected </top> before the end of the file at line 3)"),
        ("t.txt", "<top><num>1</num></top>\nstray text\n", "t.txt:2: expected <top>, found 'stray text'"),
        ("t.txt", "<top><num>1</num>\n<top><num>2</num></top>\n", "t.txt:2: <top> inside the topic opened on line 1; expected </top> first"),
        ("t.txt", "<top><num>1</num></top>\n<top><num> Number: 1 </top>\n", "t.txt:2: duplicate query id '1' (first on line 1)"),
        ("t.txt", "<top><num>1</num></top>\n</top>\n", "t.txt:2: </top> without an open <top>"),
    ],
)
def test_bad_topic_files_name_file_line_reason(tmp_path, name, content, message):
    path = write(tmp_path, name, content)
    assert error_of(path) == f"{tmp_path}/{message}"


def test_unknown_or_unsniffable_format(tmp_path):
    path = write(tmp_path, "q.txt", "q1 title with spaces only\n")
    assert error_of(path).endswith(
        "q.txt: cannot tell the format (expected tab-separated columns, JSON lines or TREC "
        "<tags>); pass --format tsv|jsonl|trec"
    )
    assert error_of(path, "xml").endswith("q.txt: unknown format 'xml'; expected one of tsv, jsonl, trec")
    assert error_of(str(tmp_path / "missing.tsv")).endswith("missing.tsv: no such file")


def test_explicit_format_overrides_sniffing(tmp_path):
    # A TSV title that starts with "<" is still TSV when the user says so.
    path = write(tmp_path, "q.dat", "q1\t<b> bold\n")
    assert list(read_topics(path, "tsv")) == [Topic("q1", "<b> bold", "", "", 1)]
