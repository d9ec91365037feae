"""trec_eval's own quicktest through `workbench eval --format trec`.

Every case of trec_eval 10's `make quicktest` (tests/data/trec_eval_quicktest, options in
its README) is run with trec_eval's options; every line workbench prints for a measure
the expected file has must equal trec_eval's line. Measures workbench does not print yet
are listed in NOT_YET, and cases whose options it refuses in NOT_YET_CASES: the test
fails when either list is wrong, in either direction, so it shrinks as the families are
wired in and ends empty.

Where `-m all_trec` (or `official`) is not understood, the case asks for trec_eval's
all_trec families one by one (measures.c), skipping those workbench refuses.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from workbench.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval_quicktest"

# trec_eval 10's all_trec nickname (measures.c trec_names), in its order
ALL_TREC = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
    "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
    "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
    "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
)

MEAS_PARAMS = [
    "-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
    "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "utility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
    "-m", "ndcg.1=3,2=9,4=4.5", "-m", "ndcg_cut.10,20,23.4", "-m", "success.2,5,20",
]

# (expected file, qrels, run, options) — the README's table
CASES = [
    ("out.test", "qrels.test", "results.test", []),
    ("out.test", "qrels.test.with-comments", "results.test", []),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", []),
    ("out.test.a", "qrels.test", "results.test", ["-m", "all_trec"]),
    ("out.test.aq", "qrels.test", "results.test", ["-m", "all_trec", "-q"]),
    ("out.test.aqc", "qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c"]),
    ("out.test.aqcM", "qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c", "-M100"]),
    ("out.test.aql", "qrels.rel_level", "results.test",
     ["-m", "all_trec", "-m", "relstring.20", "-q", "-l2"]),
    ("out.test.meas_params", "qrels.test", "results.test", ["-q", *MEAS_PARAMS]),
]

# cases whose options workbench refuses today: expected file -> the option
NOT_YET_CASES = {
    ("out.test.aqZ", "qrels.test", "results.test", ("-q", "-m", "all_trec", "-Z", "zscores_file")): "-Z",
    ("out.test.prefs", "prefs.test", "prefs.results.test", ("-m", "all_prefs", "-q", "-R", "prefs")): "-R",
    ("out.test.prefs", "prefs.comment.test", "prefs.results.test", ("-m", "all_prefs", "-q", "-R", "prefs")): "-R",
    ("out.test.qrels_prefs", "qrels.test", "results.test", ("-m", "all_prefs", "-q", "-R", "qrels_prefs")): "-R",
    ("out.test.qrels_jg", "qrels.123", "results.test", ("-m", "qrels_jg", "-q", "-R", "qrels_jg")): "-R",
    ("out.test.qrels_jg", "qrels.comments.123", "results.test", ("-m", "qrels_jg", "-q", "-R", "qrels_jg")): "-R",
}

# measure names (as printed) in the expected files of CASES that workbench does not print
NOT_YET = {
    "G", "binG", "Rndcg", "ndcg_rel", "gm_bpref", "num_nonrel_judged_ret", "set_map",
    "set_relative_P", "utility", "utility_2,-1,0,0", "rbp", "rbp_resid", "relstring",
    "relstring_20", "unj_5", "unj_10", "unj_20", "ndcg_1=3,2=9,4=4.5",
    # `-m ndcg_cut.10,20,23.4` is refused as a whole (trec_eval truncates 23.4 to 23)
    "ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23",
    *(f"relative_P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    *(f"Rprec_mult_{m:.2f}" for m in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 0.35, 5.0)),
}


def _path(name: str, tmp: Path) -> Path:
    p = DATA / name
    if p.exists():
        return p
    gz = DATA / (name + ".gz")
    out = tmp / name
    if not out.exists():
        with gzip.open(gz, "rb") as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return out


def _eval(capsys, qrels: Path, run: Path, options) -> tuple[int, str]:
    code = main(["eval", str(qrels), str(run), *options, "--format", "trec"])
    out, _ = capsys.readouterr()
    return code, out


def _lines(text: str) -> dict[tuple[str, str], str]:
    """(measure, qid) -> the whole line, for trec_eval's `name<pad>\tqid\tvalue` lines."""
    out = {}
    for line in text.splitlines():
        if line.strip():
            name, qid, _ = line.split("\t")
            out[(name.strip(), qid)] = line
    return out


def _accepted(capsys, qrels: Path, run: Path, options: list[str]) -> list[str]:
    """The case's options, with `-m all_trec` spelled out as the families workbench knows
    when it does not know all_trec itself."""
    code, _ = _eval(capsys, qrels, run, options)
    if code == 0:
        return options
    rest, asked = [], []
    it = iter(options)
    for o in it:
        if o == "-m":
            asked.append(next(it))
        else:
            rest.append(o)
    families = []
    for m in asked:
        for f in (ALL_TREC if m == "all_trec" else (m,)):
            if _eval(capsys, qrels, run, ["-m", f, *rest])[0] == 0:
                families += ["-m", f]
    return [*families, *rest]


def test_quicktest_cases(capsys, tmp_path):
    missing: set[str] = set()
    for expected, qrels, run, options in CASES:
        q, r = _path(qrels, tmp_path), _path(run, tmp_path)
        want = _lines((DATA / expected).read_text())
        code, out = _eval(capsys, q, r, _accepted(capsys, q, r, options))
        assert code == 0, (expected, qrels)
        got = _lines(out)
        printed = {name for name, _ in got}
        for key, line in want.items():
            if key[0] in printed:
                assert got.get(key) == line, (expected, qrels, key)
        missing |= {name for name, _ in want} - printed
    assert missing == NOT_YET


@pytest.mark.parametrize("case", sorted(NOT_YET_CASES), ids=lambda c: f"{c[0]}:{c[1]}")
def test_quicktest_cases_not_yet(case, capsys, tmp_path):
    expected, qrels, run, options = case
    opts = [str(DATA / o) if (DATA / o).exists() else o for o in options]
    code, _ = _eval(capsys, _path(qrels, tmp_path), _path(run, tmp_path), opts)
    assert code != 0, f"{expected} now runs: move it from NOT_YET_CASES to CASES"
