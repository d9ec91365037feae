"""A machine is defined by its model, endpoint, prompt (sha256), temperature, max tokens,
seed and number of samples: a rerun under the same name that changes any
of them is refused, naming what changed, and calls nothing; concurrency, timeout and
retries may change."""

from __future__ import annotations

import pytest

from tests.machine.chat_server import ChatServer
from tests.tui.factory import build_campaign
from workbench.campaign.database import Database
from workbench.campaign.machine.provenance import definition_changes, make_provenance
from workbench.cli import main


@pytest.fixture
def url(db_url):
    db = Database.open(db_url)
    build_campaign(db, n_queries=1, markup_doc=False)
    db.close()
    return db_url


def _aj(url, server, *extra):
    return main(["--db", url, "autojudge", "--model", "m1", "--endpoint", server.url, "--timeout", "2",
                 "--retries", "0", "--concurrency", "4", *extra])


@pytest.mark.parametrize("change, named", [
    (["--temperature", "0.7"], "temperature 0.0 (now 0.7)"),
    (["--max-tokens", "32"], "max_tokens 64 (now 32)"),
    (["--seed", "5"], "seed 0 (now 5)"),
])
def test_a_rerun_that_changes_the_definition_is_refused(url, capsys, change, named):
    with ChatServer({}) as server:
        _aj(url, server)  # "I cannot tell." everywhere: failures, but the machine exists
        capsys.readouterr()
        calls = len(server.log)
        assert _aj(url, server, *change) == 2
        err = capsys.readouterr().err
        assert named in err and "another assessor name" in err
        assert len(server.log) == calls  # nothing called
        # concurrency, timeout and retries may change
        assert _aj(url, server, "--concurrency", "1", "--timeout", "3", "--retries", "1") in (0, 1)
        assert "another assessor name" not in capsys.readouterr().err


def test_another_endpoint_is_another_machine(url, capsys):
    with ChatServer({}) as first, ChatServer({}) as second:
        _aj(url, first)
        capsys.readouterr()
        assert _aj(url, second) == 2
        assert "endpoint" in capsys.readouterr().err and second.log == []


def test_definition_changes_by_field():
    a = make_provenance("m", endpoint="http://h/v1", prompt="P {query} {passage}",
                        parameters={"temperature": 0.0, "max_tokens": 64, "seed": 0})
    assert definition_changes(a, a) == []
    b = make_provenance("m", endpoint="http://h/v1", prompt="P {query} {passage}",
                        parameters={"temperature": 0.0, "max_tokens": 64, "seed": 0, "samples": 3})
    assert definition_changes(a, b) == ["samples 1 (now 3)"]
    # an import that names no endpoint keeps the stored one
    c = make_provenance("m", prompt="P {query} {passage}", parameters={"temperature": 0.0, "max_tokens": 64, "seed": 0})
    assert definition_changes(a, c) == []
