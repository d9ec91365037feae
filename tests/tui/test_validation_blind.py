"""Validation items are judged blind: in the queue of a person they look like any pooled
document, and neither the judging screen nor `workbench queue` shows the machine, its
label or that the item is a validation item."""

from __future__ import annotations

from tests.campaign.machine_campaign import build_machine_campaign
from tests.campaign.test_validation_sample import _stored
from tests.cli.helpers import cli_ok
from tests.tui.helpers import judgments, screen_text, settle
from workbench.campaign.pooling.validation import validate_machine
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen

SIZE = (150, 44)
MACHINE = "zz-secret-model"
FORBIDDEN = (MACHINE, "machine", "Machine", "validation", "Validation", "stratum", "probability")


async def test_validation_items_are_judged_blind(sqlite_db, tmp_path):
    c = build_machine_campaign(sqlite_db, tmp_path / "f", n_queries=2, people=(), judged_share=0.0,
                               machine=MACHINE)
    validate_machine(sqlite_db, MACHINE, budget=12, assessors=["carol"], seed=4)
    app = make_app(sqlite_db, assessor="carol")  # what `workbench judge` builds
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        seen = 0
        per_query = {}
        for q, _ in _stored(sqlite_db):
            per_query[q] = per_query.get(q, 0) + 1
        for q in sorted(per_query):
            if screen.query_ext != q:
                await pilot.press("right_square_bracket")
                await settle(app, pilot)
            assert screen.query_ext == q
            await _grade_all(app, pilot, per_query[q])
            seen += per_query[q]
    graded = judgments(sqlite_db, "carol")
    assert len(graded) == seen == 12 and set(graded) <= set(c.machine)
    assert all(g == 0 for g in graded.values())  # carol's own grades, never the machine's
    out = cli_ok(sqlite_db.url, "queue", "--assessor", "carol")
    for word in FORBIDDEN:
        assert word not in out


async def _grade_all(app, pilot, n):
    for _ in range(n):
        text = screen_text(app)
        for word in FORBIDDEN:
            assert word not in text
        # the only grade ever shown is carol's own (0): never the machine's label
        assert all(line.split("Your grade: ")[1][:1] == "0"
                   for line in text.splitlines() if "Your grade: " in line)
        await pilot.press("0")
        await settle(app, pilot)
