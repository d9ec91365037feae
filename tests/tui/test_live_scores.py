"""The live score panel of a campaign that is not blind: equals `workbench score`, under the
real run tags. A blind campaign (the default) has no panel, key or palette entry at all."""

from __future__ import annotations

from tests.tui.factory import SYSTEM_TAG
from tests.tui.helpers import screen_text, settle
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.scoring.scores import label_of
from workbench.campaign.settings import set_blind
from workbench.cli import main
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen
from workbench.tui.widgets.score_panel import ScorePanel

SIZE = (190, 50)


def _score_trec(db, capsys) -> dict[str, dict[tuple[str, str], str]]:
    assert main(["score", "--db", db.url, "--assessor", "alice", "-q", "--format", "trec"]) == 0
    blocks: dict[str, dict[tuple[str, str], str]] = {}
    current = None
    for line in capsys.readouterr().out.strip().splitlines():
        m, q, v = line.split("\t")
        m = m.strip()
        if m == "runid":
            current = blocks.setdefault(v, {})
        else:
            current[(m, q)] = v
    return blocks


async def test_panel_values_equal_workbench_score(campaign, capsys):
    db, camp = campaign
    for i, d in enumerate(camp.queues["q2"]["alice"]):
        record_grade(db, "alice", "q2", d, (i * 7) % 4)
    record_grade(db, "bob", "q1", camp.queues["q1"]["alice"][0], 3)  # another assessor
    set_blind(db, False)  # a tuning session: the people judging own the systems
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen) and screen.query_ext == "q1"
        panel = screen.query_one(ScorePanel)
        assert not panel.display  # off by default
        await pilot.press("s")
        await settle(app, pilot)
        assert panel.display
        await pilot.press("3", "0", "2", "1", "3", "2")
        await settle(app, pilot)
        table = app.score_tracker("alice").table()
        shown = screen_text(app)
    expected = _score_trec(db, capsys)
    # `score` lists systems best first; the panel keeps the import order
    assert sorted(expected) == sorted(table.systems) == sorted(camp.systems)
    assert set(table.queries) == {"q1", "q2"}
    for i, tag in enumerate(table.systems):
        label = f"{tag} "
        row = [line for line in shown.splitlines() if label in line]
        assert len(row) == 2  # the query table and the means table
        for q in ("q1", "q2"):  # trec format prints trec_eval's labels
            for m in table.measures:
                assert f"{table.value(tag, q, m):.4f}" == expected[tag][(label_of(m), q)]
        for m in table.measures:
            assert f"{table.mean(tag, m):.4f}" == expected[tag][(label_of(m), "all")]
        # what is drawn is the same numbers: current query (q1) row, then the means row
        q_cells = [f"{table.value(tag, 'q1', m):.4f}" for m in table.labels]
        mean_cells = [f"{table.mean(tag, m):.4f}" for m in table.labels]
        n = len(table.measures)
        assert row[0].split(label, 1)[1].split()[:n] == q_cells
        assert row[1].split(label, 1)[1].split()[:n] == mean_cells


MEASURE_WORDS = ("System", "nDCG", "ndcg", "bpref", "P@10", "AP ", "map", "Scores")


async def test_judging_screen_is_blind(campaign):
    db, camp = campaign
    record_grade(db, "bob", "q1", camp.queues["q1"]["alice"][1], 3)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.blind
        await pilot.press("s", "2")
        await settle(app, pilot)
        assert not screen.query_one(ScorePanel).display  # s does nothing in a blind campaign
        assert app.score_tracker  # (the app still has the method; nothing called it)
        assert "alice" not in app._trackers
        texts = [screen_text(app)]
        for _ in range(len(screen.items)):
            await pilot.press("j")
            await pilot.pause()
            texts.append(screen_text(app))
        await pilot.press("question_mark")
        await pilot.pause()
        texts.append(screen_text(app))
        # bob's 3 on the second document is not shown to alice
        assert screen.items[1].grade is None
    for text in texts:
        assert SYSTEM_TAG not in text
        for word in MEASURE_WORDS:  # no per-system number of any kind: no panel, no footer key
            assert word not in text, word
    titles = [title for title, _, _ in screen.palette_commands()]
    assert not [t for t in titles if "score" in t.lower()]


async def test_a_lead_turning_blindness_off_reaches_an_open_screen_at_the_next_query(campaign):
    db, camp = campaign
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.blind and "Scores" not in screen_text(app)
        set_blind(db, False)  # the lead, from another terminal: `workbench campaign --not-blind`
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        assert not screen.blind
        assert "Scores" in screen_text(app)  # the footer offers the key now
        await pilot.press("s")
        await settle(app, pilot)
        assert screen.query_one(ScorePanel).display
        assert camp.systems[0] in screen_text(app)  # real run tags, not "System 1"
        set_blind(db, True)
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        assert screen.blind and not screen.query_one(ScorePanel).display
        assert camp.systems[0] not in screen_text(app)


async def test_an_open_panel_closes_when_the_campaign_turns_blind(campaign):
    """The screen only draws: the refusal comes from campaign/scoring/live.py, read at each
    recomputation, so a lead's `campaign --blind` closes an open panel at the next grade
    and no number of the new state is drawn."""
    db, camp = campaign
    set_blind(db, False)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        panel = screen.query_one(ScorePanel)
        await pilot.press("s")
        await settle(app, pilot)
        assert panel.display and SYSTEM_TAG in screen_text(app)
        set_blind(db, True)  # another terminal: the lead
        await pilot.press("2")  # a grade recomputes the open panel's scores
        await settle(app, pilot)
        assert not panel.display and screen.blind
        assert SYSTEM_TAG not in screen_text(app)
        await pilot.press("s")  # the key is gone
        await settle(app, pilot)
        assert not panel.display
