"""`import qrels --machine --model NAME [--prompt FILE]`: labels made elsewhere become a
machine assessor's, with their provenance; on both backends."""

from __future__ import annotations

import hashlib

from tests.cli.helpers import cli_ok, run
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.database import Database
from workbench.campaign.assessors.roster import kinds
from workbench.campaign.machine.provenance import read_provenance
from workbench.campaign.scoring.qrels import derive_qrels

RUN = "".join(f"q1 Q0 d{i} {i} {10 - i} sys\n" for i in range(1, 5))
QRELS = "q1 0 d1 3\nq1 0 d2 0\nq1 0 d3 2\n"
PROMPT = "UMBRELA-style prompt\nQuery: {query}\nPassage: {passage}\n"


def test_import_machine_labels_with_provenance(db_url, tmp_path):
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "umbrela.qrels").write_text(QRELS)
    (tmp_path / "p.txt").write_text(PROMPT)
    cli_ok(db_url, "import", "run", str(tmp_path / "a.run"))
    cli_ok(db_url, "grade", "-a", "alice", "q1", "d1", "1")
    out = cli_ok(db_url, "import", "qrels", str(tmp_path / "umbrela.qrels"), "--machine",
                 "--model", "gpt-4o", "--prompt", str(tmp_path / "p.txt"),
                 "--endpoint", "https://user:pw@api.example.com/v1")
    assert "imported 3 judgments by 'gpt-4o'" in out
    db = Database.open(db_url, create=False)
    try:
        assert kinds(db) == {"alice": "human", "gpt-4o": "machine"}
        p = read_provenance(db, "gpt-4o")
        assert (p.model, p.endpoint, p.origin) == ("gpt-4o", "https://api.example.com/v1", "import umbrela.qrels")
        assert p.prompt == PROMPT and p.prompt_sha256 == hashlib.sha256(PROMPT.encode()).hexdigest()
        assert derive_qrels(db, source=QrelsSource.assessor("gpt-4o")).rows() == [("q1", "d1", 3), ("q1", "d2", 0), ("q1", "d3", 2)]
        assert derive_qrels(db, source=QrelsSource.consensus("majority")).rows() == [("q1", "d1", 1)]  # people only
    finally:
        db.close()
    # the same labels again under the same configuration: unchanged
    again = cli_ok(db_url, "import", "qrels", str(tmp_path / "umbrela.qrels"), "--machine",
                   "--model", "gpt-4o", "--prompt", str(tmp_path / "p.txt"))
    assert "(0 new, 0 changed, 3 unchanged" in again


def test_import_machine_refusals(db_url, tmp_path):
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "x.qrels").write_text(QRELS)
    cli_ok(db_url, "import", "run", str(tmp_path / "a.run"))
    cli_ok(db_url, "import", "qrels", str(tmp_path / "x.qrels"), "--assessor", "alice")
    r = run(db_url, "import", "qrels", str(tmp_path / "x.qrels"), "--machine")
    assert r.exit_code == 2 and "--machine needs --model" in r.output
    r = run(db_url, "import", "qrels", str(tmp_path / "x.qrels"), "--model", "m")
    assert r.exit_code == 2 and "add --machine" in r.output
    r = run(db_url, "import", "qrels", str(tmp_path / "x.qrels"))
    assert r.exit_code == 2
    # a person's name cannot take machine labels, nor a machine's a person's
    r = run(db_url, "import", "qrels", str(tmp_path / "x.qrels"), "--machine", "--model", "m",
            "--assessor", "alice")
    assert r.exit_code != 0 and "is a person" in str(r.exception or r.output)
    cli_ok(db_url, "import", "qrels", str(tmp_path / "x.qrels"), "--machine", "--model", "m")
    r = run(db_url, "import", "qrels", str(tmp_path / "x.qrels"), "--assessor", "m")
    assert r.exit_code != 0 and "is a machine assessor" in str(r.exception or r.output)
    # another model under the same name: refused, nothing written
    r = run(db_url, "import", "qrels", str(tmp_path / "x.qrels"), "--machine", "--model", "other",
            "--assessor", "m")
    assert r.exit_code != 0 and "another assessor name" in str(r.exception or r.output)
