"""autojudge against a hostile or broken endpoint and a badly set key:
every case ends in a message or a stored failure, never a
traceback, a hang, a grade that was not given, or the key on disk."""

from __future__ import annotations

import time

import pytest

from tests.machine.chat_server import ChatServer
from tests.machine.test_autojudge import (
    KEY,
    _autojudge,
    _everything_stored,
    _kinds,
    _machine_rows,
    _pool,
    campaign,  # noqa: F401  (the fixture)
)
from workbench.campaign.machine.redaction import Redactor, clean_key
from workbench.cli import main
from workbench.errors import UsageError


def test_a_key_with_crlf_is_stripped_and_never_stored(campaign, monkeypatch, capsys):  # noqa: F811
    url, _ = campaign
    items = _pool(url)
    monkeypatch.setenv("WB_TEST_KEY", KEY + "\r\n")  # a .env written on Windows
    table = {it: "##final score: 1" for it in items}
    with ChatServer(table, faults={items[0]: ["echo-auth"] * 3}) as server:
        assert _autojudge(url, server, "--query", items[0][0]) == 1  # items[0]: no answer
        assert {e.authorization for e in server.log} == {f"Bearer {KEY}"}
    out, err = capsys.readouterr()
    _, log = _machine_rows(url)
    first = [x for x in log if x[0] == items[0]]
    assert first[0][1] == "error" and "b'Bearer ***'" in first[0][3]
    assert KEY not in _everything_stored(url) and KEY not in out + err


@pytest.mark.parametrize("value, why", [
    ("sk-abc\rdef", "control character (U+000D) at character 7"),
    ("sk-abc\x1b[2J", "control character (U+001B)"),
    ("sk-\u00e9t\u00e9", "non-ASCII character (U+00E9) at character 4"),
    ("  \r\n", "is empty"),
])
def test_a_key_that_cannot_be_a_header_is_refused_before_anything_is_made(
        campaign, monkeypatch, capsys, value, why):  # noqa: F811
    url, _ = campaign
    monkeypatch.setenv("WB_TEST_KEY", value)
    with ChatServer({}) as server:
        assert _autojudge(url, server) == 2
        assert server.log == []
    err = capsys.readouterr().err
    assert why in err and "WB_TEST_KEY" in err and (not value.strip() or value.strip() not in err)
    assert "m1" not in _kinds(url)
    with pytest.raises(UsageError):
        clean_key(value, "V")


def test_every_spelling_of_the_key_is_redacted():
    key = 'sk-"quoted"\\back'
    redact = Redactor(key)
    for text in (f"Bearer {key}", repr(f"Bearer {key}\r"), repr(f"Bearer {key}".encode()),
                 f'{{"auth": "{key.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"}}',
                 "sk-%22quoted%22%5Cback"):
        cleaned = redact(text)
        assert "***" in cleaned and "quoted" not in cleaned, (text, cleaned)


def test_an_endless_200_stops_at_the_cap_and_is_a_failure(campaign, monkeypatch, capsys):  # noqa: F811
    from workbench.campaign.machine import client as client_module

    url, _ = campaign
    items = _pool(url)
    monkeypatch.setattr(client_module, "MAX_BODY_BYTES", 1 << 20)
    monkeypatch.setattr(client_module.ChatClient.__init__, "__kwdefaults__",
                        {**client_module.ChatClient.__init__.__kwdefaults__, "max_body": 1 << 20})
    table = {it: "##final score: 2" for it in items}
    with ChatServer(table, faults={items[0]: ["endless"]}) as server:
        start = time.monotonic()
        assert main(["--db", url, "autojudge", "--model", "m1", "--endpoint", server.url,
                     "--timeout", "20", "--query", items[0][0]]) == 0
        assert time.monotonic() - start < 15  # 1 MiB, not the 20 s timeout
    grades, log = _machine_rows(url)
    first = [x for x in log if x[0] == items[0]]
    assert [x[1] for x in first] == ["failure"] and "larger than 1048576 bytes" in first[0][4]
    assert items[0] not in grades and len(first[0][3]) == 20_000  # raw kept, cut
    assert sum(1 for x in log if x[1] == "label") == sum(1 for q, _ in items if q == items[0][0]) - 1


