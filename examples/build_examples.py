"""Rebuild the example campaign files in examples/ from the sample database (seeded, so the
same files come out each time): `python examples/build_examples.py` from the repository root.

The files are what a lead starts a campaign with: topics (TSV), documents (JSONL), three
runs, judging guidelines, a second assessor's qrels (bob's grades of the sample) and
last year's qrels (alice's grades), on the sample's first five queries.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "sample_db" / "sample.sqlite"
QUERIES = ("101", "102", "103", "104", "105")
RUNS = ("bm25", "tfidf", "qld")
DEPTH = 30  # results per query kept in each run


def workbench(db: Path, *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "workbench", "--db", str(db), *args],
                          check=True, capture_output=True, text=True).stdout


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:  # opening a database may write to it
        copy = Path(tmp) / "sample.sqlite"
        shutil.copyfile(SAMPLE, copy)
        build(copy)


def build(db: Path) -> None:
    con = sqlite3.connect(db)
    (HERE / "runs").mkdir(exist_ok=True)
    docs: set[str] = set()
    for tag in RUNS:
        kept, per_query = [], {}
        for line in workbench(db, "export", "run", tag).splitlines():
            q, _, d, *_ = line.split()
            if q in QUERIES and per_query.get(q, 0) < DEPTH:
                per_query[q] = per_query.get(q, 0) + 1
                kept.append(line)
                docs.add(d)
        (HERE / "runs" / f"{tag}.run").write_text("\n".join(kept) + "\n")
    for name, assessor in (("bob.qrels", "bob"), ("last-year.qrels", "alice")):
        lines = [line for line in workbench(db, "export", "qrels", "--assessor", assessor).splitlines()
                 if line.split()[0] in QUERIES]
        (HERE / name).write_text("\n".join(lines) + "\n")
        docs.update(line.split()[2] for line in lines)  # every judged document is shipped

    with open(HERE / "topics.txt", "w") as out:
        for q, title, desc, narr in con.execute(
                "SELECT ext_id, title, description, narrative FROM query ORDER BY id"):
            if q in QUERIES:
                out.write(f"{q}\t{title}\t{desc}\t{narr}\n")
    with open(HERE / "docs.jsonl", "w") as out:
        for d, title, text in con.execute("SELECT ext_id, title, text FROM document ORDER BY ext_id"):
            if d in docs:
                out.write(json.dumps({"id": d, "title": title, "text": text}) + "\n")


if __name__ == "__main__":
    main()
