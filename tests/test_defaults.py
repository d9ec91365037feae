"""Each default has one owner (workbench/defaults.py for the settings and
the commands' measures, campaign/scale.py for the scale) and every entry point
really uses it: a new campaign, the settings' fallbacks, `eval`, `compare` on files and
`workbench.compare`, and the scale a screen shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

import workbench
from workbench import defaults
from workbench.cli import cli

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
RUNS = [EX / "runs" / f"{n}.run" for n in ("bm25", "qld", "tfidf")]


def _cli(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_new_campaign_has_the_owners_settings(sqlite_db):
    from workbench.campaign.settings import (CampaignSettings, campaign_measures, campaign_pool_depth,
                                             campaign_settings, campaign_threshold)

    got = campaign_settings(sqlite_db)
    assert (got.default_measures, got.pool_depth, got.relevance_threshold, got.score_compat,
            got.idle_cap_seconds) == ("nDCG@10 AP bpref P@10", 10, 1, 10, 300)
    # the settings' fallbacks (a campaign without its row) are the same values
    assert got == CampaignSettings(name=got.name, guidelines=got.guidelines)
    assert campaign_measures(sqlite_db) == defaults.DEFAULT_MEASURES.split()
    assert campaign_pool_depth(sqlite_db) == defaults.DEFAULT_POOL_DEPTH
    assert campaign_threshold(sqlite_db) == defaults.DEFAULT_THRESHOLD


def test_eval_without_m_is_trec_evals_official_set():
    qrels, run = EX / "bob.qrels", RUNS[0]
    plain = _cli("eval", qrels, run)
    assert plain == _cli("eval", qrels, run, "-m", "official")
    assert [line.split("\t")[0].strip() for line in plain.splitlines()][:3] == ["runid", "num_q", "num_ret"]
    assert dict(workbench.evaluate(qrels, run)) == dict(workbench.evaluate(qrels, run, "official"))


def test_compare_on_files_and_the_api_rank_by_ndcg10():
    out = json.loads(_cli("compare", "--qrels", EX / "bob.qrels", "--run", *RUNS, "--format", "json"))
    assert out["measure"] == "nDCG@10" == defaults.FILES_MEASURE
    given = json.loads(_cli("compare", "--qrels", EX / "bob.qrels", "--run", *RUNS, "-m", "nDCG@10",
                            "--format", "json"))
    assert out == given
    # workbench.compare ranks "as `workbench compare --run` does": the same default (it was map)
    report = workbench.compare({p.stem: p for p in RUNS}, EX / "bob.qrels")
    assert report.to_json()["measure"] == "nDCG@10"
    assert list(report.to_json()["means"].values()) == list(out["means"].values())


def test_the_default_scale_is_the_preset_the_first_migration_writes(sqlite_db):
    from workbench.campaign.scale import DEFAULT_PRESET, default_scale, parse_scale
    from workbench.campaign.judging.assessing import scale

    preset = [(g, label) for g, label, _ in parse_scale(DEFAULT_PRESET)]
    assert preset == [(0, "Not relevant"), (1, "Marginally relevant"), (2, "Relevant"),
                      (3, "Highly relevant")]
    # the migration is history (a literal): it must write the same levels
    text = (ROOT / "migrations" / "versions" / "0001_initial_schema.py").read_text()
    seeded = [(int(g), label) for g, label in re.findall(r'\{"grade": (\d), "label": "([^"]+)"', text)]
    assert seeded == preset
    # a new campaign shows it, and so does a screen on a campaign without scale rows
    assert [(e.grade, e.label) for e in scale(sqlite_db)] == preset
    from workbench.store.models import ScaleLevel

    from workbench.campaign.writing import write_transaction

    with write_transaction(sqlite_db) as s:
        s.query(ScaleLevel).delete()
    assert [(e.grade, e.label) for e in scale(sqlite_db)] == preset
    assert scale(sqlite_db) == default_scale()
