"""`workbench serve link | links | revoke` and the server's start-up (address, TLS, the
clear-text warning), without starting a server (web.run_app is replaced)."""

from __future__ import annotations

import hashlib
import re

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, text

from tests.cli.helpers import cli_ok, run
from workbench.campaign.database import Database
from workbench.cli import cli
from workbench.serve import running

LINK = re.compile(r"^http://127\.0\.0\.1:8000/s/([A-Za-z0-9_-]{43})$")


@pytest.fixture
def url(db_url):
    Database.open(db_url).close()
    return db_url


def test_link_prints_a_link_whose_token_is_stored_only_as_a_hash(url):
    out = cli_ok(url, "serve", "link", "--assessor", "alice").strip()
    token = LINK.match(out).group(1)
    engine = create_engine(url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT name, token_sha256 FROM access_link")).all()
    engine.dispose()
    assert [tuple(r) for r in stored] == [("alice", hashlib.sha256(token.encode()).hexdigest())]
    other = cli_ok(url, "serve", "link", "--lead", "lena", "--url", "https://judge.example.org/")
    assert other.startswith("https://judge.example.org/s/") and "//s/" not in other


def test_links_lists_who_and_when_never_a_token(url):
    token = LINK.match(cli_ok(url, "serve", "link", "-a", "alice").strip()).group(1)
    cli_ok(url, "serve", "link", "-a", "bob")
    listed = cli_ok(url, "serve", "links")
    lines = listed.splitlines()
    assert lines[0].split() == ["role", "name", "created", "last", "used", "state"]
    assert [line.split()[:2] for line in lines[1:]] == [["assessor", "alice"], ["assessor", "bob"]]
    assert all(line.rstrip().endswith("live") for line in lines[1:])
    assert token not in listed


def test_revoke(url):
    cli_ok(url, "serve", "link", "-a", "alice")
    result = run(url, "serve", "revoke", "--assessor", "alice")
    assert result.exit_code == 0 and "revoked the link of assessor alice" in result.stderr
    assert "revoked" in cli_ok(url, "serve", "links").splitlines()[1]
    again = run(url, "serve", "revoke", "--assessor", "alice")
    assert again.exit_code == 0 and "has no live link" in again.stderr


def test_exactly_one_person_and_a_valid_name(url):
    assert run(url, "serve", "link").exit_code == 2
    assert run(url, "serve", "link", "-a", "x", "--lead", "y").exit_code == 2
    assert run(url, "serve", "link", "-a", "bad\tname").exit_code == 1


@pytest.fixture
def started(monkeypatch):
    calls = []
    monkeypatch.setattr(running.web, "run_app", lambda app, **kw: calls.append(kw))
    return calls


def test_serve_binds_localhost_by_default_without_a_warning(tmp_path, started):
    db = str(tmp_path / "c.sqlite")
    Database.open(db).close()
    result = CliRunner().invoke(cli, ["--db", db, "serve"])
    assert result.exit_code == 0, result.output
    assert started[0]["host"] == "127.0.0.1" and started[0]["port"] == 8000
    assert started[0]["ssl_context"] is None
    assert "clear text" not in result.stderr and "http://127.0.0.1:8000" in result.stderr


def test_all_addresses_without_tls_warns_of_clear_text(tmp_path, started):
    db = str(tmp_path / "c.sqlite")
    Database.open(db).close()
    result = CliRunner().invoke(cli, ["--db", db, "serve", "--host", "0.0.0.0", "--port", "9000"])
    assert result.exit_code == 0, result.output
    assert "travel in clear text" in result.stderr
    assert started[0]["host"] == "0.0.0.0" and started[0]["port"] == 9000


def test_tls_needs_both_files(tmp_path, started):
    db = str(tmp_path / "c.sqlite")
    Database.open(db).close()
    cert = tmp_path / "cert.pem"
    cert.write_text("x")
    result = CliRunner().invoke(cli, ["--db", db, "serve", "--tls-cert", str(cert)])
    assert result.exit_code == 2 and "--tls-key" in result.output
    assert started == []


def test_a_missing_database_is_not_created(tmp_path, started):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "typo.sqlite"), "serve"])
    assert "no such database file" in str(result.exception)  # main() prints it, exit 1
    assert not (tmp_path / "typo.sqlite").exists() and started == []


@pytest.mark.parametrize("host,loopback", [("127.0.0.1", True), ("localhost", True), ("::1", True),
                                           ("0.0.0.0", False), ("192.168.1.5", False), ("::", False)])
def test_loopback(host, loopback):
    assert running.is_loopback(host) is loopback


@pytest.mark.parametrize("base, why", [
    ("https://judge.example.org/?x=1", "query string"),
    ("https://judge.example.org/#top", "fragment"),
    ("https://u:pw@judge.example.org", "user or a password"),
    ("judge.example.org", "not an http:// or https:// address"),
    ("http://judge.example.org:99999", "port is not a number"),
    ("http://judge.example.org:abc", "port is not a number"),
])
def test_link_url_is_checked_before_the_older_link_is_revoked(url, capsys, base, why):
    from workbench.cli import main

    first = LINK.match(cli_ok(url, "serve", "link", "-a", "alice").strip()).group(1)
    capsys.readouterr()
    assert main(["--db", url, "serve", "link", "-a", "alice", "--url", base]) == 2
    err = capsys.readouterr().err
    assert why in err and "--url" in err
    engine = create_engine(url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT token_sha256, revoked_at FROM access_link")).all()
    engine.dispose()
    assert [(r[0], r[1]) for r in stored] == [(hashlib.sha256(first.encode()).hexdigest(), None)]
    behind = cli_ok(url, "serve", "link", "-a", "alice", "--url", "https://x.example/judge/").strip()
    assert re.fullmatch(r"https://x\.example/judge/s/[A-Za-z0-9_-]{43}", behind)
