"""trec_eval's own quicktest through `workbench eval --format trec`.

Every case of trec_eval 10's `make quicktest` (tests/data/trec_eval_quicktest, options in
its README) is run with trec_eval's options, and workbench's output must be trec_eval's
expected file byte for byte. The preference formats (`-R prefs`, `-R qrels_prefs`,
`-R qrels_jg`) are refused with "not supported: ..." and a usage error's exit code.
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



def test_all_trec_names_trec_evals_families():
    from workbench.metrics.measures import parse_measures

    assert {m.family for m in parse_measures(["all_trec"])} == set(ALL_TREC)
    # trec_eval 9 lacks unj, rbp and rbp_resid
    assert {m.family for m in parse_measures(["all_trec"], compat=9)} == \
        set(ALL_TREC) - {"unj", "rbp", "rbp_resid"}


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
    ("out.test.aqZ", "qrels.test", "results.test", ["-q", "-m", "all_trec", "-Z", "zscores_file"]),
]

# trec_eval's preference formats: refused with "not supported: -R ..." (exit 2)
REFUSED_CASES = {
    ("out.test.prefs", "prefs.test", "prefs.results.test", ("-m", "all_prefs", "-q", "-R", "prefs")): "-R prefs",
    ("out.test.prefs", "prefs.comment.test", "prefs.results.test", ("-m", "all_prefs", "-q", "-R", "prefs")): "-R prefs",
    ("out.test.qrels_prefs", "qrels.test", "results.test", ("-m", "all_prefs", "-q", "-R", "qrels_prefs")): "-R qrels_prefs",
    ("out.test.qrels_jg", "qrels.123", "results.test", ("-m", "qrels_jg", "-q", "-R", "qrels_jg")): "-R qrels_jg",
    ("out.test.qrels_jg", "qrels.comments.123", "results.test", ("-m", "qrels_jg", "-q", "-R", "qrels_jg")): "-R qrels_jg",
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
    opts = [str(DATA / o) if (DATA / o).is_file() else o for o in options]  # -Z FILE
    code = main(["eval", str(qrels), str(run), *opts, "--format", "trec"])
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


def test_quicktest_cases(capsys, tmp_path):
    """Every line of every case, byte for byte (trec_eval prints 4 decimals)."""
    for expected, qrels, run, options in CASES:
        q, r = _path(qrels, tmp_path), _path(run, tmp_path)
        code, out = _eval(capsys, q, r, options)
        assert code == 0, (expected, qrels)
        assert out == (DATA / expected).read_text(), (expected, qrels)


@pytest.mark.parametrize("case", sorted(REFUSED_CASES), ids=lambda c: f"{c[0]}:{c[1]}")
def test_preference_formats_are_refused(case, capsys, tmp_path):
    expected, qrels, run, options = case
    code = main(["eval", str(_path(qrels, tmp_path)), str(_path(run, tmp_path)), *options])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert f"not supported: {REFUSED_CASES[case]}" in err
