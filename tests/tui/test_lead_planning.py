"""Planning screen (F7): the leave-one-out table is `workbench reusability`, sorted by drop,
and the plot's curves are `workbench simulate`'s relevant-found counts."""

from __future__ import annotations

from textual.widgets import DataTable

from tests.tui.helpers import screen_text
from tests.tui.lead_helpers import SIZE, cli_json, open_mode, rows, sample_db, wait_for  # noqa: F401
from workbench.tui.app import make_app
from workbench.tui.screens.planning import PlanningScreen


async def test_planning_screen_shows_reusability_and_simulation(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f7", PlanningScreen)
        # the campaign's own pool depth (the sample's 15), as `reusability` without --depth
        assert screen.data.reusability.depth == 15
        expected = cli_json(sample_db, "reusability", "--depth", "15")
        by_run = {r["run"]: r for r in expected["runs"]}
        shown = rows(screen.query_one("#pl-runs", DataTable))
        drops = [int(r[5]) for r in shown]
        assert drops == sorted(drops, reverse=True)
        assert {r[0] for r in shown} == set(by_run)
        for r in shown:
            e = by_run[r[0]]
            assert r[1:6] == [f"{e['score_full']:.4f}", str(e["rank_full"]), f"{e['score_loo']:.4f}",
                              str(e["rank_loo"]), str(e["rank_loo"] - e["rank_full"])]
        drop = expected["max_drop"]
        assert (f"tau_b {expected['kendall_tau_b']:.4f} (full against left-out scores), "
                f"largest drop {drop} place{'' if drop == 1 else 's'}") in screen_text(app)
        sims = screen.data.simulations
        assert [s.method for s in sims] == ["depth", "mtf", "bandit"]
        budgets = [p.budget for p in sims[0].points]
        cli = cli_json(sample_db, "simulate", "--method", "mtf", "--depth", "15",
                       "--budget", ",".join(map(str, budgets)))
        assert [p.relevant_found for p in sims[1].points] == [p["relevant_found"] for p in cli["points"]]
        # the whole pool judged: every method found the same relevant documents
        assert len({s.points[-1].relevant_found for s in sims}) == 1
        await pilot.press("plus")
        await wait_for(app, pilot, lambda: screen.data.reusability.depth == 20)
        assert "pool depth 20" in screen_text(app)


async def test_planning_screen_shows_topic_set_size(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f7", PlanningScreen)
        await wait_for(app, pilot, lambda: screen.topics is not None)
        cli = cli_json(sample_db, "plan", "topics", "-m", "map", "--min-diff", "0.05",
                       "--from-source", "majority")
        assert screen.topics.estimate.sigma == cli["sigma"]
        assert f"{cli['topics']} topics detect +0.05" in screen_text(app)
        await pilot.press("right_square_bracket")
        await wait_for(app, pilot, lambda: screen.topics.min_diff == 0.06)
        cli = cli_json(sample_db, "plan", "topics", "--min-diff", "0.06", "--from-source", "majority")
        await wait_for(app, pilot, lambda: f"{cli['topics']} topics detect +0.06" in screen_text(app))
