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
