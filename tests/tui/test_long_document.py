"""A 50 MB document on the judging screen: it took 36 s to show and 35 s
to move off (2.1 GB). Now the first piece shows at once, the next ones as the reader
scrolls, and moving off drops them."""

from __future__ import annotations

import time

from sqlalchemy import update

from tests.tui.factory import build_campaign
from tests.tui.helpers import judgments, screen_text, settle
from workbench.store.models import Document
from workbench.tui.app import make_app
from workbench.tui.screens.judge import JudgeScreen
from workbench.tui.widgets.document_view import PIECE, DocumentView, next_piece

SIZE = (150, 44)
LINE = "the quick brown fox jumps over the lazy dog, line {:>9} of a very long document\n"


def test_pieces_end_at_line_ends_and_cover_the_text():
    text = "".join(LINE.format(i) for i in range(2000))
    cuts, start = [], 0
    while start < len(text):
        start = next_piece(text, start)
        cuts.append(start)
    assert all(text[c - 1] == "\n" for c in cuts) and cuts[-1] == len(text)
    assert all(b - a <= PIECE for a, b in zip([0, *cuts], cuts))
    assert next_piece("x" * (3 * PIECE), 0) == PIECE  # no line end: cut at the size
    assert next_piece("short", 0) == 5


async def test_a_50_mb_document_shows_at_once_in_pieces(sqlite_db):
    db = sqlite_db
    camp = build_campaign(db, n_queries=1, n_systems=1, depth=3, markup_doc=False)
    order = camp.queues["q1"]["alice"]
    n = 50_000_000 // len(LINE.format(0))
    big = "".join(LINE.format(i) for i in range(n))
    with db.write.begin() as s:
        s.execute(update(Document).where(Document.ext_id == order[0]).values(text=big))
    app = make_app(db, assessor="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen) and screen.cursor == 0
        view = screen.query_one(DocumentView)
        assert view.pieces == 1 and view.more
        assert "line         0 of a very long document" in screen_text(app)
        # shown again from scratch (as when the cursor comes back to it): well under 0.5 s
        t0 = time.perf_counter()
        view.show(screen.items[0], 1, len(screen.items))
        await pilot.pause()
        shown_in = time.perf_counter() - t0
        assert shown_in < 2.0, shown_in  # 0.5 s on a quiet machine (bench/judge_scale_bench.py)
        # scrolling to the end of what is shown lays out the next piece, one at a time
        await pilot.press("end")
        await pilot.pause()
        await pilot.pause()
        assert view.pieces >= 2 and view.more
        # moving off drops the pieces at once, and the digit grades the next document
        t0 = time.perf_counter()
        await pilot.press("j")
        await pilot.pause()
        assert time.perf_counter() - t0 < 2.0 and view.pieces == 1 and not view.more
        await pilot.press("k", "2")
        await settle(app, pilot)
    assert judgments(db, "alice") == {("q1", order[0]): 2}
