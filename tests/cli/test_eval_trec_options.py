"""`workbench eval`'s trec_eval options beyond -q -c -l -M: -J, -N, -Z, -R, the -c num_rel
quirk, the nicknames (all_trec, set) and --compat 9, the parameters of trec_eval's
remaining families. Values worked by hand on a small collection (arithmetic in the comments)."""

from __future__ import annotations

import json

import pytest

from workbench.cli import main

# q1: a=2, b=0, c=1, d in the pool but unjudged; q2: x=1, y=0; q3 (not in the run): k=2
QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq1 0 d -1\nq2 0 x 1\nq2 0 y 0\nq3 0 k 2\n"
# q1 ranks u (not in the qrels), a, d, b, c; q2 ranks x, z (not in the qrels)
RUN = ("q1 Q0 u 1 5 r\nq1 Q0 a 2 4 r\nq1 Q0 d 3 3 r\nq1 Q0 b 4 2 r\nq1 Q0 c 5 1 r\n"
       "q2 Q0 x 1 2 r\nq2 Q0 z 2 1 r\n")


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(QRELS)
    r.write_text(RUN)
    return str(q), str(r), tmp_path


def _eval(capsys, *argv) -> tuple[int, list[str], str]:
    code = main(["eval", *argv])
    out, err = capsys.readouterr()
    return code, [" ".join(line.split()) for line in out.splitlines()], err


def test_judged_only_drops_unjudged_documents(files, capsys):
    q, r, _ = files
    # -J: q1 ranks a, b, c (u and d unjudged); q2 ranks x
    code, lines, _ = _eval(capsys, q, r, "-q", "-J", "-m", "num_ret", "-m", "P.1")
    assert code == 0
    assert lines == ["num_ret q1 3", "P_1 q1 1.0000", "num_ret q2 1", "P_1 q2 1.0000",
                     "num_ret all 4", "P_1 all 1.0000"]
    _, lines, _ = _eval(capsys, q, r, "-m", "num_ret", "-m", "P.1")
    assert lines == ["num_ret all 7", "P_1 all 0.5000"]  # u heads q1


def test_num_docs_in_collection_is_utilitys_d(files, capsys):
    q, r, _ = files
    # d = N + a - retrieved - R: q1 100 + 2 - 5 - 2 = 95; q2 100 + 1 - 2 - 1 = 98
    code, lines, _ = _eval(capsys, q, r, "-q", "-N", "100", "-m", "utility.0,0,0,1")
    assert code == 0
    assert lines == ["utility_0,0,0,1 q1 95.0000", "utility_0,0,0,1 q2 98.0000",
                     "utility_0,0,0,1 all 96.5000"]
    _, lines, _ = _eval(capsys, q, r, "-m", "utility.0,0,0,1")
    assert lines == ["utility_0,0,0,1 all -3.5000"]  # (-5 + -2) / 2 without -N
    # the default utility: a - b = q1 2 - 3, q2 1 - 1
    _, lines, _ = _eval(capsys, q, r, "-m", "utility")
    assert lines == ["utility all -0.5000"]


def test_complete_num_rel_counts_every_positive_qrels_line(files, capsys):
    """trec_eval's te_calc_avg_num_rel: with -c the 'all' value counts every qrels line
    graded above 0, whatever -l says, so it exceeds the per-query values' sum."""
    q, r, _ = files
    code, lines, _ = _eval(capsys, q, r, "-q", "-c", "-l", "2", "-m", "num_rel")
    assert code == 0
    assert lines == ["num_rel q1 1", "num_rel q2 0", "num_rel q3 1", "num_rel all 4"]
    _, lines, _ = _eval(capsys, q, r, "-l", "2", "-m", "num_rel")
    assert lines == ["num_rel all 1"]  # without -c: the sum over q1 and q2


