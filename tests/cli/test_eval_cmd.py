"""`workbench eval`: trec_eval's output layout and numbers, formats, exit codes, imports."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest
import pytrec_eval

from workbench.cli import main

QRELS = """\
1 0 a 1
1 0 b 0
1 0 c 2
1 0 z 1
2 0 x 1
2 0 y 0
3 0 k 1
10 0 m 2
"""
RUN = """\
1 Q0 a 1 1.0 runA
1 Q0 b 2 0.5 runA
1 Q0 c 3 0.5 runA
1 Q0 e 4 0.25 runA
2 Q0 y 1 2 runA
2 Q0 x 2 1 runA
10 Q0 m 1 3 runA
10 Q0 n 2 3 runA
99 Q0 m 1 3 runA
"""


@pytest.fixture
def files(tmp_path):
    q = tmp_path / "qrels.txt"
    r = tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _dicts():
    qrels, run = {}, {}
    for line in QRELS.splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    for line in RUN.splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return qrels, run


def test_trec_format_is_trec_eval_layout(files, capsys):
    q, r = files
    code, out, err = run_cli(capsys, "eval", q, r, "-q", "-m", "map", "-m", "P.5", "-m", "num_ret",
                             "-m", "ndcg_cut.3", "-m", "bpref")
    assert code == 0
    qrels, run = _dicts()
    names = ["num_ret", "map", "bpref", "P_5", "ndcg_cut_3"]
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"num_ret", "map", "bpref", "P.5", "ndcg_cut.3"}).evaluate(run)
    expected = []
    for qid in sorted(ref):  # trec_eval: queries in byte-string order: "1" < "10" < "2"
        for n in names:
            v = ref[qid][n]
            expected.append(f"{n:<22}\t{qid}\t{int(v)}" if n == "num_ret" else f"{n:<22}\t{qid}\t{v:6.4f}")
    for n in names:
        vals = [ref[qid][n] for qid in ref]
        agg = pytrec_eval.compute_aggregated_measure(n, vals)
        expected.append(f"{n:<22}\tall\t{int(agg)}" if n == "num_ret" else f"{n:<22}\tall\t{agg:6.4f}")
    assert out.splitlines() == expected
    assert "1 qrels query missing from the run" in err


def test_default_measures_are_trec_eval_official(files, capsys):
    code, out, _ = run_cli(capsys, "eval", *files)
    assert code == 0
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names[:7] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map"]
    assert out.splitlines()[0] == f"{'runid':<22}\tall\trunA"
    assert out.splitlines()[1] == f"{'num_q':<22}\tall\t3"
    assert "P_1000" in names and "iprec_at_recall_1.00" in names


def test_complete_flag_averages_missing_queries(files, capsys):
    _, out, _ = run_cli(capsys, "eval", *files, "-m", "map", "-m", "num_q", "-c")
    lines = dict((line.split("\t")[0].strip(), line.split("\t")[2]) for line in out.splitlines())
    assert lines["num_q"] == "4"
    qrels, run = _dicts()
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert lines["map"] == f"{sum(v['map'] for v in ref.values()) / 4:6.4f}"


def test_max_depth_and_level(files, capsys):
    _, out, _ = run_cli(capsys, "eval", *files, "-m", "num_ret", "-m", "num_rel", "-M", "1", "-l", "2")
    lines = dict((line.split("\t")[0].strip(), line.split("\t")[2]) for line in out.splitlines())
    assert lines == {"num_ret": "3", "num_rel": "2"}


def test_ties_policy(tmp_path, capsys):
    q = tmp_path / "q"
    r = tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    r.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n")  # tied: trec_eval puts b (desc) first
    _, out, _ = run_cli(capsys, "eval", q, r, "-m", "recip_rank")
    assert out.split("\t")[-1].strip() == "0.5000"
    _, out, _ = run_cli(capsys, "eval", q, r, "-m", "recip_rank", "--ties", "input")
    assert out.split("\t")[-1].strip() == "1.0000"
    r.write_text("1 Q0 a 2 1.0 t\n1 Q0 b 1 1.0 t\n")
    _, out, _ = run_cli(capsys, "eval", q, r, "-m", "recip_rank", "--ties", "rank", "--format", "json")
    data = json.loads(out)
    assert data["settings"]["ties"] == "rank"
    assert data["runs"][0]["summary"]["recip_rank"] == 0.5


def test_bounds(tmp_path, capsys):
    q = tmp_path / "q"
    r = tmp_path / "r"
    q.write_text("1 0 a 2\n1 0 b 0\n1 0 c -1\n")
    r.write_text("1 Q0 u 1 4 t\n1 Q0 a 2 3 t\n1 Q0 c 3 2 t\n1 Q0 b 4 1 t\n")
    _, out, _ = run_cli(capsys, "eval", q, r, "-m", "P.2", "-m", "map", "--bounds", "--format", "json")
    run = json.loads(out)["runs"][0]
    assert run["summary"] == {"P.2": 0.5, "map": 0.5}  # the user's spelling and order
    # u (unjudged) and c (negative grade) become relevant: relevant at ranks 1, 2, 3 of R = 3
    assert run["upper"] == {"P.2": 1.0, "map": 1.0}
    _, out, _ = run_cli(capsys, "eval", q, r, "-m", "map", "--bounds")
    assert out.splitlines() == [f"{'map':<22}\tall\t0.5000", f"{'map_upper':<22}\tall\t1.0000"]


def test_csv_and_json_formats(files, capsys):
    _, out, _ = run_cli(capsys, "eval", *files, "-m", "map", "-m", "num_rel", "-q", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0].keys() == {"run", "query", "measure", "value"}
    assert {r["query"] for r in rows} == {"1", "10", "2", "all"}
    assert [r["value"] for r in rows if r["query"] == "all" and r["measure"] == "num_rel"] == ["5"]
    _, out, _ = run_cli(capsys, "eval", *files, "-m", "map", "-q", "--format", "json")
    data = json.loads(out)
    assert set(data["runs"][0]["per_query"]) == {"1", "10", "2"}
    assert data["runs"][0]["missing"] == ["3"]


def test_table_format_compares_runs(files, tmp_path, capsys):
    q, r = files
    r2 = tmp_path / "run2.txt"
    r2.write_text(RUN.replace("runA", "runB").replace("1 Q0 a 1 1.0", "1 Q0 a 1 0.1"))
    code, out, _ = run_cli(capsys, "eval", q, r, r2, "-m", "map", "--format", "table")
    assert code == 0
    assert "runA" in out and "runB" in out and "ties: trec_eval" in out


def test_several_runs_trec_blocks(files, tmp_path, capsys):
    q, r = files
    _, one, _ = run_cli(capsys, "eval", q, r, "-m", "map")
    _, two, _ = run_cli(capsys, "eval", q, r, r, "-m", "map")
    _, tag, _ = run_cli(capsys, "eval", q, r, "-m", "runid")
    # each block opens with its run tag; the tag shared, the file follows
    runfile = f"runfile               \tall\t{r}\n"
    assert two == tag + runfile + one + tag + runfile + one


@pytest.mark.parametrize("content, where", [
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 oops t\n", ":2: score (column 5) must be a finite number"),
    ("1 Q0 a 1 1.0 t\n1 Q0 a 2 0.5 t\n", ":2: duplicate document 'a' for query '1'"),
    ("1 Q0 a 1\n", ":1: expected 6 columns"),
])
def test_bad_run_exits_1_with_file_line(files, tmp_path, capsys, content, where):
    q, _ = files
    bad = tmp_path / "bad.run"
    bad.write_text(content)
    code, out, err = run_cli(capsys, "eval", q, bad, "-m", "map")
    assert code == 1 and out == ""
    assert f"{bad}{where}" in err


def test_usage_errors_exit_2(files, capsys):
    assert run_cli(capsys, "eval", *files, "-m", "nonsense")[0] == 2
    assert run_cli(capsys, "eval", files[0])[0] == 2
    assert run_cli(capsys, "eval", *files, "--ties", "random")[0] == 2


def test_no_common_query_is_an_error(tmp_path, capsys):
    q = tmp_path / "q"
    r = tmp_path / "r"
    q.write_text("1 0 a 1\n")
    r.write_text("2 Q0 a 1 1 t\n")
    code, _, err = run_cli(capsys, "eval", q, r, "-m", "map")
    assert code == 1 and "no query of the run is in the qrels" in err


def _eval_loading_none_of(args: list[str], modules: tuple[str, ...]) -> str:
    """`workbench eval ARGS` run by main() in a fresh process that then asserts that none of
    `modules` was loaded; its stdout."""
    code = (
        "import sys\n"
        "from workbench.cli import main\n"
        f"rc = main(['eval', *{args!r}])\n"
        f"bad = [m for m in {modules!r} if m in sys.modules]\n"
        "assert rc == 0 and not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_eval_path_imports_no_textual_sqlalchemy_or_rich(files):
    q, r = files
    out = _eval_loading_none_of([str(q), str(r), "-m", "map"],
                                ("textual", "sqlalchemy", "rich", "scipy"))
    assert out == f"{'map':<22}\tall\t" + out.split("\t")[-1]


def test_eval_imports_neither_numpy_ma_nor_ctypes_util(files):
    """np.unique imports numpy.ma on its first call, ctypes.util.find_library runs
    ldconfig in a subprocess: ~35 ms of every eval between them. Per query,
    with tied scores (the tie order's path)."""
    q, r = files
    out = _eval_loading_none_of(["-q", str(q), str(r), "-m", "relstring.3", "-m", "map"],
                                ("numpy.ma", "ctypes.util", "subprocess"))
    # query 1's tie (b and c at 0.5) in trec_eval's order: docno descending
    assert "relstring_3           \t1\t'120'" in out.splitlines()  # a, c, b


def test_console_script_exit_codes(files, tmp_path):
    q, r = files
    exe = [sys.executable, "-m", "workbench"]
    ok = subprocess.run(exe + ["eval", str(q), str(r), "-m", "P.5"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("P_5")
    bad = tmp_path / "b"
    bad.write_text("1 0 a\n")
    proc = subprocess.run(exe + ["eval", str(bad), str(r)], capture_output=True, text=True)
    assert proc.returncode == 1 and f"{bad}:1: expected 4 columns" in proc.stderr


def test_duplicate_qrels_line(files, tmp_path, capsys):
    _, r = files
    q = tmp_path / "dup.qrels"
    q.write_text("1 0 a 1\n2 0 a 1\n1 0 b 0\n1 0 a 0\n")
    code, _, err = run_cli(capsys, "eval", q, r, "-m", "map")
    assert code == 1 and f"{q}:4: duplicate document 'a' for query '1'" in err


def test_compat_9_iprec_matches_pytrec_eval(files, capsys):
    qrels, run = _dicts()
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg"}).evaluate(run)
    _, out, _ = run_cli(capsys, *(["eval", *files, "-q", "-m", "iprec_at_recall", "-m", "11pt_avg", "--compat", "9"]))
    got = {(line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2] for line in out.splitlines()}
    for qid, row in ref.items():
        for name, v in row.items():
            assert got[(name, qid)] == f"{v:6.4f}", (name, qid)


def test_several_runs_in_trec_format_open_with_their_tags(tmp_path, capsys):
    """trec_eval reads one run; with several, each block opens with the `runid` line that
    `-m runid` prints, so that the blocks can be told apart (and not twice with -m runid)."""
    from workbench.cli import main

    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    for tag, docs in (("one", "a b"), ("two", "b a")):
        (tmp_path / tag).write_text("".join(f"1 Q0 {d} {i} {9 - i} {tag}\n"
                                            for i, d in enumerate(docs.split(), 1)))
    args = ["eval", str(qrels), str(tmp_path / "one"), str(tmp_path / "two"), "-m", "map"]
    assert main(args) == 0
    assert capsys.readouterr().out == (
        "runid                 \tall\tone\nmap                   \tall\t1.0000\n"
        "runid                 \tall\ttwo\nmap                   \tall\t0.5000\n")
    assert main(args + ["-m", "runid"]) == 0
    assert capsys.readouterr().out.count("runid") == 2
    assert main(args[:3] + ["-m", "map"]) == 0  # one run: exactly trec_eval's output
    assert capsys.readouterr().out == "map                   \tall\t1.0000\n"


# --- the table fits the terminal; runs that share a tag are named apart ---

def _many_queries(tmp_path, tags=("runA",), n=6):
    """Qrels and runs of n queries (grades 0-2) where every official measure has a value."""
    qrels = tmp_path / "many.qrels"
    qrels.write_text("".join(f"{q} 0 d{d} {(q + d) % 3}\n" for q in range(1, n + 1) for d in range(12)))
    runs = []
    for k, tag in enumerate(tags):
        r = tmp_path / f"run{k}.txt"
        r.write_text("".join(f"{q} Q0 d{(d * (1, 2, 4, 7)[k] + q) % 15} {d + 1} {20 - d} {tag}\n"
                             for q in range(1, n + 1) for d in range(10)))
        runs.append(r)
    return qrels, runs


def _trec_values(capsys, qrels, run, *extra):
    """{(measure, query): value text} of one run, trec_eval's layout."""
    _, out, _ = run_cli(capsys, "eval", qrels, run, *extra)
    return {(line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2]
            for line in out.splitlines()}


def _table_cells(out):
    """The body rows of every table printed: [cells] per row (box characters stripped)."""
    rows = []
    for line in out.splitlines():
        if line.startswith("│"):
            rows.append([c.strip() for c in line.strip("│").split("│")])
    return rows


def test_table_at_80_columns_fits_with_every_value_whole(tmp_path, capsys, monkeypatch):
    """The official measures of three runs at 80 columns: no line wider than 80, every
    measure name whole, and each run's values the ones trec_eval's layout prints (before,
    Rich squeezed 30 columns into 80: every value `0.…`, the headers cut)."""
    from rich.cells import cell_len

    qrels, runs = _many_queries(tmp_path, ("runA", "runB", "runC"))
    want = [_trec_values(capsys, qrels, r) for r in runs]
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(capsys, "eval", qrels, *runs, "--format", "table")
    assert code == 0
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    rows = _table_cells(out)
    got = {row[0]: row[1:] for row in rows}  # measures as rows: measure, runA, runB, runC
    measures = [m for (m, q) in want[0] if q == "all" and m != "runid"]  # the run column
    assert len(measures) >= 25
    for m in measures:
        assert got[m] == [w[(m, "all")] for w in want], m
    assert "ties: trec_eval · relevance >= 1" in out


def test_table_keeps_measures_as_columns_when_they_fit(files, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    q, r = files
    _, out, _ = run_cli(capsys, "eval", q, r, "-m", "map", "-m", "P.5", "--format", "table")
    header = next(line for line in out.splitlines() if line.startswith("┃"))
    assert [c.strip() for c in header.strip("┃").split("┃")] == ["run", "map", "P.5"]
    want = _trec_values(capsys, q, r, "-m", "map", "-m", "P.5")
    assert _table_cells(out) == [["runA", want[("map", "all")], want[("P_5", "all")]]]


def test_table_per_query_at_40_columns_cut_into_tables(files, capsys, monkeypatch):
    """-q at 40 columns: the per-query values all there, in tables no wider than 40."""
    monkeypatch.setenv("COLUMNS", "40")
    q, r = files
    ms = ["-m", "map", "-m", "P.5", "-m", "recip_rank", "-m", "ndcg_cut.10"]
    _, out, _ = run_cli(capsys, "eval", q, r, *ms, "-q", "--format", "table")
    assert max(len(line) for line in out.splitlines()) <= 40
    want = _trec_values(capsys, q, r, *ms, "-q")
    per_query = out[out.index("per query"):]
    seen = {}
    header = None
    for line in per_query.splitlines():
        if line.startswith("┃"):
            header = [c.strip() for c in line.strip("┃").split("┃")]
        elif line.startswith("│"):
            cells = [c.strip() for c in line.strip("│").split("│")]
            for h, v in zip(header[1:], cells[1:]):
                seen[(cells[0], h) if header[0] == "measure" else (h, cells[0])] = v
    names = {"P.5": "P_5", "ndcg_cut.10": "ndcg_cut_10"}
    assert {(names.get(m, m), qid): v for (m, qid), v in seen.items()} == {
        k: v for k, v in want.items() if k[1] != "all"}


def test_table_into_a_pipe_is_whole(tmp_path, capsys, monkeypatch):
    """No COLUMNS and no terminal (a pipe, a file): the table is laid out whole, runs as
    rows and every measure a column, nothing cut."""
    monkeypatch.delenv("COLUMNS", raising=False)
    qrels, runs = _many_queries(tmp_path, ("runA", "runB"))
    want = [_trec_values(capsys, qrels, r) for r in runs]
    _, out, _ = run_cli(capsys, "eval", qrels, *runs, "--format", "table")
    header = next(line for line in out.splitlines() if line.startswith("┃"))
    measures = [m for (m, q) in want[0] if q == "all" and m != "runid"]  # the run column
    assert [c.strip() for c in header.strip("┃").split("┃")] == ["run", *measures]
    assert _table_cells(out) == [[tag, *[w[(m, "all")] for m in measures]]
                                 for tag, w in zip(("runA", "runB"), want)]
    assert "\x1b" not in out  # no terminal control into a pipe


def test_runs_sharing_a_tag_are_named_by_file_in_every_format(tmp_path, capsys, monkeypatch):
    """Two runs tagged alike: `tag (file)` in table, csv and json (which also gives each
    run's file), a `runfile` line after each `runid` line in trec's layout; a run whose tag
    is its own keeps its name."""
    qrels, runs = _many_queries(tmp_path, ("same", "same", "other"))
    a, b, c = (str(r) for r in runs)
    args = ["eval", qrels, *runs, "-m", "map"]
    maps = [_trec_values(capsys, qrels, r, "-m", "map")[("map", "all")] for r in runs]
    _, out, _ = run_cli(capsys, *args)
    assert out == "".join(f"runid                 \tall\t{tag}\nrunfile               \tall\t{f}\n"
                          f"map                   \tall\t{v}\n"
                          for tag, f, v in zip(("same", "same", "other"), (a, b, c), maps))
    _, out, _ = run_cli(capsys, *args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["run"], f"{float(r['value']):6.4f}") for r in rows] == [
        (f"same ({a})", maps[0]), (f"same ({b})", maps[1]), ("other", maps[2])]
    _, out, _ = run_cli(capsys, *args, "--format", "json")
    assert [(r["run"], r["tag"], r["file"]) for r in json.loads(out)["runs"]] == [
        (f"same ({a})", "same", a), (f"same ({b})", "same", b), ("other", "other", c)]
    monkeypatch.setenv("COLUMNS", "200")
    _, out, _ = run_cli(capsys, *args, "--format", "table")
    assert _table_cells(out) == [[f"same ({a})", maps[0]], [f"same ({b})", maps[1]],
                                 ["other", maps[2]]]
    _, out, _ = run_cli(capsys, *args, "-m", "runid", "-q")  # -m runid: after its own line
    assert out.count("runfile") == 3 and out.count("runid") == 3
    lines = out.splitlines()
    assert all(lines[i + 1].startswith("runfile") for i, line in enumerate(lines)
               if line.startswith("runid"))
