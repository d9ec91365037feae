"""The campaign's score order (`workbench campaign --compat 9|10`) on every backend: the
stored runs follow it, so score, pool, the adaptive queues, simulate and reusability read
runs as trec_eval 10 (scores compared as doubles, the default) or 9 (floats) orders them."""

from __future__ import annotations

import numpy as np
import pytest

from tests.stored_runs import stored_results
from workbench.campaign.catalog.importing import import_qrels, import_run
from workbench.campaign.pooling.assign import build_pool
from workbench.campaign.scoring.scores import score_campaign
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.settings import campaign_settings, set_score_compat
from workbench.errors import UsageError
from workbench.store.run_arrays import runs_token

# 0.6336937199542163 and 0.6336936930397126 are one float32, two doubles (a neural ranker's scores)
RUN = ("348 Q0 D7800 1 0.6336937199542163 neural\n"
       "348 Q0 FT9-19747 2 0.6336936930397126 neural\n"
       "349 Q0 a 1 2.0 neural\n349 Q0 b 2 1.0 neural\n")
QRELS = "348 0 D7800 0\n348 0 FT9-19747 1\n349 0 a 1\n"


def _campaign(db, tmp_path, name="neural"):
    (tmp_path / "run").write_text(RUN.replace("neural", name))
    (tmp_path / "qrels").write_text(QRELS)
    import_qrels(db, tmp_path / "qrels", assessor="ann")
    import_run(db, tmp_path / "run")


def _first_of_348(db, tag="neural"):
    return [d for q, d, _, _ in stored_results(db, tag) if q == "348"][0]


def test_the_campaign_orders_as_trec_eval_10_then_9_and_back(db, tmp_path):
    _campaign(db, tmp_path)
    assert campaign_settings(db).score_compat == 10
    assert _first_of_348(db) == "D7800"  # the higher double first
    rr = score_campaign(db, ["recip_rank"], QrelsSource.assessor("ann"))
    assert rr.value("neural", "348", "recip_rank") == 0.5  # trec_eval 10's value
    with db.read() as s:
        token = runs_token(s.connection())

    assert set_score_compat(db, 9).score_compat == 9
    assert _first_of_348(db) == "FT9-19747"  # a float tie: docno descending
    rr = score_campaign(db, ["recip_rank"], QrelsSource.assessor("ann"))
    assert rr.value("neural", "348", "recip_rank") == 1.0  # trec_eval 9's value
    with db.read() as s:
        assert runs_token(s.connection()) != token  # a cached copy is not reused

    # a run imported under 9 is stored in 9's order; back to 10, both runs follow
    _campaign_second = tmp_path / "second"
    _campaign_second.mkdir()
    (_campaign_second / "run").write_text(RUN.replace("neural", "other"))
    import_run(db, _campaign_second / "run")
    assert _first_of_348(db, "other") == "FT9-19747"
    set_score_compat(db, 10)
    assert _first_of_348(db) == _first_of_348(db, "other") == "D7800"
    with db.read() as s:
        assert runs_token(s.connection()) != token  # "other" is new


def test_pooling_follows_the_order(db, tmp_path):
    _campaign(db, tmp_path)
    set_score_compat(db, 9)
    build_pool(db, 1)
    from tests.campaign.test_pooling import pool_of

    assert pool_of(db)["348"] == {"FT9-19747": 1}


def test_only_9_or_10(db):
    with pytest.raises(UsageError):
        set_score_compat(db, 8)


def test_the_adaptive_queues_lists_follow_the_order(db, tmp_path):
    """The ranked lists the adaptive methods read (kept per database until a run changes)."""
    from workbench.campaign.pooling.query_lists import lists_by_query
    from workbench.store.run_arrays import id_names
    from workbench.store.models import Document, Query

    _campaign(db, tmp_path)

    def first_of_348():
        with db.read() as s:
            q = {ext: i for i, ext in s.query(Query.id, Query.ext_id).all()}
            lists = lists_by_query(s, cache_key="test-score-order")
            doc = lists[q["348"]][0][0]
            return id_names(s.connection(), Document).of(np.array([doc]))[0].decode()

    assert first_of_348() == "D7800"
    set_score_compat(db, 9)
    assert first_of_348() == "FT9-19747"  # the kept lists were not reused
