"""`agree --nuggets` against scikit-learn's Cohen's kappa and the krippendorff package,
on the three labels and on the non-strict and strict binary views."""

from __future__ import annotations

import csv
import io
import json
import random

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score

from tests.answers.test_answers_cli import _write
from tests.cli.helpers import cli_ok, run

LABELS = {"support": 2, "partial_support": 1, "not_support": 0}


def test_agree_nuggets_matches_sklearn_and_krippendorff(db_url, tmp_path):
    rnd = random.Random(5)
    bank = {f"t{t}": [f"fact {t}.{i}" for i in range(5)] for t in range(4)}
    ann, bob = [], []
    for t, texts in bank.items():
        for r in range(3):
            a = [rnd.choice(list(LABELS)) for _ in texts]
            b = [x if rnd.random() < 0.6 else rnd.choice(list(LABELS)) for x in a]
            for out, labels in ((ann, a), (bob, b)):
                out.append({"qid": t, "run_id": f"r{r}", "nuggets": [
                    {"text": x, "importance": "okay", "assignment": lab} for x, lab in zip(texts, labels)]})
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "ann.jsonl", ann), "-a", "ann")
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "bob.jsonl", bob), "-a", "bob")
    got = json.loads(cli_ok(db_url, "agree", "--nuggets", "--format", "json"))
    a = np.array([LABELS[n["assignment"]] for rec in ann for n in rec["nuggets"]])
    b = np.array([LABELS[n["assignment"]] for rec in bob for n in rec["nuggets"]])
    assert got["assessors"] == ["ann", "bob"] and got["n_items"] == a.size == 60
    pair = got["pairs"][0]
    assert abs(pair["cohen_kappa"] - cohen_kappa_score(a, b)) < 1e-12
    assert abs(pair["weighted_kappa_linear"] - cohen_kappa_score(a, b, weights="linear")) < 1e-12
    assert abs(got["krippendorff_alpha_nominal"]
               - krippendorff.alpha(np.vstack([a, b]).astype(float), level_of_measurement="nominal")) < 1e-9
    assert got["cohen_kappa_ci"] if "cohen_kappa_ci" in got else pair["cohen_kappa_ci"]
    non, strict = got["non_strict"]["pairs"][0], got["strict"]["pairs"][0]
    assert abs(non["cohen_kappa"] - cohen_kappa_score(a >= 1, b >= 1)) < 1e-12
    assert abs(strict["cohen_kappa"] - cohen_kappa_score(a >= 2, b >= 2)) < 1e-12
    matrix = got["confusion"][0]["matrix"]
    assert np.array_equal(np.array(matrix), np.array(
        [[np.sum((a == i) & (b == j)) for j in (0, 1, 2)] for i in (0, 1, 2)]))
    table = cli_ok(db_url, "agree", "--nuggets")
    assert "strict (support vs the rest)" in table


