"""`workbench quick`: the worked example by eye, stdin, options, exit codes."""

from __future__ import annotations

import io
import subprocess
import sys

from workbench.cli import main


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_worked_example(capsys):
    code, out, _ = run_cli(capsys, "quick", "3", "2", "3", "0", "1", "2")
    assert code == 0
    for text in ("6.861", "7.141", "0.961", "8.097", "8.693", "0.932", "13.848", "14.595", "0.949",
                 "CG@6 = 11", "P@6 = 0.833", "RR = 1.000"):
        assert text in out, text


def test_k_num_rel_and_level(capsys):
    # relevant (grade >= 1) at ranks 1, 2, 4, 7 of R = 4 -> AP 0.830 over the whole list
    code, out, _ = run_cli(capsys, "quick", "1", "1", "0", "1", "0", "0", "1")
    assert code == 0 and "AP = 0.830" in out
    # at k = 3 only ranks 1 and 2 count: (1/1 + 2/2) / 4
    code, out, _ = run_cli(capsys, "quick", "1", "1", "0", "1", "0", "0", "1", "--k", "3")
    assert code == 0 and "AP@3 = 0.500" in out and "P@3 = 0.667" in out and "RR@3 = 1.000" in out
    _, out, _ = run_cli(capsys, "quick", "1", "0", "1", "0", "1", "--num-rel", "5")
    assert "AP = 0.453" in out
    _, out, _ = run_cli(capsys, "quick", "1", "2", "-l", "2")
    assert "RR = 0.500" in out


def test_summary_at_k_is_all_at_k(capsys):
    """`--k 3` printed AP over the whole list (0.927) under "Summary at k = 3"; AP over the
    top 3 is (1/1 + 2/2 + 3/3) / R = 3 / 5 (trec_eval's map_cut.3, R = 5 grades >= 1)."""
    code, out, _ = run_cli(capsys, "quick", "--k", "3", "3", "2", "3", "0", "1", "2")
    assert code == 0 and "Summary at k = 3" in out
    assert "AP@3 = 0.600   (R = 5)" in out and "AP = 0.927" not in out
    code, out, _ = run_cli(capsys, "quick", "--k", "2", "0", "0", "1")
    assert "RR@2 = 0.000" in out  # the first relevant is below k


def test_one_parser_with_the_tui(monkeypatch, capsys):
    """The CLI reads what F6 reads (a pasted ranked list, one 'document grade' per line) and
    F6 refuses what the CLI refuses: one parser, campaign.scoring.quick.parse_grades."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("d7 3\nd2 2\n101 0 d9 3\nd4 0\nd1 1\nd5 2\n"))
    code, out, _ = run_cli(capsys, "quick")
    assert code == 0 and "0.961" in out and "CG@6 = 11" in out
    code, _, err = run_cli(capsys, "quick", "5000", "1")
    assert code == 1 and err == "workbench: grade 5000 is out of range (at most 1000 either way)\n"


def test_base_e_formulation(capsys):
    code, out, _ = run_cli(capsys, "quick", "3", "2", "3", "--discount", "jk", "--base", "e")
    assert code == 0 and "J-K b=e" in out


def test_grades_from_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("3 2 3\n0 1 2\n"))
    code, out, _ = run_cli(capsys, "quick")
    assert code == 0 and "0.961" in out


def test_bad_grades(monkeypatch, capsys):
    code, _, err = run_cli(capsys, "quick", "3", "x")  # grades are data: exit 1, not 2
    assert code == 1 and err == "workbench: grade 'x' is not an integer\n"
    code, _, err = run_cli(capsys, "quick", "99999999999999999999", "1")  # was a traceback
    assert code == 1 and "grade 99999999999999999999 is out of range" in err
    code, _, err = run_cli(capsys, "quick", "1", "--k", "99999999999999999999")
    assert code == 2 and "--k" in err
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n2 y\n"))
    code, _, err = run_cli(capsys, "quick", "-")
    assert code == 1 and "<stdin>:2:" in err


def test_subprocess_stdin():
    proc = subprocess.run([sys.executable, "-m", "workbench", "quick"], input="3 2 3 0 1 2",
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "0.961" in proc.stdout


def test_a_long_list_shows_the_first_ranks_and_sums_them_all(monkeypatch, capsys):
    """10 000 grades took 5.6 s and 2 000 000 ran past 11 minutes in Rich's table:
    the per-rank table stops at SHOWN_RANKS, the summary covers every grade (the time
    is bench material, not a test's: see docs/performance.md)."""
    from workbench.cli.quick_cmd import SHOWN_RANKS

    n = SHOWN_RANKS + 4000
    monkeypatch.setattr(sys, "stdin", io.StringIO(" ".join(str(i % 4) for i in range(n)) + "\n"))
    code, out, _ = run_cli(capsys, "quick")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("│") and line.split("│")[1].strip().isdigit()]
    assert len(rows) == SHOWN_RANKS
    assert f"ranks {SHOWN_RANKS + 1}-{n} not shown" in out
    assert f"CG@{n} = {sum(i % 4 for i in range(n))}" in out


def test_short_k_and_json_and_csv(capsys):
    import csv
    import json

    _, long_k, _ = run_cli(capsys, "quick", "1", "1", "0", "1", "0", "0", "1", "--k", "3")
    code, short_k, _ = run_cli(capsys, "quick", "1", "1", "0", "1", "0", "0", "1", "-k", "3")
    assert code == 0 and short_k == long_k
    code, out, _ = run_cli(capsys, "quick", "3", "2", "3", "0", "1", "2", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["k"] == 6 and doc["grades"] == [3, 2, 3, 0, 1, 2] and doc["num_rel"] == 5
    assert doc["summary"]["CG@6"] == 11 and round(doc["summary"]["P@6"], 3) == 0.833
    assert doc["summary"]["RR"] == 1.0
    lin = next(d for d in doc["dcg"] if d["gain"] == "linear" and d["discount"] == "log2")
    # the worked example: DCG 6.861, IDCG 7.141, nDCG 0.961 (linear gain, log2(i+1))
    assert (round(lin["dcg"], 3), round(lin["idcg"], 3), round(lin["ndcg"], 3)) == (6.861, 7.141, 0.961)
    assert [r["dcg"] for r in doc["ranks"]][-1] == lin["dcg"] and len(doc["ranks"]) == 6
    assert doc["ranks"][1] == {"rank": 2, "grade": 2, "gain": 2.0, "discount": 1.584962500721156,
                               "dcg": 3 + 2 / 1.584962500721156, "ideal_grade": 3,
                               "idcg": 3 + 3 / 1.584962500721156}
    code, out, _ = run_cli(capsys, "quick", "1", "1", "0", "1", "0", "0", "1", "-k", "3",
                           "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["measure", "formulation", "value"]
    values = {(m, f): float(v) for m, f, v in rows[1:]}
    assert values[("AP@3", "")] == 0.5 and values[("P@3", "")] == 2 / 3
    assert values[("RR@3", "")] == 1.0 and len(rows) == 1 + 4 + 4 * 3