def test_zscores(files, capsys):
    q, r, tmp = files
    z = tmp / "zscores"
    z.write_text("q1 P_1 0.5 0.25\nq2 P_1 0.5 0.5\n")
    code = main(["eval", q, r, "-q", "-m", "P.1", "-m", "num_ret", "-Z", str(z)])
    out = capsys.readouterr().out
    assert code == 0
    # (0 - 0.5) / 0.25 = -2, (1 - 0.5) / 0.5 = 1; num_ret has no line: -1000000 each, summed
    assert out == (
        "Znum_ret               \tq1\t-1000000.0000\n"
        "ZP_1                   \tq1\t-2.0000\n"
        "Znum_ret               \tq2\t-1000000.0000\n"
        "ZP_1                   \tq2\t1.0000\n"
        "Znum_ret               \tall\t-2000000.0000\n"
        "ZP_1                   \tall\t-0.5000\n")


def test_zscores_of_geometric_means_are_of_logs(tmp_path, capsys):
    """trec_eval holds log(max(v, 1e-5)) per query for gm_map and gm_bpref: -Z z-scores the
    log and prints exp of the mean z-score (trec_eval 10 and 9.0.8 print 1.7802 and
    2.2499 here; z-scores of the values themselves gave 1.2247 and 1.7321)."""
    import math

    q, r, z = tmp_path / "qrels", tmp_path / "run", tmp_path / "zscores"
    q.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 0\n")
    r.write_text("q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq2 Q0 d 1 2 r\nq2 Q0 c 2 1 r\n")
    z.write_text("q1 gm_map -1 1\nq2 gm_map -1 2\nq1 gm_bpref -2 0.5\nq2 gm_bpref -2 4\n")
    assert main(["eval", str(q), str(r), "-m", "gm_map", "-m", "gm_bpref", "-Z", str(z)]) == 0
    lines = [" ".join(line.split()) for line in capsys.readouterr().out.splitlines()]
    # AP: q1 1, q2 0.5; bpref: q1 1, q2 0 (d, judged non-relevant, above c), floored to 1e-5
    gm_map = math.exp(((math.log(1) + 1) / 1 + (math.log(0.5) + 1) / 2) / 2)
    gm_bpref = math.exp(((math.log(1) + 2) / 0.5 + (math.log(1e-5) + 2) / 4) / 2)
    assert (f"{gm_map:.4f}", f"{gm_bpref:.4f}") == ("1.7802", "2.2499")
    assert lines == [f"Zgm_map all {gm_map:.4f}", f"Zgm_bpref all {gm_bpref:.4f}"]


def test_nan_prints_as_trec_eval_prints_it(files, capsys):
    """A stddev of 1e-320 makes q1's z-score -inf and q2's +inf: their mean is the NaN of
    inf - inf, sign bit set, which trec_eval 9.0.8 prints `-nan` (glibc's %6.4f); no
    numpy warning on stderr."""
    from workbench.formats.evaluation_output import format_value
    from workbench.metrics.measures import parse_measure

    q, r, tmp = files
    z = tmp / "zscores"
    z.write_text("q1 P_1 1 1e-320\nq2 P_1 0 1e-320\n")
    code = main(["eval", q, r, "-q", "-m", "P.1", "-Z", str(z)])
    out, err = capsys.readouterr()
    assert code == 0 and "Warning" not in err
    assert out.splitlines() == ["ZP_1                   \tq1\t  -inf", "ZP_1                   \tq2\t   inf",
                                "ZP_1                   \tall\t  -nan"]
    p5 = parse_measure("P.5")
    assert format_value(p5, float("nan")) == "   nan"  # no sign bit: C prints nan too
    assert format_value(p5, -float("nan")) == "  -nan"