def test_agree_nuggets_csv_holds_the_coefficients_of_each_view(db_url, tmp_path):
    """`agree --nuggets --format csv`: agree --format csv's header and rows, the binary
    views' coefficients prefixed `non_strict.` / `strict.`, values against scikit-learn,
    krippendorff and counted confusion cells; a name that reads as a formula is text."""
    rnd = random.Random(8)
    texts = {f"t{t}": [f"fact {t}.{i}" for i in range(4)] for t in range(3)}
    ann, bob = [], []
    for t, bank in texts.items():
        for r in range(4):
            a = [rnd.choice(list(LABELS)) for _ in bank]
            b = [x if rnd.random() < 0.5 else rnd.choice(list(LABELS)) for x in a]
            for out, labels in ((ann, a), (bob, b)):
                out.append({"qid": t, "run_id": f"r{r}", "nuggets": [
                    {"text": x, "importance": "okay", "assignment": lab} for x, lab in zip(bank, labels)]})
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "ann.jsonl", ann), "-a", "ann")
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "bob.jsonl", bob), "-a", "=bob")
    out = cli_ok(db_url, "agree", "--nuggets", "-q", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["query", "a", "b", "n", "coefficient", "value", "interpretation"]
    cell = {(q, a, b, name): (n, value) for q, a, b, n, name, value, _ in rows[1:]}
    a = np.array([LABELS[n["assignment"]] for rec in ann for n in rec["nuggets"]])
    b = np.array([LABELS[n["assignment"]] for rec in bob for n in rec["nuggets"]])
    pair = ("", "ann", "'=bob")  # the formula-looking name is written as text
    for prefix, x, y in (("", a, b), ("non_strict.", a >= 1, b >= 1), ("strict.", a >= 2, b >= 2)):
        n, value = cell[(*pair, prefix + "cohen_kappa")]
        assert n == "48" and value == f"{cohen_kappa_score(x, y):.6f}", prefix
        n, value = cell[("", "", "", prefix + "krippendorff_alpha_nominal")]
        alpha = krippendorff.alpha(np.vstack([x, y]).astype(float), level_of_measurement="nominal")
        assert abs(float(value) - alpha) < 1e-6, prefix
    assert cell[(*pair, "weighted_kappa_linear")][1] == f"{cohen_kappa_score(a, b, weights='linear'):.6f}"
    for i in (0, 1, 2):
        for j in (0, 1, 2):
            assert cell[(*pair, f"count_{i}_{j}")][1] == str(int(np.sum((a == i) & (b == j))))
    assert cell[(*pair, "strict.count_1_0")][1] == str(int(np.sum((a >= 2) & (b < 2))))
    # per topic: the observed agreement of its 16 items, in each view
    t0 = slice(0, 16)
    assert cell[("t0", "", "", "observed")] == ("16", f"{np.mean(a[t0] == b[t0]):.6f}")
    assert cell[("t0", "", "", "strict.observed")] == ("16", f"{np.mean((a[t0] >= 2) == (b[t0] >= 2)):.6f}")


def test_calibrate_nuggets_against_people(db_url, tmp_path):
    rnd = random.Random(11)
    texts = [f"fact {i}" for i in range(6)]
    people, machine = [], []
    for t in ("t1", "t2", "t3"):
        for r in range(5):
            truth = [rnd.choice(list(LABELS)) for _ in texts]
            guess = [x if rnd.random() < 0.7 else rnd.choice(list(LABELS)) for x in truth]
            for out, labels in ((people, truth), (machine, guess)):
                out.append({"qid": t, "run_id": f"r{r}", "nuggets": [
                    {"text": x, "importance": "vital" if k < 2 else "okay", "assignment": lab}
                    for k, (x, lab) in enumerate(zip(texts, labels))]})
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "p.jsonl", people), "-a", "ann")
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "m.jsonl", machine), "--machine", "--model", "gpt-q")
    got = json.loads(cli_ok(db_url, "calibrate", "--nuggets", "--machine", "gpt-q", "--against", "ann",
                            "--format", "json"))
    h = np.array([LABELS[n["assignment"]] for rec in people for n in rec["nuggets"]])
    m = np.array([LABELS[n["assignment"]] for rec in machine for n in rec["nuggets"]])
    assert got["items"] == h.size
    assert abs(got["non_strict"]["kappa_binary"] - cohen_kappa_score(h >= 1, m >= 1)) < 1e-12
    assert abs(got["strict"]["kappa_binary"] - cohen_kappa_score(h >= 2, m >= 2)) < 1e-12
    assert abs(got["non_strict"]["kappa_weighted"] - cohen_kappa_score(h, m, weights="linear")) < 1e-12
    rk = got["rankings"]
    assert rk["systems"] == 5 and rk["topics"] == 3
    lo, hi = rk["human_vs_machine"]["tau_b_ci"]
    assert lo <= rk["human_vs_machine"]["tau_b"] <= hi
    assert "kappa strict" in cli_ok(db_url, "calibrate", "--nuggets", "--machine", "gpt-q", "--against", "ann")
    # without -m: vital_strict (workbench/defaults.py); `-m map` is no nugget score and is
    # refused, where it used to be taken silently for vital_strict
    assert rk["measure"] == "vital_strict"
    refused = run(db_url, "calibrate", "--nuggets", "--machine", "gpt-q", "--against", "ann", "-m", "map")
    assert refused.exit_code != 0 and "map" in str(refused.exception or refused.output)


