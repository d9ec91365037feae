"""The nugget assignment screen in a real browser through `workbench serve`: the
served app is the same one; digits label, `u` undoes, and the page shows no run id."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from tests.serve.browser import Screen
from tests.serve.test_browser import WAIT_MS, browser, server, wait_until  # noqa: F401 (fixtures)
from workbench.campaign.access import links as L

pytestmark = pytest.mark.slow


def _labels(path, assessor: str) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute(
            "SELECT n.text, x.label FROM nugget_assignment x JOIN assessor a ON a.id = x.assessor_id "
            "JOIN nugget n ON n.id = x.nugget_id WHERE a.name = ?", (assessor,)))


def test_the_assignment_screen_labels_and_undoes_in_the_browser(browser, server, campaign, tmp_path):  # noqa: F811
    from workbench.campaign.answers.importing import import_answers, import_nuggets
    from workbench.campaign.answers.pooling import pool_answers

    path, db = campaign
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"run_id": "HIDDEN-RUN", "topic_id": "t-ans", "references": ["d1"],
                                   "answer": [{"text": "The answer says one thing.", "citations": [0]}]}) + "\n")
    nuggets = tmp_path / "n.jsonl"
    nuggets.write_text(json.dumps({"qid": "t-ans", "query": "a question about things", "nuggets": [
        {"text": "one thing is said", "importance": "vital"},
        {"text": "another thing is said", "importance": "okay"}]}) + "\n")
    import_answers(db, [str(answers)])
    import_nuggets(db, str(nuggets))
    pool_answers(db, ["dana"])
    token = L.new_link(db, assessor="dana")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(WAIT_MS)
    screen = Screen(page)
    assert page.goto(f"{server.url}/s/{token}").status == 200
    screen.wait_for(page, "one thing is said")
    assert "HIDDEN-RUN" not in screen.text()
    page.click("#terminal")
    page.keyboard.press("2")
    wait_until(lambda: _labels(path, "dana") == {"one thing is said": 2})
    page.keyboard.press("u")
    wait_until(lambda: _labels(path, "dana") == {})
    page.keyboard.press("0")
    wait_until(lambda: _labels(path, "dana") == {"one thing is said": 0})
    time.sleep(0.2)
    assert "HIDDEN-RUN" not in screen.text()
    page.close()
