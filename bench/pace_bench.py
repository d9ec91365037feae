"""How long the assessors' pace and drift take on a big campaign (issue 13 §3): 10
assessors, 200 000 grade events over 2 000 queries × 50 documents, in a fresh SQLite file.

    PYTHONPATH=. .venv/bin/python bench/pace_bench.py [EVENTS]

Prints the seconds of the load (store/grade_history.py and current judgments) and of the
computation (campaign/assessor_watch.compute_watch), best of three.
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
from sqlalchemy import insert

from workbench.campaign.judging.pace import IDLE_CAP_SECONDS, WINDOW, compute_watch, read_watch
from workbench.campaign.database import Database
from workbench.store.models import Assessor, Document, Judgment, JudgmentEvent, Query


def build(db: Database, events: int, assessors: int = 10, queries: int = 2000, docs: int = 50) -> None:
    rng = np.random.default_rng(1)
    start = datetime(2026, 3, 1, tzinfo=timezone.utc)
    with db.write.begin() as s:
        s.execute(insert(Assessor), [{"id": i + 1, "name": f"a{i}"} for i in range(assessors)])
        s.execute(insert(Query), [{"id": q + 1, "ext_id": f"q{q}"} for q in range(queries)])
        s.execute(insert(Document), [{"id": d + 1, "ext_id": f"d{d}"} for d in range(docs)])
        a = rng.integers(1, assessors + 1, events)
        q = rng.integers(1, queries + 1, events)
        d = rng.integers(1, docs + 1, events)
        g = rng.integers(0, 4, events)
        secs = rng.lognormal(2.7, 0.8, events)
        s.execute(insert(JudgmentEvent), [
            {"query_id": int(q[i]), "document_id": int(d[i]), "assessor_id": int(a[i]), "kind": "set",
             "new_grade": int(g[i]), "seconds": float(secs[i]), "created_at": start + timedelta(seconds=i)}
            for i in range(events)])
        keys = np.unique(np.stack([q, d, a], axis=1), axis=0, return_index=True)[1]
        s.execute(insert(Judgment), [
            {"query_id": int(q[i]), "document_id": int(d[i]), "assessor_id": int(a[i]), "grade": int(g[i]),
             "seconds": float(secs[i])} for i in keys.tolist()])


def best(f, n: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(n):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    with tempfile.TemporaryDirectory() as tmp:
        db = Database.open(str(Path(tmp) / "pace.sqlite"))
        try:
            build(db, events)
            from workbench.store.grade_history import grade_history
            from workbench.store.judgment_arrays import current_judgments
            from workbench.store.scale_levels import scale_grades

            def load():
                with db.read() as s:
                    return grade_history(s), current_judgments(s), scale_grades(s)

            t_load, (h, c, sc) = best(load)
            t_compute, _ = best(lambda: compute_watch(h, c, sc, idle_cap=IDLE_CAP_SECONDS, window=WINDOW))
            t_all, _ = best(lambda: _whole(db))
            print(f"{events} grade events, {c.grade.size} current judgments: load {t_load:.3f} s, "
                  f"compute {t_compute:.3f} s, watch_assessors {t_all:.3f} s")
        finally:
            db.close()


def _whole(db: Database):
    with db.read() as s:
        return read_watch(s)


if __name__ == "__main__":
    main()
