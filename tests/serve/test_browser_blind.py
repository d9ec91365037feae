"""The browser's judging screen does not tell the hidden repeat (issue 36 #3 / 37 #11): the
first document shown is the first showing of a repeat not judged yet, and before the fix
it said "Judged" in green. A real headless Chromium, a real served app process."""

from __future__ import annotations

import pytest

from tests.serve.browser import CHROMIUM, Screen, need_browser
from tests.tui.factory import build_campaign
from workbench.campaign.access import links as L

pytestmark = pytest.mark.slow


def test_the_browser_does_not_tell_the_hidden_repeat(sqlite_db, tmp_path):
    need_browser()
    from playwright.sync_api import sync_playwright

    from workbench.serve.background import BackgroundServer

    db = sqlite_db
    camp = build_campaign(db, n_queries=1, n_systems=2, depth=4, repeat_last=True, markup_doc=False)
    first = camp.queues["q1"]["alice"][0]  # shown first, and repeated last
    token = L.new_link(db, assessor="alice")
    with BackgroundServer(db, db.url, pool=1) as server, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = chromium.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(30_000)
            screen = Screen(page)
            assert page.goto(f"{server.url}/s/{token}").status == 200
            screen.wait_for(page, "not judged yet")
            screen.wait_for(page, first)  # the repeat's first showing is on screen
            page.wait_for_timeout(500)  # everything the app draws for it
            shown = screen.text()
            assert "Judged" not in shown and "Your grade" not in shown
            page.close()
        finally:
            chromium.close()
