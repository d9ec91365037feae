"""Agreement and Systems screens show what `workbench agree` / `workbench compare` print."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Select

from tests.tui.helpers import screen_text, settle
from tests.tui.lead_helpers import SIZE, cli_json, header, open_mode, rows, sample_db, wait_for  # noqa: F401
from workbench.campaign.agreement.per_query import confusion
from workbench.tui.app import make_app
from workbench.tui.screens.agreement import AgreementScreen
from workbench.tui.screens.systems import SystemsScreen, p_text


def f4(v):
    return "–" if v is None else f"{v:.4f}"


async def test_agreement_screen_matches_agree_json(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f3", AgreementScreen)
        expected = cli_json(sample_db, "agree", "-q")
        pairs = rows(screen.query_one("#ag-pairs", DataTable))
        assert [(r[0], r[1]) for r in pairs] == [(p["a"], p["b"]) for p in expected["pairs"]]
        for r, p in zip(pairs, expected["pairs"]):
            assert r[2:8] == [str(p["n"]), f4(p["observed"]), f4(p["cohen_kappa"]),
                              f4(p["pooled_kappa"]), f4(p["weighted_kappa_linear"]),
                              f4(p["weighted_kappa_quadratic"])]
        overall = screen_text(app)
        for key in ("fleiss_kappa", "krippendorff_alpha_nominal", "krippendorff_alpha_ordinal",
                    "krippendorff_alpha_interval"):
            assert f4(expected[key]) in overall
        matrix = rows(screen.query_one("#ag-matrix", DataTable))
        ab = expected["pairs"][0]
        assert matrix[0][2] == f"{ab['cohen_kappa']:.3f} / {ab['weighted_kappa_linear']:.3f}"
        per_query = rows(screen.query_one("#ag-queries", DataTable))
        assert [(r[0], r[1], r[3]) for r in per_query] == [
            (q["query"], str(q["n_items"]), f4(q["fleiss_kappa"])) for q in expected["per_query"]]
        # the confusion matrix follows the highlighted pair
        await wait_for(app, pilot, lambda: "alice (rows) × bob" in screen_text(app))
        screen.query_one("#ag-pairs", DataTable).move_cursor(row=2)
        await settle(app, pilot)
        await wait_for(app, pilot, lambda: "bob (rows) × carol" in screen_text(app))
        c = confusion(sample_db, "bob", "carol")
        assert f"{c.n} items" in screen_text(app)
        assert c.n == expected["pairs"][2]["n"]
        # binary labels: the CLI's --binary numbers
        await pilot.press("b")
        await wait_for(app, pilot, lambda: screen.data.binary)
        await settle(app, pilot)
        binary = cli_json(sample_db, "agree", "--binary")
        pairs = rows(screen.query_one("#ag-pairs", DataTable))
        assert pairs[0][4] == f4(binary["pairs"][0]["cohen_kappa"])


async def test_systems_screen_matches_compare_json(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f5", SystemsScreen)
        expected = cli_json(sample_db, "compare", "--by-assessor")
        rk = screen.query_one("#sy-rankings", DataTable)
        sources = list(expected["rankings"])
        assert header(rk)[1:] == sources
        table = rows(rk)
        for i, source in enumerate(sources):  # each cell: "system  mean"
            assert [r[1 + i].split() for r in table] == [
                [s, f4(expected["means"][source][s])] for s in expected["rankings"][source]]
        corr = rows(screen.query_one("#sy-corr", DataTable))
        assert [(r[0], r[1], r[3], r[5], r[6]) for r in corr] == [
            (c["a"], c["b"], f4(c["kendall_tau_b"]), f4(c["tau_ap"]), f4(c["rbo"]))
            for c in expected["correlations"]]
        sig = screen.query_one("#sy-sig", DataTable)
        systems = header(sig)[1:]
        cells = {r[0]: dict(zip(systems, r[1:])) for r in rows(sig)}
        for t in expected["tests"]:
            assert cells[t["a"]][t["b"]].startswith(p_text(t["p_holm"]))
            assert cells[t["b"]][t["a"]].startswith(p_text(t["p_holm"]))
        # another measure and test, typed like a user would
        await pilot.press("m")
        box = screen.query_one("#sy-measure", Input)
        box.value = "AP"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: screen.data.measure == "AP")
        screen.query_one("#sy-test", Select).value = "randomization"
        await wait_for(app, pilot, lambda: screen.data.test == "randomization")
        await settle(app, pilot)
        rand = cli_json(sample_db, "compare", "--by-assessor", "-m", "AP", "--test", "randomization")
        cells = {r[0]: dict(zip(header(sig)[1:], r[1:])) for r in rows(sig)}
        for t in rand["tests"]:
            assert cells[t["a"]][t["b"]].startswith(p_text(t["p_holm"]))
        # a bad measure: inline message, no crash
        await pilot.press("m")
        box.value = "bogus@3"
        await pilot.press("enter")
        await settle(app, pilot)
        await wait_for(app, pilot, lambda: "bogus" in screen_text(app))


async def test_enter_on_a_query_opens_its_disagreements(sample_db):
    from workbench.campaign.agreement.adjudication import list_disagreements
    from workbench.tui.screens.disagreements import DisagreementsScreen

    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f3", AgreementScreen)
        queries = screen.query_one("#ag-queries", DataTable)
        queries.focus()
        queries.move_cursor(row=2)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DisagreementsScreen)
                       and app.screen.query_filter == "103" and app.screen.data is not None
                       and all(r[0] == "103" for r in rows(app.screen.query_one("#dg-table", DataTable))))
        await settle(app, pilot)
        dt = app.screen.query_one("#dg-table", DataTable)
        assert dt.row_count == len(list_disagreements(sample_db, query="103"))
