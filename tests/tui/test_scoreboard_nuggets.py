"""The scoreboard's nugget view (F2, `v`; issue 33): every run with answers × the nugget
scores, the numbers of `workbench score --nuggets` under each label source, typed measures,
sorting and the export; `v` again gives the document scores back."""

from __future__ import annotations

import json
import random

import pytest
from textual.widgets import DataTable, Input, Select

from tests.tui.helpers import settle
from tests.tui.lead_helpers import SIZE, cli_json, header, open_mode, rows, sample_db, wait_for  # noqa: F401
from workbench.campaign.answers.importing import import_answers, import_assignments, import_nuggets
from workbench.campaign.machine.provenance import make_provenance
from workbench.campaign.scoring.sources import QrelsSource
from workbench.tui.app import make_app
from workbench.tui.screens.scoreboard import NuggetBoard, ScoreboardScreen

RUNS = ("bm25", "rag-1", "rag-2", "=rag3")  # one with ranked results too; one that reads as a formula
LABELS = ("support", "partial_support", "not_support")


def _write(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


@pytest.fixture
def nugget_db(sample_db, tmp_path):
    rnd = random.Random(33)
    topics = {f"n{t}": [(f"fact {t}.{i}", "vital" if i < 2 else "okay") for i in range(4)] for t in range(3)}
    answered = [(run, t) for run in RUNS for t in topics if not (run == "rag-2" and t == "n2")]
    import_answers(sample_db, [_write(tmp_path / "a.jsonl", [
        {"run_id": run, "topic_id": t, "references": [], "answer": [{"text": f"{run} on {t}", "citations": []}]}
        for run, t in answered])])
    import_nuggets(sample_db, _write(tmp_path / "n.jsonl", [
        {"qid": t, "query": "", "nuggets": [{"text": x, "importance": imp} for x, imp in bank]}
        for t, bank in topics.items()]))
    for name in ("ann", "bob", "gpt"):
        records = [{"qid": t, "run_id": run, "nuggets": [
            {"text": x, "importance": imp, "assignment": rnd.choice(LABELS)} for x, imp in topics[t]
            if rnd.random() < 0.8]} for run, t in answered]
        import_assignments(sample_db, _write(tmp_path / f"{name}.jsonl", records), assessor=name,
                           machine=make_provenance("gpt") if name == "gpt" else None)
    return sample_db


def _board(screen) -> dict[str, dict[str, str]]:
    dt = screen.query_one("#sb-table", DataTable)
    names = [h.rstrip(" ▼▲") for h in header(dt)]
    return {r[1]: dict(zip(names[2:], r[2:])) for r in rows(dt)}


def _expected(db, *args) -> dict[str, dict[str, str]]:
    data = cli_json(db, "score", "--nuggets", *args)
    return {s["system"]: {"topics": str(s["n_queries"]), **{m: f"{v:.4f}" for m, v in s["mean"].items()}}
            for s in data["systems"]}


async def test_the_nugget_view_shows_score_nuggets_under_each_source(nugget_db):
    db = nugget_db
    app = make_app(db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        documents = _board(screen)
        assert documents["rag-1"]["queries"] == "0" and documents["bm25"]["queries"] != "0"  # answers only
        await pilot.press("v")
        await wait_for(app, pilot, lambda: isinstance(screen.data, NuggetBoard))
        await settle(app, pilot)
        expected = _expected(db)  # the people's majority
        assert _board(screen) == expected and set(expected) == set(RUNS)
        assert header(screen.query_one("#sb-table", DataTable))[1:4] == ["run", "topics", "all ▼"]
        order = [r[1] for r in rows(screen.query_one("#sb-table", DataTable))]
        assert order == sorted(expected, key=lambda s: (-float(expected[s]["all"]), s))
        # each source the list offers: majority, each assessor, hybrid with the machine
        select = screen.query_one("#sb-source", Select)
        offered = [str(label) for label, _ in select._options]
        assert offered[0] == "consensus:majority"  # then by assessor id (the sample has a bob before ann)
        assert sorted(offered[1:]) == ["assessor:ann", "assessor:bob", "assessor:gpt", "hybrid:gpt"]
        for spec in ("assessor:bob", "hybrid:gpt", "assessor:gpt"):
            select.value = QrelsSource.parse(spec)
            await wait_for(app, pilot, lambda: screen.data.table.source == spec)
            await settle(app, pilot)
            assert _board(screen) == _expected(db, "--source", spec), spec
        # typed measures (among the six), as `score --nuggets -m`
        await pilot.press("m")
        screen.query_one("#sb-measures", Input).value = "vital_strict weighted"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: screen.data.table.measures == ("vital_strict", "weighted"))
        await settle(app, pilot)
        typed = _expected(db, "--source", "assessor:gpt", "-m", "vital_strict", "-m", "weighted")
        assert _board(screen) == typed
        order = [r[1] for r in rows(screen.query_one("#sb-table", DataTable))]
        assert order == sorted(typed, key=lambda s: (-float(typed[s]["vital_strict"]), s))
        # the export: the scoreboard's CSV, values with 6 decimals, names as text
        csv_text = screen.export_text("csv").splitlines()
        assert csv_text[0] == "source,system,queries,vital_strict,weighted"
        data = {s["system"]: s for s in cli_json(db, "score", "--nuggets", "--source", "assessor:gpt")["systems"]}
        for line in csv_text[1:]:
            source, system, n, vs, w = line.split(",")
            run = system[1:] if system.startswith("'") else system
            assert source == "assessor:gpt" and n == str(data[run]["n_queries"])
            assert (vs, w) == (f"{data[run]['mean']['vital_strict']:.6f}", f"{data[run]['mean']['weighted']:.6f}")
        assert "'=rag3" in [line.split(",")[1] for line in csv_text[1:]]
        # Enter: the run's per-topic scores, as `score --nuggets -q`
        from workbench.tui.screens.nugget_run import NuggetRunScreen

        dt = screen.query_one("#sb-table", DataTable)
        dt.move_cursor(row=[r[1] for r in rows(dt)].index("rag-2"))
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, NuggetRunScreen) and app.screen.data is not None)
        await settle(app, pilot)
        per_query = {s["system"]: s["per_query"] for s in cli_json(
            db, "score", "--nuggets", "--source", "assessor:gpt", "-q", "-m", "vital_strict", "-m", "weighted")["systems"]}
        shown = {r[0]: r[1:] for r in rows(app.screen.query_one("#nr-table", DataTable))}
        assert shown == {t: ["no" if t == "n2" else "yes", f"{v['vital_strict']:.4f}", f"{v['weighted']:.4f}"]
                         for t, v in per_query["rag-2"].items()}
        assert shown["n2"][1:] == ["0.0000", "0.0000"]  # not answered: 0, and counted
        exported = app.screen.export_text("csv").splitlines()
        assert exported[0] == "source,system,query,answered,vital_strict,weighted"
        assert "assessor:gpt,rag-2,n2,0,0.000000,0.000000" in exported
        v = per_query["rag-2"]["n0"]
        assert f"assessor:gpt,rag-2,n0,1,{v['vital_strict']:.6f},{v['weighted']:.6f}" in exported
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        # an unknown nugget measure: an inline message
        await pilot.press("m")
        screen.query_one("#sb-measures", Input).value = "nDCG@10"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: screen.query_one("#sb-error").display)
        assert "unknown nugget measure 'nDCG@10'" in str(screen.query_one("#sb-error").render())
        # back to the document scores, their own source and measures kept
        await pilot.press("v")
        await wait_for(app, pilot, lambda: screen.data is not None and not isinstance(screen.data, NuggetBoard))
        await settle(app, pilot)
        assert _board(screen) == documents


async def test_the_nugget_view_follows_new_labels(nugget_db, tmp_path):
    """Labels stored while the view is open (another process: an import) show without a key."""
    db = nugget_db
    app = make_app(db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        await pilot.press("v")
        await wait_for(app, pilot, lambda: isinstance(screen.data, NuggetBoard))
        screen.query_one("#sb-source", Select).value = QrelsSource.parse("assessor:ann")
        await wait_for(app, pilot, lambda: screen.data.table.source == "assessor:ann")
        await settle(app, pilot)
        before = _board(screen)
        assert before == _expected(db, "--source", "assessor:ann")
        # ann's labels of rag-1 on n0 become all support (changes, each a nugget_event)
        import_assignments(db, _write(tmp_path / "ann2.jsonl", [{"qid": "n0", "run_id": "rag-1", "nuggets": [
            {"text": f"fact 0.{i}", "importance": "vital" if i < 2 else "okay", "assignment": "support"}
            for i in range(4)]}]), assessor="ann")
        await wait_for(app, pilot, lambda: _board(screen) != before)
        after = _expected(db, "--source", "assessor:ann")
        assert _board(screen) == after and after["rag-1"] != before["rag-1"]
