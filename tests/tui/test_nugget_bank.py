"""The lead's nugget screen: keys add, edit, split, merge, reorder, delete,
toggle vital/okay and freeze; a frozen bank refuses edits; a machine's edited nugget
becomes `edited`."""

from __future__ import annotations

import json

from tests.tui.helpers import screen_text, settle
from workbench.campaign.answers.importing import import_assignments
from workbench.campaign.machine.provenance import make_provenance
from workbench.store.nuggets import frozen_queries, nuggets
from workbench.tui.screens.nugget_bank import NuggetBankScreen, nugget_bank_app


def _bank(db):
    with db.reader() as r:
        return [(n.text, n.importance, n.origin) for n in nuggets(r)]


async def test_nugget_screen_keys_edit_the_bank(sqlite_db, tmp_path):
    db = sqlite_db
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"qid": "t1", "run_id": "r", "nuggets": [
        {"text": "alpha", "importance": "okay", "assignment": "support"},
        {"text": "beta", "importance": "okay", "assignment": "maybe"},
        {"text": "gamma", "importance": "okay", "assignment": "maybe"}]}) + "\n")
    import_assignments(db, str(path), assessor="m", machine=make_provenance("m"))  # a machine's draft
    app = nugget_bank_app(db, "t1")
    app._owns_db = False
    async with app.run_test(size=(150, 44)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, NuggetBankScreen)
        assert "alpha" in screen_text(app) and "machine" in screen_text(app)
        await pilot.press("v")  # alpha: vital
        await pilot.press("j", "e")
        await settle(app, pilot)
        inp = app.screen.query_one("Input")
        inp.value = "beta edited"
        await pilot.press("enter")
        await settle(app, pilot)
        assert _bank(db)[:2] == [("alpha", "vital", "machine"), ("beta edited", "okay", "edited")]
        await pilot.press("K")  # beta edited goes up
        await settle(app, pilot)
        assert [t for t, _, _ in _bank(db)] == ["beta edited", "alpha", "gamma"]
        await pilot.press("j", "j", "d")  # gamma has no label: deleted
        await settle(app, pilot)
        assert [t for t, _, _ in _bank(db)] == ["beta edited", "alpha"]
        await pilot.press("a")
        await settle(app, pilot)
        app.screen.query_one("Input").value = "delta | epsilon"
        await pilot.press("enter")
        await settle(app, pilot)
        assert [t for t, _, _ in _bank(db)][-1] == "delta | epsilon"
        await pilot.press("s")
        await settle(app, pilot)
        app.screen.query_one("Input").value = "delta | epsilon"
        await pilot.press("enter")
        await settle(app, pilot)
        assert [t for t, _, _ in _bank(db)] == ["beta edited", "alpha", "delta", "epsilon"]
        await pilot.press("k", "d")  # alpha has a label: refused
        await settle(app, pilot)
        assert len(_bank(db)) == 4
        await pilot.press("j", "m")  # merge delta with epsilon
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert [t for t, _, _ in _bank(db)] == ["beta edited", "alpha", "delta epsilon"]
        await pilot.press("f")
        await settle(app, pilot)
        with db.reader() as r:
            assert frozen_queries(r)
        await pilot.press("v")  # refused: frozen
        await settle(app, pilot)
        assert "frozen" in screen_text(app)
    assert [i for _, i, _ in _bank(db)] == ["okay", "vital", "okay"]


async def test_f10_shows_the_nugget_scores_under_each_source(sqlite_db, tmp_path):
    from workbench.tui.app import make_app
    from workbench.tui.screens.nugget_scores import NuggetScoresScreen

    db = sqlite_db
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps({"qid": "t1", "run_id": run, "nuggets": [
        {"text": "alpha", "importance": "vital", "assignment": lab}]}) + "\n"
        for run, lab in (("runX", "support"), ("runY", "partial_support"))))
    import_assignments(db, str(path), assessor="ann")
    app = make_app(db, lead=True)
    async with app.run_test(size=(200, 44)) as pilot:
        await settle(app, pilot)
        await pilot.press("f10")
        await settle(app, pilot)
        assert isinstance(app.screen, NuggetScoresScreen)
        text = screen_text(app)
        assert "runX" in text and "1.0000" in text and "0.5000" in text and "consensus:majority" in text
        assert app.screen.export_text("csv").splitlines()[:2] == [
            "source,system,queries,all,all_strict,vital,vital_strict,weighted,weighted_strict",
            "consensus:majority,runX,1,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000"]
        await pilot.press("s")
        await settle(app, pilot)
        assert "assessor:ann" in screen_text(app)
