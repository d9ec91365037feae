"""Ctrl+Q while a grade waits for a lock: the terminal went blank for up to
37 s. The app now stays, says that a grade is being saved, and quits once it is on disk."""

from __future__ import annotations

import threading

from tests.tui.helpers import settle
from workbench.tui.app import make_app


async def test_ctrl_q_during_a_save_says_so_and_quits_after_it(campaign):
    db, _ = campaign
    app = make_app(db, assessor="alice")
    release = threading.Event()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.background.submit(release.wait, 30)  # a grade whose write waits for a lock
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
        assert app.is_running and app.return_code is None
        try:
            assert any("A grade is being saved" in n.message for n in app._notifications)
        finally:
            release.set()
        for _ in range(50):
            if not app.is_running:
                break
            await pilot.pause(0.05)
        assert not app.is_running  # quit by itself once the grade was saved
