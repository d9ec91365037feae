"""A label key on the nugget assignment screen against a grade key on the document screen,
in the same run (issue 33): from the key to the next item drawn, the label on disk.

    PYTHONPATH=. .venv/bin/python bench/nugget_screen_bench.py [--keys 60]

Both screens run headless under Textual's Pilot on fresh SQLite campaigns (the tests'
factory for documents; 20 answers × 30 nuggets for nuggets); each key is timed from the
press until the screen has handled it (the write committed in the handler or the
writer thread, and the redraw done). Prints median and p95 for each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _p95(xs):
    return sorted(xs)[int(0.95 * (len(xs) - 1))]


async def nugget_keys(folder: Path, keys: int) -> list[float]:
    from workbench.campaign.answers.importing import import_answers, import_nuggets
    from workbench.campaign.answers.pooling import pool_answers
    from workbench.campaign.database import Database
    from workbench.tui.app import make_app

    db = Database.open(str(folder / "n.sqlite"))
    answers = folder / "a.jsonl"
    answers.write_text("".join(json.dumps({"run_id": f"r{r}", "topic_id": "t1", "references": ["d"],
                                           "answer": [{"text": f"answer {r}", "citations": [0]}]}) + "\n"
                               for r in range(20)))
    nuggets = folder / "n.jsonl"
    nuggets.write_text(json.dumps({"qid": "t1", "query": "q", "nuggets": [
        {"text": f"fact {i}", "importance": "okay"} for i in range(30)]}) + "\n")
    import_answers(db, [str(answers)])
    import_nuggets(db, str(nuggets))
    pool_answers(db, ["ann"])
    app = make_app(db, assessor="ann")
    times = []
    async with app.run_test(size=(150, 44)) as pilot:
        await pilot.pause()
        for _ in range(keys):
            start = time.perf_counter()
            await pilot.press("2")
            times.append(time.perf_counter() - start)
    db.close()
    return times


async def document_keys(folder: Path, keys: int) -> list[float]:
    import types

    tests = types.ModuleType("tests")  # the repository's tests/, whatever else is installed
    tests.__path__ = [str(Path(__file__).resolve().parent.parent / "tests")]
    sys.modules["tests"] = tests
    from tests.tui.factory import build_campaign
    from workbench.campaign.database import Database
    from workbench.tui.app import make_app

    db = Database.open(str(folder / "d.sqlite"))
    build_campaign(db, n_queries=3, n_systems=3, depth=max(keys, 10))
    app = make_app(db, assessor="alice")
    times = []
    async with app.run_test(size=(150, 44)) as pilot:
        for _ in range(10):
            await pilot.pause()
        for _ in range(keys):
            start = time.perf_counter()
            await pilot.press("2")
            await app.background.wait_idle()  # the grade is written on the writer thread
            await pilot.pause()
            times.append(time.perf_counter() - start)
    db.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=60)
    keys = parser.parse_args().keys
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        doc = asyncio.run(document_keys(folder, keys))
        nug = asyncio.run(nugget_keys(folder, keys))
    for name, xs in (("document grade", doc), ("nugget label", nug)):
        print(f"{name:15} median {1000 * statistics.median(xs):6.1f} ms   p95 {1000 * _p95(xs):6.1f} ms   "
              f"({len(xs)} keys; targets: nugget <= document, <= 25 ms median, <= 40 ms p95)")


if __name__ == "__main__":
    main()
