"""Scoreboard, drill-down and P-R curve screens show what `workbench score` computes."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Select

from tests.tui.helpers import settle
from tests.tui.lead_helpers import SIZE, cli_json, header, open_mode, rows, sample_db, wait_for  # noqa: F401
from workbench.campaign.scoring.sources import QrelsSource
from workbench.tui.app import make_app
from workbench.tui.screens.pr_curve import PRCurveScreen
from workbench.tui.screens.query_detail import QueryDetailScreen
from workbench.tui.screens.scoreboard import ScoreboardScreen
from workbench.tui.screens.system_detail import SystemDetailScreen


def _means(data: dict) -> dict[str, dict[str, float]]:
    return {s["system"]: s["mean"] for s in data["systems"]}


def _board(screen) -> dict[str, dict[str, str]]:
    dt = screen.query_one("#sb-table", DataTable)
    names = [h.rstrip(" ▼▲") for h in header(dt)]
    return {r[1]: dict(zip(names[3:], r[3:])) for r in rows(dt)}


async def test_scoreboard_shows_the_cli_scores_for_each_source(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        board = _board(screen)
        expected = _means(cli_json(sample_db, "score"))  # campaign default measures, majority
        assert set(board) == set(expected) == {"bm25", "tfidf", "qld", "doclen"}
        for system, values in expected.items():
            for measure, value in values.items():
                assert board[system][measure] == f"{value:.4f}", (system, measure)
        # Judged@10 = share of the top 10 judged under the source
        judged = _means(cli_json(sample_db, "score", "-m", "Judged@10"))
        assert board["doclen"]["Judged@10"] == f"{judged['doclen']['Judged@10']:.4f}"
        # unjudged documents in the top 10, summed over queries (Judged@10 divides by 10)
        per_query = {s["system"]: s["per_query"] for s in
                     cli_json(sample_db, "score", "-q", "-m", "Judged@10")["systems"]}
        for system, by_query in per_query.items():
            holes = round(sum(10 * (1 - v["Judged@10"]) for v in by_query.values()))
            assert board[system]["unjudged@10"] == str(holes)
        assert board["doclen"]["unjudged@10"] == "3" and board["qld"]["unjudged@10"] == "0"
        # rows sorted by the first measure, best first
        dt = screen.query_one("#sb-table", DataTable)
        order = [r[1] for r in rows(dt)]
        assert order == sorted(expected, key=lambda s: -expected[s]["nDCG@10"])

        # another source: alice's own grades
        screen.query_one("#sb-source", Select).value = QrelsSource.assessor("alice")
        await wait_for(app, pilot, lambda: screen.data.table.source == "assessor:alice")
        await settle(app, pilot)
        alice = _means(cli_json(sample_db, "score", "--assessor", "alice"))
        board = _board(screen)
        for system, values in alice.items():
            assert board[system]["nDCG@10"] == f"{values['nDCG@10']:.4f}"

        # typed measures
        await pilot.press("m")
        box = screen.query_one("#sb-measures", Input)
        box.value = "P@5 RR"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: "P@5" in screen.data.table.labels)
        await settle(app, pilot)
        assert header(dt)[3:] == ["P@5 ▼", "RR", "Judged@5", "unjudged@5"]  # as typed
        typed = _means(cli_json(sample_db, "score", "--assessor", "alice", "-m", "P@5", "-m", "RR"))
        board = _board(screen)
        for system, values in typed.items():
            assert board[system]["RR"] == f"{values['RR']:.4f}"
            assert board[system]["P@5"] == f"{values['P@5']:.4f}"

        # a bad measure name: an inline message, the old table stays
        await pilot.press("m")
        box.value = "nDCG@ten"
        await pilot.press("enter")
        await settle(app, pilot)
        error = screen.query_one("#sb-error")
        await wait_for(app, pilot, lambda: error.display)
        assert "nDCG@ten" in str(error.render())
        assert dt.row_count == 4


async def test_sort_by_any_column(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        dt = screen.query_one("#sb-table", DataTable)
        means = _means(cli_json(sample_db, "score"))
        dt.move_cursor(row=[r[1] for r in rows(dt)].index("tfidf"))
        await pilot.press("s")  # second measure column: AP (the campaign's order)
        await settle(app, pilot)
        assert rows(dt)[dt.cursor_row][1] == "tfidf"  # the cursor follows the system
        assert header(dt)[4] == "AP ▼"
        assert [r[1] for r in rows(dt)] == sorted(means, key=lambda s: -means[s]["AP"])
        await pilot.press("r")
        await settle(app, pilot)
        assert [r[1] for r in rows(dt)] == sorted(means, key=lambda s: means[s]["AP"])


async def test_drill_down_to_queries_ranked_list_and_curve(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        dt = screen.query_one("#sb-table", DataTable)
        dt.move_cursor(row=[r[1] for r in rows(dt)].index("qld"))
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, SystemDetailScreen)
                       and app.screen.data is not None)
        await settle(app, pilot)
        detail = app.screen
        per_query = next(s for s in cli_json(sample_db, "score", "-q")["systems"]
                         if s["system"] == "qld")["per_query"]
        table = detail.query_one("#sd-table", DataTable)
        got = {r[0]: dict(zip(header(table)[2:], r[2:])) for r in rows(table)}
        assert len(got) == 11  # ten queries and the mean
        assert got["mean"]["AP"] == f"{_means(cli_json(sample_db, 'score'))['qld']['AP']:.4f}"
        assert set(per_query) == set(got) - {"mean"}
        for q, values in per_query.items():
            for m, v in values.items():
                assert got[q][m] == f"{v:.4f}", (q, m)
        # sort the per-query table by the first measure, best first; the mean row stays last
        table.move_cursor(row=0)
        await pilot.press("s")
        await settle(app, pilot)
        assert header(table)[2] == "nDCG@10 ▼"
        order = [r[0] for r in rows(table)]
        assert [per_query[q]["nDCG@10"] for q in order[:-1]] == sorted(
            (v["nDCG@10"] for v in per_query.values()), reverse=True)
        assert order[-1] == "mean"
        assert rows(table)[table.cursor_row][0] == list(per_query)[0]  # cursor kept its query
        # ranked list of the first query with every assessor's grade
        table.move_cursor(row=order.index(list(per_query)[0]))
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, QueryDetailScreen)
                       and app.screen.data is not None)
        await settle(app, pilot)
        ranked = app.screen.query_one("#qd-table", DataTable)
        assert header(ranked)[:5] == ["rank", "document", "title", "score", "grade"]
        assert header(ranked)[5:] == ["alice", "bob", "carol", "final"]
        first = rows(ranked)
        assert [r[0] for r in first[:3]] == ["1", "2", "3"]
        assert len(first) == 100
        await pilot.press("escape")
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, ScoreboardScreen)
        # P-R curve of the marked systems: trec_eval's iprec_at_recall means
        dt.move_cursor(row=[r[1] for r in rows(dt)].index("bm25"))
        await pilot.press("space")
        await pilot.press("p")
        await wait_for(app, pilot, lambda: isinstance(app.screen, PRCurveScreen)
                       and app.screen.data is not None)
        await settle(app, pilot)
        curve = rows(app.screen.query_one("#pr-table", DataTable))
        assert [r[0] for r in curve] == ["bm25"]
        iprec = _means(cli_json(sample_db, "score", "-m", "iprec_at_recall"))["bm25"]
        assert curve[0][1:] == [f"{iprec[k]:.3f}" for k in sorted(iprec)]


async def test_export_from_the_scoreboard_writes_a_markdown_table(sample_db, tmp_path):
    app = make_app(sample_db, lead=True)
    out = tmp_path / "board.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        await pilot.press("e")
        await settle(app, pilot)
        dialog = app.screen
        dialog.query_one("#export-format", Select).value = "markdown"
        await pilot.pause()
        dialog.query_one("#export-path", Input).value = str(out)
        dialog.query_one("#export-path", Input).focus()
        await pilot.press("enter")
        await wait_for(app, pilot, out.exists)
        await settle(app, pilot)
    lines = out.read_text().splitlines()
    means = _means(cli_json(sample_db, "score"))
    # the campaign's measures, in its order and spelling
    assert lines[2] == "| system | queries | nDCG@10 | AP | bpref | P@10 | Judged@10 | unjudged@10 |"
    assert lines[4].startswith(f"| bm25 | 10 | **{means['bm25']['nDCG@10']:.4f}** |")
    # one score export: `workbench export scores` writes the same file
    from click.testing import CliRunner

    from workbench.cli import cli

    cli_out = tmp_path / "cli.md"
    result = CliRunner().invoke(cli, ["--db", sample_db.url, "export", "scores", "--format", "markdown",
                                      "-o", str(cli_out)])
    assert result.exit_code == 0, result.output
    assert cli_out.read_text() == out.read_text()


async def test_judged_column_found_whatever_the_registry_order(sample_db):
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        await pilot.press("m")
        screen.query_one("#sb-measures", Input).value = "nDCG(gain=exp)@20"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: screen.data.judged == "Judged@20")
        await settle(app, pilot)
        dt = screen.query_one("#sb-table", DataTable)
        # the typed measure, then the judged share the board adds; sorted by the first
        assert header(dt)[3:] == ["nDCG(gain=exp)@20 ▼", "Judged@20", "unjudged@20"]
        board = _board(screen)
        typed = _means(cli_json(sample_db, "score", "-m", "nDCG(gain=exp)@20", "-m", "Judged@20"))
        for system, values in typed.items():
            assert board[system]["nDCG(gain=exp)@20"] == f"{values['nDCG(gain=exp)@20']:.4f}"
            assert board[system]["Judged@20"] == f"{values['Judged@20']:.4f}"
        assert [r[1] for r in rows(dt)] == sorted(typed, key=lambda s: -typed[s]["nDCG(gain=exp)@20"])


async def _export(app, pilot, path) -> None:
    await pilot.press("e")
    await settle(app, pilot)
    dialog = app.screen
    dialog.query_one("#export-format", Select).value = "markdown"
    await pilot.pause()
    dialog.query_one("#export-path", Input).value = str(path)
    dialog.query_one("#export-path", Input).focus()
    await pilot.press("enter")


async def test_export_through_a_symlink_and_to_a_missing_folder(sample_db, tmp_path):
    """`e` writes through a symlink (the link stays, its target gets the table); a folder
    that does not exist is one notification, not a crash."""
    out = tmp_path / "out"
    out.mkdir()
    target, link = out / "board.md", out / "link.md"
    target.write_text("old\n")
    link.symlink_to(target)
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(app, pilot, "f2", ScoreboardScreen)
        await _export(app, pilot, link)
        await wait_for(app, pilot, lambda: target.read_text() != "old\n")
        await settle(app, pilot)
        missing = out / "missing" / "x.md"
        await _export(app, pilot, missing)
        wanted = f"export failed: cannot write {missing}: no such directory {out / 'missing'}"
        await wait_for(app, pilot, lambda: any(n.message == wanted for n in app._notifications))
    assert link.is_symlink() and target.read_text().splitlines()[2].startswith("| system |")
    assert sorted(p.name for p in out.iterdir()) == ["board.md", "link.md"]


async def test_in_a_browser_the_export_is_a_download_and_writes_nothing_on_the_server(
        sample_db, tmp_path, monkeypatch):
    """A lead link's export dialog could write any path on the server host."""
    from pathlib import Path

    app = make_app(sample_db, lead=True)
    app.served = True
    delivered = []
    monkeypatch.setattr(app, "deliver_text", lambda f, **kw: delivered.append((f.read(), kw)))
    target = tmp_path / "elsewhere" / "board.md"
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(app, pilot, "f2", ScoreboardScreen)
        await pilot.press("e")
        await settle(app, pilot)
        dialog = app.screen
        box = dialog.query_one("#export-path", Input)
        assert "/" not in box.value and box.value.startswith("scores-")  # no server path
        dialog.query_one("#export-format", Select).value = "markdown"
        await pilot.pause()
        box.value = str(target)  # a path on the server's host: refused
        box.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert delivered == [] and not target.parent.exists()
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        dialog = app.screen
        dialog.query_one("#export-format", Select).value = "markdown"
        await pilot.pause()
        box = dialog.query_one("#export-path", Input)
        box.value = "board.md"
        box.focus()
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: delivered)
        await settle(app, pilot)
    (text, kw), = delivered
    assert kw == {"save_filename": "board.md", "open_method": "download"}
    assert text.splitlines()[2].startswith("| system | queries | nDCG@10 |")
    assert not Path("board.md").exists() and not target.exists()


async def test_ci_column_is_score_ci_t(sample_db):
    """`i` shows the sort measure's 95% interval: `score --ci t`'s."""
    app = make_app(sample_db, lead=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(app, pilot, "f2", ScoreboardScreen)
        dt = screen.query_one("#sb-table", DataTable)
        first = header(dt)[3].rstrip(" ▼▲")
        assert not any(h.startswith("95% CI") for h in header(dt))
        await pilot.press("i")
        await settle(app, pilot)
        assert header(dt)[-1] == f"95% CI {first}"
        expected = {s["system"]: s["mean_ci"][first] for s in cli_json(sample_db, "score", "--ci")["systems"]}
        for r in rows(dt):
            lo, hi = expected[r[1]]
            assert r[-1] == f"[{lo:.4f}, {hi:.4f}]"
        await pilot.press("i")
        await settle(app, pilot)
        assert not any(h.startswith("95% CI") for h in header(dt))