@pytest.mark.parametrize("answer, kind", [
    ("##final score: " + "0" * 4400 + "1", "4401 digits"),
    ("##final score: 2.5", "fraction"), ("1.9", "fraction"), ("2/3", "fraction"), ("3,5", "fraction"),
])
def test_huge_and_fractional_grades_are_failures_kept_raw_and_the_run_goes_on(
        campaign, capsys, answer, kind):  # noqa: F811
    url, _ = campaign
    items = _pool(url)
    table = {it: "##final score: 1" for it in items}
    table[items[0]] = answer
    with ChatServer(table) as server:
        assert _autojudge(url, server, "--query", items[0][0], key=False) == 0
    grades, log = _machine_rows(url)
    first = [x for x in log if x[0] == items[0]]
    assert [x[1:3] for x in first] == [("failure", None)] and kind in first[0][4]
    assert first[0][3] == answer[:20_000] and items[0] not in grades
    assert sum(1 for g in grades.values() if g == 1) == sum(1 for q, _ in items if q == items[0][0]) - 1


def test_an_answer_cut_at_max_tokens_is_a_failure(campaign, capsys):  # noqa: F811
    url, _ = campaign
    items = _pool(url)
    table = {it: "##final score: 1" for it in items}
    table[items[0]] = "<think>Is the final score: 3? The passage"
    with ChatServer(table, faults={items[0]: ["length"]}) as server:
        assert _autojudge(url, server, "--query", items[0][0], key=False) == 0
    grades, log = _machine_rows(url)
    first = [x for x in log if x[0] == items[0]]
    assert [x[1:3] for x in first] == [("failure", None)]
    assert "did not finish (finish_reason 'length')" in first[0][4]
    assert first[0][3] == table[items[0]] and items[0] not in grades


@pytest.mark.parametrize("endpoint, why", [
    ("http://127.0.0.1:abc/v1", "not a number from 1 to 65535"),
    ("http://127.0.0.1:99999/v1", "not a number from 1 to 65535"),
    ("127.0.0.1:8000", "not an http:// or https:// URL"),
])
def test_a_bad_endpoint_is_a_message(campaign, capsys, endpoint, why, tmp_path):  # noqa: F811
    url, _ = campaign
    assert main(["--db", url, "autojudge", "--model", "m", "--endpoint", endpoint]) == 2
    assert why in capsys.readouterr().err
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d001 1\n")
    assert main(["--db", url, "import", "qrels", str(qrels), "-a", "llm", "--machine",
                 "--model", "m", "--endpoint", endpoint]) == 2
    err = capsys.readouterr().err
    assert why in err and "Traceback" not in err
    assert "llm" not in _kinds(url)


def test_a_dead_endpoint_stops_after_five_failures_and_creates_nothing(campaign, capsys):  # noqa: F811
    url, _ = campaign
    with ChatServer({}) as server:
        dead = server.url
    start = time.monotonic()
    assert main(["--db", url, "autojudge", "--model", "m1", "--endpoint", dead,
                 "--retries", "0", "--concurrency", "1"]) == 1
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert "5 calls in a row got no answer" in err and "connection failed" in err
    assert "was not created" in err and took < 10
    assert "m1" not in _kinds(url)
    # --max-failures 0: every item is tried (and still nothing is created)
    n = len(_pool(url))
    assert main(["--db", url, "autojudge", "--model", "m1", "--endpoint", dead, "--retries", "0",
                 "--max-failures", "0"]) == 1
    assert f"{n} calls without an answer" in capsys.readouterr().err
    assert "m1" not in _kinds(url)


def test_errors_before_the_first_answer_are_stored_with_it(campaign, capsys):  # noqa: F811
    url, _ = campaign
    items = _pool(url)
    q = items[0][0]
    mine = [it for it in items if it[0] == q]
    table = {it: "##final score: 2" for it in items}
    faults = {it: ["500"] for it in mine[:2]}
    with ChatServer(table, faults=faults) as server:
        assert main(["--db", url, "autojudge", "--model", "m1", "--endpoint", server.url,
                     "--retries", "0", "--concurrency", "1", "--query", q]) == 1
    grades, log = _machine_rows(url)
    assert [x[1] for x in log] == ["error", "error"] + ["label"] * (len(mine) - 2)


def test_the_dry_run_shows_the_url_called_without_credentials(campaign, capsys):  # noqa: F811
    url, _ = campaign
    with ChatServer({}) as server:
        port = server.url.split(":")[2].split("/")[0]
        assert main(["--db", url, "autojudge", "--model", "m1", "--dry-run", "--endpoint",
                     f"http://user:s3cret@127.0.0.1:{port}/v1/?api_key=sk-in-url#frag"]) == 0
        assert server.log == []
    out, err = capsys.readouterr()
    assert f"calls to http://127.0.0.1:{port}/v1/chat/completions for" in out
    assert "s3cret" not in out + err and "sk-in-url" not in out + err
    assert "the user and password and the query string and the fragment" in err
