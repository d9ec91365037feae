"""A PostgreSQL outage during `grade --batch`: a 2-second restart failed every
remaining line with "not saved". A line is now tried again for a bounded time
(campaign.writing.through_outages). The outage is made by terminating this test's own
connections (its own application_name) with pg_terminate_backend for 2 s; the server is
never stopped."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
import time
import uuid

import pytest
from sqlalchemy import create_engine, func, insert, select, text

from workbench.campaign.database import Database
from workbench.store.models import Document, Judgment, Query

pytestmark = pytest.mark.skipif(not os.environ.get("WORKBENCH_TEST_PG_URL"),
                                reason="needs PostgreSQL (WORKBENCH_TEST_PG_URL)")
LINES = 40


class _Outage:
    """Terminates every connection named `app` for `seconds`, from another thread."""

    def __init__(self, app: str, seconds: float) -> None:
        self.app, self.seconds = app, seconds
        self.killed = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        admin = create_engine(os.environ["WORKBENCH_TEST_PG_URL"], isolation_level="AUTOCOMMIT")
        end = time.monotonic() + self.seconds
        with admin.connect() as conn:
            while time.monotonic() < end:
                self.killed += conn.execute(text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE application_name = :app AND pid <> pg_backend_pid()"), {"app": self.app}).scalar()
                time.sleep(0.005)
        admin.dispose()


class _Batch(io.RawIOBase):
    """Batch lines handed out one per read; the outage starts with line 5."""

    def __init__(self, outage: _Outage) -> None:
        self.lines = [f"q1 d{i} {i % 2}\n".encode() for i in range(LINES)]
        self.outage = outage

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if not self.lines:
            return b""
        if len(self.lines) == LINES - 5:
            self.outage.thread.start()
        if len(self.lines) == LINES - 25:
            self.outage.thread.join()  # (a fast batch would otherwise end inside the outage)
        return self.lines.pop(0)


def test_grade_batch_lines_survive_a_short_outage(db_url):
    if not db_url.startswith("postgresql"):
        pytest.skip("a server outage: PostgreSQL only")
    app = f"wb_outage_{uuid.uuid4().hex[:10]}"
    url = f"{db_url}&application_name={app}"
    db = Database.open(url)
    with db.write.begin() as s:
        s.execute(insert(Query), [{"ext_id": "q1"}])
        s.execute(insert(Document), [{"ext_id": f"d{i}"} for i in range(LINES)])
    db.close()
    outage = _Outage(app, 2.0)
    stream = _Batch(outage)
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = stream
    try:
        from workbench.cli import main

        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["grade", "--db", url, "-a", "ann", "--batch", "-"])
    finally:
        sys.stdin = old
    assert outage.killed > 0
    assert code == 0, err.getvalue()
    assert out.getvalue().count("ok q1 ") == LINES and "not saved" not in err.getvalue()
    assert "retrying" in err.getvalue()
    db = Database.open(db_url)
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(Judgment)) == LINES
    db.close()
