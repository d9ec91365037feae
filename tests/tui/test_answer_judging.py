"""Pilot tests of the nugget assignment screen: keys label and move on, each
label is on disk before the highlight moves, undo restores, the next answer comes when all
are labelled, and nothing blind-breaking (run id, team, another assessor's or a machine's
label, a score) is ever drawn."""

from __future__ import annotations

import json

from tests.tui.helpers import screen_text, settle
from workbench.campaign.answers.importing import import_answers, import_assignments, import_nuggets
from workbench.campaign.answers.pooling import pool_answers
from workbench.campaign.machine.provenance import make_provenance
from workbench.store.answer_queue import own_labels
from workbench.store.external_ids import assessor_id
from workbench.tui.app import make_app
from workbench.tui.screens.answer_judge import AnswerJudgeScreen

SIZE = (150, 44)
RUNS = ("SECRET-RUN-A", "SECRET-RUN-B")


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _campaign(db, tmp_path):
    answers = [{"metadata": {"run_id": run, "narrative_id": "t1", "team_id": "SECRET-TEAM"},
                "references": ["docA", "docB"],
                "answer": [{"text": f"Answer sentence by {k}.", "citations": [0]},
                           {"text": "Second sentence.", "citations": [1]}]}
               for k, run in enumerate(RUNS)]
    import_answers(db, [_write(tmp_path / "a.jsonl", answers)])
    import_nuggets(db, _write(tmp_path / "n.jsonl", [{"qid": "t1", "query": "What is the topic?", "nuggets": [
        {"text": "first fact", "importance": "vital"}, {"text": "second fact", "importance": "okay"},
        {"text": "third fact", "importance": "okay"}]}]))
    # another person's and a machine's labels: never shown to ann
    other = [{"qid": "t1", "run_id": run, "nuggets": [{"text": t, "importance": "okay", "assignment": "partial_support"}
                                                    for t in ("first fact", "second fact", "third fact")]}
             for run in RUNS]
    import_assignments(db, _write(tmp_path / "bob.jsonl", other), assessor="bob")
    import_assignments(db, _write(tmp_path / "m.jsonl", other), assessor="gpt-z",
                       machine=make_provenance("gpt-z"))
    pool_answers(db, ["ann"], seed=1)


def _labels(db, answer_id):
    from workbench.store.answer_queue import answer_pair

    with db.reader() as r:
        q, s = answer_pair(r, answer_id)
        return {n: lab for n, (lab, _) in own_labels(r, assessor_id(r, "ann"), q, s).items()}


async def test_keys_label_on_disk_undo_and_next_answer_blind(sqlite_db, tmp_path):
    db = sqlite_db
    _campaign(db, tmp_path)
    app = make_app(db, assessor="ann")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, AnswerJudgeScreen)
        first = screen.view.answer_id
        nuggets = [n.nugget_id for n in screen.view.nuggets]
        text = screen_text(app)
        assert "What is the topic?" in text and "first fact" in text and "[1]" in text
        for secret in (*RUNS, "SECRET-TEAM", "partial_support", "vital", "gpt-z", "bob", "score"):
            assert secret not in text, secret
        nugget_pane = str(screen.query_one("#nugget-list").render())
        assert "partial" not in nugget_pane and "support" not in nugget_pane  # bob's and gpt-z's labels
        labelled = []
        real = screen.redraw

        def checked_redraw():  # the label is on disk before the screen draws the move
            labelled.append(dict(_labels(db, screen.view.answer_id)) if screen.view else None)
            real()

        screen.redraw = checked_redraw
        await pilot.press("2")
        assert _labels(db, first) == {nuggets[0]: 2} and screen.cursor == 1
        assert labelled[-1] == {nuggets[0]: 2}
        await pilot.press("0")
        assert _labels(db, first) == {nuggets[0]: 2, nuggets[1]: 0} and screen.cursor == 2
        await pilot.press("u")
        assert _labels(db, first) == {nuggets[0]: 2} and screen.cursor == 1
        await pilot.press("c")
        assert "(not imported)" in screen_text(app)  # the cited segments were never imported
        await pilot.press("1", "0")
        assert _labels(db, first) == {nuggets[0]: 2, nuggets[1]: 1, nuggets[2]: 0}
        await settle(app, pilot)
        assert screen.view is not None and screen.view.answer_id != first  # the next answer
        text = screen_text(app)
        for secret in (*RUNS, "SECRET-TEAM", "partial_support", "gpt-z", "bob"):
            assert secret not in text, secret
        assert "partial" not in str(screen.query_one("#nugget-list").render())
        await pilot.press("2", "2", "2")
        await settle(app, pilot)
        assert screen.view is None and "Every answer in your queue is labelled" in screen_text(app)
    with db.reader() as r:
        from workbench.store.nuggets import events

        kinds = [e[5] for e in events(r, assessor_id(r, "ann"))]
    assert kinds == ["set", "set", "undo", "set", "set", "set", "set", "set"]


async def test_a_person_with_both_pools_chooses(campaign, tmp_path):
    db, camp = campaign
    _campaign(db, tmp_path)
    pool_answers(db, ["alice"], seed=1)
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "d  judge documents" in screen_text(app)
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, AnswerJudgeScreen)