def test_a_judge_panel_over_nugget_labels(db_url, tmp_path):
    """`panel:NAME` over machines' nugget labels: each (nugget, run) gets its members'
    majority (ties to the lower label, as grades), computed here; `score --nuggets` under the
    panel equals the score of those labels imported as one assessor's; `hybrid:panel:NAME`
    takes the people's label where they gave one."""
    rnd = random.Random(11)
    texts = {f"t{t}": [f"fact {t}.{i}" for i in range(4)] for t in range(3)}
    by_machine = {m: [] for m in ("m1", "m2", "m3")}
    want = []
    for t, facts in texts.items():
        for r in range(3):
            votes = {m: [rnd.choice(list(LABELS)) for _ in facts] for m in by_machine}
            agreed = []
            for i in range(len(facts)):
                got = [LABELS[votes[m][i]] for m in by_machine]
                top = max(got.count(v) for v in got)
                agreed.append(min(v for v in got if got.count(v) == top))
            names = {v: k for k, v in LABELS.items()}
            for m, out in by_machine.items():
                out.append({"qid": t, "run_id": f"r{r}", "nuggets": [
                    {"text": x, "importance": "vital" if i < 2 else "okay", "assignment": lab}
                    for i, (x, lab) in enumerate(zip(facts, votes[m]))]})
            want.append({"qid": t, "run_id": f"r{r}", "nuggets": [
                {"text": x, "importance": "vital" if i < 2 else "okay", "assignment": names[g]}
                for i, (x, g) in enumerate(zip(facts, agreed))]})
    for m, records in by_machine.items():
        cli_ok(db_url, "import", "assignments", _write(tmp_path / f"{m}.jsonl", records), "-a", m,
               "--machine", "--model", m)
    cli_ok(db_url, "panel", "create", "jury", "--member", "m1", "--member", "m2", "--member", "m3",
           "--aggregate", "majority")
    back = [{k: v for k, v in json.loads(x).items() if k != "query"}  # the topics have no text
            for x in cli_ok(db_url, "export", "assignments", "--source", "panel:jury").splitlines()]
    key = lambda rec: (rec["qid"], rec["run_id"])  # noqa: E731
    assert sorted(back, key=key) == sorted(want, key=key)
    # hybrid:panel:jury: the people's label where they gave one (ann, on t0), the panel's elsewhere
    ann = [{**rec, "nuggets": [{**n, "assignment": "support"} for n in rec["nuggets"]]}
           for rec in want if rec["qid"] == "t0"]
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "ann.jsonl", ann), "-a", "ann")
    hybrid = json.loads(cli_ok(db_url, "score", "--nuggets", "--source", "hybrid:panel:jury",
                               "--format", "json"))
    panel = json.loads(cli_ok(db_url, "score", "--nuggets", "--source", "panel:jury", "--format", "json"))
    mixed = ann + [rec for rec in want if rec["qid"] != "t0"]
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "ref.jsonl", want), "-a", "ref")
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "mix.jsonl", mixed), "-a", "mix")
    ref = json.loads(cli_ok(db_url, "score", "--nuggets", "--source", "assessor:ref", "--format", "json"))
    mix = json.loads(cli_ok(db_url, "score", "--nuggets", "--source", "assessor:mix", "--format", "json"))
    assert panel["systems"] == ref["systems"]
    assert hybrid["systems"] == mix["systems"] != ref["systems"]
    unknown = run(db_url, "score", "--nuggets", "--source", "panel:nobody")
    assert unknown.exit_code == 2 and "unknown panel 'nobody'" in unknown.output
