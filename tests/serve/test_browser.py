"""`workbench serve` in a real headless browser: the system's Chromium (apt-get install
chromium) driven by Playwright's Python API. The server runs in this process (on a thread);
each session's app is a real `workbench judge` process on a copy of the sample database.

The judging screen's screenshot is kept under the pytest tmp dir (judging.png)."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

import pytest

from tests.serve.browser import CHROMIUM, Screen, need_browser
from tests.serve.conftest import grades
from tests.waits import wait_until
from workbench.campaign.access import links as L

pytestmark = pytest.mark.slow
WAIT_MS = 30_000


@pytest.fixture
def server(campaign):
    from workbench.serve.background import BackgroundServer

    path, db = campaign
    with BackgroundServer(db, str(path), pool=1) as running:  # one warm app is enough here
        yield running


@pytest.fixture
def browser():
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


def run_tags(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [tag for (tag,) in conn.execute("SELECT tag FROM system")]




def open_judging(browser, server, token: str):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(WAIT_MS)
    screen = Screen(page)
    response = page.goto(f"{server.url}/s/{token}")
    return page, screen, response


def test_a_link_opens_the_blind_judging_screen_and_digits_grade_and_u_undoes(
        browser, server, campaign, tmp_path):
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    before = grades(path, "carol")
    started = time.monotonic()
    page, screen, response = open_judging(browser, server, token)
    assert response.status == 200
    screen.wait_for(page, "not judged yet")
    screen.wait_for(page, "carol")
    print(f"link to first document shown: {time.monotonic() - started:.2f} s")
    page.wait_for_timeout(500)  # let the first screen settle before the screenshot
    shot = tmp_path / "judging.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")

    shown = screen.text()
    for tag in run_tags(path):  # blind: no system name or run tag, no score, nobody else
        assert tag not in shown
    for word in ("score", "Score", "alice", "bob", "rank"):
        assert word not in shown, word

    page.click("#terminal")
    page.keyboard.press("2")
    new = wait_until(lambda: {d: g for d, g in grades(path, "carol").items() if d not in before})
    ((document, grade),) = new.items()
    assert grade == 2
    assert document in shown  # the document on screen is the one graded
    assert grades(path, "alice") == grades(path, "alice")  # nobody else's grades moved

    page.keyboard.press("u")
    wait_until(lambda: grades(path, "carol") == before)
    page.keyboard.press("0")
    wait_until(lambda: grades(path, "carol") == {**before, document: 0})
    assert len(server.served.bound) == 1
    page.close()


def test_wrong_missing_and_revoked_tokens_get_no_app(browser, server, campaign):
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    L.revoke(db, assessor="carol")
    wrong = L.new_link(db, assessor="bob")[::-1]
    page = browser.new_page()
    for link, status in ((f"/s/{token}", 403), (f"/s/{wrong}", 403), ("/", 401), ("/s/abc", 401)):
        response = page.goto(server.url + link)
        assert response.status == status, link
        assert page.query_selector("#terminal") is None
    assert server.served.bound == []


def test_a_revoked_link_ends_the_open_session_at_its_next_message(browser, server, campaign):
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    before = grades(path, "carol")
    page, screen, _ = open_judging(browser, server, token)
    screen.wait_for(page, "not judged yet")
    page.click("#terminal")  # focused before the revocation: the page's own ping may be the
    L.revoke(db, assessor="carol")  # next message and end the session before any key
    page.keyboard.press("2")
    page.wait_for_selector("body.-closed", state="attached")  # the page says "Session ended"
    wait_until(lambda: server.served.sessions == {}, "the revoked session closed")
    assert grades(path, "carol") == before  # the session is gone: no grade can follow
    assert page.goto(f"{server.url}/s/{token}").status == 403


def test_a_second_browser_takes_over_and_the_first_one_says_so(browser, server, campaign):
    """One lease policy (campaign/assessors/lease.py), as in the terminal: the second window
    takes over, the first one's screen says another session took over and saves nothing
    more; nothing interleaves. (Before: the second window was refused with 409.)"""
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    before = grades(path, "carol")
    first, first_screen, _ = open_judging(browser, server, token)
    first_screen.wait_for(first, "not judged yet")

    second, second_screen, response = open_judging(browser, server, token)
    assert response.status == 200
    second_screen.wait_for(second, "not judged yet")
    first_screen.wait_for(first, "took over")  # at the first one's next poll
    first.click("#terminal")
    first.keyboard.press("3")  # nothing saved from the window taken over
    second.click("#terminal")
    second.keyboard.press("1")
    wait_until(lambda: len(grades(path, "carol")) == len(before) + 1)
    first.wait_for_timeout(500)
    new = {d: g for d, g in grades(path, "carol").items() if d not in before}
    assert list(new.values()) == [1]
    assert len(server.served.bound) == 2


def test_no_request_of_the_page_carries_the_token_as_a_referer(browser, server, campaign):
    """The @font-face request carried `Referer: .../s/TOKEN` in Chromium
    despite `Referrer-Policy: no-referrer`; every request the page makes is checked here."""
    path, db = campaign
    token = L.new_link(db, assessor="alice")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(WAIT_MS)
    seen: list[tuple[str, str]] = []
    page.on("request", lambda r: seen.append((r.url, r.headers.get("referer", ""))))
    screen = Screen(page)
    assert page.goto(f"{server.url}/s/{token}").status == 200
    screen.wait_for(page, "alice")
    page.wait_for_function("document.fonts.status === 'loaded'")
    urls = [u for u, _ in seen]
    assert any(u.endswith("RobotoMono-VariableFont_wght.ttf") for u in urls), urls
    assert any("/static/" in u for u in urls)
    assert [(u, ref) for u, ref in seen if token in ref] == []
    page.close()


# ---- keys at once, the scale bar, a phone -----------------------------------------------

def new_grades(path: Path, before: dict[str, int]) -> dict[str, int]:
    return {d: g for d, g in grades(path, "carol").items() if d not in before}


def test_the_first_digit_grades_without_a_click_first(browser, server, campaign):
    """The page's focus was on its body: a digit typed before any click was dropped."""
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    before = grades(path, "carol")
    page, screen, _ = open_judging(browser, server, token)
    screen.wait_for(page, "not judged yet")
    assert page.evaluate("document.activeElement.closest('#terminal') !== null")
    page.keyboard.press("2")  # no click anywhere
    assert list(wait_until(lambda: new_grades(path, before)).values()) == [2]
    page.close()