def test_zscores_in_json_name_their_file(files, capsys):
    q, r, tmp = files
    z = tmp / "zscores"
    z.write_text("q1 P_1 0.5 0.25\nq2 P_1 0.5 0.5\n")
    assert main(["eval", q, r, "-q", "-m", "P.1", "-Z", str(z), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["zscores"] == str(z)
    assert out["runs"][0]["per_query"] == {"q1": {"P.1": -2.0}, "q2": {"P.1": 1.0}}  # as spelled
    assert out["runs"][0]["summary"] == {"P.1": -0.5}
    assert main(["eval", q, r, "-m", "P.1", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["zscores"] is None and out["runs"][0]["summary"] == {"P.1": 0.5}


def test_bad_zscores_file_names_its_line_before_any_output(files, capsys):
    q, r, tmp = files
    z = tmp / "zscores"
    z.write_text("q1 P_1 0.5 0.25\nq2 P_1 half 0.5\n")
    code, lines, err = _eval(capsys, q, r, "-m", "P.1", "-Z", str(z))
    assert code == 1 and lines == []
    assert f"{z}:2: mean and stddev must be numbers" in err


@pytest.mark.parametrize("fmt, why", [("prefs", "preference judgments"),
                                      ("qrels_jg", "judgment groups"),
                                      ("qrels_prefs", "preferences"),
                                      ("trec_xml", "workbench reads qrels only")])
def test_other_relevance_formats_are_refused(files, capsys, fmt, why):
    q, r, _ = files
    code, lines, err = _eval(capsys, q, r, "-R", fmt)
    assert code == 2 and lines == []
    assert f"not supported: -R {fmt}" in err and why in err
    assert _eval(capsys, q, r, "-R", "qrels", "-m", "map")[0] == 0


def test_all_trec_with_compat_9_leaves_out_trec_eval_10s_families(files, capsys):
    q, r, _ = files
    _, ten, _ = _eval(capsys, q, r, "-m", "all_trec")
    _, nine, _ = _eval(capsys, q, r, "-m", "all_trec", "--compat", "9")
    names = {line.split()[0] for line in ten} - {line.split()[0] for line in nine}
    assert names == {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"}
    assert ten[0] == "runid all r" and ten[-1] == "unj_20 all 0.0750"  # trec_eval's order
    # unjudged in the top k / k: q1 u, d; q2 z. unj_20: (2/20 + 1/20) / 2; unj_5: (2/5 + 1/5) / 2
    assert "unj_5 all 0.3000" in ten


def test_set_nickname(files, capsys):
    q, r, _ = files
    _, lines, _ = _eval(capsys, q, r, "-m", "set")
    assert [line.split()[0] for line in lines] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_relative_P", "set_recall", "set_map", "set_F"]


def test_a_family_given_parameters_replaces_its_defaults(files, capsys):
    q, r, _ = files
    code, lines, _ = _eval(capsys, q, r, "-q", "-m", "all_trec", "-m", "relstring.20")
    assert code == 0
    rel = [line for line in lines if line.startswith("relstring")]
    # u not in the qrels '-', a 2, d unjudged '.', b 0, c 1; x 1, z '-'
    assert rel == ["relstring_20 q1 '-2.01'", "relstring_20 q2 '1-'"]


def test_an_explicit_cutoff_is_kept_when_its_family_is_named_again(files, capsys):
    """trec_eval 10 prints P_5 for `-m P.5 -m P`, P_5 and P_10 for `-m P.5,10 -m official`
    (workbench printed none): q1 has a and c in its 5 (P_5 0.4, P_10 0.2), q2 has x."""
    q, r, _ = files
    code, lines, _ = _eval(capsys, q, r, "-m", "P.5", "-m", "P")
    assert code == 0 and lines == ["P_5 all 0.3000"]
    code, lines, _ = _eval(capsys, q, r, "-m", "P.5,10", "-m", "official")
    assert code == 0
    assert [line for line in lines if line.startswith("P_")] == ["P_5 all 0.3000", "P_10 all 0.1500"]


def test_complete_scores_a_missing_query_as_trec_evals_stand_in(files, capsys):
    """-c: trec_eval evaluates q3 (not in the run) on one document that is not in the
    qrels and zeroes plain relstring and rbp_resid only: relstring.5 prints '-' and
    rbp_resid.p=0.5 p + (1 - p) = 1 (trec_eval 10's output); -J drops
    the stand-in document (the empty ranking's '' and 0)."""
    q, r, _ = files

    def q3(*options):
        code, lines, _ = _eval(capsys, q, r, "-q", "-c", *options)
        assert code == 0
        return [line for line in lines if " q3 " in line]

    assert q3("-m", "relstring.5", "-m", "rbp_resid.p=0.5") == [
        "relstring_5 q3 '-'", "rbp_resid_p=0.5 q3 1.0000"]
    assert q3("-m", "relstring", "-m", "rbp_resid") == ["relstring q3 ''", "rbp_resid q3 0.0000"]
    assert q3("-J", "-m", "relstring.5", "-m", "rbp_resid.p=0.5") == [
        "relstring_5 q3 ''", "rbp_resid_p=0.5 q3 0.0000"]
    # the all line averages the stand-in's 1 in: q1 (5 retrieved, u and d unjudged at
    # ranks 1 and 3) 0.5⁵ + 0.5 · (1 + 0.5²); q2 (z unjudged at rank 2) 0.5² + 0.5 · 0.5
    code, lines, _ = _eval(capsys, q, r, "-c", "-m", "rbp_resid.p=0.5")
    q1 = 0.5 ** 5 + 0.5 * (1 + 0.5 ** 2)
    assert lines == [f"rbp_resid_p=0.5 all {(q1 + 0.5 + 1.0) / 3:.4f}"]


def test_compat_9_complete_prints_no_lines_for_queries_the_run_lacks(files, capsys):
    """trec_eval 9.0.8 -q -c prints per-query lines for the run's queries only and averages
    the others in as 0; trec_eval 10 prints every qrels query."""
    q, r, _ = files
    # P_5: q1 0.4 (a, c), q2 0.2 (x), q3 0
    code, lines, _ = _eval(capsys, q, r, "--compat", "9", "-q", "-c", "-m", "P.5", "-m", "num_q")
    assert code == 0
    assert lines == ["P_5 q1 0.4000", "P_5 q2 0.2000", "num_q all 3", "P_5 all 0.2000"]
    code, lines, _ = _eval(capsys, q, r, "-q", "-c", "-m", "P.5", "-m", "num_q")
    assert lines == ["P_5 q1 0.4000", "P_5 q2 0.2000", "P_5 q3 0.0000", "num_q all 3",
                     "P_5 all 0.2000"]


def test_rbp_parameters_and_ir_measures_spelling(files, capsys):
    q, r, _ = files
    # gains grade / top grade: q1 (top 2) a 1.0 at rank 2, c 0.5 at rank 5:
    # 0.2 * (0.8 + 0.5 * 0.8**4) = 0.20096; q2 (top 1) x at rank 1: 0.2
    code, lines, _ = _eval(capsys, q, r, "-q", "-m", "RBP(p=0.8)", "-m", "rbp.p=0.8")
    assert code == 0
    assert lines == ["rbp_p=0.8 q1 0.2010", "rbp_p=0.8 q2 0.2000", "rbp_p=0.8 all 0.2005"]
    code, _, err = _eval(capsys, q, r, "-m", "rbp.p=1.5")
    assert code == 2 and "p must lie between 0 and 1" in err


def test_gains_sort_as_trec_eval_sorts_them(files, capsys):
    """trec_eval compares gains truncated to int: a gain of 0.5 for grade 1 ties with
    grade 0's gain 0 and stays below it, so q2's ideal ranking is empty and its nDCG 0
    (documented in docs/measures.md)."""
    q, r, _ = files
    _, lines, _ = _eval(capsys, q, r, "-q", "-m", "ndcg.1=0.5")
    assert "ndcg_1=0.5 q2 0.0000" in lines
    _, lines, _ = _eval(capsys, q, r, "-q", "-m", "ndcg.1=1.5")
    assert "ndcg_1=1.5 q2 1.0000" in lines  # x, the only relevant document, is first


def test_relstring_in_csv_and_json(files, capsys):
    q, r, _ = files
    assert main(["eval", q, r, "-q", "-m", "relstring.3", "-m", "P.1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    run = data["runs"][0]
    assert run["per_query"]["q1"] == {"P.1": 0.0, "relstring.3": "-2."}  # as spelled
    assert run["summary"] == {"P.1": 0.5}
    assert data["settings"]["judged_only"] is False and data["settings"]["num_docs"] == 0
    assert main(["eval", q, r, "-q", "-m", "relstring.3", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "run,query,measure,value", "r,q1,relstring.3,-2.", "r,q2,relstring.3,1-"]
