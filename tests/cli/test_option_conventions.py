"""One convention for the options a new lead reads in `--help` and the README: `-a` wherever
`--assessor` is, the majority consensus as the default qrels source, `--qrels ... --run ...`
on files, the consensus rules in `score --help`, and the planning commands defaulting to the
campaign's own pool depth and saying what their numbers compare. On the sample campaign."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import cli_ok, run

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
RUNS = [str(EXAMPLES / "runs" / f"{t}.run") for t in ("bm25", "qld", "tfidf")]


@pytest.fixture
def sample(tmp_path) -> str:
    path = tmp_path / "sample.sqlite"
    shutil.copyfile(REPO / "sample_db" / "sample.sqlite", path)
    return str(path)


def test_short_assessor_option_on_score_and_import_qrels(sample, tmp_path):
    long = cli_ok(sample, "score", "-m", "P@5", "--assessor", "alice")
    assert cli_ok(sample, "score", "-m", "P@5", "-a", "alice") == long
    assert "assessor:alice" in long
    qrels = tmp_path / "dora.qrels"
    qrels.write_text("101 0 d014 3\n")
    assert "by 'dora'" in cli_ok(sample, "import", "qrels", str(qrels), "-a", "dora")
    assert cli_ok(sample, "export", "qrels", "-a", "dora") == "101 0 d014 3\n"


def test_export_qrels_defaults_to_the_majority_like_score(sample):
    majority = cli_ok(sample, "export", "qrels", "--consensus", "majority")
    assert majority.count("\n") > 100
    assert cli_ok(sample, "export", "qrels") == majority
    result = run(sample, "export", "qrels", "-a", "alice", "--consensus", "mean")
    assert result.exit_code == 2


def test_help_texts(sample):
    compare = cli_ok(sample, "compare", "--help")
    options = compare[compare.index("Options:"):]
    assert "--qrels FILE [FILE ...]" in options and "--run FILE [FILE ...]" in options
    listing = cli_ok(sample, "list", "--help")
    assert "\\b" not in listing and "\b" not in listing
    lines = [line.strip() for line in listing.splitlines()]
    for kind in ("queries:", "docs:", "runs:", "assessors:", "cant-judge:"):
        assert any(line.startswith(kind) for line in lines), kind
    score = " ".join(cli_ok(sample, "score", "--help").split())
    assert "a tie going to the lower grade" in score and "rounded half up" in score
    judge = " ".join(cli_ok(sample, "judge", "--help").split())
    assert "-a, --assessor NAME" in judge and "[required]" in judge


def test_compare_prints_coverage_first(sample):
    out = cli_ok(sample, "compare", "-m", "P@5")
    assert out.index("Coverage of each qrels source") < out.index("Systems ranked by P@5")


def test_simulate_and_reusability_take_run_like_compare(tmp_path):
    qrels = str(EXAMPLES / "last-year.qrels")
    for command in (("simulate", "--method", "depth", "--budget", "50,100"), ("reusability",)):
        old = cli_ok(str(tmp_path / "unused.sqlite"), *command, "--qrels", qrels, *RUNS)
        new = cli_ok(str(tmp_path / "unused.sqlite"), *command, "--qrels", qrels, "--run", *RUNS)
        assert old == new
        assert "3 runs" in old or "leave-one-out at depth 100" in old


def test_reusability_defaults_to_the_campaign_pool_depth_and_says_what_it_compares(sample):
    out = cli_ok(sample, "reusability").splitlines()
    # the sample was pooled at depth 15
    assert out[0] == ("leave-one-out at depth 15, runs by map: tau_b 0.6667 (full scores "
                      "against left-out scores), largest drop 1 place")
    assert out[1].startswith("rank_loo: the place the left-out score takes among the other "
                             "runs' full scores (1 + those above it)")
    at15 = cli_ok(sample, "reusability", "--depth", "15")
    assert at15 == "\n".join(out) + "\n"


def test_simulate_defaults_to_the_campaign_pool_depth(sample):
    default = cli_ok(sample, "simulate", "--method", "mtf", "--budget", "400")
    assert default == cli_ok(sample, "simulate", "--method", "mtf", "--budget", "400",
                             "--depth", "15")
    assert default != cli_ok(sample, "simulate", "--method", "mtf", "--budget", "400",
                             "--depth", "100")


def test_the_agree_json_example_in_the_docs_is_the_samples(sample):
    """docs/json-outputs.md shows `agree --format json` on the sample: every key the command
    prints (the intervals, `self`, `warnings` included) with its numbers to 4 decimals."""
    import json
    import re

    doc = (REPO / "docs" / "json-outputs.md").read_text(encoding="utf-8")
    section = doc[doc.index("## `workbench agree --format json`"):]
    shown = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    actual = json.loads(cli_ok(sample, "agree", "--format", "json"))

    def rounded(value):
        if isinstance(value, float):
            return round(value, 4)
        if isinstance(value, list):
            return [rounded(v) for v in value]
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        return value

    assert rounded(actual) == shown