def test_a_click_on_the_scale_bar_grades(browser, server, campaign):
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    before = grades(path, "carol")
    page, screen, _ = open_judging(browser, server, token)
    screen.wait_for(page, "Highly relevant")
    page.wait_for_timeout(300)  # the first screen drawn whole
    page.mouse.click(*screen.click_point(page, *screen.chip("3")))
    assert list(wait_until(lambda: new_grades(path, before)).values()) == [3]
    page.close()


def test_a_phone_shows_the_document_at_12_px_or_more_and_a_tap_on_the_scale_grades(
        browser, server, campaign, tmp_path):
    """At 390 CSS px the page was drawn 980 px wide and shrunk (text at 5-6 px), and the
    judging screen, 40 columns, was "too small"; now: the narrow layout, text at 16 px."""
    path, db = campaign
    token = L.new_link(db, assessor="carol")
    before = grades(path, "carol")
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=3,
                                is_mobile=True, has_touch=True)
    page = phone.new_page()
    page.set_default_timeout(WAIT_MS)
    screen = Screen(page)
    assert page.goto(f"{server.url}/s/{token}").status == 200
    screen.wait_for(page, "Highly")
    page.wait_for_timeout(300)
    layout = page.evaluate("[document.documentElement.clientWidth, window.visualViewport.scale]")
    assert layout == [390, 1]  # laid out at the phone's width, not shrunk
    columns, rows = screen.size
    box = page.locator("#terminal .xterm-screen").bounding_box()
    cell = box["width"] / columns  # CSS px per column: 0.6 em in Roboto Mono
    assert cell / 0.6 >= 12, (cell, columns)
    shown = screen.cells().display
    assert "too small" not in "".join(shown)
    assert not any("not judged yet" in line for line in shown)  # the list is hidden
    assert any(re.match(r" \d+/\d+  \S", line) for line in shown), "\n".join(shown)  # the document
    page.screenshot(path=str(tmp_path / "phone.png"))
    page.touchscreen.tap(*screen.click_point(page, *screen.chip("1")))
    assert list(wait_until(lambda: new_grades(path, before)).values()) == [1]
    phone.close()


def _notes(path: Path, assessor: str) -> list[tuple[str, str, int | None]]:
    """(document, note, grade on the judgment or None) of `assessor`'s note events."""
    with sqlite3.connect(path) as conn:
        return list(conn.execute(
            "SELECT d.ext_id, e.note, j.grade FROM judgment_event e "
            "JOIN assessor a ON a.id = e.assessor_id JOIN document d ON d.id = e.document_id "
            "LEFT JOIN judgment j ON j.assessor_id = e.assessor_id AND j.query_id = e.query_id "
            "AND j.document_id = e.document_id WHERE a.name = ? AND e.kind = 'note'", (assessor,)))


def test_a_note_typed_before_grading_in_the_browser_is_exported_with_the_later_grade(
        browser, server, campaign):
    """"Note saved" on a document not graded yet, and the note was gone from `export
    judgments` once the browser session ended (only --history kept it): it is kept on the
    item, shown in the next session, and goes on the judgment with the grade."""
    import io

    from workbench.campaign.catalog.exporting import export_judgments

    path, db = campaign
    token = L.new_link(db, assessor="carol")
    before = grades(path, "carol")
    page, screen, _ = open_judging(browser, server, token)
    screen.wait_for(page, "not judged yet")
    page.keyboard.press("n")
    screen.wait_for(page, "Enter saves, Esc cancels")  # the note dialog open, its box ready
    page.keyboard.type("see page 2")
    page.keyboard.press("Enter")
    screen.wait_for(page, "exported with this document's grade")
    ((document, note, grade),) = wait_until(lambda: _notes(path, "carol"))
    assert (note, grade) == ("see page 2", None)
    page.close()  # the session ends
    wait_until(lambda: server.served.sessions == {})
    page, screen, _ = open_judging(browser, server, token)  # a new session, same link
    screen.wait_for(page, "Note: see page 2")
    page.keyboard.press("2")
    assert wait_until(lambda: new_grades(path, before)) == {document: 2}
    page.close()
    out = io.StringIO()
    export_judgments(db, out)
    rows = [line.split(",") for line in out.getvalue().splitlines()[1:]]
    assert [r[1:5] for r in rows if r[2] == "carol" and r[1] == document] == [
        [document, "carol", "2", "see page 2"]]
