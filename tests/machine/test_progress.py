"""autojudge's progress on stderr when it is not a terminal: a line with the count, the
share, the rate and the ETA; each stored outcome on stdout."""

from __future__ import annotations

from workbench.campaign.machine.autojudge import Stored
from workbench.cli.autojudge_cmd import _Bar


def test_progress_lines_and_reports(capsys, monkeypatch):
    monkeypatch.setattr(_Bar, "EVERY_S", 0.0)
    bar = _Bar(4, "m1")
    bar.stored(Stored("label", "q1", "d1", 2, ""))
    bar.stored(Stored("failure", "q1", "d2", None, "no grade in the answer"))
    bar.close()
    out, err = capsys.readouterr()
    assert out == "label q1 d1 2\nfailure q1 d2\n"
    lines = err.splitlines()
    assert lines[0].startswith("autojudge m1: 1/4 (25%), ") and "/s, ETA " in lines[0]
    assert lines[1].startswith("autojudge m1: 2/4 (50%), ") and lines[1].endswith(" s")


def test_with_a_terminal_the_bar_draws_on_stderr_and_stdout_keeps_the_reports(sqlite_db, tmp_path):
    """stderr a terminal, stdout a pipe: the bar (rich) must not take the reports away."""
    import os
    import pty
    import subprocess
    import sys
    from pathlib import Path

    from tests.machine.chat_server import ChatServer
    from tests.tui.factory import build_campaign

    c = build_campaign(sqlite_db, n_queries=1, markup_doc=False)
    url = str(sqlite_db.url)
    table = {("q1", d): "##final score: 1" for d in c.docs}
    root = Path(__file__).resolve().parents[2]
    main_fd, tty_fd = pty.openpty()
    try:
        with ChatServer(table) as server:
            done = subprocess.run(
                [sys.executable, "-m", "workbench", "--db", url, "autojudge", "--model", "m1",
                 "--endpoint", server.url],
                stdout=subprocess.PIPE, stderr=tty_fd, text=True, cwd=root, timeout=120,
                env=dict(os.environ, PYTHONPATH=str(root), TERM="xterm"),
            )
        os.close(tty_fd)
        drawn = b""
        try:
            while chunk := os.read(main_fd, 65536):
                drawn += chunk
        except OSError:  # the pty is closed once read out
            pass
    finally:
        os.close(main_fd)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == len(c.queues["q1"]["alice"]) and all(x.startswith("label q1 ") for x in lines)
    assert b"ETA" in drawn and b"m1: " in drawn


def test_a_name_with_markup_is_drawn_as_text_on_a_terminal(monkeypatch):
    """The bar's console is `rich_console` and its columns take no markup: a
    model named "[/x]" or "[red]m" is printed as it is, never parsed (MarkupError)."""
    import io
    import sys

    class Tty(io.StringIO):
        def isatty(self):
            return True

    err, out = Tty(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setenv("TERM", "xterm")
    for name in ("[/x]", "[red]m[/red] :smile:"):
        bar = _Bar(2, name)
        bar.bar.refresh()
        bar.stored(Stored("label", "q[b]1", "d1", 2, ""))
        bar.bar.refresh()
        bar.close()
        assert name in err.getvalue()
    assert out.getvalue().splitlines()[0] == "label q[b]1 d1 2"
